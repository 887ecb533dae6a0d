"""``lemon skill …`` end to end: in-process through ``main`` and once as a real subprocess."""

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
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    write_skill(project / ".agents" / "skills", "alpha", description="Alpha skill.")
    write_skill(home / ".agents" / "skills", "alpha", description="Global alpha.")
    write_skill(project / ".claude" / "skills", "beta",
                "description: Beta.\ntags: [t1]\nkeywords: [k1]\nmetadata:\n  lemon:\n"
                "    category: dev/tools\nrequires:\n  bins: [no-such-binary-xyz]\n"
                "disable-model-invocation: true\n")
    (project / ".claude" / "skills" / "beta" / "references").mkdir()
    (project / ".claude" / "skills" / "beta" / "references" / "notes.md").write_text("n")
    write_skill(project / ".agents" / "skills", "gamma", "description: [not, a, string]\n")
    return {"home": home, "project": project}




def test_list_json_contract(env, capsys) -> None:
    code, out, err = run_cli(capsys, "skill", "list", "--cwd", str(env["project"]), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [s["key"] for s in data["skills"]] == ["alpha", "beta"]
    alpha, beta = data["skills"]
    assert set(alpha) >= {"key", "name", "description", "scope", "root", "dir", "path", "state",
                          "hidden", "disabled", "tags", "keywords", "category", "shadowed"}
    assert alpha["scope"] == "project" and alpha["description"] == "Alpha skill."
    assert alpha["shadowed"] == [str(env["home"] / ".agents/skills/alpha/SKILL.md")]
    assert beta == {**beta, "state": "not_ready", "hidden": True, "disabled": False,
                    "tags": ["t1"], "keywords": ["k1"], "category": "dev/tools"}
    [diag] = [d for d in data["diagnostics"] if d["severity"] == "error"]
    assert diag["path"].endswith("gamma/SKILL.md") and set(diag) == {
        "path", "severity", "code", "message", "key"}
    assert diag["key"] == "gamma"


def test_list_global_only_and_human_output(env, capsys) -> None:
    code, out, _ = run_cli(capsys, "skill", "list", "--cwd", str(env["project"]), "--global",
                       "--json")
    assert [s["description"] for s in json.loads(out)["skills"]] == ["Global alpha."]
    code, out, err = run_cli(capsys, "skill", "list", "--cwd", str(env["project"]))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["KEY", "STATE", "SCOPE", "DESCRIPTION"]
    assert lines[1].index("project") == lines[0].index("SCOPE")  # aligned columns
    assert "gamma/SKILL.md" in err


def test_inspect(env, capsys) -> None:
    code, out, _ = run_cli(capsys, "skill", "inspect", "beta", "--cwd", str(env["project"]),
                       "--json")
    data = json.loads(out)
    assert code == 0
    assert data["files"] == ["SKILL.md", "references/notes.md"]
    assert data["provenance"] is None
    manifest = data["manifest"]
    assert manifest["requires"] == {"bins": ["no-such-binary-xyz"], "config": []}
    assert manifest["hide"] is True and manifest["verification"] is None
    assert set(manifest) >= {"name", "description", "version", "author", "tags", "keywords",
                             "platforms", "requires", "requires_tools", "fallback_for_tools",
                             "required_environment_variables", "verification", "references",
                             "metadata", "hide"}
    code, out, _ = run_cli(capsys, "skill", "inspect", "beta", "--cwd", str(env["project"]))
    assert "references/notes.md" in out and "hidden" in out


def test_check_and_verify(env, capsys, tmp_path: Path) -> None:
    write_skill(env["project"] / ".lemon" / "skill", "verified",
                "description: V.\nverification:\n  command: echo hello\n"
                "  expect_output: hello\n")
    code, out, _ = run_cli(capsys, "skill", "check", "beta", "--cwd", str(env["project"]), "--json")
    data = json.loads(out)
    assert data == {"key": "beta", "state": "not_ready", "ready": False,
                    "missing_bins": ["no-such-binary-xyz"], "missing_config": [],
                    "missing_env_vars": [], "missing_tools": [], "platform_ok": True,
                    "verification": None}
    code, out, _ = run_cli(capsys, "skill", "check", "verified", "--cwd", str(env["project"]),
                       "--verify", "--json")
    assert json.loads(out)["verification"] == {"exit_code": 0, "passed": True}
    code, out, _ = run_cli(capsys, "skill", "check", "beta", "--cwd", str(env["project"]))
    assert "missing binaries: no-such-binary-xyz" in out


def test_enable_disable(env, capsys) -> None:
    project = str(env["project"])
    assert run_cli(capsys, "skill", "disable", "alpha", "--cwd", project)[0] == 0
    code, out, _ = run_cli(capsys, "skill", "list", "--cwd", project, "--json")
    assert json.loads(out)["skills"][0]["state"] == "disabled"
    code, out, _ = run_cli(capsys, "skill", "enable", "alpha", "--local", "--cwd", project, "--json")
    assert json.loads(out) == {"key": "alpha", "disabled": False,
                               "file": str(env["project"] / ".lemon" / "skills.json")}
    code, out, _ = run_cli(capsys, "skill", "list", "--cwd", project, "--json")
    assert json.loads(out)["skills"][0]["state"] == "active"


def test_errors_are_one_line_with_exit_codes(env, capsys) -> None:
    code, out, err = run_cli(capsys, "skill", "inspect", "missing", "--cwd", str(env["project"]))
    assert code == 1 and out == "" and err.count("\n") == 1 and "missing" in err
    assert "Traceback" not in err
    code, _, err = run_cli(capsys, "skill", "list", "--bogus")
    assert code == 2
    code, _, _ = run_cli(capsys, "skill", "check")
    assert code == 2


def test_lint_json(env, capsys) -> None:
    code, out, _ = run_cli(capsys, "skill", "lint", str(env["project"] / ".agents" / "skills"),
                       "--json")
    results = json.loads(out)["results"]
    assert code == 1
    by_name = {Path(r["path"]).name if Path(r["path"]).name != "SKILL.md"
               else Path(r["path"]).parent.name: r for r in results}
    assert by_name["alpha"]["ok"] is True and by_name["gamma"]["ok"] is False
    assert all(set(i) == {"code", "message"} for r in results for i in r["errors"])


def test_second_list_parses_nothing(env, tmp_path: Path) -> None:
    """A real subprocess twice: the second run is served by the persistent cache."""
    environment = {**os.environ, "HOME": str(env["home"]),
                   "LEMON_CACHE_DIR": str(tmp_path / "cache2")}
    for path in [*env["project"].rglob("*"), *env["home"].rglob("*")]:
        os.utime(path, (1_600_000_000, 1_600_000_000))  # out of the racy window
    command = [sys.executable, "-c",
               "import sys, lemon_core.catalog.snapshot as c\n"
               "calls = []\n"
               "orig = c.default_loader\n"
               "def counting(p, k):\n"
               "    calls.append(k); return orig(p, k)\n"
               "c.default_loader = counting\n"
               "c.scan.__kwdefaults__['loader'] = counting\n"
               "c.Catalog.__init__.__kwdefaults__['loader'] = counting\n"
               "from lemon_core.cli import main\n"
               "try:\n    main(sys.argv[1:])\nfinally:\n"
               "    print('PARSED', len(calls), file=sys.stderr)\n",
               "skill", "list", "--cwd", str(env["project"]), "--json"]
    first = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    second = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    assert "PARSED 4" in first.stderr and "PARSED 0" in second.stderr
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_a_global_switch_the_project_overrides_says_so(env, capsys) -> None:
    project = str(env["project"])
    assert run_cli(capsys, "skill", "disable", "alpha", "--local", "--cwd", project)[0] == 0
    code, out, err = run_cli(capsys, "skill", "enable", "alpha", "--cwd", project, "--json")
    assert code == 0 and json.loads(out)["disabled"] is True
    assert "still disabled" in err and "--local" in err


def test_home_has_no_project_state(env, capsys) -> None:
    home = env["home"]
    (home / ".lemon").mkdir(exist_ok=True)
    (home / ".lemon" / "skills.json").write_text('{"disabled": ["alpha"]}')
    code, out, _ = run_cli(capsys, "skill", "list", "--cwd", str(home), "--json")
    assert [(s["key"], s["state"]) for s in json.loads(out)["skills"]] == [("alpha", "active")]
    code, _, err = run_cli(capsys, "skill", "disable", "alpha", "--local", "--cwd", str(home))
    assert code == 2 and "never a project" in err
    assert (home / ".lemon" / "skills.json").read_text() == '{"disabled": ["alpha"]}'


def test_a_failed_skill_is_a_row_of_the_listing(env, capsys) -> None:
    code, out, err = run_cli(capsys, "skill", "list", "--cwd", str(env["project"]))
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert list(rows) == ["alpha", "beta", "gamma"]  # sorted, the failed one among them
    assert rows["gamma"].split()[1:3] == ["invalid", "project"]
    assert "description must be text" in rows["gamma"]  # its reason, in the table
    [line] = [line for line in err.splitlines() if "gamma" in line]  # the full one, once
    assert line.startswith("lemon: error: ") and line.endswith("[wrong_type]")


def test_a_failed_copy_is_listed_after_the_copy_that_wins(env, capsys) -> None:
    write_skill(env["project"] / ".lemon" / "skill", "alpha", "description: [x]\n")
    code, out, _ = run_cli(capsys, "skill", "list", "--cwd", str(env["project"]))
    assert code == 0
    alpha = [line.split()[:3] for line in out.splitlines() if line.startswith("alpha ")]
    assert alpha == [["alpha", "active", "project"], ["alpha", "invalid", "project"]]


@pytest.mark.parametrize("command", ["inspect", "check"])
@pytest.mark.parametrize("as_json", [False, True])
def test_inspect_and_check_of_a_failed_skill_say_why(env, capsys, command, as_json) -> None:
    argv = ["skill", command, "gamma", "--cwd", str(env["project"])] + (["--json"] * as_json)
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == "" and err.count("\n") == 1
    skill_md = env["project"] / ".agents" / "skills" / "gamma" / "SKILL.md"
    assert err.startswith("lemon: skill 'gamma' failed to load: ")
    assert str(skill_md) in err and "description must be text" in err
    assert "[wrong_type]" in err and "lemon skill lint" in err
    assert "is discovered" not in err


def test_a_deleted_working_directory_is_a_clear_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = ("import os, sys\nos.chdir(sys.argv[1]); os.rmdir(sys.argv[1])\n"
              "from lemon_core.cli import console\nsys.argv[1:] = sys.argv[2:]\nconsole()\n")
    repo = Path(__file__).resolve().parents[2]
    for argv in (["skill", "list"], ["skill", "inspect", "x"], ["mcp", "list"]):
        gone.mkdir(exist_ok=True)
        done = subprocess.run([sys.executable, "-c", script, str(gone), *argv],
                              capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "PYTHONPATH": str(repo)})
        assert done.returncode == 1, (argv, done.stderr)
        assert done.stderr == ("lemon: the current directory no longer exists; cd to an "
                               "existing folder or pass --cwd DIR\n"), argv
