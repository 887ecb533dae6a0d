"""The README's quick start works as written, on a copy of ``examples/demo-project``.

Each fenced block of the "Quick start" section is run (the copy goes to a temporary folder
instead of ``/tmp/lemon-demo``, and ``HOME`` is a fake one): the first ``lemon skill list`` must
print exactly the table the README shows, every later command must succeed, and the Python
snippet must run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DEMO = REPO / "examples" / "demo-project"
README_DEMO = "/tmp/lemon-demo"


def _quick_start_blocks() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(\w*)\n(.*?)```", section, flags=re.DOTALL)


def _commands(block: str) -> list[str]:
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines()]
    return [line for line in lines if line]


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    copy = tmp_path / "lemon-demo"
    shutil.copytree(DEMO, copy, symlinks=True)
    home = tmp_path / "home"
    home.mkdir()
    agent = tmp_path / "agent"
    agent.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEMON_") and k != "DATABASE_URL"}
    env.update(HOME=str(home), LEMON_CACHE_DIR=str(tmp_path / "cache"),
               LEMON_AGENT_DIR=str(agent), COLUMNS="200")
    return copy, env


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(shlex.split(command), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_quick_start_blocks_are_where_this_test_expects_them() -> None:
    kinds = [kind for kind, _ in _quick_start_blocks()]
    assert kinds == ["bash", "", "bash", "python"]
    setup = _commands(_quick_start_blocks()[0][1])
    assert setup[0].startswith(f"cp -r examples/demo-project {README_DEMO}")
    assert setup[-1] == "lemon skill list"


@pytest.mark.skipif(sys.platform != "linux", reason="the README shows the output on Linux")
def test_the_first_listing_is_the_one_shown(demo) -> None:
    copy, env = demo
    expected = _quick_start_blocks()[1][1].splitlines()
    table = [line for line in expected if not line.startswith("lemon: ")]
    [error] = [line for line in expected if line.startswith("lemon: ")]
    done = _run("lemon skill list", copy, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == table
    assert done.stderr.splitlines() == [error.replace("…", str(copy))]


def test_every_later_command_runs(demo) -> None:
    copy, env = demo
    for command in _commands(_quick_start_blocks()[2][1]):
        done = _run(command, copy, env)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        # the demo holds a broken skill on purpose, so linting its folder finds it
        expected = 1 if command.startswith("lemon skill lint") else 0
        assert done.returncode == expected, (command, done.stdout, done.stderr)
        assert done.stdout.strip(), command


def test_the_python_snippet_runs(demo) -> None:
    copy, env = demo
    code = _quick_start_blocks()[3][1].replace(README_DEMO, str(copy))
    done = subprocess.run([sys.executable, "-c", code], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "release-notes active" in done.stdout
    assert "broken-example/SKILL.md" in done.stdout
