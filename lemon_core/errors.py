"""One exception family for everything lemon reports to a user.

Every message says what happened and, where there is one, what to do about it. The CLI prints
``str(error)`` on one line and exits with ``error.exit_code`` (1 for an operation that failed,
2 for invalid arguments); set ``LEMON_DEBUG=1`` to see the traceback as well.

What to do about an error often means passing an argument: ``force=True`` to the library call,
``--force`` on the command line. Such advice is data, not text: an error carries its
:attr:`LemonError.advice` as parts, where an :class:`Option` names an argument of the call that
failed and a :class:`Voiced` phrase reads differently to a program and to a person at a
terminal. ``str(error)`` renders the library's voice (``pass force=True``); the CLI renders the
same parts with its own flag names (``pass --force``), so neither reads the other's words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


class Option:
    """An argument of the library call that failed, named in an error's advice: the library
    reads it as ``name=value`` (``name=METAVAR`` when the value is the caller's to choose),
    the CLI as the flag it maps the argument to."""

    __slots__ = ("metavar", "name", "value")

    def __init__(self, name: str, value: object = True, *, metavar: str | None = None) -> None:
        self.name = name
        self.value = value
        self.metavar = metavar

    def __repr__(self) -> str:
        return f"Option({self.name!r}, {self.value!r}, metavar={self.metavar!r})"


class Voiced:
    """A phrase of an error's advice that reads differently to a program (``library``: "an
    approval callback") and on the command line (``cli``: "run it in a terminal to be
    asked"); either may be empty."""

    __slots__ = ("cli", "library")

    def __init__(self, library: str, cli: str) -> None:
        self.library = library
        self.cli = cli

    def __repr__(self) -> str:
        return f"Voiced({self.library!r}, {self.cli!r})"


#: One part of an error's advice.
AdvicePart = str | Option | Voiced
#: How one voice reads an :class:`Option` or a :class:`Voiced` phrase.
Voice = Callable[[Option | Voiced], str]


def library_voice(part: Option | Voiced) -> str:
    """The library's reading: an option as the keyword argument to pass."""
    if isinstance(part, Voiced):
        return part.library
    return f"{part.name}={part.metavar or repr(part.value)}"


class LemonError(Exception):
    """Base of every error lemon raises on purpose.

    ``advice`` (keyword only): what to do, as parts joined after the message with "; "
    (see the module docstring); :meth:`render` reads them in a given voice, ``str()`` in the
    library's.
    """

    exit_code = 1
    advice: tuple[AdvicePart, ...] = ()

    def __init__(self, *args: object, advice: Iterable[AdvicePart] = ()) -> None:
        super().__init__(*args)
        self.advice = tuple(advice)

    @property
    def what(self) -> str:
        """What happened, without the advice."""
        return super().__str__()

    def render(self, voice: Voice) -> str:
        """The message and its advice, each option and phrase read by ``voice``."""
        if not self.advice:
            return self.what
        said = "".join(part if isinstance(part, str) else voice(part) for part in self.advice)
        return f"{self.what}; {said}"

    def __str__(self) -> str:
        return self.render(library_voice)


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
    "AdvicePart",
    "BusyError",
    "ConfigError",
    "InvalidSkillError",
    "LemonError",
    "ManifestError",
    "NotFoundError",
    "Option",
    "PlantedLinkError",
    "PluginError",
    "UsageError",
    "Voice",
    "Voiced",
    "library_voice",
]
