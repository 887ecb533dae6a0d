"""The typed blueprint: what ``blueprint.toml`` (version 1) says, once parsed and checked."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import ConfigError, LemonError

#: The scopes a profile may set.
SCOPES = ("project", "global")


class BlueprintError(ConfigError):
    """The bundle or its ``blueprint.toml`` is not one lemon can use; ``problems`` lists every
    problem found (one line each, names escaped)."""

    def __init__(self, where: str, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(f"{where}: " + "; ".join(problems) + " (fix the blueprint and run "
                         "'lemon blueprint preview' again)")


class StaleDigest(LemonError):
    """``apply --digest D``: the bundle (or what it resolves to) changed since D was shown."""

    def __init__(self, given: str, fresh: str) -> None:
        self.given, self.fresh = given, fresh
        super().__init__(f"the blueprint changed since its preview: digest {fresh} is not the "
                         f"{given} given; nothing was written. Review it with 'lemon blueprint "
                         f"preview' and apply with --digest {fresh}")


@attrs.frozen
class SkillEntry:
    """One ``[[skills]]`` table: an install identifier (a ``./path`` inside the bundle, or
    any identifier ``lemon skill install`` takes), the skills to take from its tree (none:
    all of them) and the ``name`` a profile selects it by (default: its ``source``)."""

    source: str
    skills: tuple[str, ...] = ()
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.source


@attrs.frozen
class Profile:
    """``[profiles.NAME]``: the skills (labels) and servers (names) it selects (None: all)
    and the scope it writes to."""

    name: str
    skills: tuple[str, ...] | None = None
    servers: tuple[str, ...] | None = None
    scope: str = "project"


@attrs.frozen
class BundleFile:
    """One file the bundle ships: its path relative to the bundle (POSIX), size, sha256."""

    path: str
    size: int
    sha256: str


@attrs.frozen
class Blueprint:
    """A parsed bundle: its id, folder, manifest fields, and every file it ships (sorted)."""

    id: str
    root: Path
    name: str
    description: str
    skills: tuple[SkillEntry, ...]
    servers: tuple[Mapping[str, Any], ...]
    profiles: Mapping[str, Profile]
    files: tuple[BundleFile, ...]

    def profile(self, name: str | None) -> Profile:
        """The profile ``name``; None: ``default`` when defined, else everything, in the
        project. An unknown name is a :class:`~lemon_core.errors.UsageError`."""
        from lemon_core.errors import UsageError
        from lemon_core.text import escape

        if name is None:
            return self.profiles.get("default", Profile("default"))
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise UsageError(f"the blueprint {escape(self.id)} has no profile {escape(name)} "
                             f"(its profiles: {known})")
        return self.profiles[name]


__all__ = ["SCOPES", "Blueprint", "BlueprintError", "BundleFile", "Profile", "SkillEntry",
           "StaleDigest"]
