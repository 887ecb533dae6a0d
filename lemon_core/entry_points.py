"""The installed entry points of some groups, read straight from the ``*.dist-info`` folders.

``importlib.metadata.entry_points()`` costs every lemon command that loads plugins about 10 ms
of CPU (5-7 ms to import it, then a scan that builds a ``Distribution`` and an email-parsed
``METADATA`` for each match). What lemon needs is small: for each distribution on ``sys.path``,
its ``entry_points.txt``, and the name and version at the top of its ``METADATA``, for the
few that declare lemon's groups. :func:`entry_points` reads exactly that, in
``importlib.metadata``'s rules (the first distribution of a normalised name on ``sys.path``
wins; ``entry_points.txt`` is INI-like, ``#`` comments, ``name = value``).

Where the layout is not plain folders it leaves the work to ``importlib.metadata``: a zip
file or egg on ``sys.path``, or another finder on ``sys.meta_path`` that finds distributions.
``tests/test_entry_points.py`` compares both on the test environment.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

#: Metadata files are small; anything past this is not read.
MAX_METADATA_BYTES = 1024 * 1024
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@attrs.frozen
class EntryPoint:
    """One entry point: ``name = value`` in ``group`` of distribution ``distribution``
    (``version``); :meth:`load` imports what ``value`` names (``module:attr.attr``)."""

    name: str
    value: str
    group: str
    distribution: str | None = None
    version: str | None = None

    def load(self) -> object:
        found = _VALUE.match(self.value)
        if found is None:
            raise ValueError(f"entry point {self.name!r} has a malformed value {self.value!r}")
        module = importlib.import_module(found.group("module"))
        attrs_ = (found.group("attr") or "").split(".")
        return functools.reduce(getattr, [a for a in attrs_ if a], module)


def _normalised(name: str) -> str:
    """The name ``importlib.metadata`` files a distribution folder under."""
    return re.sub(r"[-_.]+", "_", name).lower()


def plain_layout() -> bool:
    """Whether every distribution is a folder on ``sys.path`` (no zip, egg or other finder)."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not PathFinder:
            return False
    return not any(os.path.isfile(entry) or entry.endswith(".egg") for entry in sys.path)


def _distributions() -> Iterator[Path]:
    """Every metadata folder on ``sys.path``, the first of each normalised name only."""
    seen: set[str] = set()
    for entry in sys.path:
        base = Path(entry or ".")
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            low = name.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            key = _normalised(low.rpartition(".")[0].partition("-")[0])
            if key in seen:
                continue
            seen.add(key)
            yield base / name


def _read(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.read(MAX_METADATA_BYTES)
    except OSError:
        return None


def _sections(text: str) -> Iterator[tuple[str, str, str]]:
    """``(group, name, value)`` of an ``entry_points.txt``."""
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
            continue
        name, sep, value = line.partition("=")
        if group is not None and sep:
            yield group, name.strip(), value.strip()


def _name_and_version(folder: Path) -> tuple[str | None, str | None]:
    """``Name`` and ``Version`` from the header of ``METADATA`` (``PKG-INFO`` for egg-info)."""
    text = _read(folder / "METADATA") or _read(folder / "PKG-INFO") or ""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break  # the header ends at the first blank line
        key, sep, value = line.partition(":")
        if sep and key in ("Name", "Version") and key not in found:
            found[key] = value.strip()
    return found.get("Name"), found.get("Version")


def entry_points(groups: Iterable[str]) -> list[EntryPoint]:
    """The entry points of ``groups`` of every installed distribution (see the module), in no
    particular order."""
    wanted = set(groups)
    if not plain_layout():
        return _from_importlib(wanted)
    found: list[EntryPoint] = []
    for folder in _distributions():
        text = _read(folder / "entry_points.txt")
        if not text:
            continue
        mine = [item for item in _sections(text) if item[0] in wanted]
        if mine:
            name, version = _name_and_version(folder)
            found.extend(EntryPoint(n, v, g, name, version) for g, n, v in mine)
    return found


def _from_importlib(wanted: set[str]) -> list[EntryPoint]:
    import importlib.metadata

    names: dict[int, tuple[str | None, str | None]] = {}
    found = []
    every = importlib.metadata.entry_points()  # one scan; select() per group reuses it
    for ep in (ep for group in sorted(wanted) for ep in every.select(group=group)):
        dist = getattr(ep, "dist", None)
        if id(dist) not in names:  # one parse of METADATA per distribution
            meta = dist.metadata if dist is not None else None
            names[id(dist)] = ((meta["Name"], meta["Version"]) if meta is not None
                               else (None, None))
        found.append(EntryPoint(ep.name, ep.value, ep.group, *names[id(dist)]))
    return found


__all__ = ["EntryPoint", "entry_points", "plain_layout"]
