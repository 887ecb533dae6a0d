"""The ssh transport for real, without a network: a fake ``ssh`` first on PATH runs dulwich's
own upload-pack on a local repository, as sshd would run ``git-upload-pack`` on the server.

dulwich's SSH vendor runs ``ssh [-x] [-p PORT] [-o SetEnv GIT_PROTOCOL=…] [USER@]HOST
"git-upload-pack 'PATH'"``; the fake records its arguments (so the tests see the host, the user
and that nothing became an option), refuses any host but ``localhost``, and serves PATH below
``$FAKE_SSH_ROOT``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitserver import build_repo, commit

pytestmark = pytest.mark.integration  # starts processes or loopback servers

LEMON = str(Path(sys.executable).parent / "lemon")
SKILL = "---\nname: demo\ndescription: Use when testing ssh installs.\n---\nBody.\n"

FAKE_SSH = '''#!{python}
"""A stand-in for ssh: run dulwich's upload-pack for the remote command on a local folder."""
import json, os, shlex, sys

args = sys.argv[1:]
with open(os.environ["FAKE_SSH_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
rest = list(args)
options = []
while rest and rest[0].startswith("-"):
    flag = rest.pop(0)
    options.append(flag)
    if flag in ("-p", "-o", "-i"):
        options.append(rest.pop(0))
destination, command = rest
host = destination.rsplit("@", 1)[-1]
if host != "localhost":
    sys.stderr.write(f"ssh: Could not resolve hostname {{host}}: Name or service not known\\n")
    sys.exit(255)
program, path = shlex.split(command)
if program != "git-upload-pack":
    sys.stderr.write(f"fake ssh: {{program}} is not served\\n")
    sys.exit(1)
from dulwich.errors import NotGitRepository
from dulwich.server import FileSystemBackend, UploadPackHandler, serve_command

backend = FileSystemBackend(os.environ["FAKE_SSH_ROOT"])
try:
    backend.open_repository(path.lstrip("/"))
except NotGitRepository:  # what git-upload-pack on a server says
    sys.stderr.write(f"fatal: '{{path}}' does not appear to be a git repository\\n")
    sys.exit(128)
sys.exit(serve_command(UploadPackHandler, ["upload-pack", path.lstrip("/")], backend=backend))
'''


@pytest.fixture
def fake_ssh(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``lemon`` whose ``ssh`` is the fake: PATH, root and log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    ssh.write_text(FAKE_SSH.format(python=sys.executable))
    ssh.chmod(0o755)
    root = tmp_path / "served"
    root.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(home),
            "LEMON_CACHE_DIR": str(home / ".cache" / "lemon"),
            "FAKE_SSH_ROOT": str(root), "FAKE_SSH_LOG": str(tmp_path / "ssh.log")}


def _lemon(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LEMON, *args], env=env, cwd=env["HOME"], capture_output=True,
                          text=True, timeout=120, check=False)


def _calls(env: dict[str, str]) -> list[list[str]]:
    log = Path(env["FAKE_SSH_LOG"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.slow
def test_install_update_and_sync_over_ssh(fake_ssh: dict[str, str]) -> None:
    repo, first = build_repo(Path(fake_ssh["FAKE_SSH_ROOT"]) / "o" / "demo.git",
                             {"skills/demo/SKILL.md": SKILL, "skills/demo/v.txt": "1"})
    identifier = "git@localhost:o/demo.git#subdirectory=skills/demo"
    proc = _lemon(fake_ssh, "skill", "install", identifier, "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    (item,) = json.loads(proc.stdout)["installed"]
    assert (item["key"], item["revision"], item["trust"]) == ("demo", first, "community")
    folder = Path(fake_ssh["HOME"]) / ".lemon" / "agent" / "skill" / "demo"
    assert sorted(os.listdir(folder)) == ["SKILL.md", "v.txt"]
    calls = _calls(fake_ssh)
    assert calls and all(c[-2] == "git@localhost" and c[0] == "-x" for c in calls)
    assert calls[0][-1] == "git-upload-pack 'o/demo.git'"
    lock = json.loads((folder.parent.parent / "skills.lock.json").read_text())
    record = lock["skills"]["demo"]
    assert record["source_kind"] == "git" and record["source_id"] == "git@localhost:o/demo.git"
    assert record["resolved_commit"] == first and record["subdirectory"] == "skills/demo"

    second = commit(repo, {"skills/demo/SKILL.md": SKILL, "skills/demo/v.txt": "2"})
    proc = _lemon(fake_ssh, "skill", "outdated", "--json")
    assert proc.returncode == 1, proc.stderr  # outdated exits 1
    (state,) = json.loads(proc.stdout)["skills"]
    assert state["status"] == "outdated" and state["upstream_now"] == second
    proc = _lemon(fake_ssh, "skill", "update", "demo", "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["updated"][0]["revision"] == second
    assert (folder / "v.txt").read_text() == "2"

    import shutil

    shutil.rmtree(folder)
    proc = _lemon(fake_ssh, "skill", "sync", "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["installed"] == ["demo"]
    assert (folder / "v.txt").read_text() == "2"


@pytest.mark.slow
def test_ssh_failures_end_with_one_clear_line(fake_ssh: dict[str, str]) -> None:
    build_repo(Path(fake_ssh["FAKE_SSH_ROOT"]) / "o" / "demo.git", {"SKILL.md": SKILL})
    skills = Path(fake_ssh["HOME"]) / ".lemon" / "agent" / "skill"
    for identifier, words in (
            ("git@unknown.example:o/demo.git", "Could not resolve hostname unknown.example"),
            ("git@localhost:o/missing.git", "'o/missing.git' does not appear to be a git"),
            ("git@localhost:o/demo.git@no-such-ref", "no-such-ref")):
        proc = _lemon(fake_ssh, "skill", "install", identifier, "--approve")
        assert proc.returncode == 1, (identifier, proc.stdout, proc.stderr)
        assert proc.stderr.startswith("lemon: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert words in proc.stderr and "Traceback" not in proc.stderr
        assert not skills.exists() or not any(skills.iterdir())
    # an identifier whose host would be an ssh option never reaches ssh
    before = len(_calls(fake_ssh))
    proc = _lemon(fake_ssh, "skill", "install", "-oProxyCommand=x@h:o/r.git", "--approve")
    assert proc.returncode != 0 and len(_calls(fake_ssh)) == before


@pytest.mark.slow
def test_an_ssh_fetch_holds_one_object_at_a_time(fake_ssh: dict[str, str],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """issue 17 §4: 24 MiB of blobs outside the chosen folder, under the pack caps: the pack
    goes to a scratch repository on disk, not into memory (before: all 24 MiB were held);
    a blob inside over the cap is refused and nothing is written."""
    import tracemalloc

    from lemon_core.source_kit import FetchLimits, FetchTooLarge, fetch_tree
    from tests.gitserver import Zeros

    mib = 1024 * 1024
    files: dict[str, object] = {"skills/demo/SKILL.md": SKILL,
                                "skills/fat/zeros.bin": Zeros(2 * mib)}
    files.update({f"big/z{n}.bin": Zeros(3 * mib + n) for n in range(8)})
    build_repo(Path(fake_ssh["FAKE_SSH_ROOT"]) / "o" / "big.git", files)  # type: ignore[arg-type]
    for name in ("PATH", "FAKE_SSH_ROOT", "FAKE_SSH_LOG"):
        monkeypatch.setenv(name, fake_ssh[name])
    dest = tmp_path / "dest"
    dest.mkdir()
    tracemalloc.start()  # the server is another process: this is the fetch alone
    try:
        fetch_tree("git@localhost:o/big.git", None, dest, subdirectory="skills/demo")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert os.listdir(dest) == ["SKILL.md"]
    assert peak < 12 * mib
    fat = tmp_path / "fat"
    fat.mkdir()
    with pytest.raises(FetchTooLarge, match="1 MiB"):
        fetch_tree("git@localhost:o/big.git", None, fat, subdirectory="skills/fat",
                   limits=FetchLimits(max_object_bytes=mib))
    assert os.listdir(fat) == []
