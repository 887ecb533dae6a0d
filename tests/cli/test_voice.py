"""The CLI names its own flags: an error's advice never reaches the terminal as a Python
keyword argument (``approve=True``, ``force=True``…), in human output or ``--json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lemon_core.cli.voice import cli_voice, flag, said
from lemon_core.errors import LemonError, Option, Voiced
from tests.helpers import run_cli, write_skill

#: A library phrase: a keyword argument with a value, or the library's approval callback.
LIBRARY_WORDS = re.compile(r"\b[a-z_]+=(True|False|None|CALLABLE|DIR)\b|callback|update\(")


@pytest.fixture
def agent(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home / ".lemon" / "agent"


def _speaks_cli(text: str, *flags: str) -> None:
    assert not LIBRARY_WORDS.search(text), text
    for name in flags:
        assert name in text, text


def test_the_cli_voice_reads_options_as_flags() -> None:
    error = LemonError("it failed", advice=("pass ", Option("discard_edits"), " or ",
                                            Option("cwd", metavar="DIR"), "; ",
                                            Voiced("a callback", "a terminal")))
    assert said(error) == "it failed; pass --discard-edits or --cwd DIR; a terminal"
    assert str(error) == "it failed; pass discard_edits=True or cwd=DIR; a callback"
    assert flag(Option("approver", metavar="CALLABLE")) == "--approve CALLABLE"
    assert cli_voice(Voiced("lib", "cli")) == "cli"
    assert said(ValueError("plain")) == "plain"


def test_install_remove_update_and_sync_name_flags(capsys, agent, tmp_path) -> None:
    write_skill(tmp_path / "src", "demo")
    source = str(tmp_path / "src" / "demo")
    code, _, err = run_cli(capsys, "skill", "install", source)
    assert code == 1
    _speaks_cli(err, "--approve", "run it in a terminal")
    assert run_cli(capsys, "skill", "install", source, "--approve")[0] == 0
    code, _, err = run_cli(capsys, "skill", "install", source, "--approve")
    assert code == 1
    _speaks_cli(err, "pass --force", "lemon skill update demo")
    code, _, err = run_cli(capsys, "skill", "remove", "demo")
    assert code == 1
    _speaks_cli(err, "--approve")

    (agent / "skill" / "demo" / "SKILL.md").write_text(
        (agent / "skill" / "demo" / "SKILL.md").read_text() + "edited\n")
    for argv in (("update", "demo", "--approve", "--force"), ("sync", "--approve"),
                 ("remove", "demo", "--approve")):
        code, _, err = run_cli(capsys, "skill", *argv)
        assert code == 1, argv
        _speaks_cli(err, "--discard-edits")


def test_a_batch_failure_and_its_json_name_flags(capsys, agent, tmp_path) -> None:
    for key in ("one", "two"):
        write_skill(tmp_path / "tree", key)
    assert run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--all",
                   "--approve")[0] == 0
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--all",
                             "--approve", "--json")
    assert code == 1
    failed = json.loads(out)["failed"]
    assert [f["key"] for f in failed] == ["one", "two"]
    for item in failed:
        _speaks_cli(item["reason"] + "; " + item["next"], "--force")
    code, _, err = run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--all",
                           "--approve")
    assert code == 1
    _speaks_cli(err, "--force")


def test_the_library_keeps_naming_its_own_arguments(agent, tmp_path) -> None:
    from lemon_core.approval import ApprovalRefused
    from lemon_core.install.occupied import AlreadyInstalled
    from lemon_core.skills.installing import install

    write_skill(tmp_path / "src", "demo")
    with pytest.raises(ApprovalRefused) as refused:
        install(str(tmp_path / "src" / "demo"), cwd=tmp_path)
    assert "pass approve=True or an approval callback" in str(refused.value)
    assert "--approve" not in str(refused.value)
    install(str(tmp_path / "src" / "demo"), cwd=tmp_path, approve=True)
    with pytest.raises(AlreadyInstalled) as installed:
        install(str(tmp_path / "src" / "demo"), cwd=tmp_path, approve=True)
    assert "pass force=True" in str(installed.value) and "--force" not in str(installed.value)


def test_a_trust_change_names_its_flag(capsys, agent, tmp_path) -> None:
    from lemon_core.state.lockfile import read_lock_records, write_records

    write_skill(tmp_path / "src", "demo")
    assert run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                   "--approve")[0] == 0
    lockfile = agent / "skills.lock.json"
    record = read_lock_records(lockfile)[0]["demo"]
    write_records(lockfile, {"demo": {**record.to_json(), "trust_level": "community"}})
    code, _, err = run_cli(capsys, "skill", "update", "demo", "--approve", "--force")
    assert code == 1 and "from community to trusted" in err
    _speaks_cli(err, "pass --allow-trust-change")
