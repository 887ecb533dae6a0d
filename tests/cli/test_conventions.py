"""CLI conventions every command follows: ``--version``/``-V``, ``-h`` and ``--help``, one
metavariable style with every parameter described, group listings that are not cut off, shell
completion, ``lemon`` alone printing help, and malformed arguments refused with exit 2."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

import lemon_core
from lemon_core.cli import app
from tests.helpers import LEMON, run_cli

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _tree() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every (path, Click command) below ``lemon``, the root and the groups included."""
    root = typer.main.get_command(app)
    todo: list[tuple[tuple[str, ...], Any]] = [((), root)]
    while todo:
        path, command = todo.pop()
        yield path, command
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            todo.append(((*path, name), sub))


PATHS = [path for path, _ in _tree()]
GROUPS = [path for path, command in _tree() if hasattr(command, "commands")]


def test_the_tree_has_every_group_and_command() -> None:
    assert {(), ("skill",), ("mcp",), ("plugins",)} <= set(GROUPS)
    assert ("skill", "inspect") in PATHS and ("mcp", "add") in PATHS


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    assert run_cli(capsys, flag) == (0, f"lemon {lemon_core.__version__}\n", "")


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "lemon")
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_h_and_help_everywhere(capsys: pytest.CaptureFixture[str], path: tuple[str, ...],
                               flag: str) -> None:
    code, out, err = run_cli(capsys, *path, flag)
    assert (code, err) == (0, ""), err
    assert out.startswith(f"Usage: {' '.join(('lemon', *path))} ")
    assert "-h, --help" in out


def _is_flag(param: Any) -> bool:
    return bool(getattr(param, "is_flag", False)) or getattr(param, "count", False)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "lemon")
def test_every_parameter_is_described_with_an_upper_case_metavar(path: tuple[str, ...]) -> None:
    command = dict(_tree())[path]
    ctx = command.make_context(" ".join(("lemon", *path)), [], resilient_parsing=True)
    for param in command.get_params(ctx):
        label = f"{' '.join(path)} {param.name}"
        assert (getattr(param, "help", None) or "").strip(), f"{label} has no help text"
        if _is_flag(param):
            continue
        metavar = param.make_metavar(ctx)
        assert metavar and not any(c.islower() for c in metavar), (label, metavar)


@pytest.mark.parametrize("path", GROUPS, ids=lambda p: " ".join(p) or "lemon")
def test_group_listings_are_not_cut_off(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch,
                                        path: tuple[str, ...]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(capsys, *path, "--help")
    assert code == 0
    listing = out.split("Commands:\n", 1)[1]
    assert "..." not in listing, listing
    assert all(len(line) <= 80 for line in out.splitlines()), out


@pytest.mark.parametrize("path", GROUPS, ids=lambda p: " ".join(p) or "lemon")
def test_a_group_alone_prints_its_help_and_exits_2(capsys: pytest.CaptureFixture[str],
                                                   path: tuple[str, ...]) -> None:
    # as Click and Typer do for a group without its command (git exits 1): a script that
    # forgot the command fails, and the help goes where usage errors go
    code, out, err = run_cli(capsys, *path)
    assert code == 2 and out == ""
    assert err.startswith(f"Usage: {' '.join(('lemon', *path))} ") and "Commands:" in err


@pytest.mark.parametrize("command", ["inspect", "check", "enable", "disable"])
@pytest.mark.parametrize("key", ["", "a/b", "../up", "a\0b", ".", "..", "a\x1bb"])
def test_a_malformed_key_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          command: str, key: str) -> None:
    code, out, err = run_cli(capsys, "skill", command, key, "--cwd", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("lemon: ") and err.count("\n") == 1, err
    assert "KEY" in err and "\0" not in err and "\x1b" not in err


@pytest.mark.parametrize("argv", [["skill", "list"], ["skill", "inspect", "k"],
                                  ["mcp", "list"], ["mcp", "remove", "x"]])
def test_a_nonexistent_cwd_is_a_usage_error_naming_it(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path, argv: list[str]) -> None:
    missing = tmp_path / "no-such-project"
    code, out, err = run_cli(capsys, *argv, "--cwd", str(missing))
    assert code == 2 and out == ""
    assert err.startswith("lemon: ") and err.count("\n") == 1
    assert str(missing) in err and "--cwd" in err
    assert not missing.exists()


def _complete(words: str, cword: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "_LEMON_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(cword), "HOME": str(tmp_path)}
    return subprocess.run([*LEMON], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def test_bash_completion_completes_groups_commands_and_options(tmp_path: Path) -> None:
    done = _complete("lemon sk", 1, tmp_path)
    assert (done.returncode, done.stdout.split()) == (0, ["skill"]), done.stderr
    done = _complete("lemon skill insp", 2, tmp_path)
    assert done.stdout.split() == ["inspect"]
    done = _complete("lemon skill list --j", 3, tmp_path)
    assert done.stdout.split() == ["--json"]
    assert not (tmp_path / ".bashrc").exists()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_script(tmp_path: Path, shell: str) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run([*LEMON, "--show-completion", shell], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "_LEMON_COMPLETE=complete_" + shell in done.stdout
    assert (shell == "zsh") == done.stdout.startswith("#compdef lemon")
    assert list(tmp_path.iterdir()) == []  # showing installs nothing


def test_show_completion_needs_a_known_shell(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--show-completion", "tcsh")
    assert code == 2 and out == "" and err.count("\n") == 1 and "bash, zsh" in err
    code, _, err = run_cli(capsys, "--show-completion")
    assert code == 2 and "requires an argument" in err


def test_help_offers_completion_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "--help")
    assert "--install-completion" in out and "--show-completion SHELL" in out
    assert "-V, --version" in out
