"""Helpers shared by the tests: writing skills, running the CLI in-process."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lemon_core.cli import main

#: The argv that runs ``lemon`` in a subprocess: this interpreter, whether or not a virtual
#: environment is activated (its console script need not be on ``PATH``).
LEMON = (sys.executable, "-m", "lemon_core.cli")


def write_skill(root: Path, key: str, frontmatter: str | None = None, body: str = "Body.\n",
                *, name: str | None = None, description: str | None = None) -> Path:
    """Create ``root/key/SKILL.md``; without ``frontmatter`` a minimal YAML one is written."""
    if frontmatter is None:
        frontmatter = (f"name: {name or key}\n"
                       f"description: {description or 'Use when testing ' + key + '.'}\n")
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    text = f"---\n{textwrap.dedent(frontmatter)}---\n{body}"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder / "SKILL.md"


class FakeSource:
    """A skill source that satisfies the protocol and accepts nothing (tests override
    ``parse``). ``order=None`` leaves the attribute out, to test the host's checks."""

    def __init__(self, name: str, order: object = 10) -> None:
        self.name = name
        if order is not None:
            self.order = order

    def parse(self, identifier: str) -> Any:
        return None

    def trust_level(self, ref: Any) -> str:
        return "community"

    def fetch(self, ref: Any, dest: Any, ctx: Any, progress: Any) -> None:
        pass

    def upstream_hash(self, ref: Any, ctx: Any) -> None:
        return None

    def search(self, query: str, ctx: Any, limit: int) -> list[Any]:
        return []


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``lemon *argv`` in this process: (exit code, stdout, stderr)."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_agent_dir(project: Path) -> Path:
    """The agent folder MCP tests use: ``$LEMON_AGENT_DIR`` when a test set it, else
    ``<the test's tmp_path>/agent`` (the convention of the runtime, gateway and OAuth tests)."""
    import os

    configured = os.environ.get("LEMON_AGENT_DIR")
    if configured:
        return Path(configured)
    for folder in project.resolve().parents:  # the nearest test folder: pytest-N/<test> or,
        if folder.parent.name.startswith(("pytest-", "popen-gw")):  # with xdist, popen-gwN/<test>
            return folder / "agent"
    raise AssertionError(f"no test tmp_path above {project}")


test_agent_dir.__test__ = False  # type: ignore[attr-defined]


def trust_project(project: Path, agent: Path | None = None,
                  servers: Any = None) -> list[str]:
    """Record servers of ``project`` as trusted, as ``lemon mcp trust --approve`` would, in
    ``agent``'s trust store (default :func:`test_agent_dir`): ``servers`` (entries as written
    to ``.lemon/mcp.json``, so a test can trust them before it writes them), else every server
    of its ``.lemon/mcp.json``."""
    import json
    import os

    from lemon_core.context import LemonContext
    from lemon_core.mcp.config import McpConfigError, parse_file, read_file
    from lemon_core.mcp.trust.store import trust_servers

    folder = agent or test_agent_dir(project)
    ctx = LemonContext(cwd=project, home=folder.parent, platform="linux",
                       env={"LEMON_AGENT_DIR": str(folder), "PATH": os.environ.get("PATH", "")})
    try:
        if servers is None:
            parsed = read_file(ctx, "project").servers
        else:
            content = json.dumps({"servers": list(servers)}).encode()
            parsed = parse_file(content, project / ".lemon" / "mcp.json", "project").servers
    except McpConfigError:  # a test of an unusable file: nothing of it can start anyway
        return []
    return trust_servers(ctx, parsed)
