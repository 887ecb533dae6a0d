"""How the CLI reads an error's advice: the library's arguments as this command line's flags.

A :class:`~lemon_core.errors.LemonError` carries what to do as parts
(:class:`~lemon_core.errors.Option`, :class:`~lemon_core.errors.Voiced`); ``str(error)`` names
keyword arguments (``pass force=True``), which a person at a terminal cannot pass. Every place
the CLI shows an error's text goes through :func:`said`, so it names flags (``pass --force``).
"""

from __future__ import annotations

from lemon_core.errors import LemonError, Option, Voiced

#: Library argument -> the flag that passes it, where the two are not spelled alike.
FLAGS = {"approver": "--approve"}


def flag(option: Option) -> str:
    """The flag of ``option`` (``discard_edits`` -> ``--discard-edits``), with its metavar."""
    name = FLAGS.get(option.name) or "--" + option.name.replace("_", "-")
    return f"{name} {option.metavar}" if option.metavar else name


def cli_voice(part: Option | Voiced) -> str:
    """The command line's reading of one part of an error's advice."""
    return part.cli if isinstance(part, Voiced) else flag(part)


def said(error: BaseException) -> str:
    """``error``'s text as the CLI shows it (a LemonError's advice in flag names)."""
    return error.render(cli_voice) if isinstance(error, LemonError) else str(error)


__all__ = ["FLAGS", "cli_voice", "flag", "said"]
