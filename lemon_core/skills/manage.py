"""``skill_manage``: an agent records what it learned as a skill, every write audited.

:func:`manage` is the one library call behind the ``skill_manage`` MCP tool of
``lemon skill serve``. Actions: ``create``, ``edit`` (the whole SKILL.md), ``patch`` (``old``
replaced by ``new`` exactly once), ``delete``, ``write_file``/``remove_file`` (a supporting
file under ``references/``, ``templates/``, ``scripts/`` or ``assets/``), ``pin``/``unpin``
(the usage sidecar's ``lifecycle_state``), ``archive``/``restore`` (disabled or enabled in
``skills.json``) and ``report`` (usage rows with stale and archive candidate flags).

Every change of a skill's files is one audited write
(:func:`~lemon_core.install.transaction.commit`): the new bundle is staged whole from the
current files plus the change, checked, linted, audited as an install is, and activated by
rename, or nothing is changed. Only skills in lemon's own root of the scope are touched.
``[skills] write_approval = true`` (:mod:`.manage_config`) makes each mutating action ask the
``approve`` callback; otherwise the agent's call is its own approval. Observers get one
``lemon_skill_written`` per action, accepted or refused, with the call id and never the content.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.approval import ApprovalRefused, Approve, Consent, WriteApproval
from lemon_core.errors import LemonError, UsageError
from lemon_core.install.transaction.models import Origin, StagedBundle, Staging

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.install.targets import Scope
    from lemon_core.install.transaction.steps import Steps
    from lemon_core.plugin_registry import Plugins
    from lemon_core.skills.workspace import Workspace

#: The actions that change a skill's files (each one audited write).
FILE_ACTIONS = ("create", "edit", "patch", "write_file", "remove_file")
MUTATING = (*FILE_ACTIONS, "delete", "pin", "unpin", "archive", "restore")
ACTIONS = (*MUTATING, "report")
MAX_CONTENT = 256 * 1024


@attrs.frozen
class ManageResult:
    """What one ``skill_manage`` action did: ``outcome`` (``written``, ``deleted``,
    ``pinned``, ``unpinned``, ``archived``, ``restored``, ``report``), the skill's folder,
    the audit's verdict and findings of a write, and ``rows`` of a report."""

    action: str
    key: str
    scope: str
    outcome: str
    path: str = ""
    verdict: str = ""
    findings: tuple[Any, ...] = ()
    rows: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "key": self.key, "scope": self.scope,
                               "outcome": self.outcome}
        if self.path:
            out["path"] = self.path
        if self.verdict:
            out["verdict"] = self.verdict
            out["findings"] = [{"rule": getattr(f, "rule", ""),
                                "severity": str(getattr(f, "severity", "")),
                                "message": getattr(f, "message", str(f)),
                                "path": getattr(f, "path", None)}
                               for f in self.findings]
        if self.action == "report":
            out["rows"] = list(self.rows)
        return out


@attrs.frozen
class Authored:
    """The files of a skill as ``skill_manage`` leaves it, staged from memory."""

    key: str
    files: dict[str, bytes]

    @property
    def name(self) -> str:
        return self.key

    def stage(self, tree: Path) -> Staging:
        from lemon_core.fsio.write import atomic_write_bytes

        for relative, data in sorted(self.files.items()):
            path = tree / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, data, mode=0o644)
        return Staging((StagedBundle(tree, "", self.key),),
                       Origin(identifier=f"skill_manage:{self.key}", source="lemon",
                              trust="local", source_kind="agent"))


def describe(request: WriteApproval) -> str:
    """The question a person is asked about a ``skill_manage`` write: the action (or the
    transaction's stage), the skill, the scope, the audit's verdict and the files; never
    their content."""
    from lemon_core.text import escape

    keys = ", ".join(escape(k) for k in request.keys) or escape(request.identifier)
    verdict = f" The security audit says: {escape(request.verdict)}." if request.verdict else ""
    files = (f" Files: {', '.join(escape(f) for f in request.files[:20])}."
             if request.files else "")
    return (f"The agent asks to {escape(request.stage)} the skill {keys} in the "
            f"{escape(request.scope)} scope through skill_manage.{verdict}{files} Allow it?")


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{what} is required and must be text")
    if len(value.encode("utf-8")) > MAX_CONTENT:
        raise UsageError(f"{what} is larger than {MAX_CONTENT} bytes; split it into "
                         f"supporting files")
    return value


def current_files(target: Path, key: str) -> dict[str, bytes]:
    """Every regular file of the installed skill ``key`` (refused when it holds a link or
    anything but files and folders: ``skill_manage`` never rewrites such a skill)."""
    from lemon_core.fsio.read import read_bytes
    from lemon_core.fsio.tree import scan_tree

    if not target.is_dir() or target.is_symlink():
        raise UsageError(f"there is no skill {key!r} in lemon's skills folder of this scope; "
                         f"create it first (action 'create')")
    scan = scan_tree(target)
    odd = [e.path for e in scan.entries if e.kind not in ("file", "dir")] + [
        p.path for p in scan.problems]
    if odd or not scan.complete:
        raise UsageError(f"the skill {key!r} holds {', '.join(odd) or 'too much'}, which "
                         f"skill_manage does not rewrite; change it by hand")
    files = {}
    for entry in scan.files:
        data = read_bytes(target / entry.path, missing_ok=False, beneath=None)
        files[entry.path] = data or b""
    return files


def _new_files(action: str, key: str, target: Path, content: object, old: object,
               new: object, path: object) -> dict[str, bytes]:
    from lemon_core.skills.manage_paths import check_file_path, check_no_link

    if action == "create":
        if target.exists() or target.is_symlink():
            raise UsageError(f"the skill {key!r} already exists in this scope; change it with "
                             f"'edit' or 'patch'")
        files = {"SKILL.md": _text(content, "content (the whole SKILL.md)").encode("utf-8")}
    else:
        files = current_files(target, key)
    if action == "create":
        pass
    elif action == "edit":
        files["SKILL.md"] = _text(content, "content (the whole SKILL.md)").encode("utf-8")
    elif action == "patch":
        before, after = _text(old, "old"), _text(new, "new")
        if not before:
            raise UsageError("old must not be empty: give the exact text to replace")
        text = files.get("SKILL.md", b"").decode("utf-8", errors="strict")
        count = text.count(before)
        if count != 1:
            where = "is not in" if count == 0 else f"occurs {count} times in"
            raise UsageError(f"the text of old {where} {key}'s SKILL.md; give exact text "
                             f"that occurs once (read the skill first)")
        files["SKILL.md"] = text.replace(before, after, 1).encode("utf-8")
    else:
        relative = check_file_path(path)  # type: ignore[arg-type]
        check_no_link(target, relative)
        if action == "write_file":
            files[relative] = _text(content, "content (the file's text)").encode("utf-8")
        elif relative in files:
            del files[relative]
        else:
            raise UsageError(f"the skill {key!r} has no file {relative!r}")
    if action in ("create", "edit", "patch"):
        _same_name(files["SKILL.md"], key)
    return files


def _same_name(data: bytes, key: str) -> None:
    """Refuse a SKILL.md whose ``name`` is not ``key``: the write would land in another
    skill's folder (past the checks made for ``key``, such as a pin)."""
    from lemon_core.manifest.lenient import parse_for_install

    result, _ = parse_for_install(data, key=key, label="SKILL.md")
    name = getattr(result.manifest, "name", None)
    if name is not None and name != key:
        raise UsageError(f"the SKILL.md names the skill {name!r} but the key is {key!r}; "
                         f"write 'name: {key}' in its front matter (or use the key {name!r})")


def _consent(ctx: LemonContext, approve: Approve) -> Consent:
    """Who approves: with ``write_approval`` only a callback (a person) can; otherwise the
    agent's call is the approval (a callback still answers what no call approves in
    advance: discarding a person's edits)."""
    from lemon_core.skills.manage_config import skills_config

    if skills_config(ctx).write_approval:
        if not callable(approve):
            raise ApprovalRefused("skill_manage writes need a person's approval here "
                                  "([skills] write_approval = true in config.toml), and "
                                  "nobody can be asked; nothing was changed")
        return Consent(ask=approve)
    return Consent(ask=approve if callable(approve) else None, in_advance=True)


def manage(action: str, key: str, ctx: LemonContext | None = None, *,
           scope: str = "project", content: str | None = None, old: str | None = None,
           new: str | None = None, path: str | None = None, approve: Approve = None,
           call_id: str | None = None, cwd: str | Path | None = None,
           plugins: Plugins | None = None, workspace: Workspace | None = None,
           steps: Steps | None = None) -> ManageResult:
    """Run one ``skill_manage`` action (see the module) on ``key`` in ``scope``
    (``project``, the default, or ``global``).

    :raises UsageError: an unknown action, a bad argument, a refused path; nothing changed.
    :raises ApprovalRefused: approval was needed and not given.
    :raises LemonError: the audit blocked the bundle (its findings in the message), the skill
        is pinned, or it is not lemon's; nothing changed.

    ``steps``: the transaction's steps (a test or benchmark passes its own).
    """
    from lemon_core.install.targets import check_key, scope_for
    from lemon_core.skills.calls import call_workspace, changed
    from lemon_core.skills.installing import _plugins

    ctx = call_workspace(ctx, cwd, workspace)
    if action not in ACTIONS:
        raise UsageError(f"unknown action {action!r}; the actions are {', '.join(ACTIONS)}")
    if scope not in ("project", "global"):
        raise UsageError(f"unknown scope {scope!r}; use 'project' or 'global'")
    target_scope = scope_for(ctx, local=scope == "project")
    target_scope.guard()
    plugins = _plugins(ctx, plugins, workspace)
    if action == "report":
        return _report(target_scope, key)
    try:
        check_key(key, new=action == "create")
        consent = _consent(ctx, approve)
        return _mutate(action, key, target_scope, ctx, plugins, consent, content, old, new,
                       path, call_id, changed(workspace), steps)
    except _Refused as exc:
        raise exc.cause from None
    except LemonError as exc:
        if not getattr(exc, "_observed", False):
            _notify(plugins, key, action, False, target_scope, call_id, reason=str(exc))
        raise


class _Refused(Exception):
    """A refusal the transaction already told observers about."""

    def __init__(self, cause: LemonError) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _notify(plugins: Plugins, key: str, action: str, accepted: bool, scope: Scope,
            call_id: str | None, path: str | None = None, reason: str | None = None) -> None:
    from lemon_core.protocols import SkillWriteEvent

    plugins.notify_skill_written(SkillWriteEvent(key, action, accepted, scope=scope.name,
                                                 path=path, reason=reason,
                                                 tool_call_id=call_id))


def _mutate(action: str, key: str, scope: Scope, ctx: LemonContext, plugins: Plugins,
            consent: Consent, content: object, old: object, new: object, path: object,
            call_id: str | None, refresh: Any, steps: Steps | None) -> ManageResult:
    from lemon_core.install.transaction import STEPS, WriteRequest, commit
    from lemon_core.skills import manage_state

    target = scope.target(key)
    if action in FILE_ACTIONS:
        # A change is made from the files as they are: two agents' patches of one skill
        # take turns (read, change, commit) so neither is lost. ``create`` reads nothing (a
        # second create of the key is refused by the transaction).
        with _turn(scope, key, action != "create" and target.is_dir()):
            files = _new_files(action, key, target, content, old, new, path)
            request = WriteRequest(scope=scope, action=action, consent=consent,
                                   content=Authored(key, files), replace=action != "create",
                                   names=(key,), refresh=refresh, call_id=call_id)
            try:
                written = commit(request, ctx, plugins, steps or STEPS).written[0]
            except LemonError as exc:
                raise _Refused(exc) from None
        _record(ctx, scope, key, action, call_id)
        return ManageResult(action, key, scope.name, "written", written.path,
                            written.verdict or "pass", tuple(written.findings))
    pinned = manage_state.lifecycle(scope, key) == "pinned"
    if action in ("delete", "archive") and pinned:
        raise LemonError(f"the skill {key!r} is pinned, so it is never {action}d; unpin it "
                         f"first (action 'unpin')")
    if action == "delete":
        request = WriteRequest(scope=scope, action=action, consent=consent, removals=(key,),
                               refresh=refresh, call_id=call_id)
        try:
            written = commit(request, ctx, plugins, steps or STEPS).written[0]
        except LemonError as exc:
            raise _Refused(exc) from None
        _record(ctx, scope, key, action, call_id)
        return ManageResult(action, key, scope.name, "deleted", written.path)
    if not target.is_dir():
        raise UsageError(f"there is no skill {key!r} in lemon's skills folder of this scope")
    consent.require(WriteApproval(
        action, identifier=key, source="skill_manage", trust="local", scope=scope.name,
        keys=(key,), targets=(str(target),)))
    if action in ("archive", "restore"):
        from lemon_core.state.settings import set_enabled

        set_enabled(ctx, key, action == "restore", local=scope.local)
        refresh()
    _record(ctx, scope, key, action, call_id)
    _notify(plugins, key, action, True, scope, call_id, path=str(target))
    outcome = {"pin": "pinned", "unpin": "unpinned", "archive": "archived",
               "restore": "restored"}[action]
    return ManageResult(action, key, scope.name, outcome, str(target))


def _turn(scope: Scope, key: str, wanted: bool) -> AbstractContextManager[None]:
    """The per-skill lock of ``skill_manage``'s read-change-commit (``.skill_manage.<key>``
    beside the skills folder, outside it); nothing when not ``wanted``."""
    if not wanted:
        return contextlib.nullcontext()
    from lemon_core.fsio.write import file_lock

    return file_lock(scope.skills_dir.parent / f".skill_manage.{key}", timeout=30.0,
                     root=scope.root)


def _record(ctx: LemonContext, scope: Scope, key: str, action: str,
            call_id: str | None) -> None:
    """Count an accepted write in the usage sidecar: through engineer M's
    :mod:`lemon_core.skills.usage` (``record_write``: counts, provenance on ``create``, the
    lifecycle state on pin/unpin/archive/restore) when it is installed, else only the
    lifecycle state (:mod:`.manage_state`, the same file and format)."""
    import importlib

    from lemon_core.skills import manage_state

    try:
        usage: Any = importlib.import_module("lemon_core.skills.usage")
    except ImportError:
        usage = None
    if usage is not None and hasattr(usage, "record_write"):
        usage.record_write(ctx, key, scope=scope.name, action=action, tool_call_id=call_id)
        return
    states = {"pin": "pinned", "unpin": "active", "archive": "archived", "restore": "active"}
    if action in states:
        manage_state.set_lifecycle(scope, key, states[action])


def _report(scope: Scope, key: str) -> ManageResult:
    from lemon_core.skills import manage_state

    keys = sorted(p.name for p in scope.skills_dir.iterdir()
                  if p.is_dir() and not p.name.startswith(".")) \
        if scope.skills_dir.is_dir() else []
    rows = manage_state.report_rows(scope, keys)
    if key:
        rows = [r for r in rows if r["key"] == key]
    return ManageResult("report", key, scope.name, "report", str(scope.skills_dir),
                        rows=tuple(rows))


__all__ = ["ACTIONS", "MUTATING", "Authored", "ManageResult", "describe", "manage"]
