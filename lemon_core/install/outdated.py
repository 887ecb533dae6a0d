"""Local drift and upstream updates of installed skills (``lemon skill check``/``outdated``).

Drift: the bundle hash of the installed folder now (:func:`lemon_core.fsio.tree.bundle_hash`,
the hash the install recorded) differs from the record's ``bundle_hash``. Upstream: the
source's ``upstream_hash`` for the recorded ref and subdirectory (the same algorithm the
install recorded as ``upstream_hash``, so an unchanged skill is never outdated) differs from
the record's. Each distinct upstream (source kind, canonical id, ref, subdirectory) is asked
once per call, and the sources share one ref listing per repository within the context
(:class:`lemon_core.source_kit.RefCache`), so 100 skills of 5 repositories cost 5 lookups.
A git/gh repository whose commit moved is then fetched once for all its skills and each
skill judged by its own folder (:mod:`lemon_core.install.folder_judge`): a commit that
changed only a README or another skill outdates nothing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import ConfigError, LemonError
from lemon_core.install import router, targets
from lemon_core.state.lockfile import read_lock_records, whole_lock_records

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.state.records import LockRecord


@attrs.frozen
class Installed:
    """One lockfile record and the scope it belongs to."""

    scope: targets.Scope
    record: LockRecord

    @property
    def path(self) -> Path:
        return self.scope.target(self.record.key)


@attrs.frozen
class SkillState:
    """What ``check``/``outdated`` report for one installed skill."""

    key: str
    scope: str
    source: str
    identifier: str | None
    path: str
    recorded_bundle: str | None
    current_bundle: str | None
    recorded_upstream: str | None
    upstream: str | None = None
    error: str | None = None
    #: why the installed folder is no safe bundle now (:func:`installed_bundle`), or None
    problem: str | None = None
    #: the skill folder's tree id recorded at install and upstream now (git sources)
    recorded_tree: str | None = None
    upstream_tree: str | None = None
    #: the skill's own folder judged upstream (:mod:`~lemon_core.install.folder_judge`):
    #: True changed, False unchanged although the repository's commit moved, None not judged
    folder_changed: bool | None = None

    @property
    def missing(self) -> bool:
        return self.current_bundle is None and self.problem is None

    @property
    def drift(self) -> bool:
        return self.current_bundle != self.recorded_bundle

    @property
    def outdated(self) -> bool:
        if self.folder_changed is not None:  # the skill's own folder decides
            return self.folder_changed
        # an upstream that answers the installed bundle's own hash is that bundle
        return self.upstream is not None and self.upstream not in (self.recorded_upstream,
                                                                   self.recorded_bundle)

    @property
    def status(self) -> str:
        if self.missing:
            return "missing"
        if self.problem is not None:
            return "modified"
        if self.drift:
            return "drift"
        if self.outdated:
            return "outdated"
        return "unknown" if self.upstream is None else "current"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "scope": self.scope, "source": self.source,
                "identifier": self.identifier, "path": self.path, "status": self.status,
                "drift": self.drift, "outdated": self.outdated, "missing": self.missing,
                "bundle_hash": self.recorded_bundle, "current_bundle_hash": self.current_bundle,
                "upstream_hash": self.recorded_upstream, "upstream_now": self.upstream,
                "error": self.error, "problem": self.problem, "tree_id": self.recorded_tree,
                "upstream_tree": self.upstream_tree}


@attrs.frozen
class Outdated:
    """Every state; ``lookups`` distinct upstreams asked (ref listings), ``fetches`` the
    repositories fetched to judge skill folders (one per repository whose commit moved)."""

    states: tuple[SkillState, ...]
    lookups: int
    fetches: int = 0


def scopes(ctx: LemonContext, local: bool | None) -> list[targets.Scope]:
    """The scopes to look at: the project's (True), the global (False) or both (None)."""
    from lemon_core.catalog.roots import is_project_dir

    found = []
    if local is not False and is_project_dir(ctx):
        found.append(targets.scope_for(ctx, local=True))
    if local is not True and ctx.usable_agent_dir is not None:
        found.append(targets.scope_for(ctx, local=False))
    return found


def installed(ctx: LemonContext, keys: Sequence[str] = (), local: bool | None = None, *,
              strict: bool = True) -> list[Installed]:
    """The records of ``keys`` (all when empty), the project's copy first when both exist.

    A lockfile that cannot be read whole (a FIFO, too large, not JSON, a merge conflict left
    in it, one malformed record, a key that cannot name a skill folder such as ``../..``)
    fails the call when ``strict``: ``sync --frozen``,
    ``outdated`` and ``update`` speak for every record, so an unreadable one must not pass
    as "no records". ``strict=False`` (``check``'s install entry) reads what it can; the
    catalog already reports the broken file.

    :raises LemonError: a key that has no record.
    :raises ConfigError: when ``strict`` and a lockfile of the scopes cannot be read whole.
    """
    found: list[Installed] = []
    for scope in scopes(ctx, local):
        records = (whole_lock_records(scope.lockfile) if strict
                   else read_lock_records(scope.lockfile)[0])
        for key, record in sorted(records.items()):
            problem = targets.folder_name_problem(key)
            if problem is not None:  # a committed lockfile is input: '../..' is no skill
                if strict:
                    raise ConfigError(f"the record {key!r} of {scope.lockfile} cannot name a "
                                      f"skill folder: it {problem}; fix or remove that "
                                      f"record, then run the command again")
                continue
            if not keys or key in keys:
                found.append(Installed(scope, record))
    if keys:
        first: dict[str, Installed] = {}
        for item in found:
            first.setdefault(item.record.key, item)
        unknown = [k for k in keys if k not in first]
        if unknown:
            raise LemonError(f"no lockfile record for {', '.join(map(repr, unknown))}: only "
                             f"skills lemon installed can be checked, updated or synced "
                             f"('lemon skill list' shows the others)")
        found = [first[k] for k in dict.fromkeys(keys)]
    return found


def current_hash(folder: Path) -> str | None:
    """The bundle hash of the installed ``folder`` now; None when it is missing or unsafe."""
    return installed_bundle(folder)[0]


def installed_bundle(folder: Path) -> tuple[str | None, str | None]:
    """``(bundle hash, problem)`` of the installed ``folder`` now: the one verdict every
    command gives (``check``, ``outdated``, ``sync``). ``(None, None)``: the folder is missing;
    ``(None, problem)``: it is there but no longer a safe bundle, and ``problem`` says why for a
    person (``modified after install: holds a link leading out of the skill (references/x ->
    /etc)``)."""
    from lemon_core.fsio.tree import bundle_hash, scan_tree

    if os.path.islink(folder):
        try:
            target = os.readlink(folder)
        except OSError:
            target = "?"
        return None, f"replaced after install by a link to {target}"
    if not os.path.lexists(folder):
        return None, None
    if not os.path.isdir(folder):
        return None, "replaced after install by something that is not a folder"
    try:
        scan = scan_tree(folder)
        if scan.problems or not scan.complete:
            return None, _problem_text(scan)
        return bundle_hash(folder, scan.entries), None
    except Exception as exc:  # noqa: BLE001 - unreadable now is no bundle, said as such
        return None, f"cannot be read now ({type(exc).__name__})"


def _problem_text(scan: Any) -> str:
    """The first thing that makes the scanned folder no safe bundle, said for a person."""
    first = scan.problems[0] if scan.problems else None
    if first is None:
        return "modified after install: too large to read in full"
    if first.code == "escaping_link":
        entry = next((e for e in scan.entries if e.path == first.path), None)
        target = entry.link_target if entry is not None else "?"
        what = f"holds a link leading out of the skill ({first.path} -> {target})"
    else:
        what = f"{first.path}: {first.message}"
    more = len(scan.problems) - 1
    return f"modified after install: {what}" + (f" (and {more} more)" if more > 0 else "")


def identifier_of(record: LockRecord) -> str:
    """What to re-resolve: a local folder by its absolute path, anything else as typed."""
    if record.source_kind == "local" and record.source_id:
        return record.source_id
    if record.identifier:
        return record.identifier
    if record.source_id:
        return record.source_id
    raise LemonError(f"cannot update {record.key!r}: its record has no resolvable source")


def upstream_ref(record: LockRecord, ctx: LemonContext, plugins: Plugins) -> tuple[Any, Any]:
    """The source and the ref to ask, with the recorded subdirectory (like with like)."""
    source, ref = router.resolve(identifier_of(record), ctx, plugins=plugins)
    return source, attrs.evolve(ref, subpath=record.subdirectory)


def tree_subdir(subdirectory: str | None, ref: Any) -> str:
    """The recorded subdirectory relative to the fetched tree (the ref's own subpath off)."""
    path = subdirectory or ""
    prefix = (ref.subpath or "").strip("/")
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix):].lstrip("/")
    return path


def states(ctx: LemonContext, plugins: Plugins, items: Sequence[Installed], *,
           upstream: bool = True) -> Outdated:
    """The state of every item; each distinct upstream asked once (``lookups`` counts), and
    each repository whose commit moved fetched once to judge its skills' own folders
    (``fetches`` counts; :mod:`~lemon_core.install.folder_judge`)."""
    from lemon_core.install import folder_judge

    answers: dict[tuple[Any, ...], tuple[str | None, str | None]] = {}
    found: list[tuple[str | None, str | None]] = []
    asks: list[folder_judge.Ask | None] = []
    for item in items:
        record = item.record
        answer: tuple[str | None, str | None] = (None, None)
        ask = None
        if upstream:
            try:
                source, ref = upstream_ref(record, ctx, plugins)
                group = (source.name, ref.canonical_id or ref.identifier, ref.revision,
                         ref.subpath)
                if group not in answers:
                    answers[group] = (source.upstream_hash(ref, ctx), None)
                answer = answers[group]
                if answer[0] is not None and answer[0] not in (record.upstream_hash,
                                                               record.bundle_hash):
                    ask = folder_judge.Ask(record, source, ref)
            except Exception as exc:  # noqa: BLE001 - one unreachable upstream is one line
                answer = (None, str(exc) or type(exc).__name__)
        found.append(answer)
        asks.append(ask)
    verdicts, fetches = folder_judge.judge(asks, ctx)
    out = []
    for item, answer, verdict in zip(items, found, verdicts):
        record = item.record
        now, problem = installed_bundle(item.path)
        out.append(SkillState(
            key=record.key, scope=item.scope.name, source=record.source_kind,
            identifier=record.identifier, path=str(item.path),
            recorded_bundle=record.bundle_hash, current_bundle=now,
            recorded_upstream=record.upstream_hash, upstream=answer[0],
            error=answer[1] or verdict.error, problem=problem, recorded_tree=record.tree_id,
            upstream_tree=verdict.tree, folder_changed=verdict.changed))
    return Outdated(tuple(out), len(answers), fetches)


__all__ = ["Installed", "Outdated", "SkillState", "current_hash", "identifier_of", "installed",
           "installed_bundle", "scopes", "states", "tree_subdir", "upstream_ref"]
