"""The cache guarantee as a property: whatever the cache file holds, ``lemon skill list``,
``inspect`` and ``check --verify`` print exactly what they print on a cold scan of the same tree.

Hypothesis mutates the real sealed cache file of a small tree: bit flips, truncations, and edits
of the document itself (keys, descriptions, paths, verification commands, watched folders, the
list of skills, any field replaced by any JSON value), with the MAC line kept or dropped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.catalog.cache import CacheStore
from lemon_core.skills import api
from tests.catalog.test_cache import Runner, _ctx, build_tree, split, tree_files

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("skill", "list", "--json"),
    ("skill", "list"),
    ("skill", "inspect", "real", "--json"),
    ("skill", "check", "real", "--verify", "--json"),
)

def _settings(examples: int) -> settings:
    """Few examples: almost every mutation fails the MAC the same way; each example runs four
    commands."""
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

HOSTILE_TEXT = st.sampled_from(["ghost", "real", "other", "touch pwned", "evil \u202e txt",
                                "real\x1b[2J", "", "/etc/passwd", "../../outside"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.text(max_size=12)
    | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=6,
)


class Property:
    """The tree, its cold outputs (computed once) and its original sealed cache file."""

    def __init__(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.tree = build_tree(tmp_path)
        self.runner = Runner(self.tree, capsys)
        self.cold = {argv: self.runner.cold(argv) for argv in COMMANDS}
        self.files = tree_files(self.tree)
        self.path = self.runner.cache_path()
        self.original = self.path.read_bytes()
        catalog = api.catalog_for(_ctx(self.tree, self.runner.cache), persistent=True)
        # the property is not vacuous: the untouched file is really used
        assert CacheStore(self.runner.cache).load(catalog.roots, catalog.aux_files) is not None

    def check(self, mutated: bytes) -> None:
        for argv in COMMANDS:
            self.path.write_bytes(mutated)
            assert self.runner.run(argv) == self.cold[argv], argv
        assert tree_files(self.tree) == self.files  # nothing forged ran


@pytest.fixture
def prop(tmp_path: Path, capsys: pytest.CaptureFixture[str],
         monkeypatch: pytest.MonkeyPatch) -> Property:
    # Speed only, no change in what runs: every run rewrites the cache file (no fsync needed
    # here), and Typer would rebuild the same Click command for each of the ~250 runs.
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    import typer.main

    built: dict[int, Any] = {}
    build = typer.main.get_command
    monkeypatch.setattr(typer.main, "get_command",
                        lambda app: built.setdefault(id(app), build(app)))
    return Property(tmp_path, capsys)


@_settings(10)
@given(data=st.data())
def test_bit_flips_and_truncations(prop: Property, data: st.DataObject) -> None:
    original = prop.original
    mutated = bytearray(original)
    if data.draw(st.booleans(), label="truncate"):
        mutated = mutated[:data.draw(st.integers(0, len(original) - 1), label="length")]
    for _ in range(data.draw(st.integers(0 if len(mutated) < len(original) else 1, 3))):
        if mutated:
            position = data.draw(st.integers(0, len(mutated) - 1), label="byte")
            mutated[position] ^= 1 << data.draw(st.integers(0, 7), label="bit")
    prop.check(bytes(mutated))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (the document itself excluded)."""
    found = []
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, child in items:
        found.append((*prefix, key))
        found.extend(_paths(child, (*prefix, key)))
    return found


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _targeted(doc: Any, data: st.DataObject) -> None:
    """The edits an attacker would try first, on the fields issue 7 names."""
    skills = doc["skills"]
    kind = data.draw(st.sampled_from(["key", "description", "dir", "path", "command",
                                      "watched_dirs", "skills", "duplicate", "aux_files"]))
    row = skills[data.draw(st.integers(0, len(skills) - 1))] if skills else None
    text = data.draw(HOSTILE_TEXT | st.text(max_size=12))
    if kind == "key" and row:
        row[0] = text
    elif kind == "description" and row and row[7]:
        row[7]["description"] = text
    elif kind == "dir" and row:
        row[2] = text
    elif kind == "path" and row:
        row[3] = data.draw(st.sampled_from(["/etc/passwd", row[3] + "x", text]))
    elif kind == "command" and row and row[7]:
        row[7]["verification"] = {"command": text or "true", "expect_exit": 0}
    elif kind == "watched_dirs":
        doc["watched_dirs"] = data.draw(st.sampled_from(
            [[], doc["watched_dirs"][:1], [[p, None] for p, _ in doc["watched_dirs"]]]))
    elif kind == "skills":
        doc["skills"] = data.draw(st.sampled_from([[], skills[:1], skills[::-1]]))
    elif kind == "duplicate" and row:
        copy = json.loads(json.dumps(row))
        copy[0] = text
        skills.append(copy)
    elif kind == "aux_files":
        doc["aux_files"] = [[p, None] for p, _ in doc["aux_files"]]


@_settings(20)
@given(data=st.data())
def test_document_edits(prop: Property, data: st.DataObject) -> None:
    header, doc = split(prop.original)
    if data.draw(st.booleans(), label="targeted"):
        _targeted(doc, data)
    else:
        for _ in range(data.draw(st.integers(1, 3))):
            places = _paths(doc)
            _set(doc, data.draw(st.sampled_from(places), label="where"),
                 data.draw(JSON_VALUES, label="value"))
    payload = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
    keep_header = data.draw(st.booleans(), label="keep the MAC line")
    prop.check((header if keep_header else b"") + payload)


@_settings(8)
@given(blob=st.binary(max_size=64) | st.sampled_from([
    b"", b"{}", b"[" * 200_000, b'{"format": 5}', b"lemon-catalog-cache " + b"0" * 64 + b"\n{}"]))
def test_any_other_content(prop: Property, blob: bytes) -> None:
    prop.check(blob)


def test_the_tree_is_old_enough_for_the_cache_to_be_used(prop: Property) -> None:
    """Guard: a tree inside the racy window would be re-read anyway and prove nothing."""
    assert all(os.stat(p).st_mtime < 2_000_000_000 for p in prop.files)
