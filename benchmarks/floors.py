"""The floors: the least work any discovery must do on a corpus, timed in plain Python.

Each floor is a tight loop with no lemon code in it, measured on the same roots lemon reads:

* **walk** — find every SKILL.md: ``os.scandir`` of each root and group folder (hidden names
  skipped); a child folder is a skill when ``os.stat(child/SKILL.md)`` succeeds, and a skill
  folder is not listed or searched further. (This is lemon's layout rule with nothing else.)
* **head-read** — read the first 4 KiB of every SKILL.md found (``os.open``/``os.read``).
* **parse** — from those heads: decode UTF-8, cut the frontmatter out between its delimiters and
  load it with PyYAML's C loader (``yaml.load(text, Loader=yaml.CSafeLoader)``) or ``tomllib``.
  Failures are counted, not raised. No validation, no objects built.
* **stat-walk** — what an identity check must stat at the least, from lists built beforehand:
  every root (existing or not: a root may appear), every group folder (its listing decides which
  skills exist) and every SKILL.md. Skill folders themselves are not stat'ed: a change to one is
  either a change to its SKILL.md or irrelevant.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Sequence
from statistics import median
from typing import Any, TypeVar

import attrs

HEAD_BYTES = 4096
SKILL_FILE = "SKILL.md"
T = TypeVar("T")

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as _toml  # type: ignore[no-redef]


@attrs.frozen
class WalkFloorResult:
    """What the walk floor found: SKILL.md paths, and the folders whose listing mattered."""

    skill_files: tuple[str, ...]
    folders: tuple[str, ...]


def walk_floor(roots: Sequence[str]) -> WalkFloorResult:
    """Find every SKILL.md below ``roots`` (see the module docstring)."""
    skills: list[str] = []
    folders: list[str] = []
    pending = list(reversed(roots))
    while pending:
        folder = pending.pop()
        try:
            listing = os.scandir(folder)
        except OSError:
            continue
        folders.append(folder)
        with listing:
            for entry in listing:
                if entry.name[0] == "." or not entry.is_dir():
                    continue
                candidate = os.path.join(entry.path, SKILL_FILE)
                try:
                    os.stat(candidate)
                except OSError:
                    pending.append(entry.path)
                else:
                    skills.append(candidate)
    return WalkFloorResult(tuple(skills), tuple(folders))


def head_read_floor(paths: Sequence[str]) -> list[bytes]:
    """The first :data:`HEAD_BYTES` of every file."""
    heads = []
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            heads.append(os.read(fd, HEAD_BYTES))
        finally:
            os.close(fd)
    return heads


def _load(head: bytes, yaml_load: Callable[[str], Any]) -> Any:
    text = head.decode("utf-8").removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if text.startswith("---\n"):
        end = text.index("\n---", 3)
        return yaml_load(text[4:end + 1])
    if text.startswith("+++\n"):
        end = text.index("\n+++", 3)
        return _toml.loads(text[4:end + 1])
    return None


def parse_floor(heads: Sequence[bytes]) -> tuple[int, int]:
    """Load every frontmatter in ``heads``; returns (loaded, failed)."""
    import yaml

    loader = yaml.CSafeLoader

    def yaml_load(text: str) -> Any:
        return yaml.load(text, Loader=loader)

    loaded = failed = 0
    for head in heads:
        try:
            _load(head, yaml_load)
        except Exception:  # noqa: BLE001 - a floor counts failures, whatever they are
            failed += 1
        else:
            loaded += 1
    return loaded, failed


def stat_targets(roots: Sequence[str], walked: WalkFloorResult) -> list[str]:
    """Every root, every group folder and every SKILL.md (see the module docstring)."""
    root_set = set(roots)
    return [*roots, *(f for f in walked.folders if f not in root_set), *walked.skill_files]


def stat_walk_floor(paths: Sequence[str]) -> int:
    """Stat every path; returns how many exist."""
    existing = 0
    for path in paths:
        try:
            os.stat(path)
        except OSError:
            continue
        existing += 1
    return existing


def timed(func: Callable[[], T], repeat: int) -> tuple[float, T]:
    """The median wall time of ``repeat`` calls, in milliseconds, and the last result.

    Before each call, untimed: the previous result is dropped and ``gc.collect()`` runs, so
    every call starts from the same heap (the garbage collector stays on while timing).
    """
    times: list[float] = []
    result: Any = None
    for _ in range(max(1, repeat)):
        result = None
        gc.collect()
        started = time.perf_counter()
        result = func()
        times.append((time.perf_counter() - started) * 1000)
    return median(times), result


__all__ = ["HEAD_BYTES", "WalkFloorResult", "head_read_floor", "median", "parse_floor",
           "stat_targets", "stat_walk_floor", "timed", "walk_floor"]
