"""Issue 17 §2 through the real ``lemon`` console script: a cloned project's planted links
cannot steer ``skill install --local``, ``skill list``, ``skill remove --local``, ``skill
disable --local`` or ``mcp add`` into the user's own files (a fake HOME in a temp folder)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import write_skill

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX symbolic links")]


def _lemon(project: Path, home: Path, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    lemon = shutil.which("lemon")
    assert lemon is not None
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LEMON_BUILTIN_SKILLS": "0",
           "LEMON_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}
    return subprocess.run([lemon, *argv], check=False, cwd=project, env=env,
                          stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


def _tree(root: Path) -> dict[str, bytes | str]:
    found: dict[str, bytes | str] = {}
    for parent, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(parent) / name
            found[str(path)] = (os.readlink(path) if path.is_symlink() else
                                "dir" if path.is_dir() else path.read_bytes())
    return found


@pytest.fixture
def planted(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    """A cloned project whose ``.lemon/skill`` links to the user's ``~/.claude/skills``."""
    mine = home / ".claude" / "skills"
    write_skill(mine, "precious", description="Use when it is mine.")
    project = tmp_path / "clone"
    (project / ".git").mkdir(parents=True)
    (project / ".lemon").mkdir()
    (project / ".lemon" / "skill").symlink_to(mine, target_is_directory=True)
    return project, mine


def test_install_list_and_remove_through_a_planted_skill_link(
    planted: tuple[Path, Path], home: Path, tmp_path: Path
) -> None:
    project, mine = planted
    write_skill(tmp_path / "src", "x")
    before = _tree(home)
    done = _lemon(project, home, tmp_path, "skill", "install", str(tmp_path / "src" / "x"),
                  "--local", "--approve")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("lemon: refused: ") and done.stderr.count("\n") == 1
    assert f"{project / '.lemon' / 'skill'} is a symbolic link" in done.stderr
    done = _lemon(project, home, tmp_path, "skill", "remove", "precious", "--local",
                  "--approve")
    assert done.returncode == 1 and "is a symbolic link" in done.stderr
    assert _tree(home) == before and (mine / "precious" / "SKILL.md").is_file()
    done = _lemon(project, home, tmp_path, "skill", "list", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    scopes = {(s["key"], s["scope"]) for s in document["skills"]}
    assert ("precious", "project") not in scopes and ("precious", "global") in scopes
    assert "root_outside_project" in done.stdout + done.stderr


def test_a_planted_settings_link_is_not_written_through(tmp_path: Path, home: Path) -> None:
    theirs = home / "dotfiles" / "skills.json"
    theirs.parent.mkdir(parents=True)
    theirs.write_text('{"disabled": []}\n')
    project = tmp_path / "clone"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".agents" / "skills", "demo")
    (project / ".lemon").mkdir()
    (project / ".lemon" / "skills.json").symlink_to(theirs)
    done = _lemon(project, home, tmp_path, "skill", "disable", "demo", "--local")
    assert done.returncode == 1 and "skills.json is a symbolic link" in done.stderr
    assert theirs.read_text() == '{"disabled": []}\n'


def test_mcp_add_never_edits_cursors_file_through_a_planted_link(tmp_path: Path,
                                                                 home: Path) -> None:  # fmt: skip
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text('{"mcpServers": {}}\n')
    project = tmp_path / "clone"
    (project / ".git").mkdir(parents=True)
    (project / ".lemon").mkdir()
    (project / ".lemon" / "mcp.json").symlink_to(cursor)
    done = _lemon(project, home, tmp_path, "mcp", "add", "demo", "--stdio", "echo")
    assert done.returncode == 1 and "mcp.json is a symbolic link" in done.stderr
    assert cursor.read_text() == '{"mcpServers": {}}\n'
    assert sorted(p.name for p in cursor.parent.iterdir()) == ["mcp.json"]
