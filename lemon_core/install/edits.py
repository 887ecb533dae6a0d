"""Local edits: the files of an installed skill that changed since lemon installed it.

Replacing a recorded skill (``--force``, ``update``, ``sync``) discards whatever a person
changed in its folder. :func:`local_edits` compares the folder with its lockfile record: each
path's hash (``file_hashes``) when the record has them, else only the bundle hash (records
written before lemon kept per-file hashes: the edit is known, the files are not).
:func:`guard` asks before anything edited is discarded: approval stage ``discard``, asked even
when everything else was approved in advance; ``approve=True`` (``--approve``) is refused
unless ``discard_edits`` says so explicitly (``--discard-edits``), so a script never loses a
person's work without the word for it.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from lemon_core.approval import ApprovalRefused, Consent, WriteApproval
from lemon_core.errors import LemonError, Option, Voiced
from lemon_core.fsio.read import FileProblem
from lemon_core.fsio.tree import bundle_hash, scan_tree
from lemon_core.state.records import LockRecord

MAX_NAMED = 20


class EditsWouldBeLost(ApprovalRefused):
    """Replacing the skill would discard local edits and that was not approved explicitly."""


@attrs.frozen
class LocalEdits:
    """``changed``/``added``/``removed`` paths; ``unnamed``: the folder differs from the
    record but the record has no per-file hashes to say where; ``seen``: the folder's bundle
    hash when it was checked (None: not readable whole), compared again under the lock."""

    key: str
    target: str
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unnamed: bool = False
    seen: str | None = None

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed or self.unnamed)

    @property
    def paths(self) -> tuple[str, ...]:
        return (*self.changed, *self.added, *self.removed)

    def summary(self) -> str:
        if self.unnamed and not self.paths:
            return (f"the files of {self.key} changed since lemon installed them (its record "
                    f"predates per-file hashes, so lemon cannot say which)")
        parts = []
        for label, paths in (("edited", self.changed), ("added", self.added),
                             ("removed", self.removed)):
            if paths:
                shown = ", ".join(paths[:MAX_NAMED])
                more = f" and {len(paths) - MAX_NAMED} more" if len(paths) > MAX_NAMED else ""
                parts.append(f"{label} {shown}{more}")
        return f"local edits to {self.key} since lemon installed it: " + "; ".join(parts)


def current_hashes(folder: Path) -> tuple[str | None, dict[str, str]]:
    """The folder's bundle hash and per-path hashes now (None: it cannot be read whole)."""
    scan = scan_tree(folder)
    digests: dict[str, str] = {}
    if scan.problems or not scan.complete:
        return None, {e.path: "?" for e in scan.entries if e.kind in ("file", "symlink")}
    try:
        return bundle_hash(folder, scan.entries, digests=digests), digests
    except FileProblem:
        return None, digests


def local_edits(target: Path, record: LockRecord) -> LocalEdits:
    """What changed in ``target`` since ``record`` was written (falsy: nothing)."""
    whole, now = current_hashes(target)
    if whole is not None and whole == record.bundle_hash:
        return LocalEdits(record.key, str(target), seen=whole)
    before = record.file_hashes
    if before is None:
        return LocalEdits(record.key, str(target), unnamed=record.bundle_hash is not None,
                          seen=whole)
    return LocalEdits(
        record.key, str(target), seen=whole,
        changed=tuple(sorted(p for p in now.keys() & before.keys() if now[p] != before[p])),
        added=tuple(sorted(now.keys() - before.keys())),
        removed=tuple(sorted(before.keys() - now.keys())),
        unnamed=whole is None)


def unchanged_since(edits: LocalEdits, target: Path) -> None:
    """Refuse when ``target`` changed after it was checked (someone edited it while lemon was
    asking): what was approved is no longer what would be discarded. A folder that could not
    be read whole when checked (``seen`` None) was approved as such and is not compared."""
    if edits.seen is not None and current_hashes(target)[0] != edits.seen:
        raise LemonError(f"the files of {edits.key!r} in {target} changed while lemon was "
                         f"asking; nothing was changed, run the command again")


def guard(edits: list[LocalEdits], request: WriteApproval, consent: Consent,
          discard_edits: bool, verb: str = "replacing") -> None:
    """Return when discarding ``edits`` is allowed; else raise saying which files (``verb``:
    what would discard them, "replacing" or "removing")."""
    found = [e for e in edits if e]
    if not found or discard_edits:
        return
    lines = tuple(e.summary() for e in found)
    keys = ", ".join(e.key for e in found)
    if consent.ask is not None:
        asked = attrs.evolve(request, stage="discard", keys=tuple(e.key for e in found),
                             targets=tuple(e.target for e in found),
                             files=tuple(p for e in found for p in e.paths),
                             notes=(*lines, *request.notes))
        if consent.ask(asked):
            return
        raise EditsWouldBeLost(f"{'; '.join(lines)}; discarding them was not approved, so "
                               f"nothing was changed")
    raise refused_in_advance(lines, keys, verb)


def refused_in_advance(lines: tuple[str, ...], keys: str,
                       verb: str = "replacing") -> EditsWouldBeLost:
    """The error for edits that an approval given in advance (``approve=True``) would lose."""
    return EditsWouldBeLost(
        f"{'; '.join(lines)}; {verb} {keys} would discard them, so nothing was changed",
        advice=("copy what you want to keep elsewhere, then pass ", Option("discard_edits"),
                ", or ", Voiced("pass an approval callback to be asked",
                                "run the command in a terminal to be asked")))


__all__ = ["EditsWouldBeLost", "LocalEdits", "current_hashes", "guard", "local_edits",
           "refused_in_advance", "unchanged_since"]
