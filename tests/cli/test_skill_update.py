"""``lemon skill update``, ``outdated``, ``sync`` and the drift/upstream part of ``check``:
in-process for the outputs and exit codes, and the real ``lemon`` in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers

LEMON = str(Path(sys.executable).parent / "lemon")


@pytest.fixture
def env(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home / ".lemon" / "agent"


@pytest.fixture
def installed(env, capsys, tmp_path) -> Path:
    write_skill(tmp_path / "src", "demo")
    code, _, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                           "--approve")
    assert code == 0, err
    return tmp_path / "src" / "demo"


def test_outdated_and_check_report_drift_with_the_same_hash(capsys, env, installed) -> None:
    code, out, err = run_cli(capsys, "skill", "outdated", "--json")
    assert code == 0, err
    document = json.loads(out)
    (item,) = document["skills"]
    assert item["status"] == "current" and item["upstream_now"] == item["bundle_hash"]
    assert document["upstreams_asked"] == 1
    code, out, _ = run_cli(capsys, "skill", "check", "demo")
    assert "up to date with its source" in out
    (env / "skill" / "demo" / "extra.md").write_text("edited\n")
    code, out, _ = run_cli(capsys, "skill", "outdated")
    assert code == 1 and "drift" in out and "demo" in out
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--json", "--offline")
    install = json.loads(out)["install"]
    assert install["drift"] and install["upstream_now"] is None
    code, out, _ = run_cli(capsys, "skill", "check", "demo")
    assert "Local drift" in out


def test_update_needs_approval_and_reports_what_changed(capsys, env, installed) -> None:
    code, out, err = run_cli(capsys, "skill", "update", "--json")
    assert code == 0 and json.loads(out)["updated"][0]["action"] == "current"
    (installed / "SKILL.md").write_text("---\nname: demo\ndescription: New.\n---\nNew body.\n")
    code, out, err = run_cli(capsys, "skill", "update", "demo")
    assert code == 1 and "needs approval" in err and out == ""
    code, out, err = run_cli(capsys, "skill", "update", "demo", "--approve", "--json")
    assert code == 0, err
    (item,) = json.loads(out)["updated"]
    assert item["action"] == "updated" and item["changes"]["changed"] == ["SKILL.md"]
    assert "New body." in (env / "skill" / "demo" / "SKILL.md").read_text()
    code, _, err = run_cli(capsys, "skill", "update", "nope", "--approve")
    assert code == 1 and "no lockfile record for 'nope'" in err


def test_sync_frozen_fails_then_sync_restores(capsys, env, installed) -> None:
    shutil.rmtree(env / "skill" / "demo")
    code, out, _ = run_cli(capsys, "skill", "sync", "--frozen", "--json")
    assert code == 1
    assert json.loads(out) == {"in_sync": False, "differences": [
        {"key": "demo", "scope": "global", "kind": "missing",
         "recorded": json.loads((env / "skills.lock.json").read_text())["skills"]["demo"][
             "bundle_hash"], "found": None, "problem": None}]}
    assert not (env / "skill" / "demo").exists()
    code, out, err = run_cli(capsys, "skill", "sync", "--frozen")
    assert code == 1 and "demo (global): not installed" in err and "nothing was changed" in err
    code, out, err = run_cli(capsys, "skill", "sync", "--approve")
    assert code == 0 and out.startswith("Installed demo as recorded (1 fetch)"), err
    code, out, _ = run_cli(capsys, "skill", "sync", "--frozen")
    assert code == 0 and "match the lockfile" in out


def test_the_real_lemon_outdated_exits_1_on_drift(env, installed, home) -> None:
    (env / "skill" / "demo" / "SKILL.md").write_text("---\nname: demo\ndescription: X.\n---\n")
    run = subprocess.run([LEMON, "skill", "outdated", "--json"], check=False,
                         capture_output=True, text=True,
                         env={**os.environ, "HOME": str(home)}, timeout=60)
    assert run.returncode == 1, run.stderr
    assert json.loads(run.stdout)["skills"][0]["status"] == "drift"


def _conflicted(lockfile: Path) -> bytes:
    """The lockfile as a merge conflict leaves it: both sides between git's markers."""
    text = lockfile.read_text()
    broken = f"<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> teammate\n".encode()
    lockfile.write_bytes(broken)
    return broken


@pytest.mark.parametrize("args", [("skill", "sync", "--frozen"),
                                  ("skill", "sync", "--frozen", "--json"),
                                  ("skill", "sync", "--approve"),
                                  ("skill", "outdated", "--json"),
                                  ("skill", "update", "--approve")])
def test_a_lockfile_that_cannot_be_read_fails_instead_of_passing_as_empty(
        capsys, env, installed, args) -> None:
    lockfile = env / "skills.lock.json"
    broken = _conflicted(lockfile)
    shutil.rmtree(env / "skill" / "demo")  # a difference that an empty reading would miss
    code, out, err = run_cli(capsys, *args)
    assert code == 1 and out == ""
    assert f"cannot read the lockfile {lockfile}: not valid JSON" in err
    assert "merge conflict" in err and "Traceback" not in err
    assert lockfile.read_bytes() == broken and not (env / "skill" / "demo").exists()


def test_one_record_this_lemon_cannot_read_fails_sync_and_outdated(capsys, env,
                                                                   installed) -> None:
    lockfile = env / "skills.lock.json"
    document = json.loads(lockfile.read_text())
    document["skills"]["other"] = {"source_kind": "local", "audit_status": "maybe"}
    lockfile.write_text(json.dumps(document))
    for args in (("skill", "sync", "--frozen"), ("skill", "outdated")):
        code, _, err = run_cli(capsys, *args)
        assert code == 1 and "the record of 'other' has audit_status 'maybe'" in err, err
    # check reads what it can: the skill itself is still checked, the catalog names the file
    code, out, err = run_cli(capsys, "skill", "check", "demo", "--offline")
    assert code == 0 and "demo" in out, err


@pytest.mark.parametrize("key", ["../../../victim", "esc\x1b]0;pwned\x07\x1b[2J", ".hidden"])
def test_a_committed_record_whose_key_cannot_name_a_skill_folder_is_refused(
        capsys, env, installed, tmp_path, key) -> None:
    """A cloned project's lockfile is input: a record keyed ``../../../victim`` must not make
    outdated hash, or sync reach, a folder outside the skills folder."""
    lockfile = env / "skills.lock.json"
    document = json.loads(lockfile.read_text())
    document["skills"][key] = document["skills"]["demo"]
    lockfile.write_text(json.dumps(document))
    for args in (("skill", "sync", "--frozen"), ("skill", "sync", "--approve"),
                 ("skill", "outdated", "--json"), ("skill", "update", "--approve")):
        code, out, err = run_cli(capsys, *args)
        assert code == 1 and out == "" and "cannot name a skill folder" in err, (args, err)
        assert "\x1b" not in err
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--offline")
    assert code == 0 and "demo" in out


def _three(changed=(), readme="# one\n"):
    files = {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use when testing {n}.\n"
                                     f"---\n{'Changed' if n in changed else 'Body'}.\n"
             for n in ("a", "b", "c")}
    return {**files, "README.md": readme}


@pytest.mark.slow
def test_the_real_lemon_judges_git_skills_per_folder(env, home, tmp_path) -> None:
    """Three skills of one repository over the loopback git server: a README-only commit
    outdates none, a change to one outdates it alone; ``update`` without a terminal prints a
    line per skill on stderr, and each command fetches the repository once at most."""
    from tests.gitserver import GitServer, build_repo, commit

    def lemon(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([LEMON, *args], check=False, capture_output=True, text=True,
                              env={**os.environ, "HOME": str(home)}, timeout=120)

    def fetches() -> int:
        return sum(1 for method, path, _ in server.requests
                   if method == "POST" and path.endswith("git-upload-pack"))

    with GitServer() as server:
        repo, _ = build_repo(tmp_path / "r", _three())
        url = server.add("o/r.git", repo)
        run = lemon("skill", "install", f"git+{url}", "--all", "--approve")
        assert run.returncode == 0, run.stderr
        commit(repo, _three(readme="# two\n"))
        server.requests.clear()
        run = lemon("skill", "outdated", "--json")
        assert run.returncode == 0, run.stderr + run.stdout
        document = json.loads(run.stdout)
        assert [s["status"] for s in document["skills"]] == ["current"] * 3
        assert document["repositories_fetched"] == 1 and fetches() == 1
        commit(repo, _three(changed=("b",), readme="# two\n"))
        server.requests.clear()
        run = lemon("skill", "outdated")
        assert run.returncode == 1 and fetches() == 1
        rows = {line.split()[0]: line.split()[-1] for line in run.stdout.splitlines()[1:]}
        assert rows == {"a": "current", "b": "outdated", "c": "current"}, run.stdout
        server.requests.clear()
        run = lemon("skill", "check", "b", "--offline", "--json")
        assert json.loads(run.stdout)["install"]["upstream_now"] is None
        assert server.requests == []  # offline stays offline
        run = lemon("skill", "check", "b", "--json")
        assert json.loads(run.stdout)["install"]["outdated"] and fetches() == 1
        server.requests.clear()
        run = lemon("skill", "update", "--approve")
        assert run.returncode == 0, run.stderr
        assert fetches() == 2  # one to judge the three folders, one to install b
        lines = [line for line in run.stderr.splitlines() if "(global):" in line]
        assert sorted(lines) == ["a (global): up to date", "b (global): updated",
                                 "c (global): up to date"], run.stderr  # as each is done
        assert "Updated b (global)" in run.stdout and "changed: SKILL.md" in run.stdout
