"""The one object that carries where lemon runs: cwd, home, environment and platform.

Every path lemon reads or writes (the agent dir, the skill roots, the cache) derives from a
:class:`LemonContext`, never from ``os.environ`` deep inside a module, so tests and embedders can
build one with a fake home and a private environment.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

#: Global skill roots: (root id, environment override, path below home or None for the agent dir).
GLOBAL_SKILL_ROOTS: tuple[tuple[str, str, tuple[str, ...] | None], ...] = (
    ("lemon", "LEMON_AGENT_SKILLS_DIR", None),
    ("agents", "LEMON_HARNESS_SKILLS_DIR", (".agents", "skills")),
    ("omp", "LEMON_OMP_SKILLS_DIR", (".omp", "agent", "skills")),
    ("claude", "LEMON_CLAUDE_SKILLS_DIR", (".claude", "skills")),
    ("codex", "LEMON_CODEX_SKILLS_DIR", (".codex", "skills")),
)

_PLATFORM_NAMES = {"linux": "linux", "darwin": "darwin", "win32": "win32", "cygwin": "win32"}


#: What lemon says when the process's working directory was deleted under it.
CWD_GONE = "the current directory no longer exists; cd to an existing folder or pass --cwd DIR"


def normalise_platform(name: str) -> str:
    """Map a ``sys.platform`` value onto the manifest vocabulary (linux, darwin, win32)."""
    for prefix, canonical in _PLATFORM_NAMES.items():
        if name.startswith(prefix):
            return canonical
    return name


def _absolute(path: str | os.PathLike[str]) -> Path:
    return Path(path).absolute()


def _plain_dict(env: Mapping[str, str]) -> dict[str, str]:
    return dict(env)


@attrs.frozen
class LemonContext:
    """Where and how lemon runs. Build it with :meth:`from_environment` or directly in tests."""

    cwd: Path = attrs.field(converter=_absolute)
    #: As given: a relative home stays relative (and :attr:`home_problem` says so).
    home: Path = attrs.field(converter=Path)
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_plain_dict)
    platform: str = attrs.field(default=normalise_platform(sys.platform))

    @classmethod
    def from_environment(
        cls, cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
    ) -> LemonContext:
        """The context of this process: its environment, ``$HOME`` and working directory."""
        environ = dict(os.environ if env is None else env)
        home = environ.get("HOME") or environ.get("USERPROFILE") or str(Path.home())
        if cwd is None:
            try:
                cwd = Path.cwd()
            except FileNotFoundError:  # the process's folder was deleted under it
                from lemon_core.errors import LemonError

                raise LemonError(CWD_GONE) from None
        return cls(cwd=Path(cwd), home=Path(home), env=environ)

    def evolve(self, **changes: Any) -> LemonContext:
        """A copy with some fields replaced (``ctx.evolve(cwd=other)``)."""
        return attrs.evolve(self, **changes)

    # -- environment ------------------------------------------------------------------------

    def getenv(self, name: str) -> str | None:
        """The variable's value, or None when it is unset or empty."""
        value = self.env.get(name)
        return value if value else None

    def flag(self, name: str) -> bool | None:
        """A boolean variable: True for 1/true/yes/on, False for 0/false/no/off, else None."""
        value = (self.getenv(name) or "").strip().lower()
        if value in {"1", "true", "yes", "on"}:
            return True
        if value in {"0", "false", "no", "off"}:
            return False
        return None

    def expand_path(self, value: str, base: Path | None = None) -> Path:
        """``~`` expands to this context's home; a relative path resolves against ``base``."""
        if value == "~" or value.startswith(("~/", "~\\")):
            path = self.home / value[2:] if len(value) > 1 else self.home
        else:
            path = Path(value)
        if not path.is_absolute():
            path = (base or self.cwd) / path
        return Path(os.path.normpath(path))

    def which(self, program: str) -> str | None:
        """Look ``program`` up on this context's PATH (never the process's, never cached)."""
        return shutil.which(program, path=self.env.get("PATH", ""))

    # -- derived paths ----------------------------------------------------------------------

    @property
    def home_problem(self) -> str | None:
        """Why the home directory cannot be used, or None when it can.

        The home is usable when it is an absolute path to an existing directory. Otherwise
        this is a short reason, without the path (the caller names it: ``ctx.home``):
        "is not an absolute path", "does not exist", "is not a directory" or "cannot be
        inspected: <why>". It is checked afresh on each access (one ``stat``).

        While it is set, nothing below home is read or written: the global skill roots below
        home and the agent dir derived from home are absent (``global_roots`` leaves them out,
        :attr:`usable_agent_dir` is None, so the global ``skills.json`` and
        ``skills.lock.json`` are not read), the persistent cache is not written, and no folder
        is created. Roots and dirs named by ``LEMON_*`` overrides stay in use. The skills
        listing reports it as one ``unusable_home`` diagnostic.
        """
        home = self.home
        if not home.is_absolute():
            return "is not an absolute path"
        try:
            info = os.stat(home)
        except (FileNotFoundError, NotADirectoryError):
            return "does not exist"
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            return f"cannot be inspected: {why}"
        if not stat.S_ISDIR(info.st_mode):
            return "is not a directory"
        return None

    @property
    def agent_dir(self) -> Path:
        """``$LEMON_AGENT_DIR``, else ``~/.lemon/agent`` (see :attr:`usable_agent_dir`)."""
        override = self.getenv("LEMON_AGENT_DIR")
        return self.expand_path(override) if override else self.home / ".lemon" / "agent"

    @property
    def usable_agent_dir(self) -> Path | None:
        """:attr:`agent_dir`, or None when it derives from a home with a :attr:`home_problem`
        (``~/.lemon/agent``, or a ``LEMON_AGENT_DIR`` starting with ``~``)."""
        override = self.getenv("LEMON_AGENT_DIR")
        if (override and not override.startswith("~")) or self.home_problem is None:
            return self.agent_dir
        return None

    @property
    def is_isolated(self) -> bool:
        """True when ``LEMON_AGENT_DIR`` or a ``LEMON_*_SKILLS_DIR`` override is set.

        An isolated runtime reads only the global roots it names, and no other tool's
        user-level files.
        """
        names = ["LEMON_AGENT_DIR", *(override for _, override, _ in GLOBAL_SKILL_ROOTS)]
        return any(self.getenv(name) for name in names)

    @property
    def cache_dir(self) -> Path:
        """``$LEMON_CACHE_DIR``, else the platform's user cache directory plus ``lemon``."""
        override = self.getenv("LEMON_CACHE_DIR")
        if override:
            return self.expand_path(override)
        if self.platform == "darwin":
            return self.home / "Library" / "Caches" / "lemon"
        if self.platform == "win32":
            local = self.getenv("LOCALAPPDATA")
            return (Path(local) if local else self.home / "AppData" / "Local") / "lemon" / "Cache"
        xdg = self.getenv("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else self.home / ".cache"
        return base / "lemon"

    @property
    def project_lemon_dir(self) -> Path:
        """``<cwd>/.lemon``, where project settings and lemon's project files live."""
        return self.cwd / ".lemon"


__all__ = ["GLOBAL_SKILL_ROOTS", "LemonContext", "normalise_platform"]
