"""``lemon blueprint list|preview|apply``: the commands over real bundles, in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.blueprints.support import write_bundle
from tests.helpers import run_cli


@pytest.fixture
def agent(cli_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "agent"
    monkeypatch.setenv("LEMON_AGENT_DIR", str(folder))
    monkeypatch.setenv("LEMON_BUILTIN_SKILLS", "0")
    monkeypatch.chdir(cli_project)
    return folder


def test_list_preview_and_apply_with_the_digest(capsys, agent, cli_project) -> None:
    write_bundle(agent)
    code, out, _ = run_cli(capsys, "blueprint", "list", "--json")
    assert code == 0 and json.loads(out)["blueprints"][0]["id"] == "team"
    code, out, _ = run_cli(capsys, "blueprint", "preview", "team", "--json")
    plan = json.loads(out)
    assert code == 0 and plan["problems"] == [] and plan["digest"].startswith("sha256:")
    assert [s["changes"] for s in plan["skills"]] == [{"alpha": "install"}, {"beta": "install"}]
    code, out, _ = run_cli(capsys, "blueprint", "preview", "team")
    assert f"--digest {plan['digest']}" in out and "add        server docs" in out
    code, out, err = run_cli(capsys, "blueprint", "apply", "team", "--digest",
                             plan["digest"], "--approve")
    assert code == 0, err
    assert "installed skill alpha" in out and "added server docs" in out
    assert (cli_project / ".lemon" / "skill" / "beta" / "SKILL.md").is_file()


def test_apply_with_a_stale_digest_exits_1_and_writes_nothing(capsys, agent,
                                                              cli_project) -> None:
    root = write_bundle(agent)
    _, out, _ = run_cli(capsys, "blueprint", "preview", "team", "--json")
    old = json.loads(out)["digest"]
    (root / "blueprint.toml").write_text((root / "blueprint.toml").read_text() + "\n# edited\n")
    code, _, err = run_cli(capsys, "blueprint", "apply", "team", "--digest", old, "--approve")
    assert code == 1 and "changed since its preview" in err and old in err
    assert not (cli_project / ".lemon").exists()


@pytest.mark.parametrize("bad", ["../etc", "Team", "a\u202eb"])
def test_an_unsafe_id_exits_2(capsys, agent, bad) -> None:
    code, _, err = run_cli(capsys, "blueprint", "preview", bad)
    assert code == 2 and "not a blueprint id" in err and "\u202e" not in err


def test_preview_path_validates_a_folder(capsys, agent, tmp_path) -> None:
    root = write_bundle(tmp_path / "draft", manifest="version = 1\nname = 'x'\nbogus = 1\n")
    code, _, err = run_cli(capsys, "blueprint", "preview", "--path", str(root))
    assert code == 1 and "unknown key bogus" in err
