"""What a real ``lemon skill install`` process imports, and what it must not.

Each name below was once imported by every install and is not needed by one: a test per
deferral, so none silently comes back (the figures are in benchmarks/README.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitserver import build_repo, git_server  # noqa: F401

pytestmark = pytest.mark.integration  # starts processes or loopback servers

#: Not needed by an install from a git repository over HTTP, with why.
NOT_NEEDED = {
    # the catalog: an install changes a folder and exits; nothing lists skills afterwards
    "lemon_core.skills.api": "the catalog refresh rescanned every root for nothing",
    # plugins are found by lemon_core.entry_points, reading the dist-info folders itself
    "importlib.metadata": "entry-point discovery: ~10 ms to import and scan",
    # an install loads sources and auditors (load_plugins(needs=...)), not the MCP importers
    "lemon_plugins.mcp_importers.codex": "the built-in MCP importers: ~4% of an install",
    "lemon_core.mcp.importer_kit": "the built-in MCP importers: ~4% of an install",
    # git over HTTP goes through http.client (source_kit.http_git) unless a proxy is set
    "urllib3": "dulwich's HTTP client: 20-25 ms of imports for two requests",
}

SKILL = "---\nname: probe\ndescription: Use when probing what an install imports.\n---\nSteps.\n"


def _modules_after(argv: list[str], home: Path) -> set[str]:
    """The modules loaded once ``lemon ARGV`` finished (in a fresh interpreter)."""
    probe = ("import sys\nfrom lemon_core.cli import main\n"
             f"try:\n    main({argv!r})\nexcept SystemExit as exc:\n"
             "    assert not exc.code, exc.code\n"
             "print('\\nMODULES:' + ','.join(sorted(sys.modules)))\n")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
           "LEMON_CACHE_DIR": str(home / ".cache")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, cwd=home, check=False)
    assert done.returncode == 0, done.stderr
    out, _, modules = done.stdout.rpartition("\nMODULES:")
    assert json.loads(out)["installed"][0]["key"] == "probe"
    return set(modules.strip().split(","))


def test_a_git_install_imports_nothing_it_does_not_need(git_server, tmp_path) -> None:
    repo, _ = build_repo(tmp_path / "probe.git", {"SKILL.md": SKILL})
    url = git_server.add("o/probe.git", repo)
    home = tmp_path / "home"
    home.mkdir()
    loaded = _modules_after(["skill", "install", f"git+{url}", "--approve", "--json"], home)
    assert "dulwich.client" in loaded  # the probe did fetch over git
    assert {name: why for name, why in NOT_NEEDED.items() if name in loaded} == {}


def test_a_local_install_imports_no_git(tmp_path) -> None:
    source = tmp_path / "probe"
    source.mkdir()
    (source / "SKILL.md").write_text(SKILL)
    home = tmp_path / "home"
    home.mkdir()
    loaded = _modules_after(["skill", "install", str(source), "--approve", "--json"], home)
    assert not {m for m in loaded if m.split(".")[0] in ("dulwich", "urllib3", "http")}
    # lemon_core.source_kit resolves its names on first use: a path is no git fetch
    assert not {m for m in loaded if m.startswith("lemon_core.source_kit.")} - {
        "lemon_core.source_kit.location", "lemon_core.source_kit.lfs"}  # lfs: 3 constants
    assert {name: why for name, why in NOT_NEEDED.items() if name in loaded} == {}
