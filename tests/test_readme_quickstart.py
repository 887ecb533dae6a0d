"""The README works as written.

- "Set up": two commands; ``.ci/run`` runs exactly them (it reads them from README.md); the
  first one's listing of the demo shows the quick start's table and writes nothing outside
  the clone's ``.demo-home/`` (no file in the demo, nothing in ``$HOME``).
- "Quick start": its shell lines run verbatim in one bash session (``/tmp/lemon-demo`` becomes
  a temporary folder, ``HOME`` a fake one), twice over, and the later commands twice on the
  same copy: every step is safe to repeat, and the first ``lemon skill list`` prints exactly
  the block the README shows. The Python snippet runs too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DEMO = REPO / "examples" / "demo-project"
README_DEMO = "/tmp/lemon-demo"
LINUX_ONLY = pytest.mark.skipif(sys.platform != "linux",
                                reason="the README shows the output on Linux")


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _blocks(title: str) -> list[tuple[str, str]]:
    return re.findall(r"```(\w*)\n(.*?)```", _section(title), flags=re.DOTALL)


def _commands(block: str) -> list[str]:
    """A block's commands: continuation lines joined, blank lines dropped (comments kept)."""
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def _env(tmp_path: Path) -> dict[str, str]:
    """The user's environment without lemon's and XDG's variables, with a fake, empty home,
    and the ``lemon`` of this interpreter first on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEMON_", "XDG_")) and k != "DATABASE_URL"}
    env.update(HOME=str(home), TMPDIR=str(tmp_path), COLUMNS="200",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    return env


def _expected_listing() -> tuple[list[str], list[str]]:
    """The quick start's output block: (stdout lines, stderr lines with ``…`` for the copy)."""
    expected = _blocks("Quick start")[1][1].splitlines()
    return ([line for line in expected if not line.startswith("lemon: ")],
            [line for line in expected if line.startswith("lemon: ")])


def _tree(root: Path) -> dict[str, bytes | str]:
    return {str(p.relative_to(root)): (os.readlink(p) if p.is_symlink() else
                                       p.read_bytes() if p.is_file() else "dir")
            for p in sorted(root.rglob("*"))}


# -- Set up ---------------------------------------------------------------------------------

def test_set_up_is_two_commands_and_ci_runs_exactly_them() -> None:
    [(kind, block)] = _blocks("Set up")
    assert kind == "bash"
    install, test = _commands(block)
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[mcp]' ")
    assert install.endswith(" lemon skill list --cwd examples/demo-project")
    assert test == "pip install -e '.[test]' && ruff check && mypy && pytest"
    printed = subprocess.run([str(REPO / ".ci" / "run"), "--print"], capture_output=True,
                             text=True, check=True, timeout=60)
    assert printed.stdout == block


def _listing_part(install: str) -> str:
    """The first command without its installation: the ``lemon skill list`` run."""
    return install.rsplit(" && ", 1)[1].strip()


def test_the_set_up_listing_shows_the_demo_and_writes_only_its_cache(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(DEMO, clone / "examples" / "demo-project", symlinks=True)
    before = _tree(clone)
    env = _env(tmp_path)
    command = _listing_part(_commands(_blocks("Set up")[0][1])[0])
    done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    table, errors = _expected_listing()
    if sys.platform == "linux":
        assert done.stdout.splitlines() == table
        project = str(clone / "examples" / "demo-project")
        assert done.stderr.splitlines() == [line.replace("…", project) for line in errors]
    after = _tree(clone)
    new = sorted(set(after) - set(before))
    assert new and all(path.startswith(".demo-home") for path in new), new
    assert {k: v for k, v in after.items() if k in before} == before  # the demo is untouched
    assert list(Path(env["HOME"]).iterdir()) == []
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert ".demo-home/" in ignored


def _ci_copy(tmp_path: Path, setup: str) -> Path:
    """A repository holding ``.ci/run`` and a README whose set-up block is ``setup``."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy2(REPO / ".ci" / "run", repo / ".ci" / "run")
    (repo / "README.md").write_text(f"# x\n\n## Set up\n\n```bash\n{setup}\n```\n\n## Next\n",
                                    encoding="utf-8")
    return repo


@pytest.mark.parametrize(("setup", "status", "says"), [
    ("true\necho ran > ran.txt", 0, ""),
    ("true\nfalse", 1, ""),
    ("false\ntrue", 1, ""),
    ("true\nexit 5", 5, "collected no tests"),
])
def test_ci_exits_with_the_commands_status(tmp_path: Path, setup: str, status: int,
                                           says: str) -> None:
    repo = _ci_copy(tmp_path, setup)
    done = subprocess.run([str(repo / ".ci" / "run")], capture_output=True, text=True,
                          timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == status, done.stderr
    assert says in done.stderr
    assert (repo / "ran.txt").exists() == (status == 0)


# -- Quick start ----------------------------------------------------------------------------

def test_the_quick_start_blocks_are_where_this_test_expects_them() -> None:
    blocks = _blocks("Quick start")
    assert [kind for kind, _ in blocks] == ["bash", "", "bash", "bash", "python"]
    setup = _commands(blocks[0][1])
    assert setup[0].startswith(f"rm -rf {README_DEMO} && cp -r examples/demo-project "
                               f"{README_DEMO}")
    assert setup[-1] == "lemon skill list"


def _script(lines: list[str], out: Path) -> str:
    """Run each line in this shell as written, its output and status kept in ``out``."""
    steps = [f"{{ {line}\n}} >'{out}/{n}.out' 2>'{out}/{n}.err'; echo $? >'{out}/{n}.rc'"
             for n, line in enumerate(lines)]
    return "\n".join(steps) + "\n"


def _run_quick_start(env: dict[str, str], demo: Path, out: Path,
                     lines: list[str]) -> list[tuple[str, int, str, str]]:
    out.mkdir()
    script = _script([line.replace(README_DEMO, str(demo)) for line in lines], out)
    subprocess.run(["bash", "-c", script], cwd=REPO, env=env, timeout=600, check=True)
    return [(line, int((out / f"{n}.rc").read_text()), (out / f"{n}.out").read_text(),
             (out / f"{n}.err").read_text()) for n, line in enumerate(lines)]


@pytest.mark.slow
def test_the_quick_start_runs_as_written_twice_over(tmp_path: Path) -> None:
    blocks = _blocks("Quick start")
    first = _commands(blocks[0][1])
    later = _commands(blocks[2][1]) + _commands(blocks[3][1])
    env, demo = _env(tmp_path), tmp_path / "lemon-demo"
    table, errors = _expected_listing()
    for attempt in range(2):
        results = _run_quick_start(env, demo, tmp_path / f"run-{attempt}",
                                   first + later + later)
        listing = results[len(first) - 1]
        assert listing[1] == 0, listing
        if sys.platform == "linux":
            assert listing[2].splitlines() == table
            assert listing[3].splitlines() == [line.replace("…", str(demo)) for line in errors]
        for command, code, out, err in results[len(first):]:
            assert "Traceback" not in err, (command, err)
            # the demo holds a broken skill on purpose, so linting its folder finds it
            expected = 1 if command.startswith("lemon skill lint") else 0
            assert code == expected, (attempt, command, out, err)
            assert out.strip(), command
        assert not (demo / "lemon-demo").exists()  # a second copy never nests in the first
    assert list(Path(env["HOME"]).iterdir()) in ([], [Path(env["HOME"]) / ".cache"])


def test_the_python_snippet_runs(tmp_path: Path) -> None:
    copy = tmp_path / "lemon-demo"
    shutil.copytree(DEMO, copy, symlinks=True)
    env = _env(tmp_path)
    env.update(LEMON_AGENT_DIR=str(tmp_path / "agent"), LEMON_CACHE_DIR=str(tmp_path / "cache"))
    code = _blocks("Quick start")[4][1].replace(README_DEMO, str(copy))
    done = subprocess.run([sys.executable, "-c", code], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "release-notes active" in done.stdout
    assert "broken-example/SKILL.md" in done.stdout
