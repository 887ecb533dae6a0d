"""validate_servers: entries built in code, checked by the rules of lemon's own files."""

from __future__ import annotations

from pathlib import Path

import pytest

import lemon_core.mcp
from lemon_core.errors import ConfigError
from lemon_core.mcp.config import parse_file
from lemon_core.mcp.validate import ServerProblem, validate_servers
from lemon_core.models import McpServer, ServerSource

SECRET = "VALIDATE-SECRET-4242"


def test_valid_entries_come_back_normalised_and_in_order() -> None:
    valid, errors = lemon_core.mcp.validate_servers([
        {"name": "git", "type": "stdio", "command": "uvx", "args": ["mcp-server-git"],
         "allow-tools": ["git_status"]},
        {"type": "http", "url": "http://localhost:3000/mcp"},
        {"name": "old", "type": "sse", "url": "http://localhost:3001/sse",
         "headers": {"Authorization": f"Bearer {SECRET}"}},
    ])
    assert errors == ()
    assert [s.name for s in valid] == ["git", None, "old"]
    assert valid[0].allow_tools == ("git_status",) and valid[0].source.provider == "app"


BAD = [
    ({"name": "a", "type": "stdio"}, "command", "is required"),
    ({"name": "b", "type": "http", "url": f"ftp://{SECRET}@host/"}, "url", "http://"),
    ({"name": "c", "type": "stdio", "command": "x", "env": {"K": 7}}, "env", "strings"),
    ({"name": "d", "type": "sse", "url": "http://h/sse", "command": SECRET}, "command",
     "does not apply"),
    ({"name": "e", "type": "http", "url": "http://h/mcp",
      "headers": {"X-Token": f"{SECRET}\r\nInjected: 1"}}, "headers", "header names"),
    ({"name": "f", "type": "telnet"}, "type", ""),
    ({"name": "g", "type": "stdio", "command": "x", "timeout_ms": -5}, "timeout_ms", ""),
    ({"name": "h", "type": "http", "url": "http://h/mcp", "persist_oauth_tokens": "yes"},
     "persist_oauth_tokens", ""),
    ({"name": "i", "type": "http", "url": "http://h/mcp", "oauth_token_secret": ""},
     "oauth_token_secret", "non-empty"),
]


@pytest.mark.parametrize(("entry", "field", "words"), BAD, ids=[b[1] for b in BAD])
def test_each_error_names_the_entry_and_field_never_the_value(entry: dict[str, object],
                                                              field: str, words: str) -> None:
    good = {"name": "ok", "type": "stdio", "command": "ok"}
    valid, errors = validate_servers([good, entry])
    assert [s.name for s in valid] == ["ok"]
    (problem,) = errors
    assert problem.index == 1 and problem.name == entry["name"] and problem.field == field
    assert problem.message.startswith(f'entries[1] "{entry["name"]}": field "{field}"')
    assert words in problem.message and SECRET not in problem.message
    assert SECRET not in str(problem.to_json())


def test_the_rules_are_those_of_lemons_files(tmp_path: Path) -> None:
    # one rule set: whatever a project file refuses, validate_servers refuses, by the same field
    for entry, field, _ in BAD:
        with pytest.raises(ConfigError) as refused:
            parse_file(b'{"servers": [%s]}' % __import__("json").dumps(entry).encode(),
                       tmp_path / "mcp.json", "project")
        assert f'field "{field}"' in str(refused.value)
        assert validate_servers([entry])[1][0].field == field


def test_not_an_object_and_duplicate_names() -> None:
    one = {"name": "dup", "type": "stdio", "command": "a"}
    valid, errors = validate_servers(["stdio npx", one, dict(one, command="b"),
                                      {"name": "solo", "type": "stdio", "command": "c"}])
    assert [s.name for s in valid] == ["solo"]  # both "dup" are left out, as in a file
    assert errors[0] == ServerProblem(0, None, "entry", "entries[0]: must be a JSON object")
    assert [(e.index, e.field) for e in errors[1:]] == [(1, "name"), (2, "name")]
    assert "entries[1] and entries[2] are both named \"dup\"" in errors[1].message


def test_server_objects_are_checked_too() -> None:
    src = ServerSource("app", "app", None)
    good = McpServer(name="m", transport="stdio", source=src, command="x")
    bad = McpServer(name="n", transport="http", source=src, url=f"file:///{SECRET}")
    valid, errors = validate_servers([good, bad])
    assert [s.name for s in valid] == ["m"]
    assert errors[0].field == "url" and SECRET not in errors[0].message
