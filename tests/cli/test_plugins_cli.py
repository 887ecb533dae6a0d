"""``lemon plugins list [--json]``: output, switches, exit codes and one-line errors.

Runs the console-script function :func:`lemon_core.cli.main` in-process with fake installed
distributions on ``sys.path``; the built-in set is read from pyproject.toml, never assumed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lemon_core.testing import write_distribution
from tests.helpers import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
KINDS = {
    "lemon.sources": "sources",
    "lemon.mcp_importers": "mcp_importers",
    "lemon.auditors": "auditors",
    "lemon.commands": "commands",
    "lemon.observers": "observers",
}
KEYS = ["name", "group", "entry_point", "distribution", "version", "builtin", "hooks",
        "commands", "observer"]

SOURCE = """
from lemon_core import hookimpl

@hookimpl
def lemon_register_sources(register):
    pass

@hookimpl
def lemon_skill_loaded(event):
    pass
"""
AUDITOR = (
    "from lemon_core import hookimpl\n\n@hookimpl\ndef lemon_register_auditors(register):\n"
    "    pass\n"
)


def builtin_names() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tables = pyproject["project"].get("entry-points", {})
    return {f"{kind}.{name}" for group, kind in KINDS.items() for name in tables.get(group, {})}


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A clean environment plus a fake third-party distribution ``lemon-cli-fake`` 2.5."""
    for name in ("LEMON_DISABLE_PLUGINS", "LEMON_BUILTIN_PLUGINS_ONLY", "LEMON_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "site"
    write_distribution(
        root,
        "lemon-cli-fake",
        "2.5",
        {
            "lemon.sources": {"clifake": "cli_fake_source"},
            "lemon.auditors": {"clifake": "cli_fake_auditor"},
        },
        {"cli_fake_source.py": SOURCE, "cli_fake_auditor.py": AUDITOR},
    )
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in ("cli_fake_source", "cli_fake_auditor", "cli_broken"):
        sys.modules.pop(name, None)




def listed(capsys, *extra: str) -> dict[str, dict]:
    code, out, err = run_cli(capsys, "plugins", "list", "--json", *extra)
    assert (code, err) == (0, "")
    return {plugin["name"]: plugin for plugin in json.loads(out)["plugins"]}


def test_json_lists_third_party_and_builtin_plugins(site, capsys):
    plugins = listed(capsys)
    assert plugins["sources.clifake"] == {
        "name": "sources.clifake",
        "group": "lemon.sources",
        "entry_point": "cli_fake_source",
        "distribution": "lemon-cli-fake",
        "version": "2.5",
        "builtin": False,
        "hooks": ["lemon_register_sources", "lemon_skill_loaded"],
        "commands": [],
        "observer": True,
    }
    assert plugins["auditors.clifake"]["hooks"] == ["lemon_register_auditors"]
    assert all(list(p) == KEYS for p in plugins.values())
    builtins = {name for name, p in plugins.items() if p["builtin"]}
    assert builtins == builtin_names()
    assert all(p["distribution"] == "lemon-core" for p in plugins.values() if p["builtin"])


def test_human_output_is_an_aligned_table(site, capsys):
    code, out, err = run_cli(capsys, "plugins", "list")
    assert (code, err) == (0, "")
    header, *rows = out.split("\n\n")[0].rstrip("\n").split("\n")
    columns = ["NAME", "GROUP", "ENTRY POINT", "DISTRIBUTION", "VERSION", "HOOKS"]
    starts = [header.index(column) for column in columns]
    assert starts == sorted(starts) and starts[0] == 0
    row = next(r for r in rows if r.startswith("sources.clifake "))
    cells = ["sources.clifake", "lemon.sources", "cli_fake_source", "lemon-cli-fake", "2.5"]
    for cell, start in zip(cells, starts[: len(cells)], strict=True):
        assert row[start:].startswith(cell + " "), f"{cell!r} not at column {start}: {row!r}"
    assert row[starts[-1] :] == "lemon_register_sources, lemon_skill_loaded"
    assert len(rows) == len(builtin_names()) + 2


def test_disable_plugins_hides_one_plugin_only(site, capsys, monkeypatch):
    monkeypatch.setenv("LEMON_DISABLE_PLUGINS", "sources.clifake")
    plugins = listed(capsys)
    assert "sources.clifake" not in plugins and "auditors.clifake" in plugins


def test_builtin_plugins_only_hides_third_parties(site, capsys, monkeypatch):
    monkeypatch.setenv("LEMON_BUILTIN_PLUGINS_ONLY", "1")
    assert set(listed(capsys)) == builtin_names()


def test_no_plugins_loaded(site, capsys, monkeypatch):
    monkeypatch.setenv("LEMON_BUILTIN_PLUGINS_ONLY", "1")
    if builtin_names():
        monkeypatch.setenv("LEMON_DISABLE_PLUGINS", ",".join(sorted(builtin_names())))
    assert run_cli(capsys, "plugins", "list") == (0, "No plugins are loaded.\n", "")
    assert json.loads(run_cli(capsys, "plugins", "list", "--json")[1]) == {"plugins": []}


def test_a_broken_plugin_exits_1_with_one_line_naming_it(site, capsys):
    write_distribution(
        site,
        "lemon-cli-broken",
        "0.1",
        {"lemon.sources": {"broken": "cli_broken"}},
        {"cli_broken.py": "import a_module_that_is_not_installed\n"},
    )
    code, out, err = run_cli(capsys, "plugins", "list", "--json")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        "lemon: plugin sources.broken (entry point 'cli_broken' of lemon-cli-broken 0.1)"
    )
    assert "ModuleNotFoundError" in err and "LEMON_DISABLE_PLUGINS=sources.broken" in err


def test_a_disabled_broken_plugin_does_not_break_the_listing(site, capsys, monkeypatch):
    write_distribution(
        site,
        "lemon-cli-broken",
        "0.1",
        {"lemon.sources": {"broken": "cli_broken"}},
        {"cli_broken.py": "raise RuntimeError('imported')\n"},
    )
    monkeypatch.setenv("LEMON_DISABLE_PLUGINS", "sources.broken")
    assert "sources.clifake" in listed(capsys)
    assert "cli_broken" not in sys.modules


def test_an_unknown_disabled_name_warns_on_stderr(site, capsys, monkeypatch):
    monkeypatch.setenv("LEMON_DISABLE_PLUGINS", "sources.nothere")
    code, out, err = run_cli(capsys, "plugins", "list", "--json")
    assert code == 0 and "sources.clifake" in out
    assert err == (
        "lemon: warning: LEMON_DISABLE_PLUGINS names sources.nothere, but no installed plugin has "
        "that name; see `lemon plugins list`\n"
    )


def test_a_short_disabled_name_is_an_error(site, capsys, monkeypatch):
    monkeypatch.setenv("LEMON_DISABLE_PLUGINS", "clifake")
    code, out, err = run_cli(capsys, "plugins", "list")
    assert (code, out) == (1, "")
    assert err.startswith("lemon: LEMON_DISABLE_PLUGINS names 'clifake'")
    assert "did you mean auditors.clifake or sources.clifake?" in err


def test_invalid_arguments_exit_2(site, capsys):
    code, out, err = run_cli(capsys, "plugins", "list", "--no-such-option")
    assert code == 2 and out == "" and "--no-such-option" in err
