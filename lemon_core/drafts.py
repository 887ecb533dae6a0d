"""Drafts: skills that are not yet offered to agents, kept under ``drafts/`` of a scope.

``<agent dir>/drafts/NAME/`` (global) and ``<cwd>/.lemon/drafts/NAME/`` (project) are no
catalog root, so no agent sees a draft. A draft is generated from a name, a description and a
body (:func:`generate_draft`: it passes ``lemon skill lint --standard``, or nothing is kept),
reviewed (:func:`review_draft`: lint, the security audit, and the difference from the skill of
that name in the scope), published through the audited-write transaction exactly as an install
(:func:`publish_draft`: checked, audited, approved, recorded, observed; the draft is removed
once the skill is written) or deleted (:func:`delete_draft`).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import LemonError, NotFoundError, UsageError

DRAFTS_DIR = "drafts"
MAX_DESCRIPTION = 1024
MAX_BODY_BYTES = 512 * 1024


class DraftExists(LemonError):
    """A draft of that name exists; nothing was changed."""


def _base(ctx: Any, local: bool) -> Path:
    return ctx.project_lemon_dir if local else ctx.agent_dir


def _root(ctx: Any, local: bool) -> Path:
    """The folder a draft path is reached beneath without following a link."""
    return ctx.cwd if local else ctx.agent_dir


def drafts_dir(ctx: Any, *, local: bool) -> Path:
    return _base(ctx, local) / DRAFTS_DIR


def _checked_name(name: str) -> str:
    from lemon_core.skills.scaffold import NAME_RULE, name_problem

    problem = name_problem(name)
    if problem:
        raise UsageError(f"'{name}' is not a skill name: {problem}; {NAME_RULE}")
    return name


def draft_path(ctx: Any, name: str, *, local: bool) -> Path:
    return drafts_dir(ctx, local=local) / _checked_name(name)


def _existing(ctx: Any, name: str, local: bool) -> Path:
    from lemon_core.fsio import beneath

    folder = draft_path(ctx, name, local=local)
    if beneath.is_link(_root(ctx, local), folder) or not folder.is_dir():
        where = " --local" if local else ""
        raise NotFoundError(f"no draft named {name!r} in {drafts_dir(ctx, local=local)}; see "
                            f"'lemon skill draft list{where}'")
    return folder


# -- generate -----------------------------------------------------------------------------------

def draft_text(name: str, description: str, body: str | None) -> str:
    """The SKILL.md of a draft: ``name``, ``description`` (one line) and ``body`` (default:
    the outline ``lemon skill new`` writes)."""
    import yaml

    from lemon_core.skills.scaffold import skill_text

    description = " ".join(description.split())
    if not description:
        raise UsageError("a draft needs a description: what the skill does and when to use it "
                         "(--description TEXT)")
    if len(description) > MAX_DESCRIPTION:
        raise UsageError(f"the description is {len(description)} characters long; the "
                         f"standard allows {MAX_DESCRIPTION}")
    if body is None or not body.strip():
        body = skill_text(name).split("---\n", 2)[2]
    front = yaml.safe_dump({"name": name, "description": description}, sort_keys=False,
                           allow_unicode=True, width=10_000)
    return f"---\n{front}---\n\n{body.strip()}\n"


def generate_draft(name: str, description: str, ctx: Any, *, body: str | None = None,
                   local: bool = False, replace: bool = False) -> Path:
    """Write the draft ``name`` (its folder with one SKILL.md) and return its folder.

    :raises UsageError: a bad name or description, or a SKILL.md that fails
        ``lint --standard`` (the errors are named; nothing is kept).
    :raises DraftExists: a draft of that name exists and not ``replace``.
    """
    return save_draft(name, draft_text(_checked_name(name), description, body), ctx,
                      local=local, replace=replace)


def save_draft(name: str, text: str, ctx: Any, *, local: bool = False,
               replace: bool = False) -> Path:
    """Write ``text`` as the SKILL.md of the draft ``name`` (a whole SKILL.md, as
    ``skill_manage`` ``create`` carries under ``write_approval``) and return its folder; it is
    kept only when it passes ``lint --standard``.

    :raises UsageError: a bad name, a text over the size limit, or a lint failure.
    :raises DraftExists: a draft of that name exists and not ``replace``.
    """
    import tempfile

    from lemon_core.fsio import atomic_write_bytes, beneath
    from lemon_core.fsio.write import make_parent
    from lemon_core.lint.runner import lint_paths

    folder = draft_path(ctx, name, local=local)
    if len(text.encode()) > MAX_BODY_BYTES:
        raise UsageError(f"the draft is over {MAX_BODY_BYTES // 1024} KiB; keep a skill short "
                         "and put long material in references/ once it is published")
    root = _root(ctx, local)
    if beneath.lexists(root, folder) and not replace:
        raise DraftExists(f"a draft named {name!r} exists at {folder}; nothing was changed "
                          "(review or delete it, or generate again with --replace)")
    # lint the text before the draft exists: a failing draft is never kept
    with tempfile.TemporaryDirectory(prefix="lemon-draft-") as scratch:
        probe = Path(scratch) / name
        probe.mkdir()
        (probe / "SKILL.md").write_text(text, encoding="utf-8")
        result = lint_paths([probe], standard=True)[0]
    if not result.ok:
        problems = "; ".join(f"{issue.code}: {issue.message}" for issue in result.errors)
        raise UsageError(f"the draft {name!r} would not pass 'lemon skill lint --standard' "
                         f"({problems}); nothing was kept")
    if not local:
        make_parent(folder / "SKILL.md")
    beneath.make_dirs(root, folder)
    atomic_write_bytes(folder / "SKILL.md", text.encode("utf-8"), mode=0o644, root=root)
    return folder


# -- list, review, delete -----------------------------------------------------------------------

@attrs.frozen
class DraftInfo:
    name: str
    path: str
    description: str | None
    exists_as_skill: bool


def _description(folder: Path) -> str | None:
    """The ``description`` of the draft's SKILL.md front matter (None when unreadable)."""
    import yaml

    from lemon_core.fsio import FileProblem, read_bytes

    try:
        data = read_bytes(folder / "SKILL.md", MAX_BODY_BYTES)
    except FileProblem:
        return None
    text = (data or b"").decode("utf-8", "replace")
    if not text.startswith("---\n") or "\n---" not in text[4:]:
        return None
    try:
        front = yaml.safe_load(text[4:text.index("\n---", 4)])
    except yaml.YAMLError:
        return None
    value = front.get("description") if isinstance(front, dict) else None
    return value if isinstance(value, str) else None


def _scope(ctx: Any, local: bool) -> Any:
    from lemon_core.install.targets import scope_for

    return scope_for(ctx, local=local)


def list_drafts(ctx: Any, *, local: bool = False) -> list[DraftInfo]:
    """The drafts of the scope, by name (an entry that is no skill name, no folder or a link
    is left out)."""
    from lemon_core.skills.scaffold import name_problem

    folder = drafts_dir(ctx, local=local)
    if folder.is_symlink() or not folder.is_dir():
        return []
    scope = _scope(ctx, local)
    found = []
    for child in sorted(folder.iterdir()):
        if name_problem(child.name) or child.is_symlink() or not child.is_dir():
            continue
        found.append(DraftInfo(child.name, str(child), _description(child),
                               scope.target(child.name).exists()))
    return found


def review_draft(name: str, ctx: Any, *, local: bool = False) -> dict[str, Any]:
    """Lint (``--standard``), the security audit, and the unified difference of every file
    from the skill ``name`` of the scope (``existing``: None when there is none)."""
    from lemon_core.audit.host import audit_folder
    from lemon_core.audit.render import report_json
    from lemon_core.lint.runner import lint_paths

    folder = _existing(ctx, name, local)
    lint = lint_paths([folder], standard=True)[0]
    report = audit_folder(folder, ctx, key=name)
    target = _scope(ctx, local).target(name)
    existing = target if target.is_dir() and not target.is_symlink() else None
    return {"name": name, "path": str(folder), "lint": lint.to_json(),
            "audit": report_json(report), "verdict": report.verdict,
            "existing": str(existing) if existing else None,
            "diff": _diff(existing, folder) if existing else None}


def _files(folder: Path) -> dict[str, str | None]:
    from lemon_core.fsio import FileProblem, read_bytes
    from lemon_core.fsio.tree import scan_tree

    out: dict[str, str | None] = {}
    for entry in scan_tree(folder).entries:
        if getattr(entry, "kind", "file") != "file":
            continue
        try:
            data = read_bytes(folder / entry.path, MAX_BODY_BYTES)
            out[entry.path] = None if data is None else data.decode("utf-8", "replace")
        except FileProblem:
            out[entry.path] = None
    return out


def _diff(old: Path, new: Path) -> str:
    before, after = _files(old), _files(new)
    chunks: list[str] = []
    for path in sorted(set(before) | set(after)):
        a = (before.get(path) or "").splitlines(keepends=True)
        b = (after.get(path) or "").splitlines(keepends=True)
        chunks += difflib.unified_diff(a, b, f"skill/{path}" if path in before else "/dev/null",
                                       f"draft/{path}" if path in after else "/dev/null")
    return "".join(chunks)


def delete_draft(name: str, ctx: Any, *, local: bool = False) -> Path:
    """Remove the draft ``name`` (its folder); returns where it was."""
    from lemon_core.fsio import beneath

    folder = _existing(ctx, name, local)
    beneath.remove_tree(_root(ctx, local), folder)
    return folder


# -- publish ------------------------------------------------------------------------------------

@attrs.frozen
class DraftContent:
    """A draft as the audited write's content: its folder copied into the staging tree."""

    folder: Path
    key: str

    @property
    def name(self) -> str:
        return self.key

    def stage(self, tree: Path) -> Any:
        from lemon_core.fsio.copy import copy_tree
        from lemon_core.install.transaction import Origin, StagedBundle, Staging

        copy_tree(self.folder, tree)
        return Staging((StagedBundle(tree, "", self.key),),
                       Origin(identifier=f"draft:{self.key}", source="lemon", trust="local",
                              source_kind="draft"))


def publish_draft(name: str, ctx: Any, *, local: bool = False, approve: Any = None,
                  replace: bool = False, plugins: Any = None) -> Any:
    """Make the draft ``name`` a skill of the scope through the audited-write transaction
    (checked, audited, approved as an install: ``approve`` is True, a callback or None) and
    remove the draft; returns the :class:`~lemon_core.install.transaction.WriteResult`.
    ``replace``: an existing skill of that name may be replaced.

    :raises LemonError: a refusal (blocked, not approved, the skill exists...); the draft and
        the skills are unchanged.
    """
    from lemon_core.install.transaction import WriteRequest, commit
    from lemon_core.skills.workspace import Workspace

    folder = _existing(ctx, name, local)
    scope = _scope(ctx, local)
    if not replace and scope.target(name).exists():
        raise UsageError(f"a skill named {name!r} exists at {scope.target(name)}; review the "
                         f"difference ('lemon skill draft review {name}') and publish with "
                         "--replace to replace it")
    if plugins is None:
        plugins = Workspace(ctx).plugins()
    request = WriteRequest(scope=scope, action="publish", consent=approve,
                           content=DraftContent(folder, name), names=(name,),
                           replace=replace)
    result = commit(request, ctx, plugins)
    delete_draft(name, ctx, local=local)
    return result


__all__ = ["DRAFTS_DIR", "DraftContent", "DraftExists", "DraftInfo", "delete_draft",
           "draft_path", "draft_text", "drafts_dir", "generate_draft", "list_drafts",
           "publish_draft", "review_draft", "save_draft"]
