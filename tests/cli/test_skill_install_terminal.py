"""``lemon skill install`` on a terminal, driven through a pseudo-terminal: the first question
names where the skills would go (never a folder named after the repository), and the picker of
a multi-skill tree shows each skill's folder and a one-line description."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import write_skill

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "openpty"),
                                 reason="needs a pseudo-terminal")]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _converse(argv: list[str], home: Path, cwd: Path,
              turns: list[tuple[str, bytes]]) -> tuple[int, str]:
    """Run the real ``lemon`` on a terminal; for each (prompt, answer) wait for ``prompt``
    and type ``answer``. Returns the exit code and the screen's text (escapes removed)."""
    lemon = shutil.which("lemon")
    assert lemon is not None
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8",
           "LEMON_BUILTIN_SKILLS": "0", "LEMON_CACHE_DIR": str(cwd / ".cache")}
    main, terminal = os.openpty()
    process = subprocess.Popen([lemon, *argv], env=env, cwd=cwd, stdin=terminal,
                               stdout=terminal, stderr=terminal)
    os.close(terminal)
    seen = b""
    try:
        for prompt, answer in [*turns, ("", b"")]:
            deadline = time.monotonic() + 60
            start = len(seen)
            while prompt.encode() not in seen[start:] or not prompt:
                if not prompt and process.poll() is not None and not select.select(
                        [main], [], [], 0.2)[0]:
                    break
                assert time.monotonic() < deadline, seen.decode(errors="replace")
                if select.select([main], [], [], 0.2)[0]:
                    try:
                        chunk = os.read(main, 4096)
                    except OSError:
                        chunk = b""
                    if not chunk and prompt:
                        raise AssertionError(f"ended before {prompt!r}: {seen!r}")
                    if not chunk:
                        break
                    seen += chunk
            if prompt:
                os.write(main, answer)
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        os.close(main)
    return code, _ANSI.sub("", seen.decode(errors="replace")).replace("\r", "")


def test_the_first_question_names_where_each_skill_goes(home, tmp_path) -> None:
    repo = tmp_path / "repo"
    for key in ("beta", "gamma"):
        write_skill(repo / "skills", key, description=f"{key.title()} does its own job.")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    skills_dir = project / ".lemon" / "skill"
    code, screen = _converse(["skill", "install", str(repo), "--local"], home, project,
                             [("[y/N]", b"n\n")])
    assert code == 1
    assert f"into a folder of its name in {skills_dir}/" in screen
    assert str(skills_dir / "repo") not in screen and str(skills_dir / "skills") not in screen
    code, screen = _converse(["skill", "install", str(repo), "--local", "--skill", "gamma"],
                             home, project, [("[y/N]", b"n\n")])
    assert code == 1 and f"into {skills_dir / 'gamma'}." in screen


def test_the_picker_shows_folders_and_one_line_descriptions(home, tmp_path) -> None:
    repo = tmp_path / "repo"
    long = "Beta handles the second job well, " + "and then some more words " * 10
    write_skill(repo / "skills", "beta", description=long)
    write_skill(repo / "skills", "gamma", description="Gamma is for the third task.")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    code, screen = _converse(["skill", "install", str(repo), "--local"], home, project,
                             [("[y/N]", b"y\n"), ("Install which?", b"2\n"),
                              ("Install it? [y/N]", b"y\n")])
    assert code == 0, screen
    lines = screen.splitlines()
    beta = next(line for line in lines if line.startswith("  1. "))
    assert beta.startswith("  1. beta (skills/beta/): Beta handles the second job well,")
    assert beta.endswith("…") and len(beta) < 120
    assert "  2. gamma (skills/gamma/): Gamma is for the third task." in lines
    assert (project / ".lemon" / "skill" / "gamma" / "SKILL.md").is_file()
    assert not (project / ".lemon" / "skill" / "beta").exists()
