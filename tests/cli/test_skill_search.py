"""``lemon skill search`` end to end (in-process, and once as a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def env(cli_project: Path) -> Path:
    project = cli_project
    root = project / ".agents" / "skills"
    write_skill(root, "yaml-format", description="Formats YAML documents.")
    write_skill(root, "yaml-lint", description="Lints YAML files for mistakes.")
    write_skill(root, "pdf-tools", description="Split and merge PDF files.",
                body="## Merge\n\nCombine several documents.\n")
    write_skill(root, "hidden-yaml", "description: Secret YAML tricks.\nhide: true\n")
    write_skill(root, "evil\x1b]0;x", description="YAML with an escape in its key.")
    return project


def search(capsys, project: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "skill", "search", *args, "--cwd", str(project))


def test_search_json_contract_best_first(env, capsys) -> None:
    code, out, err = search(capsys, env, "yaml lint", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["skills"]
    assert [s["key"] for s in data["skills"]][:2] == ["yaml-lint", "yaml-format"]
    first = data["skills"][0]
    assert list(first) == ["key", "name", "description", "score"]
    assert first["description"] == "Lints YAML files for mistakes."
    scores = [s["score"] for s in data["skills"]]
    assert scores == sorted(scores, reverse=True)
    assert "hidden-yaml" not in out


def test_search_max_body_and_no_match(env, capsys) -> None:
    code, out, _ = search(capsys, env, "yaml", "--max", "1", "--json")
    assert code == 0 and len(json.loads(out)["skills"]) == 1
    code, out, _ = search(capsys, env, "combine several", "--json")
    assert [s["key"] for s in json.loads(out)["skills"]] == ["pdf-tools"]
    code, out, _ = search(capsys, env, "zzzz-nothing")
    assert code == 0 and out == "No skill matches.\n"
    code, _, err = search(capsys, env, "yaml", "--max", "0")
    assert code == 2 and "--max" in err


def test_search_human_output_is_escaped(env, capsys) -> None:
    code, out, _ = search(capsys, env, "yaml escape key")
    assert code == 0 and out.startswith("KEY")
    assert "\x1b" not in out  # the folder with an escape in its name is never a skill


def test_search_remote_is_wired(env, capsys, monkeypatch) -> None:
    import types

    import attrs

    @attrs.frozen
    class Hit:
        id: str

    fake = types.ModuleType("lemon_core.install.remote")
    seen = []

    def search_remote(query, ctx, limit):
        seen.append((query, limit))
        return types.SimpleNamespace(hits=[Hit("registry:acme/yaml")], errors=["hermes: down"])

    fake.search_remote = search_remote
    monkeypatch.setitem(sys.modules, "lemon_core.install.remote", fake)
    code, out, err = search(capsys, env, "yaml", "--remote", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["remote"] == {"hits": [{"id": "registry:acme/yaml"}], "errors": ["hermes: down"]}
    assert seen == [("yaml", 10)]


def test_warm_search_reads_no_body_in_a_new_process(env, tmp_path: Path) -> None:
    for path in [*env.rglob("*"), env]:
        os.utime(path, (1_600_000_000, 1_600_000_000))  # out of the catalog's racy window
    environ = {**os.environ, "HOME": str(tmp_path / "home"),
               "LEMON_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c",
               ("import sys, lemon_core.search.snapshot_index as s\n"
               "calls = []\n"
               "orig = s.body_excerpt\n"
               "s.body_excerpt = lambda p: calls.append(p) or orig(p)\n"
               "from lemon_core.cli import main\n"
               "try:\n    main(sys.argv[1:])\nfinally:\n"
               "    print('BODIES', len(calls), file=sys.stderr)\n"),
               "skill", "search", "combine several", "--json", "--cwd", str(env)]
    runs = [subprocess.run(command, capture_output=True, text=True, env=environ,
                           timeout=60, check=False)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert [s["key"] for s in json.loads(run.stdout)["skills"]] == ["pdf-tools"]
    assert "BODIES 4" in runs[0].stderr and "BODIES 0" in runs[1].stderr
