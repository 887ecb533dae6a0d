"""Shared output helpers for the CLI: JSON on stdout, aligned tables for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any


def emit_json(data: Any) -> None:
    """Print ``data`` (plain data, no cycles) as JSON with a trailing newline, keys in the
    order given: indented for a terminal, compact for a pipe (where the C encoder makes large
    listings several times faster)."""
    if sys.stdout.isatty():
        text = json.dumps(data, indent=2, ensure_ascii=False)
    else:  # the C encoder's fastest form; non-ASCII text is escaped, which JSON allows
        text = json.JSONEncoder(check_circular=False).encode(data)
    sys.stdout.write(text + "\n")


def table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    """Columns aligned on the widest cell; the last column is not padded."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in [headers, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def one_line(text: str, limit: int = 80) -> str:
    """Collapse white space and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
