"""The ``builtin`` skill source: the skills shipped inside lemon (:mod:`lemon_core.builtin_skills`).

``builtin:<name>`` installs one of them; ``builtin`` alone is the folder of all of them (the
installer lets the user pick, or ``--all``). Trust ``builtin``: no approval is asked. The
revision is lemon's own version, the upstream hash the bundle hash of the shipped folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback, TrustLevel

PREFIX = "builtin:"
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def _version() -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version("lemon-core")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare tree
        return None


def _description(folder: Path) -> str:
    """The one-line ``description:`` of a shipped SKILL.md (our own files: plain YAML)."""
    from lemon_core.fsio import read_text

    text = read_text(folder / "SKILL.md") or ""
    for line in text.split("\n---", 1)[0].splitlines():
        if line.startswith("description:"):
            return line.partition(":")[2].strip().strip("\"'")
    return ""


class BuiltinSource:
    name = "builtin"
    order = 0
    forms = ("builtin", "builtin:<name>")

    def parse(self, identifier: str) -> SourceRef | None:
        if identifier == "builtin":
            return SourceRef(self.name, identifier, "builtin", "")
        if not identifier.startswith(PREFIX):
            return None
        name = identifier[len(PREFIX):]
        if not _NAME.match(name):
            raise UsageError(f"{identifier!r} is not a built-in skill id: after 'builtin:' comes "
                             "a skill name (lower-case letters, digits and single hyphens)")
        return SourceRef(self.name, identifier, identifier, name)

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        return "builtin"

    def _folder(self, ref: SourceRef) -> Path:
        from lemon_core.builtin_skills import FOLDER, names

        name = ref.name or (ref.subpath or "")
        if not name:
            return FOLDER
        if name not in names():
            raise LemonError(f"no built-in skill named {name!r}; built-in skills: "
                             f"{', '.join(names()) or 'none'}")
        return FOLDER / name

    def fetch(self, ref: SourceRef, dest: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        from lemon_core.builtin_skills import names
        from lemon_core.fsio.copy import copy_tree

        folder = self._folder(ref)
        upstream = None
        if folder.name in names():
            copy_tree(folder, dest)
            upstream = self.upstream_hash(ref, ctx)
        else:  # the folder of every built-in skill: one sub-folder each, nothing else
            dest.mkdir(parents=True, exist_ok=True)
            for name in names():
                copy_tree(folder / name, dest / name)
        if progress is not None:
            progress(1, 1, "copied the built-in skills")
        return FetchResult(revision=_version(), upstream_hash=upstream)

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        from lemon_core.fsio.tree import bundle_hash, scan_tree

        try:
            folder = self._folder(ref)
        except LemonError:
            return None
        return bundle_hash(folder, scan_tree(folder).entries)

    def search(self, query: str, ctx: LemonContext, limit: int) -> list[SearchHit]:
        from lemon_core.builtin_skills import FOLDER, names

        words = query.lower().split()
        hits = []
        for name in names():
            description = _description(FOLDER / name)
            text = f"{name} {description}".lower()
            found = sum(word in text for word in words)
            if found:
                hits.append(SearchHit(PREFIX + name, name, description, self.name,
                                      found / len(words)))
        hits.sort(key=lambda h: (-h.score, h.name))
        return hits[:limit]


@hookimpl
def lemon_register_sources(register):
    register(BuiltinSource())
