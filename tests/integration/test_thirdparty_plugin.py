"""The path a third party takes: pip-install a separate plugin distribution next to lemon and
find it with ``lemon plugins list``.

A fresh virtual environment sees the test environment's packages (lemon-core and its
dependencies) through a ``.pth`` file that calls ``site.addsitedir``, so it works whether the
tests run in a venv or not, and the editable install of lemon-core keeps working. The fixture
plugin (tests/fixtures/thirdparty_plugin, the example of docs/plugins.md) is installed into that
venv with pip, offline: ``--no-index --no-build-isolation``, its build backend (flit_core) and
its dependency (lemon-core) coming from the test environment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "thirdparty_plugin"
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
DIST, VERSION = "lemon-example-plugin", "0.3.0"
RUN_LEMON = "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"

CHECK_PLUGIN = """
import json, pathlib, sys, tempfile
from lemon_core.plugins import load_plugins
from lemon_core.protocols import AuditBundle, AuditFile, SkillLoadEvent
import lemon_example_plugin.source as example

plugins = load_plugins()
source = next(s for s in plugins.sources() if s.name == "example")
ref = source.parse("example:hello")
dest = pathlib.Path(tempfile.mkdtemp()) / "hello"
source.fetch(ref, dest, None, None)
bundle = AuditBundle("hello", dest, (AuditFile("SKILL.md", "TODO: finish", 12),))
findings = [f.rule for a in plugins.auditors() for f in a.audit(bundle)]
plugins.notify_skill_loaded(SkillLoadEvent(key="hello", found=True))
print(json.dumps({
    "ref": [ref.source, ref.name],
    "skill": (dest / "SKILL.md").read_text().splitlines()[1],
    "findings": findings,
    "loads": dict(example.LOADS),
    "plugin_file": example.__file__,
}))
"""


def _run(args: list[str], env: dict[str, str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, **kwargs)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A venv with lemon visible and the fixture plugin pip-installed; (python, env)."""
    pytest.importorskip(
        "flit_core.buildapi", reason="the fixture's build backend (lemon-core[test])"
    )
    pytest.importorskip("pip", reason="pip installs the fixture plugin")
    root = tmp_path_factory.mktemp("thirdparty")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LEMON_", "PIP_", "PYTEST_", "PYTHONHOME"))
    }
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONNOUSERSITE="1")

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    bindir = "Scripts" if os.name == "nt" else "bin"
    python = root / "venv" / bindir / ("python.exe" if os.name == "nt" else "python")
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env
    )
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    if site.ENABLE_USER_SITE and Path(site.getusersitepackages()).is_dir():
        outer.append(site.getusersitepackages())
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in outer)
    (Path(purelib.stdout.strip()) / "_lemon_test_outer.pth").write_text(lines, encoding="utf-8")

    source = root / "src"
    shutil.copytree(
        FIXTURE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    )
    pip = [str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation", str(source)]
    installed = _run(pip, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python, env


def lemon(
    venv: tuple[Path, dict[str, str]], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    python, base = venv
    return _run([str(python), "-c", RUN_LEMON, *args], {**base, **env})


def listed(venv, **env: str) -> dict[str, dict]:
    result = lemon(venv, "plugins", "list", "--json", **env)
    assert result.returncode == 0, result.stderr
    return {p["name"]: p for p in json.loads(result.stdout)["plugins"]}


def test_the_installed_plugin_is_listed_with_distribution_and_version(venv):
    plugins = listed(venv)
    assert plugins["sources.example"] == {
        "name": "sources.example",
        "group": "lemon.sources",
        "entry_point": "lemon_example_plugin.source",
        "distribution": DIST,
        "version": VERSION,
        "builtin": False,
        "hooks": ["lemon_register_sources", "lemon_skill_loaded"],
        "commands": [],
        "observer": True,
    }
    # The same short name in another group is a second plugin, not a silent clash.
    assert plugins["auditors.example"]["entry_point"] == "lemon_example_plugin.auditor"
    assert plugins["auditors.example"]["hooks"] == ["lemon_register_auditors"]
    assert all(p["distribution"] == "lemon-core" for p in plugins.values() if p["builtin"])


def test_the_human_listing_shows_it(venv):
    result = lemon(venv, "plugins", "list")
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("sources.example"))
    assert row.split()[:5] == [
        "sources.example",
        "lemon.sources",
        "lemon_example_plugin.source",
        DIST,
        VERSION,
    ]


def test_disable_plugins_hides_it_by_qualified_name(venv):
    plugins = listed(venv, LEMON_DISABLE_PLUGINS="sources.example")
    assert "sources.example" not in plugins and "auditors.example" in plugins


def test_builtin_plugins_only_hides_it(venv):
    plugins = listed(venv, LEMON_BUILTIN_PLUGINS_ONLY="1")
    assert not {"sources.example", "auditors.example"} & set(plugins)
    assert all(p["builtin"] for p in plugins.values())


def test_the_plugin_works_through_the_library(venv):
    python, env = venv
    result = _run([str(python), "-c", CHECK_PLUGIN], env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ref"] == ["example", "hello"]
    assert report["skill"] == "name: hello"
    assert report["findings"] == ["example.todo"]
    assert report["loads"] == {"hello": 1}
    # It was installed into the venv, not found in the source tree or the test environment.
    assert Path(report["plugin_file"]).resolve().is_relative_to(python.parent.parent.resolve())


@pytest.mark.slow
def test_the_guides_example_tests_pass_against_the_installed_plugin(venv, tmp_path):
    python, env = venv
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    (tests,) = [block for block in blocks if "import lemon_example_plugin" in block]
    (tmp_path / "test_guide_example.py").write_text(tests, encoding="utf-8")
    result = _run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_guide_example.py"],
        env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout


# -- a command and an observer, each its own entry point ------------------------------------


def test_its_command_runs_as_lemons_own(venv):
    said = lemon(venv, "skill", "hello", "world")
    assert (said.returncode, said.stdout, said.stderr) == (0, "hello, world\n", "")
    as_json = lemon(venv, "skill", "hello", "world", "--json")
    assert json.loads(as_json.stdout) == {"greeting": "hello, world"}
    helped = lemon(venv, "skill", "hello", "--help")
    assert helped.returncode == 0 and "Greet NAME" in helped.stdout


def test_plugins_list_shows_the_command_and_the_observer(venv):
    plugins = listed(venv)
    assert plugins["commands.example"]["group"] == "lemon.commands"
    assert plugins["commands.example"]["commands"] == ["skill hello"]
    assert plugins["commands.hermes"]["commands"] == ["skill hermes"]  # lemon's own, alike
    assert plugins["observers.example"]["hooks"] == ["lemon_skill_loaded"]
    assert plugins["observers.example"]["observer"] is True
    assert plugins["commands.example"]["observer"] is False
    text = lemon(venv, "plugins", "list").stdout
    assert "lemon skill hello (commands.example)" in text
    assert "observers.example" in text.split("observing lemon's events:")[1]


def test_a_disabled_command_plugin_adds_no_command(venv):
    result = lemon(venv, "skill", "hello", "world", LEMON_DISABLE_PLUGINS="commands.example")
    assert result.returncode == 2 and "No such command 'hello'" in result.stderr


def test_the_observer_records_every_load_and_never_the_body(venv, tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    skill = project / ".agents" / "skills" / "greet"
    skill.mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Say hi.\n---\n\nSECRET "
                                    "BODY\n", encoding="utf-8")
    record = tmp_path / "loads.jsonl"
    env = {"HOME": str(home), "LEMON_EXAMPLE_RECORD": str(record),
           "LEMON_CACHE_DIR": str(tmp_path / "cache")}
    read = lemon(venv, "skill", "read", "greet", "--cwd", str(project), **env)
    assert read.returncode == 0, read.stderr
    missing = lemon(venv, "skill", "read", "nope", "--cwd", str(project), **env)
    assert missing.returncode != 0
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"key": "greet", "found": True, "view": "full"},
                     {"key": "nope", "found": False, "view": "full"}]
    assert "SECRET" not in record.read_text(encoding="utf-8")
