"""``lemon skill remove`` through the real console script deletes only what lemon installed
(issue 17 §3): a folder, file or link no lockfile record names is refused with what is there
and what to do; a skill with local edits is named and asked about on a terminal, refused on
``--approve`` alone, removed with ``--discard-edits``; an edit made while lemon asks survives."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import write_skill
from tests.install.support import snapshot

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and terminals")]


def _env(home: Path, tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LEMON_BUILTIN_SKILLS": "0",
            "LEMON_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}


def _lemon(home: Path, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    lemon = shutil.which("lemon")
    assert lemon is not None
    return subprocess.run([lemon, *argv], check=False, cwd=tmp_path, env=_env(home, tmp_path),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


@pytest.fixture
def skills(home: Path, tmp_path: Path) -> Path:
    """The global skills folder, with ``demo`` installed by lemon (three files)."""
    write_skill(tmp_path / "src", "demo")
    (tmp_path / "src" / "demo" / "notes.md").write_text("old\n")
    (tmp_path / "src" / "demo" / "gone.md").write_text("x\n")
    done = _lemon(home, tmp_path, "skill", "install", str(tmp_path / "src" / "demo"),
                  "--approve")
    assert done.returncode == 0, done.stderr
    return home / ".lemon" / "agent" / "skill"


def _records(skills: Path) -> dict[str, object]:
    return json.loads((skills.parent / "skills.lock.json").read_text())["skills"]


def _edit(folder: Path) -> None:
    (folder / "notes.md").write_text("my own notes\n")
    (folder / "gone.md").unlink()
    (folder / "mine.md").write_text("added by me\n")


@pytest.mark.parametrize("kind", ["hand-written skill", "folder of other files", "file",
                                  "symbolic link"])
def test_what_lemon_did_not_install_is_refused(skills, home, tmp_path, kind) -> None:
    target = skills / "mine"
    what = {"hand-written skill": "a skill folder lemon did not install",
            "folder of other files": "a folder of other files", "file": "a file",
            "symbolic link": "a symbolic link"}[kind]
    if kind == "hand-written skill":
        write_skill(skills, "mine", body="my own words\n")
    elif kind == "folder of other files":
        target.mkdir()
        (target / "notes.txt").write_text("mine\n")
    elif kind == "file":
        target.write_text("mine\n")
    else:
        write_skill(tmp_path / "outside", "theirs")
        target.symlink_to(tmp_path / "outside" / "theirs", target_is_directory=True)
    before = snapshot(home, tmp_path / "outside")
    for extra in ((), ("--discard-edits",)):
        done = _lemon(home, tmp_path, "skill", "remove", "mine", "--approve", *extra)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and f"{target} holds {what}" in done.stderr
        assert "nothing was deleted" in done.stderr and "delete it by hand" in done.stderr
        assert "'lemon skill disable mine'" in done.stderr
    assert snapshot(home, tmp_path / "outside") == before


def test_approve_alone_never_discards_local_edits(skills, home, tmp_path) -> None:
    _edit(skills / "demo")
    before = snapshot(home)
    done = _lemon(home, tmp_path, "skill", "remove", "demo", "--approve")
    assert done.returncode == 1 and done.stdout == ""
    assert "edited notes.md; added mine.md; removed gone.md" in done.stderr
    assert "--discard-edits" in done.stderr and "nothing was changed" in done.stderr
    done = _lemon(home, tmp_path, "skill", "remove", "demo", "--discard-edits")
    assert done.returncode == 1 and "needs approval" in done.stderr
    assert snapshot(home) == before
    done = _lemon(home, tmp_path, "skill", "remove", "demo", "--approve", "--discard-edits",
                  "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["removed"]["key"] == "demo"
    assert not (skills / "demo").exists() and "demo" not in _records(skills)


def test_an_unedited_skill_and_a_record_without_its_folder_are_removed(skills, home,
                                                                       tmp_path) -> None:
    done = _lemon(home, tmp_path, "skill", "remove", "demo", "--approve")
    assert done.returncode == 0 and done.stdout.startswith("Removed demo (global)")
    assert not (skills / "demo").exists() and "demo" not in _records(skills)
    done = _lemon(home, tmp_path, "skill", "install", str(tmp_path / "src" / "demo"),
                  "--approve")
    assert done.returncode == 0, done.stderr
    shutil.rmtree(skills / "demo")
    done = _lemon(home, tmp_path, "skill", "remove", "demo", "--approve", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["removed"]["had_record"] is True
    assert "demo" not in _records(skills)


def _read_until(fd: int, text: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} from lemon; it printed {seen.decode(errors='replace')!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the terminal closed: lemon ended
                chunk = b""
            assert chunk, f"lemon ended before {text!r}: {seen.decode(errors='replace')!r}"
            seen += chunk
    return seen.decode(errors="replace")


def _asked(home: Path, tmp_path: Path, answer: bytes, meanwhile=None) -> tuple[int, str]:
    """``lemon skill remove demo`` on a terminal: its question, answered with ``answer`` after
    ``meanwhile()`` ran; returns the exit code and everything it printed."""
    lemon = shutil.which("lemon")
    assert lemon is not None
    main, terminal = os.openpty()
    process = subprocess.Popen([lemon, "skill", "remove", "demo"], env=_env(home, tmp_path),
                               cwd=tmp_path, stdin=terminal, stderr=terminal,
                               stdout=subprocess.DEVNULL)
    os.close(terminal)
    try:
        printed = _read_until(main, "[y/N]")
        if meanwhile is not None:
            meanwhile()
        os.write(main, answer)
        code = process.wait(timeout=60)
        while select.select([main], [], [], 0.2)[0]:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            printed += chunk.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        os.close(main)
    return code, printed


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_terminal_is_asked_about_the_edits_by_name(skills, home, tmp_path) -> None:
    _edit(skills / "demo")
    before = snapshot(home)
    code, printed = _asked(home, tmp_path, b"n\n")
    assert code == 1 and "Remove it and DISCARD these local edits?" in printed
    assert "edited notes.md; added mine.md; removed gone.md" in printed
    assert snapshot(home) == before

    def edit_again() -> None:
        (skills / "demo" / "notes.md").write_text("written while asked\n")

    code, printed = _asked(home, tmp_path, b"y\n", edit_again)
    assert code == 1 and "changed while lemon was asking" in printed
    assert (skills / "demo" / "notes.md").read_text() == "written while asked\n"
    assert "demo" in _records(skills)
    code, printed = _asked(home, tmp_path, b"y\n")
    assert code == 0, printed
    assert not (skills / "demo").exists() and "demo" not in _records(skills)
