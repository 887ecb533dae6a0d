"""The ``local`` skill source: a folder on this machine.

Identifiers are paths: ``/abs``, ``./rel``, ``../rel``, ``~/…`` (and ``.`` or ``..``). The folder
may hold ``SKILL.md`` (one skill) or be a folder of skills (the installer lets the user pick).
:meth:`LocalSource.parse` is pure: it keeps the path as typed; :meth:`LocalSource.bind` turns it
into the absolute path against a context's working directory and home (the canonical id).
The copy (:func:`lemon_core.fsio.copy.copy_tree`) reads through the safe reader, copies links
as links without following them, never copies ``.git`` and refuses FIFOs, devices and hard
links. Trust ``trusted``; the upstream hash is the bundle hash of the folder as it is now.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef
from lemon_core.text import unsafe_reason

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback, TrustLevel

FORMS = ("/abs/path", "./rel/path", "../rel/path", "~/path")


def _looks_local(identifier: str) -> bool:
    return (identifier in (".", "..", "~") or identifier.startswith(("/", "./", "../", "~/")))


def _subpath(value: str) -> str:
    """A relative path inside the folder (the skill a tree install picked)."""
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or any(p in ("", ".", "..") for p in parts) or unsafe_reason(value):
        raise UsageError(f"the subfolder {value!r} must be a relative path without '..' steps")
    return "/".join(parts)


class LocalSource:
    name = "local"
    order = 60
    forms = FORMS

    def parse(self, identifier: str) -> SourceRef | None:
        if not _looks_local(identifier):
            return None
        reason = unsafe_reason(identifier)
        if reason is not None or "\x00" in identifier:
            why = reason[1] if reason else "holds a NUL character"
            raise UsageError(f"the local path {identifier!r} {why}")
        name = os.path.basename(os.path.normpath(identifier))
        return SourceRef(source=self.name, identifier=identifier, canonical_id=None,
                         name="" if name in (".", "..", "~", "/") else name)

    def bind(self, ref: SourceRef, ctx: LemonContext) -> SourceRef:
        """``ref`` with its path made absolute against ``ctx`` (cwd and home): the canonical
        id a lockfile records, and the name of the folder it points at."""
        path = self.path(ref, ctx)
        return attrs.evolve(ref, canonical_id=str(path), name=ref.name or path.name)

    def path(self, ref: SourceRef, ctx: LemonContext) -> Path:
        home_relative = ref.identifier == "~" or ref.identifier.startswith("~/")
        if home_relative and ctx.home_problem is not None:
            raise LemonError(f"cannot expand {ref.identifier!r}: the home directory "
                                 f"{ctx.home} {ctx.home_problem}; give an absolute path")
        return ctx.expand_path(ref.canonical_id or ref.identifier)

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        return "trusted"

    def fetch(self, ref: SourceRef, dest: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        from lemon_core.fsio.copy import CopyRefused, copy_tree

        folder = self._folder(ref, ctx)
        try:
            report = copy_tree(folder, dest)
        except CopyRefused as exc:
            raise LemonError(f"cannot install from {folder}: {exc}") from None
        if progress is not None:
            progress(report.files, report.files, f"copied {report.files} files")
        notes = ("left out the repository data (.git)",) if report.skipped else ()
        return FetchResult(revision=None, notes=notes)

    def _folder(self, ref: SourceRef, ctx: LemonContext) -> Path:
        folder = self.path(ref, ctx)
        if ref.subpath:
            folder = folder / _subpath(ref.subpath)
        if not folder.exists():
            raise LemonError(f"no such folder: {folder}; check the path")
        if not folder.is_dir():
            raise LemonError(f"{folder} is not a folder; give the folder holding SKILL.md")
        return folder

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        from lemon_core.fsio.tree import bundle_hash, scan_tree

        try:
            folder = self._folder(ref, ctx)
        except LemonError:
            return None
        scan = scan_tree(folder)
        if scan.problems:
            return None
        entries = [e for e in scan.entries if e.path != ".git" and not e.path.startswith(".git/")]
        try:
            return bundle_hash(folder, entries)
        except Exception:  # noqa: BLE001 - a file changed under us: no identity now
            return None

    def search(self, query: str, ctx: LemonContext, limit: int) -> list[SearchHit]:
        return []  # a path is not searched for


@hookimpl
def lemon_register_sources(register):
    register(LocalSource())
