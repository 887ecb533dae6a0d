"""lemon's own entry-point scan finds what importlib.metadata finds."""

from __future__ import annotations

import importlib.metadata
import sys

import pytest

from lemon_core import entry_points as scan
from lemon_core.testing import write_distribution


def _importlib_view(groups: set[str]) -> list[tuple[str, str, str, str, str]]:
    every = importlib.metadata.entry_points()
    out = []
    for group in groups:
        for ep in every.select(group=group):
            meta = ep.dist.metadata  # type: ignore[union-attr]
            out.append((ep.group, ep.name, ep.value, meta["Name"], meta["Version"]))
    return sorted(out)


def _lemon_view(groups: set[str]) -> list[tuple[str, str, str, str | None, str | None]]:
    return sorted((ep.group, ep.name, ep.value, ep.distribution, ep.version)
                  for ep in scan.entry_points(groups))


def _all_groups() -> set[str]:
    return {ep.group for dist in importlib.metadata.distributions() for ep in dist.entry_points}


def test_the_scan_equals_importlib_metadata_on_this_environment() -> None:
    assert scan.plain_layout()
    groups = _all_groups()
    assert {"lemon.sources", "lemon.auditors", "console_scripts"} <= groups
    assert _lemon_view(groups) == _importlib_view(groups)


def test_the_first_distribution_of_a_name_on_sys_path_wins(tmp_path, monkeypatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write_distribution(second, "Lemon_Twice", "2.0", {"lemon.sources": {"x": "mod_two"}})
    write_distribution(first, "lemon-twice", "1.0", {"lemon.sources": {"x": "mod_one"},
                                                     "other.group": {"y": "mod_one:f"}})
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    importlib.invalidate_caches()
    groups = {"lemon.sources", "other.group"}
    mine = _lemon_view(groups)
    assert [e for e in mine if e[3] and "twice" in e[3].lower()] == [
        ("lemon.sources", "x", "mod_one", "lemon-twice", "1.0"),
        ("other.group", "y", "mod_one:f", "lemon-twice", "1.0")]
    assert mine == _importlib_view(groups)


def test_an_entry_point_loads_what_its_value_names(tmp_path, monkeypatch) -> None:
    (tmp_path / "ep_probe_mod.py").write_text("class A:\n    class B:\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        point = scan.EntryPoint("p", "ep_probe_mod:A.B [extra]", "g")
        assert point.load() is sys.modules["ep_probe_mod"].A.B
        assert scan.EntryPoint("p", "ep_probe_mod", "g").load() is sys.modules["ep_probe_mod"]
        with pytest.raises(ValueError, match="malformed"):
            scan.EntryPoint("p", "not valid!", "g").load()
    finally:
        sys.modules.pop("ep_probe_mod", None)


def test_a_zip_on_sys_path_leaves_the_scan_to_importlib(tmp_path, monkeypatch) -> None:
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip file
    monkeypatch.syspath_prepend(str(archive))
    assert not scan.plain_layout()
    groups = {"lemon.sources"}
    assert _lemon_view(groups) == _importlib_view(groups)
