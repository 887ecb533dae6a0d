"""Everything the CLI prints goes through here: JSON on stdout, and text for people, escaped.

Human output and stderr never carry a raw control, bidi or other invisible character: a path,
name or message that came from the filesystem or a config file could otherwise clear the
screen, set the window title or forge a ``lemon: error:`` line. :func:`say` (stdout),
:func:`warn` and :func:`fail` (stderr) and :func:`table` escape with
:func:`lemon_core.text.escape`; :func:`emit_json` prints data exactly. No other CLI module
calls ``print`` or ``typer.echo`` (``tests/cli/test_escaping.py`` scans for it).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn, TextIO

from lemon_core.text import escape

_LAYOUT_SPACE = re.compile("[ \t\n]+")


class Escaped(str):
    """Text already made safe for a terminal (by :func:`table` or :func:`escaped`);
    :func:`say` prints it as it is. Concatenating it gives a plain ``str`` again."""

    __slots__ = ()


def escaped(value: object) -> Escaped:
    """``value`` escaped once, marked so that :func:`say` does not escape it again."""
    return value if isinstance(value, Escaped) else Escaped(escape(value))


def _write(stream: TextIO, text: str) -> None:
    stream.write(text + "\n")


def say(*lines: object, err: bool = False) -> None:
    """Print each argument as one line on stdout (``err``: stderr), escaped (a newline inside
    one is shown as ``\\x0a``: one argument is one line)."""
    _write(sys.stderr if err else sys.stdout, "\n".join(escaped(line) for line in lines))


def say_lines(lines: Iterable[object]) -> None:
    """:func:`say` for a list of lines."""
    say(*lines)


def _message(text: object) -> str:
    """One line for stderr: the message's own spacing collapsed, everything else escaped."""
    if isinstance(text, Escaped):
        return str(text)
    return escape(_LAYOUT_SPACE.sub(" ", str(text)).strip())


def warn(message: object, label: str | None = "warning") -> None:
    """``lemon: LABEL: MESSAGE`` on stderr, escaped (``label=None``: ``lemon: MESSAGE``)."""
    prefix = f"lemon: {label}: " if label else "lemon: "
    _write(sys.stderr, prefix + _message(message))


def fail(message: object, code: int) -> NoReturn:
    """The one-line error of a failed command (``lemon: MESSAGE``), then exit ``code``."""
    warn(message, label=None)
    sys.exit(code)


def diagnostic(d: Any) -> None:
    """A :class:`~lemon_core.models.Diagnostic` on stderr:
    ``lemon: SEVERITY: PATH: MESSAGE [CODE]``."""
    warn(f"{d.path}: {d.message} [{d.code}]", label=d.severity)


def ask(question: object) -> str:
    """Ask on stderr (escaped, no newline) and read one line of the answer from stdin ("" at
    the end of input). Nothing goes to stdout, so ``--json`` output stays one document."""
    sys.stderr.write(escaped(question) + " ")
    sys.stderr.flush()
    return sys.stdin.readline().strip()


def emit_json(data: Any) -> None:
    """Print ``data`` (plain data, no cycles) as JSON with a trailing newline, keys in the
    order given: indented for a terminal, compact for a pipe (where the C encoder makes large
    listings several times faster). Strings stay exact (JSON escapes control characters)."""
    if sys.stdout.isatty():
        text = json.dumps(data, indent=2, ensure_ascii=False)
    else:  # the C encoder's fastest form; non-ASCII text is escaped, which JSON allows
        text = json.JSONEncoder(check_circular=False).encode(data)
    sys.stdout.write(text + "\n")


def table(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> Escaped:
    """Columns aligned on the widest cell, every cell escaped first (so widths are those
    shown); the last column is not padded. Print it with :func:`say`."""
    cells_of = [[escaped(cell) for cell in row] for row in [headers, *rows]]
    widths = [0] * len(headers)
    for row in cells_of:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in cells_of:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return Escaped("\n".join(lines))


def one_line(text: str, limit: int = 80) -> str:
    """Collapse white space and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["Escaped", "ask", "diagnostic", "emit_json", "escaped", "fail", "one_line", "say",
           "say_lines", "table", "warn"]
