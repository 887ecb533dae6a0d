"""``lemon GROUP COMMAND …`` builds only that command, and behaves exactly as the full app."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from lemon_core.cli import app
from lemon_core.cli.dispatch import app_for, command_name


def _every_command() -> list[tuple[str, str]]:
    return [(group.name, command_name(command))  # type: ignore[misc]
            for group in app.registered_groups
            for command in group.typer_instance.registered_commands]  # type: ignore[union-attr]


def test_every_command_is_reachable_alone() -> None:
    pairs = _every_command()
    assert ("skill", "install") in pairs and ("mcp", "list") in pairs
    for group, name in pairs:
        built = typer.main.get_command(app_for(app, [group, name, "x"]))
        assert list(built.commands) == [group]  # type: ignore[attr-defined]
        assert list(built.commands[group].commands) == [name]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("group", "name"), _every_command())
def test_a_pruned_command_has_the_full_apps_help(group: str, name: str) -> None:
    runner = CliRunner()
    argv = [group, name, "--help"]
    full = runner.invoke(app, argv, prog_name="lemon")
    alone = runner.invoke(app_for(app, argv), argv, prog_name="lemon")
    assert alone.exit_code == full.exit_code == 0
    assert alone.output == full.output


@pytest.mark.parametrize("argv", [[], ["skill"], ["skill", "--help"], ["--version", "skill"],
                                  ["skill", "instal"], ["nope", "install"]])
def test_anything_but_a_named_command_gets_the_full_app(argv: list[str]) -> None:
    assert app_for(app, argv) is app


def test_completion_gets_the_full_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_LEMON_COMPLETE", "complete_bash")
    assert app_for(app, ["skill", "install"]) is app


def test_pruning_leaves_the_app_untouched() -> None:
    before = [(g.name, len(g.typer_instance.registered_commands))  # type: ignore[union-attr]
              for g in app.registered_groups]
    app_for(app, ["skill", "install"])
    assert [(g.name, len(g.typer_instance.registered_commands))  # type: ignore[union-attr]
            for g in app.registered_groups] == before


@pytest.mark.parametrize("value", ["1", "all", "dispatch", "process,dispatch"])
def test_the_off_switch_gets_the_full_app(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("LEMON_PLAIN", value)
    assert app_for(app, ["skill", "install"]) is app
    monkeypatch.setenv("LEMON_PLAIN", "process")
    assert app_for(app, ["skill", "install"]) is not app
