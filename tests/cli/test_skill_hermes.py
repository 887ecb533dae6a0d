"""``lemon skill hermes``: the Hermes catalog browser, against a Hermes-shaped repository on
127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.registry_server import WebServer
from tests.registry_server import hermes as serve_hermes

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def md(name: str, description: str) -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n---\nBody\n".encode()


FILES = {
    "skills/research/arxiv/SKILL.md": md("arxiv", "Search arXiv papers."),
    "skills/research/scholar/SKILL.md": md("scholar", "Find papers on Google Scholar."),
    "skills/github/pr-review/SKILL.md": md("pr-review", "Review pull requests."),
    "optional-skills/finance/ledger/SKILL.md": md("ledger", '"Ledger \\e[2J\\u202e files."'),
}


@pytest.fixture
def served(monkeypatch):
    with WebServer() as server:
        env = serve_hermes(server, FILES)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        yield server, env


def test_without_filters_the_categories_are_listed(capsys, served):
    code, out, err = run_cli(capsys, "skill", "hermes")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "COLLECTION  CATEGORY  SKILLS",
        "bundled     github    1",
        "bundled     research  2",
        "optional    finance   1",
        "4 skills in 3 categories; list one with --category CATEGORY, or search with a QUERY.",
    ]


def test_a_category_lists_its_skills(capsys, served):
    code, out, _ = run_cli(capsys, "skill", "hermes", "--category", "research")
    assert code == 0
    assert [line.split() for line in out.splitlines()[:3]] == [
        ["ID", "CATEGORY"], ["hermes:bundled/research/arxiv", "research"],
        ["hermes:bundled/research/scholar", "research"]]


def test_a_query_with_details_searches_descriptions(capsys, served):
    server, _ = served
    code, out, _ = run_cli(capsys, "skill", "hermes", "papers", "--details", "--collection",
                           "bundled")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "CATEGORY", "DESCRIPTION"]
    assert [line.split()[0] for line in lines[1:3]] == ["hermes:bundled/research/arxiv",
                                                        "hermes:bundled/research/scholar"]
    assert lines[-1] == "2 skills; install one with 'lemon skill install ID'."
    assert not any("optional-skills" in r for r in server.requests if r.startswith("/raw/"))


def test_json_is_exact_and_text_is_escaped(capsys, served):
    code, out, _ = run_cli(capsys, "skill", "hermes", "--category", "finance", "--details",
                           "--json")
    assert code == 0
    data = json.loads(out)
    assert data["count"] == 1
    row = data["skills"][0]
    assert row["description"] == "Ledger \x1b[2J\u202e files."
    assert sorted(row) == ["category", "collection", "description", "id", "key", "name", "path",
                           "sha"]
    code, out, _ = run_cli(capsys, "skill", "hermes", "--category", "finance", "--details")
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[2J" in out


def test_nothing_matches(capsys, served):
    code, out, _ = run_cli(capsys, "skill", "hermes", "no-such-thing")
    assert (code, out) == (0, "No Hermes skills match.\n")


def test_a_bad_collection_is_an_invalid_argument(capsys, served):
    code, _, err = run_cli(capsys, "skill", "hermes", "--collection", "community")
    assert code == 2
    assert "unknown Hermes collection 'community'" in err


def test_an_unreachable_catalog_is_one_line_exit_1(capsys, monkeypatch):
    monkeypatch.setenv("LEMON_HERMES_API_URL", "http://127.0.0.1:9/api")
    code, out, err = run_cli(capsys, "skill", "hermes")
    assert code == 1 and out == ""
    assert err.startswith("lemon: hermes: GET http://127.0.0.1:9/api/commits/main: cannot reach")
    assert len(err.splitlines()) == 1


def test_the_real_cli_in_a_subprocess(served, tmp_path):
    _, env = served
    full = {**os.environ, **env, "HOME": str(tmp_path)}
    lemon = Path(sys.executable).with_name("lemon")
    if not lemon.exists():
        pytest.skip("the lemon console script is not installed next to this Python")
    done = subprocess.run([str(lemon), "skill", "hermes", "arxiv", "--json"],
                          capture_output=True, text=True, env=full, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in json.loads(done.stdout)["skills"]] == [
        "hermes:bundled/research/arxiv"]
