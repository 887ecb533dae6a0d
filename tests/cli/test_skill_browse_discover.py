"""``lemon skill browse``, ``discover`` and ``info`` in process, against real HTTP on
127.0.0.1 (a registry and a well-known site)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli, write_skill
from tests.registry_server import json_answer, registry, web_server

__all__ = ["web_server"]


@pytest.fixture
def env(cli_project, monkeypatch):
    monkeypatch.chdir(cli_project)
    return cli_project


def test_browse_lists_categories_then_one_then_the_not_ready(capsys, env):
    skills = env / ".lemon" / "skill"
    write_skill(skills, "k8s", "description: Roll out.\nrequires:\n  bins: [no-such-bin-i]\n"
                "metadata:\n  lemon:\n    category: devops\n")
    write_skill(skills, "plain")
    code, out, err = run_cli(capsys, "skill", "browse")
    assert code == 0, err
    assert "devops" in out and "uncategorized" in out and "2 skills in 2 categories" in out
    code, out, _ = run_cli(capsys, "skill", "browse", "--category", "devops")
    assert "k8s" in out and "plain" not in out
    code, out, _ = run_cli(capsys, "skill", "browse", "--not-ready")
    assert "k8s" in out and "binary no-such-bin-i" in out and "plain" not in out
    code, out, _ = run_cli(capsys, "skill", "browse", "--json")
    document = json.loads(out)
    assert document["categories"] == [{"name": "devops", "count": 1},
                                      {"name": "uncategorized", "count": 1}]
    assert {"key", "category", "category_from", "state", "lacks"} <= set(document["skills"][0])


def test_info_answers_like_inspect(capsys, env):
    write_skill(env / ".lemon" / "skill", "plain")
    code, info, _ = run_cli(capsys, "skill", "info", "plain", "--json")
    assert code == 0
    assert json.loads(info) == json.loads(run_cli(capsys, "skill", "inspect", "plain",
                                                  "--json")[1])


def test_discover_ranks_every_source_on_one_scale(capsys, env, web_server, monkeypatch):
    registry(web_server, {"acme/docs/pdf-tools": {"description": "Read pdf forms as text.",
                                                  "clone_url": "https://git.example/x.git"}})
    web_server.route("/.well-known/skills/index.json", json_answer({"skills": [
        {"name": "pdf-forms", "description": "Fill pdf forms and sign them.",
         "files": ["SKILL.md"]}]}))
    monkeypatch.setenv("LEMON_REGISTRY_URL", web_server.url)
    monkeypatch.setenv("LEMON_WELL_KNOWN", web_server.url)
    monkeypatch.setenv("LEMON_HERMES_API_URL", web_server.url + "/no-hermes")
    code, out, err = run_cli(capsys, "skill", "discover", "pdf forms", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert [(h["identifier"], h["source"]) for h in document["hits"]][:2] == [
        (f"well-known:{web_server.url}#pdf-forms", "well-known"),
        ("acme/docs/pdf-tools", "registry")]
    assert document["hits"][0]["score"] > document["hits"][1]["score"]
    assert [e["source"] for e in document["errors"]] == ["hermes"]  # apart, not fatal
    code, out, err = run_cli(capsys, "skill", "discover", "pdf", "--source", "registry",
                             "--json")
    assert [h["source"] for h in json.loads(out)["hits"]] == ["registry"]
    code, out, err = run_cli(capsys, "skill", "discover", "pdf")
    assert code == 0 and "Install one with 'lemon skill install ID'" in out
    assert "discover: hermes" in err
    code, _, err = run_cli(capsys, "skill", "discover", "pdf", "--source", "nope")
    assert code == 2 and "no source named 'nope'" in err
