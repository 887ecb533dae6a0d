"""What a person choosing among the skills of a fetched tree is shown of each: its
description, read from its SKILL.md with the discovery path's bounded reader (the head of the
file, never its body); None when the SKILL.md does not load. Text is as found: escape it to
show it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lemon_core.install.select import SKILL_FILE
from lemon_core.manifest.load import load_manifest


def description(tree: Path, candidate: str) -> str | None:
    """The ``description`` of the skill in ``candidate`` (a folder relative to ``tree``)."""
    folder = tree / candidate if candidate else tree
    key = candidate.rsplit("/", 1)[-1] or "skill"
    manifest = load_manifest(folder / SKILL_FILE, key=key).manifest
    return manifest.description if manifest is not None else None


def descriptions(tree: Path, candidates: Sequence[str]) -> dict[str, str | None]:
    """Each candidate's description (see :func:`description`)."""
    return {candidate: description(tree, candidate) for candidate in candidates}


__all__ = ["description", "descriptions"]
