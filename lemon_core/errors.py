"""One exception family for everything lemon reports to a user.

Every message says what happened and, where there is one, what to do about it. The CLI prints
``str(error)`` on one line and exits with ``error.exit_code`` (1 for an operation that failed,
2 for invalid arguments); set ``LEMON_DEBUG=1`` to see the traceback as well.
"""

from __future__ import annotations


class LemonError(Exception):
    """Base of every error lemon raises on purpose."""

    exit_code = 1


class UsageError(LemonError):
    """The caller asked for something malformed (an invalid name, a bad option value)."""

    exit_code = 2


class NotFoundError(LemonError):
    """A named thing (a skill, a server, a plugin) does not exist where it was looked for."""


class InvalidSkillError(NotFoundError):
    """A skill folder exists under that key but its SKILL.md failed to load.

    ``diagnostics`` holds what went wrong (``lemon_core.models.Diagnostic`` records), ``path``
    the SKILL.md. It is a :class:`NotFoundError`: no loadable skill has the key.
    """

    def __init__(self, message: str, *, key: str, path: str,
                 diagnostics: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.key = key
        self.path = path
        self.diagnostics = diagnostics


class ConfigError(LemonError):
    """A configuration file is unreadable, malformed or fails validation."""


class ManifestError(LemonError):
    """A SKILL.md could not be read, parsed or validated."""


class PluginError(LemonError):
    """A plugin could not be imported, registered or validated."""


class BusyError(LemonError):
    """Another writer holds the lock on a file, or changed it since it was read."""


class PlantedLinkError(LemonError):
    """A path lemon would write, rename or delete inside a project passes through a symbolic
    link lemon did not make (a cloned repository may plant one to steer the write); nothing was
    changed. ``path`` is the link."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


__all__ = [
    "BusyError",
    "ConfigError",
    "InvalidSkillError",
    "LemonError",
    "ManifestError",
    "NotFoundError",
    "PlantedLinkError",
    "PluginError",
    "UsageError",
]
