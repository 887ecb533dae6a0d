"""``lemon mcp list`` and ``lemon mcp list --all`` read lemon's files the same way: the same
file gets the same verdict, the same messages and the same exit status (1 while a lemon file
has a problem; what can be shown is still shown)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext
from tests.helpers import run_cli
from tests.mcp.support import (
    ENV_SECRET,
    assert_no_secrets,
    ctx,
    project_file,
    write_json,
)

__all__ = ["ctx", "project_file"]

BROKEN = {
    "not-json": '{"servers": [{"env": {"K": "' + ENV_SECRET + '"',
    "wrong-shape": json.dumps({"servers": {"name": "x"}}),
    "bad-list": json.dumps({"servers": [], "disabled_servers": "x"}),
}


def _both(capsys: Any, ctx: LemonContext, *extra: str) -> dict[str, tuple[int, str, str]]:
    runs = {}
    for label, argv in (("list", ["list"]), ("all", ["list", "--all"])):
        runs[label] = run_cli(capsys, "mcp", *argv, *extra, "--cwd", str(ctx.cwd))
        assert_no_secrets(*runs[label][1:])
    return runs


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, ctx: LemonContext) -> None:
    monkeypatch.setenv("LEMON_AGENT_DIR", str(ctx.agent_dir))
    monkeypatch.setenv("LEMON_MCP_EXTERNAL_DISCOVERY", "0")


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_an_unusable_file_fails_both_the_same_way(ctx: LemonContext, project_file: Path,
                                                  capsys: Any, kind: str) -> None:
    project_file.parent.mkdir(parents=True)
    project_file.write_text(BROKEN[kind])
    runs = _both(capsys, ctx)
    (code_l, out_l, err_l), (code_a, out_a, err_a) = runs["list"], runs["all"]
    assert code_l == code_a == 1
    assert err_l == err_a and err_l.count("\n") == 1 and str(project_file) in err_l
    assert "every MCP server is disabled until this file is fixed" in err_l
    assert "disabled until it is fixed" in out_l and "disabled until it is fixed" in out_a
    for as_json in (run_cli(capsys, "mcp", "list", "--json", "--cwd", str(ctx.cwd)),
                    run_cli(capsys, "mcp", "list", "--all", "--json", "--cwd", str(ctx.cwd))):
        assert as_json[0] == 1 and json.loads(as_json[1])["errors"][0]["message"] in err_l


def test_one_bad_entry_is_skipped_by_both_and_fails_both(ctx: LemonContext, project_file: Path,
                                                        capsys: Any) -> None:
    write_json(project_file, {"servers": [
        {"name": "ok", "type": "stdio", "command": "c"},
        {"name": "bad", "type": "http", "url": "SECRETurl", "headers": {"K": ENV_SECRET}},
        {"name": "also-ok", "type": "stdio", "command": "c"},
    ]})  # fmt: skip
    runs = _both(capsys, ctx)
    assert runs["list"][0] == runs["all"][0] == 1
    assert runs["list"][2] == runs["all"][2]  # one message, the same
    assert 'servers[1] "bad": field "url"' in runs["list"][2] and "SECRETurl" not in runs["list"][2]
    _, out, _ = run_cli(capsys, "mcp", "list", "--json", "--cwd", str(ctx.cwd))
    data = json.loads(out)
    assert [(s["index"], s["name"]) for s in data["servers"]] == [(0, "ok"), (2, "also-ok")]
    assert [e["kind"] for e in data["errors"]] == ["invalid_entry"]
    _, out, _ = run_cli(capsys, "mcp", "list", "--all", "--json", "--cwd", str(ctx.cwd))
    assert [s["name"] for s in json.loads(out)["effective"]] == ["ok", "also-ok"]
    assert "ok" in runs["list"][1] and "also-ok" in runs["list"][1]


def test_a_good_file_lists_with_status_0(ctx: LemonContext, project_file: Path,
                                         capsys: Any) -> None:
    write_json(project_file, {"servers": [{"name": "ok", "type": "stdio", "command": "c"}]})
    runs = _both(capsys, ctx)
    assert runs["list"][0] == runs["all"][0] == 0 and runs["list"][2] == runs["all"][2] == ""
    _, out, _ = run_cli(capsys, "mcp", "list", "--json", "--cwd", str(ctx.cwd))
    assert json.loads(out)["errors"] == []
