"""skills.json and skills.lock.json that are not what they should be, in both scopes: each is
one diagnostic naming the file once, and ``lemon skill list`` still lists everything else
(exit 0). Devices, FIFOs and huge files run the real CLI in a bounded subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.state.hostile import (
    assert_listed_with_one_diagnostic,
    lemon,
    project_with_a_skill,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers

UNREADABLE = {"skills.json": "unreadable_settings", "skills.lock.json": "unreadable_lockfile"}
INVALID = {"skills.json": "invalid_settings", "skills.lock.json": "invalid_lockfile"}


def _tree(tmp_path: Path) -> tuple[Path, Path, list[tuple[Path, str]]]:
    """(project, home, every state file with its name), the folders made, the files not."""
    project = project_with_a_skill(tmp_path)
    home = tmp_path / "home"
    agent = home / ".lemon" / "agent"
    agent.mkdir(parents=True)
    files = [(folder / name, name) for folder in (project / ".lemon", agent)
             for name in ("skills.json", "skills.lock.json")]
    return project, home, files


def _check_each(result: tuple[int, str, str, float], files: list[tuple[Path, str]],
                codes: dict[str, str], reason: str) -> None:
    for path, name in files:
        assert reason in assert_listed_with_one_diagnostic(result, path, codes[name])


@pytest.mark.parametrize(("device", "reason"), [("/dev/zero", "device"),
                                                ("/dev/stdin", "not a regular file")])
def test_a_link_to_a_device_is_refused_unread(tmp_path: Path, device: str, reason: str) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        path.symlink_to(device)
    result = lemon(project, "skill", "list", home=home)
    _check_each(result, files, UNREADABLE, reason)


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        os.mkfifo(path)
    _check_each(lemon(project, "skill", "list", home=home), files, UNREADABLE, "FIFO")


def test_a_huge_sparse_file_is_refused_at_once(tmp_path: Path) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        with open(path, "wb") as handle:
            handle.truncate(3 * 1024**3)
    result = lemon(project, "skill", "list", home=home)
    _check_each(result, files, UNREADABLE, "too large")


def _in_process(capsys, monkeypatch, project: Path, home: Path,
                *argv: str) -> tuple[int, str, str, float]:
    monkeypatch.setenv("HOME", str(home))
    code, out, err = run_cli(capsys, "skill", "list", *argv, "--cwd", str(project))
    return code, out, err, 0.0


@pytest.mark.parametrize(("content", "reason"), [
    ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    ('{"disabled": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper"),
    ('{"version": ' + "9" * 5000 + "}", "integer longer"),
    ('{"disabled": [], "disabled": ["ok"]}', "holds the key 'disabled' twice"),
    ("{nope", "not valid JSON"),
])
def test_unparsable_json_is_one_diagnostic(tmp_path: Path, capsys, monkeypatch, content: str,
                                           reason: str) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        path.write_text(content)
    result = _in_process(capsys, monkeypatch, project, home)
    _check_each(result, files, INVALID, reason)


def test_a_folder_in_place_of_the_file(tmp_path: Path, capsys, monkeypatch) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        path.mkdir()
    result = _in_process(capsys, monkeypatch, project, home)
    _check_each(result, files, UNREADABLE, "a folder, not a regular file")


def test_dot_lemon_being_a_file(tmp_path: Path, capsys, monkeypatch) -> None:
    project, home, files = _tree(tmp_path)
    (project / ".lemon").rmdir()
    (project / ".lemon").write_text("not a folder")
    result = _in_process(capsys, monkeypatch, project, home)
    _check_each(result, files[:2], UNREADABLE, "a folder on its path is a file")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads a file whatever its mode")
def test_an_unreadable_file(tmp_path: Path, capsys, monkeypatch) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        path.write_text("{}")
        path.chmod(0)
    result = _in_process(capsys, monkeypatch, project, home)
    _check_each(result, files, UNREADABLE, "permission denied")


def test_the_json_listing_carries_the_diagnostics(tmp_path: Path, capsys, monkeypatch) -> None:
    project, home, files = _tree(tmp_path)
    for path, _ in files:
        path.mkdir()
    status, out, _, _ = _in_process(capsys, monkeypatch, project, home, "--json")
    assert status == 0
    document = json.loads(out)
    assert [s["key"] for s in document["skills"]] == ["ok"]
    assert sorted((d["path"], d["code"]) for d in document["diagnostics"]) == sorted(
        (str(path), UNREADABLE[name]) for path, name in files)
