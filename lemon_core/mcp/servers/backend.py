"""What both skill servers serve, behind one small interface.

A :class:`SkillBackend` answers the two tools and the resources; :mod:`.app` turns one into an
MCP server. ``lazy-skills-mcp`` (:mod:`.lazy_backend`) and ``lemon skill serve``
(:mod:`.lemon_backend`) each provide one.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from lemon_core.errors import NotFoundError
from lemon_core.mcp.servers.lazy_rank import normalise
from lemon_core.text import escape


@attrs.frozen
class Found:
    """One ``find_skills`` result."""

    name: str
    description: str


@attrs.frozen
class Loaded:
    """One ``load_skill`` result; ``size`` is the SKILL.md's size in bytes."""

    name: str
    content: str
    directory: str
    files: tuple[str, ...]
    size: int


class UnknownSkill(NotFoundError):
    """No served skill has the name; ``close_names`` lists up to three close ones."""

    def __init__(self, name: str, close_names: Sequence[str]) -> None:
        hint = (f"; close names: {', '.join(close_names)}" if close_names
                else "; call find_skills to see the skills served")
        # the name is the caller's: echoed escaped, as a client shows the error to a person
        super().__init__(f"unknown skill '{escape(name[:200])}'{hint}")
        self.name = name
        self.close_names = tuple(close_names)


class SkillBackend(Protocol):
    def names(self) -> Sequence[str]:
        """Every served name (the tool description names some; the index lists all)."""

    def find(self, query: str | None) -> Sequence[Found]:
        """Best first; every skill for an empty query."""

    def load(self, name: str) -> Loaded:
        """The skill's text, folder and other files; raises :class:`UnknownSkill`."""

    def read_file(self, name: str, relative: str) -> str:
        """A file of the skill, read only when inside it; raises :class:`UnknownSkill` or
        :class:`lemon_core.fsio.read.FileProblem`."""

    def described(self) -> Sequence[Found]:
        """Every served skill with its description, by name (``skill://index.json``)."""


class Deferred:
    """A backend built in a background thread, so the server can answer ``initialize``
    while the catalog loads; each method waits for it (and re-raises a failed load).

    With ``start=False`` the build waits for :meth:`start`, or for the first call: the server
    starts it once ``initialize`` is answered (:func:`.app.build_server`), so the build (CPU
    work, under the GIL) does not slow the SDK import and the handshake down.
    """

    def __init__(self, make: Callable[[], Any], *, start: bool = True) -> None:
        self._make = make
        self._backend: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="skills-backend", daemon=True)
        self._started = False
        self._lock = threading.Lock()
        if start:
            self.start()

    def start(self) -> None:
        """Start the build (once; later calls do nothing)."""
        with self._lock:
            if not self._started:
                self._started = True
                self._thread.start()

    def _run(self) -> None:
        try:
            self._backend = self._make()
        except BaseException as exc:  # noqa: BLE001 - handed to the first caller
            self._error = exc

    def get(self) -> Any:
        self.start()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._backend

    def names(self) -> Sequence[str]:
        return self.get().names()

    def find(self, query: str | None) -> Sequence[Found]:
        return self.get().find(query)

    def load(self, name: str) -> Loaded:
        return self.get().load(name)

    def read(self, name: str, **view: Any) -> Any:
        """The wrapped backend's ``read`` (``lemon skill serve``'s ``read_skill``)."""
        return self.get().read(name, **view)

    def read_file(self, name: str, relative: str) -> str:
        return self.get().read_file(name, relative)

    def described(self) -> Sequence[Found]:
        return self.get().described()

    def close(self) -> None:
        if self._started and not self._thread.is_alive() and self._backend is not None:
            self._backend.close()


def close_names(name: str, names: Sequence[str], limit: int = 3) -> list[str]:
    """Up to ``limit`` served names close to ``name``: the same once case and hyphens are
    ignored first, then names containing it, then the closest spellings."""
    wanted = normalise(name)
    same = [n for n in names if normalise(n) == wanted]
    holding = [n for n in names if wanted and wanted in normalise(n) and n not in same]
    spelled = difflib.get_close_matches(name, names, n=limit, cutoff=0.6)
    return list(dict.fromkeys(same + sorted(holding, key=len)[:limit] + spelled))[:limit]


__all__ = ["Deferred", "Found", "Loaded", "SkillBackend", "UnknownSkill", "close_names"]
