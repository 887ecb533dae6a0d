"""``lemon skill search --remote`` with the real sources: a registry and a Hermes repository on
127.0.0.1, the built-in skills, and one source that is down."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli
from tests.registry_server import WebServer
from tests.registry_server import hermes as serve_hermes
from tests.registry_server import registry as serve_registry

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def sources(monkeypatch, tmp_path):
    monkeypatch.setenv("LEMON_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.chdir(tmp_path)
    with WebServer() as server:
        env = serve_hermes(server, {
            "skills/writing/skill-writing-tips/SKILL.md":
                b"---\nname: skill-writing-tips\ndescription: Tips for skills.\n---\nBody\n"})
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        serve_registry(server, {"acme/docs/writing-style": {
            "description": "House style for writing \x1b[31mdocs\x1b[0m.",
            "clone_url": "https://git.example/w.git"}})
        monkeypatch.setenv("LEMON_REGISTRY_URL", server.url)
        yield server


def test_remote_hits_from_every_source_in_json(capsys, sources):
    code, out, err = run_cli(capsys, "skill", "search", "writing", "--remote", "--json")
    assert code == 0, err
    remote = json.loads(out)["remote"]
    assert [(h["source"], h["identifier"]) for h in remote["hits"]] == [
        ("builtin", "builtin:writing-skills"),
        ("hermes", "hermes:bundled/writing/skill-writing-tips"),
        ("registry", "acme/docs/writing-style")]
    assert remote["hits"][2]["description"] == "House style for writing \x1b[31mdocs\x1b[0m."
    assert remote["errors"] == []


def test_human_output_is_a_table_and_a_down_source_is_a_warning(capsys, sources, monkeypatch):
    monkeypatch.setenv("LEMON_REGISTRY_URL", "http://127.0.0.1:9")
    code, out, err = run_cli(capsys, "skill", "search", "writing", "--remote")
    assert code == 0
    lines = out.splitlines()
    start = lines.index("Remote (install with 'lemon skill install ID'):")
    assert [line.split()[:2] for line in lines[start + 1:]] == [
        ["SOURCE", "ID"], ["builtin", "builtin:writing-skills"],
        ["hermes", "hermes:bundled/writing/skill-writing-tips"]]
    assert err.startswith("lemon: warning: remote search: registry: GET "
                          "http://127.0.0.1:9/search?q=writing: cannot reach the server")


def test_descriptions_are_escaped_for_people(capsys, sources):
    code, out, _ = run_cli(capsys, "skill", "search", "writing", "--remote")
    assert code == 0
    assert "\x1b" not in out
    assert "\\x1b[31mdocs" in out
