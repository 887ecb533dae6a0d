"""Commands plugins add (``lemon_register_commands``): loaded only when a run names one, added
through Typer's public decorator, never over one of lemon's own; an observer plugin observes
only. (The path a third party takes, pip-installing one, is tests/integration/
test_thirdparty_plugin.py.)"""

from __future__ import annotations

import subprocess
import sys
import types

import pytest
import typer

from lemon_core import hookimpl
from lemon_core.cli import app as lemon_app
from lemon_core.cli.plugin_commands import Kit, add_commands, wanted
from lemon_core.errors import PluginError
from lemon_core.plugin_registry import Plugins
from lemon_core.protocols import CliCommand
from lemon_core.testing import write_distribution


def _app() -> typer.Typer:
    """A small stand-in for lemon's app: a ``skill`` group holding ``list``."""
    app = typer.Typer()
    skill = typer.Typer()

    @skill.command("list")
    def list_() -> None:
        """lemon's own."""

    app.add_typer(skill, name="skill")
    return app


def _provider(*commands: tuple[str, str]) -> types.SimpleNamespace:
    def greet(name: str = "x") -> None:
        print(f"hi {name}")

    @hookimpl
    def lemon_register_commands(register):
        for group, name in commands:
            register(CliCommand(name, greet, group=group))

    return types.SimpleNamespace(lemon_register_commands=lemon_register_commands)


def _plugins(**providers: types.SimpleNamespace) -> Plugins:
    plugins = Plugins()
    for name, plugin in providers.items():
        plugins.register(plugin, f"commands.{name}", group="lemon.commands")
    return plugins


def test_only_a_command_lemon_lacks_wants_the_plugins() -> None:
    assert not wanted(lemon_app, [])
    assert not wanted(lemon_app, ["--help"])
    assert not wanted(lemon_app, ["skill"])
    assert not wanted(lemon_app, ["skill", "--help"])
    assert not wanted(lemon_app, ["skill", "list", "--json"])
    assert not wanted(lemon_app, ["mcp", "list"])
    from lemon_core.cli.plugin_commands import _groups, _names

    hermes_added = "hermes" in _names(_groups(lemon_app)["skill"])
    # an in-process run of the CLI earlier in this worker may have added it already
    assert wanted(lemon_app, ["skill", "hermes"]) is not hermes_added
    assert wanted(lemon_app, ["skill", "no-such-command"])
    assert wanted(lemon_app, ["frobnicate"])


def test_a_plugin_command_joins_its_group_once() -> None:
    app = _app()
    plugins = _plugins(greeter=_provider(("skill", "greet"), ("", "wave")))
    assert sorted(add_commands(app, plugins)) == ["skill greet", "wave"]
    assert add_commands(app, _plugins(greeter=_provider(("skill", "greet"), ("", "wave")))) == []
    assert plugins.command_owners(Kit()) == {"commands.greeter": ["skill greet", "wave"]}
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["skill", "greet", "--name", "ann"])
    assert result.exit_code == 0 and result.output == "hi ann\n"


def test_a_command_over_one_of_lemons_own_is_an_error_naming_the_plugin() -> None:
    app = _app()
    with pytest.raises(PluginError, match=r"commands\.sneaky adds 'lemon skill list'.*own"):
        add_commands(app, _plugins(sneaky=_provider(("skill", "list"))))
    with pytest.raises(PluginError, match=r"commands\.lost .*group lemon does not have"):
        add_commands(app, _plugins(lost=_provider(("nowhere", "x"))))


def test_two_plugins_adding_one_command_is_an_error_naming_both() -> None:
    plugins = _plugins(one=_provider(("skill", "greet")), two=_provider(("skill", "greet")))
    with pytest.raises(PluginError, match=r"commands\.(one|two).*commands\.(one|two)"):
        add_commands(_app(), plugins)


def test_an_observer_plugin_may_not_register_objects() -> None:
    @hookimpl
    def lemon_register_sources(register):
        pass

    plugin = types.SimpleNamespace(lemon_register_sources=lemon_register_sources)
    with pytest.raises(PluginError, match=r"observers\.busy .*only observes.*lemon\.sources"):
        Plugins().register(plugin, "observers.busy", group="lemon.observers")


def test_lemons_own_commands_and_help_never_import_a_command_plugin(tmp_path) -> None:
    """A command plugin on sys.path is imported for its command, not for lemon's own."""
    write_distribution(tmp_path, "lemon-probe", entry_points={
        "lemon.commands": {"probe": "lemon_probe_cmd"}}, files={"lemon_probe_cmd.py": (
            "import sys\nfrom lemon_core import hookimpl\nfrom lemon_core.protocols import "
            "CliCommand\nsys.stderr.write('PROBE IMPORTED\\n')\n\ndef probe() -> None:\n"
            "    print('probed')\n\n@hookimpl\ndef lemon_register_commands(register):\n"
            "    register(CliCommand('probe', probe))\n")})
    env = {"PYTHONPATH": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"

    def lemon(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", run, *args], env=env, text=True,
                              capture_output=True, timeout=120, cwd=tmp_path)

    for args in (["--help"], ["skill", "--help"], ["skill", "list", "--json"]):
        assert "PROBE IMPORTED" not in lemon(*args).stderr, args
    probed = lemon("skill", "probe")
    assert probed.returncode == 0 and probed.stdout == "probed\n"
    assert "PROBE IMPORTED" in probed.stderr
