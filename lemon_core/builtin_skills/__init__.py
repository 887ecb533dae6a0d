"""The skills shipped inside lemon (package data, one folder per skill).

The ``builtin`` source (``builtin:<name>``) installs them, and the catalog lists them below every
other root (lowest precedence). This module imports nothing of lemon, so both can reach it.
"""

from __future__ import annotations

from pathlib import Path

#: The folder holding one sub-folder per built-in skill.
FOLDER = Path(__file__).resolve().parent


def names() -> list[str]:
    """The built-in skills' keys, sorted (folders holding SKILL.md)."""
    return sorted(p.name for p in FOLDER.iterdir() if (p / "SKILL.md").is_file())


__all__ = ["FOLDER", "names"]
