"""The persistent cache of a hostile tree: found by a priming run, then replaced by a FIFO, a
``/dev/zero`` link, a sparse file, unclosed brackets, or a forged copy that lies.

The cache file's name holds a digest of lemon's roots, so it is found by running lemon once
(``skill list --json``) rather than computed: the same code works for any lemon version.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.integration.hostile_tree import HostileTree, plant, remove
from tests.integration.measured_run import Run, run


def find_cache_files(tree: HostileTree) -> list[Path]:
    """Every file lemon wrote below the cache directory (names hold a digest of the roots)."""
    found = []
    for parent, _dirs, files in os.walk(tree.cache_dir):
        found.extend(Path(parent, name) for name in files
                     if not name.startswith(".") and not name.endswith((".lock", ".tmp")))
    return sorted(found)


def prime_cache(tree: HostileTree, lemon: Sequence[str], timeout: float = 60) -> Run:
    """Run ``lemon skill list --json`` once so the cache files exist, and record them."""
    result = run(lemon, ["skill", "list", "--json"], tree.project, tree.env,
                 timeout=timeout)
    tree.cache_files = find_cache_files(tree) or tree.cache_files
    if not tree.primed_cache:
        for path in tree.cache_files:
            try:
                tree.primed_cache[path] = path.read_bytes()
            except OSError:
                pass
    return result


def _forge(doc: object, tree: HostileTree) -> object:
    """A cache document that lies: a ghost skill with raw escapes in its key and a U+202E in
    its description, valid-beta dropped, valid-alpha's verification rewritten to create
    :attr:`HostileTree.pwned_file`, no folders left to watch. Written against the row layout
    lemon writes (``skills`` rows that start with the key); other layouts are left whole."""
    if not isinstance(doc, dict) or not isinstance(doc.get("skills"), list):
        return doc
    marker = tree.foreign_markers["forged_row"]
    rows = []
    for row in doc["skills"]:
        key = _row_key(row)
        if key == "valid-beta":
            continue
        if key == "valid-alpha":
            ghost = _rewrite(json.loads(json.dumps(row)), {
                "key": f"ghost\x1b[2J\x1b]0;{marker}\x07", "description": f"\u202e{marker}"})
            rows.append(ghost)
            row = _rewrite(row, {"verification": {"command": f"touch {tree.pwned_file}",
                                                  "expect_exit": 0}})
        rows.append(row)
    doc["skills"] = rows
    if "watched_dirs" in doc:
        doc["watched_dirs"] = []
    return doc


def forge_bytes(data: bytes, tree: HostileTree) -> bytes | None:
    """The forged file: the JSON document inside ``data`` lied about (:func:`_forge`), with the
    bytes around it kept (a header such as a seal line stays, now stale); None for a file that
    holds no JSON object."""
    start = data.find(b"{")
    if start < 0:
        return None
    try:
        doc, end = json.JSONDecoder().raw_decode(data[start:].decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError):
        return None
    text = json.dumps(_forge(doc, tree), ensure_ascii=False, separators=(",", ":"))
    rest = data[start:].decode("utf-8", "surrogatepass")[end:]
    return data[:start] + (text + rest).encode("utf-8", "surrogatepass")


def _row_key(row: object) -> object:
    if isinstance(row, list) and row:
        return row[0]
    if isinstance(row, dict):
        return row.get("key")
    return None


def _rewrite(row: object, changes: Mapping[str, object]) -> object:
    """Change a row's key and its manifest's fields (the first dict with a description)."""
    if "key" in changes:
        if isinstance(row, list):
            row[0] = changes["key"]
        elif isinstance(row, dict):
            row["key"] = changes["key"]
    values = row if isinstance(row, list) else list(row.values()) if isinstance(row, dict) else []
    for value in values:
        if isinstance(value, dict) and "description" in value:
            for name, new in changes.items():
                if name != "key":
                    value[name] = new
            break
    return row


def plant_cache(tree: HostileTree, kind: str, lemon: Sequence[str] | None = None) -> None:
    """Replace every cache file with ``kind`` (fifo, dev_zero, sparse, brackets or forged).

    ``forged`` needs a real cache of this very tree to lie convincingly: with ``lemon`` given,
    it is made by a run on the current tree; the forged bytes are kept, so re-planting before
    each command (a rebuild rewrites the file) costs one write."""
    if kind == "forged":
        if lemon is not None and not tree.forged_cache:
            for path in tree.cache_files:
                remove(path)
            prime_cache(tree, lemon)
            for path in tree.cache_files:
                try:  # a tree that lemon cannot list yet: forge the clean tree's cache
                    data = path.read_bytes() if path.is_file() else tree.primed_cache[path]
                except (OSError, KeyError):
                    continue
                forged = forge_bytes(data, tree)
                if forged is not None:
                    tree.forged_cache[path] = forged
        for path, data in tree.forged_cache.items():
            remove(path)
            path.write_bytes(data)
        return
    for path in tree.cache_files:
        plant(path, kind)


def replant_cache(tree: HostileTree) -> None:
    """Put the slot's cache attack back (a command that rebuilt the cache overwrote it)."""
    kind = tree.slots.get("cache")
    if kind:
        plant_cache(tree, kind)


__all__ = ["find_cache_files", "plant_cache", "prime_cache", "replant_cache"]
