"""What reaches a terminal is escaped: a project whose folder names carry terminal escapes,
a carriage return, a newline and invisible characters cannot clear the screen, set the window
title or forge a ``lemon: error:`` line through any skill command, while ``--json`` still
holds the exact names. And no CLI module can print except through ``lemon_core.cli.output``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")]

#: Clear the screen, set the window title, go back to the line start, forge an error line,
#: then a right-to-left override and a zero-width space.
HOSTILE = "x\x1b[2J\x1b]0;pwned\x07\r\nlemon: error: forged\u202e\u200bz"
#: A raw control character (any C0 but the line feed, DEL, C1) or an invisible/bidi one.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
CLI = Path(__file__).resolve().parents[2] / "lemon_core" / "cli"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project inside a folder with a hostile name, holding a hostile group, a hostile skill
    folder name, a skill that fails to load, and a good skill."""
    project = tmp_path / HOSTILE / "repo"
    (project / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LEMON_AGENT_DIR", str(tmp_path / "agent"))
    root = project / ".agents" / "skills"
    write_skill(root, "good", description="A good skill.")
    write_skill(root, "broken", "description: x\nversion: 1.0\n")
    write_skill(root / HOSTILE, "grouped")  # a group (or a nested SKILL.md) with that name
    write_skill(root, "bad" + HOSTILE)  # a folder name that cannot be a key
    (project / ".lemon").mkdir()
    (project / ".lemon" / "mcp.json").write_text("{broken", encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        HOSTILE: {"command": "x"}, "fine": {"command": HOSTILE}}}), encoding="utf-8")
    return {"project": project, "root": root}


def _assert_clean(text: str, what: str) -> None:
    for line in text.splitlines():
        assert not RAW.search(line), (what, line)
        assert not line.startswith("lemon: error: forged"), (what, line)


def _commands(tree: dict[str, Path]) -> list[list[str]]:
    cwd = ["--cwd", str(tree["project"])]
    return [
        ["skill", "list", *cwd],
        ["skill", "inspect", "good", *cwd],
        ["skill", "inspect", "broken", *cwd],
        ["skill", "check", "good", *cwd],
        ["skill", "check", "broken", *cwd],
        ["skill", "disable", "good", "--local", *cwd],
        ["skill", "enable", "good", "--local", *cwd],
        ["skill", "lint", str(tree["root"])],
        ["skill", "lint", str(tree["root"] / HOSTILE)],
        ["skill", "inspect", "no" + HOSTILE, *cwd],
        ["mcp", "list", *cwd],
        ["mcp", "list", "--all", *cwd],
        ["mcp", "list", "--all", "--reveal", *cwd],
        ["plugins", "list"],
    ]


def test_no_command_puts_a_raw_control_character_on_the_terminal(tree, capsys) -> None:
    for argv in _commands(tree):
        code, out, err = run_cli(capsys, *argv)
        assert code in (0, 1, 2) and "Traceback" not in err, argv
        _assert_clean(out, argv)
        _assert_clean(err, argv)
    _, out, err = run_cli(capsys, "skill", "inspect", "good", "--cwd", str(tree["project"]))
    assert "\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0alemon: error: forged\\u202e\\u200bz" in out
    _, out, err = run_cli(capsys, "skill", "list", "--cwd", str(tree["project"]))
    assert "\\x1b[2J" in err and "\\u202e" in err


def test_json_output_keeps_the_exact_names(tree, capsys) -> None:
    cwd = ["--cwd", str(tree["project"])]
    code, out, _ = run_cli(capsys, "skill", "list", *cwd, "--json")
    data = json.loads(out)
    assert code == 0
    paths = [s["path"] for s in data["skills"]] + [d["path"] for d in data["diagnostics"]]
    assert any(HOSTILE in path for path in paths)
    assert str(tree["root"] / ("bad" + HOSTILE)) in paths
    code, out, _ = run_cli(capsys, "skill", "inspect", "good", *cwd, "--json")
    assert json.loads(out)["path"] == str(tree["root"] / "good" / "SKILL.md")
    code, out, _ = run_cli(capsys, "skill", "lint", str(tree["root"] / HOSTILE), "--json")
    assert any(HOSTILE in r["path"] for r in json.loads(out)["results"])


def test_the_real_command_writes_no_escape_byte(tree) -> None:
    """The console script, as a terminal would receive its bytes."""
    done = subprocess.run([sys.executable, "-c", "from lemon_core.cli import console; console()",
                           "skill", "list", "--cwd", str(tree["project"])], cwd=CLI.parents[1],
                          capture_output=True, env=dict(os.environ), timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert b"\x1b" not in stream and b"\r" not in stream and b"\x07" not in stream
        assert "\u202e".encode() not in stream and "\u200b".encode() not in stream
        assert b"\nlemon: error: forged" not in stream


def _bare_prints(path: Path) -> list[str]:
    """Calls of print(), typer.echo/secho, click.echo and sys.stdout/stderr.write in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            found.append(f"{path.name}:{node.lineno}: print(")
        elif isinstance(func, ast.Attribute):
            owner = ast.unparse(func.value)
            if (owner in ("typer", "click") and func.attr in ("echo", "secho")) or (
                    owner in ("sys.stdout", "sys.stderr") and func.attr == "write"):
                found.append(f"{path.name}:{node.lineno}: {owner}.{func.attr}(")
    return found


def test_cli_modules_print_only_through_the_output_module() -> None:
    modules = sorted(p for p in CLI.glob("*.py") if p.name != "output.py")
    assert modules, CLI
    bare = [hit for module in modules for hit in _bare_prints(module)]
    assert bare == [], "print through lemon_core.cli.output (say, warn, fail, table, emit_json)"


def test_the_scan_finds_a_bare_print(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("import sys, typer\nprint('x')\ntyper.echo('y')\n"
                       "sys.stderr.write('z')\n", encoding="utf-8")
    assert len(_bare_prints(planted)) == 3
