"""The :class:`~lemon_core.mcp.servers.backend.SkillBackend` of ``lazy-skills-mcp``.

It serves the skills of :mod:`.lazy_catalog` and ranks them with :mod:`.lazy_rank`. A change on
disk is seen at the next tool call without a restart and without rescanning on every call
(:mod:`.freshness`). What it returns is raw; :mod:`.app` defangs every text it serves. Warnings are passed to ``log`` once each (stderr in the console script).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import attrs

from lemon_core.fsio.inside import read_inside_bytes
from lemon_core.fsio.listing import skill_files
from lemon_core.fsio.read import MAX_FILE_BYTES, FileProblem, decode_utf8
from lemon_core.mcp.servers.backend import Found, Loaded, UnknownSkill, close_names
from lemon_core.mcp.servers.freshness import Freshness
from lemon_core.mcp.servers.lazy_catalog import LazyScan, ServedSkill, scan_sources
from lemon_core.mcp.servers.lazy_rank import LazyIndex


@attrs.frozen
class _State:
    scan: LazyScan
    by_name: dict[str, ServedSkill]
    index: LazyIndex

    def unchanged(self) -> bool:
        return self.scan.unchanged()


def read_skill_text(directory: str, relative: str = "SKILL.md") -> tuple[str, int]:
    """A skill file's text and size in bytes, read only when inside the skill folder."""
    data = read_inside_bytes(directory, relative, MAX_FILE_BYTES)
    if data is None:
        raise FileProblem("read", "does not exist", "missing")
    return decode_utf8(data), len(data)


class LazyBackend:
    def __init__(self, sources: Sequence[str], skip_dirs: Sequence[str] = (), *,
                 log: Callable[[str], None] = lambda message: None, watch: bool = True,
                 first: LazyScan | None = None, logged: Iterable[str] | None = None) -> None:
        """``first``: a scan already made; ``logged``: the warnings already shown (default:
        all of ``first``'s)."""
        self.sources = tuple(sources)
        self.skip_dirs = tuple(skip_dirs)
        self._log = log
        if logged is None:
            logged = first.warnings if first is not None else ()
        self._logged: set[str] = set(logged)
        self._first = first
        self._fresh: Freshness[_State] = Freshness(self._build, lambda s: s.scan.folders,
                                                   watch=watch)

    def _build(self, previous: _State | None) -> _State:
        if previous is None and self._first is not None:
            scan, self._first = self._first, None
        else:
            scan = scan_sources(self.sources, self.skip_dirs,
                                previous=previous.scan if previous else None)
        for message in scan.warnings + scan.fatal:
            if message not in self._logged:
                self._logged.add(message)
                self._log(message)
        skills = scan.skills
        index = LazyIndex([s.name for s in skills], [s.description for s in skills])
        return _State(scan, scan.by_name(), index)

    @property
    def scan(self) -> LazyScan:
        return self._fresh.current().scan

    @property
    def watching(self) -> bool:
        return self._fresh.watching

    def names(self) -> list[str]:
        return sorted(self._fresh.current().by_name)

    def find(self, query: str | None) -> list[Found]:
        state = self._fresh.current()
        skills = state.scan.skills
        limit = None if not (query or "").strip() else 10
        return [Found(skills[i].name, skills[i].description)
                for i in state.index.search(query, limit)]

    def _skill(self, name: str) -> ServedSkill:
        state = self._fresh.current()
        skill = state.by_name.get(name)
        if skill is None:
            raise UnknownSkill(name, close_names(name, list(state.by_name)))
        return skill

    def load(self, name: str) -> Loaded:
        skill = self._skill(name)
        content, size = read_skill_text(skill.directory)
        return Loaded(skill.name, content, skill.directory, skill_files(skill.directory),
                      size)

    def read_file(self, name: str, relative: str) -> str:
        return read_skill_text(self._skill(name).directory, relative)[0]

    def described(self) -> list[Found]:
        skills = self._fresh.current().by_name
        return [Found(n, skills[n].description) for n in sorted(skills)]

    def close(self) -> None:
        self._fresh.close()


__all__ = ["LazyBackend", "read_skill_text"]
