"""Issue 17 on one hostile project: lemon acts only where its user said so.

``hostile_acts.py`` plants the tricks; each test runs the real ``lemon`` console script (or a
real MCP client against lemon's servers) in a tree that holds them and asserts what must never
happen: a planted server started, a write or delete through a planted link, a folder lemon did
not install replaced, an unbounded read, a raw invisible character served to an agent, a name
that means something else on another system installed. Every run must also keep the general
guarantees of ``test_hostile_project.py``: no traceback, no secret, no raw control character.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from tests.integration import hostile_acts as acts
from tests.integration import hostile_tree as ht
from tests.integration import measured_run
from tests.integration.test_hostile_project import unsafe_characters

pytestmark = pytest.mark.integration  # starts processes or loopback servers

TIME_LIMIT = 20.0
MEMORY_LIMIT_MB = 500
LEMON = measured_run.default_lemon()


def lemon(tree: ht.HostileTree, *args: str) -> measured_run.Run:
    run = measured_run.run(LEMON, list(args), tree.project, tree.env, timeout=TIME_LIMIT + 5)
    output = run.stdout + run.stderr
    where = f"lemon {' '.join(args)} ({run.status})"
    assert not run.timed_out and run.wall <= TIME_LIMIT, f"{where} took {run.wall:.1f} s"
    assert run.peak_rss_mb <= MEMORY_LIMIT_MB, f"{where}: peak RSS {run.peak_rss_mb:.0f} MB"
    assert "Traceback" not in output, f"{where}: {run.stderr[-500:]}"
    for name, secret in tree.secrets.items():
        assert secret not in output, f"{where} printed the secret {name}"
    assert tree.foreign_markers["outside_skill"] not in output, where
    assert not unsafe_characters(run.stderr), f"{where}: raw characters on stderr"
    return run


@pytest.fixture
def tree(tmp_path: Path) -> ht.HostileTree:
    return acts.build_acting_tree(tmp_path)


# -- §1 a project's MCP servers start only once the user trusts them ---------------------------


@pytest.mark.parametrize("args", [
    ("mcp", "status"), ("mcp", "status", "--json"), ("mcp", "tools"), ("mcp", "tools", "--json"),
    ("mcp", "test", "planted-root"), ("mcp", "test", "planted-lemon"),
    ("mcp", "call", "planted-vscode__anything", "--approve"),
], ids=lambda args: "-".join(args))
def test_planted_servers_do_not_start(tree: ht.HostileTree, args: tuple[str, ...]) -> None:
    run = lemon(tree, *args)
    assert acts.ran_markers(tree) == [], f"lemon {' '.join(args)} started a planted server"
    assert run.code != 0 or "lemon mcp trust" in run.stdout + run.stderr
    if "--json" in args:
        untrusted = json.loads(run.stdout)["untrusted"]
        assert set(acts.PLANTED_SERVERS) <= set(untrusted)


@pytest.mark.slow
def test_trusted_servers_start_and_a_changed_one_is_untrusted_again(
        tree: ht.HostileTree) -> None:
    run = lemon(tree, "mcp", "trust", "--all", "--approve")
    assert run.code == 0, run.stderr
    lemon(tree, "mcp", "status")
    assert acts.ran_markers(tree) == sorted(f"RAN-{name}" for name in acts.PLANTED_SERVERS)
    for marker in tree.base.glob("RAN-*"):
        marker.unlink()
    config = tree.project / ".mcp.json"
    doc = json.loads(config.read_text())
    doc["mcpServers"]["planted-root"]["args"][-1] += "; echo changed"
    config.write_text(json.dumps(doc))
    run = lemon(tree, "mcp", "status", "--json")
    assert "RAN-planted-root" not in acts.ran_markers(tree)
    assert json.loads(run.stdout)["untrusted"] == ["planted-root"]
    # the store is the user's, not the project's
    assert not [p for p in measured_run.tree_entries(tree.project) if "trust" in p.lower()]


def test_the_gateway_offers_no_untrusted_server(tree: ht.HostileTree) -> None:
    pytest.importorskip("mcp")
    from tests.mcp.servers.stdio import connect

    async def body() -> str:
        with anyio.fail_after(60):
            async with connect("lemon", "mcp", "serve", "--cwd", str(tree.project),
                               env=tree.env, cwd=str(tree.project)) as client:
                tools = (await client.list_tools()).tools
                return json.dumps([tool.model_dump() for tool in tools])

    listed = anyio.run(body)
    assert acts.ran_markers(tree) == []
    assert "lemon mcp trust" in listed


# -- §2 planted links steer no write, rename or delete ------------------------------------------


def test_a_linked_install_folder_is_refused(tree: ht.HostileTree) -> None:
    before = sorted(p.name for p in acts.user_skills(tree).iterdir())
    run = lemon(tree, "skill", "install", "./src/incoming", "--local", "--approve")
    assert run.code == 1
    assert ".lemon/skill" in run.stderr
    run = lemon(tree, "skill", "remove", acts.PRECIOUS, "--local", "--approve")
    assert run.code == 1
    assert sorted(p.name for p in acts.user_skills(tree).iterdir()) == before
    listed = json.loads(lemon(tree, "skill", "list", "--json").stdout)["skills"]
    assert not [s for s in listed if s["key"] == acts.PRECIOUS and s["scope"] == "project"]


def test_a_linked_lemon_folder_is_refused(tmp_path: Path) -> None:
    tree = acts.build_acting_tree(tmp_path, ("sources", "linked_lemon"))
    config = acts.cursor_user_config(tree)
    before = config.read_bytes()
    target = acts.linked_lemon_target(tree)
    run = lemon(tree, "mcp", "add", "mine2", "--stdio", "echo")
    assert run.code == 1
    assert config.read_bytes() == before
    lemon(tree, "skill", "install", "./src/incoming", "--local", "--approve")
    assert not (target / "skill" / "incoming").exists()
    lemon(tree, "skill", "remove", acts.PRECIOUS, "--local", "--approve")
    assert (target / "skill" / acts.PRECIOUS / "SKILL.md").is_file()
    assert sorted(os.listdir(target)) == ["mcp.json", "skill"]


# -- §3 --force, update and remove touch only what lemon installed ---------------------------


def test_force_never_replaces_a_hand_written_skill(tmp_path: Path) -> None:
    tree = acts.build_acting_tree(tmp_path, ("sources", "handwritten"))
    mine = acts.handwritten_skill(tree)
    before = {p.name: p.read_bytes() for p in mine.iterdir()}
    for extra in ((), ("--force",)):
        run = lemon(tree, "skill", "install", "./src/tools", "--local", "--approve", *extra)
        assert run.code == 1
        assert "with or without --force" in run.stderr, "the refusal steers to --force"
    run = lemon(tree, "skill", "remove", "tools", "--local", "--approve", "--discard-edits")
    assert run.code == 1
    assert "did not install" in run.stderr
    assert {p.name: p.read_bytes() for p in mine.iterdir()} == before


# -- §4 a local source is read within bounds -----------------------------------------------------


def test_a_huge_file_in_a_local_source_is_refused_within_bounds(tree: ht.HostileTree) -> None:
    run = lemon(tree, "skill", "install", "./src/big-skill", "--approve")
    assert run.code == 1
    assert "blob.bin" in run.stderr
    assert not (tree.agent_dir / "skill" / "big-skill").exists()


def test_a_git_source_is_read_only_where_the_skill_is(tmp_path: Path) -> None:
    tree = acts.build_acting_tree(tmp_path, ("fetch_bombs",))
    url = f"git+file://{acts.fetch_repo(tree)}#subdirectory=skills/"
    run = lemon(tree, "skill", "install", url + "good", "--approve")
    assert run.code == 0, run.stderr
    assert run.peak_rss_mb < 100, f"{run.peak_rss_mb:.0f} MB for a 1 KiB skill"
    run = lemon(tree, "skill", "install", url + "fat", "--approve")
    assert run.code == 1
    assert "skills/fat/zeros.bin is 65 MiB" in run.stderr
    assert not (tree.agent_dir / "skill" / "fat").exists()


# -- §7 one portable-name rule --------------------------------------------------------------------


@pytest.mark.parametrize("source", [*(f"./src/{key}/{name}" for key, name in
                                      acts.BAD_NAMES.items()), "./src/gitlike"],
                         ids=[*acts.BAD_NAMES, "gitlike"])
def test_names_that_mean_something_else_elsewhere_do_not_install(
        tree: ht.HostileTree, source: str) -> None:
    skills = tree.agent_dir / "skill"
    before = sorted(os.listdir(skills))
    run = lemon(tree, "skill", "install", source, "--approve")
    assert run.code in (1, 2)
    assert sorted(os.listdir(skills)) == before


# -- §5, §6 what an agent loads carries nothing invisible, and nothing from outside -------------


def test_what_the_skills_server_serves(tree: ht.HostileTree) -> None:
    pytest.importorskip("mcp")
    from tests.mcp.servers.stdio import connect

    seen: dict[str, str] = {}

    async def body() -> None:
        with anyio.fail_after(60):
            async with connect("lemon", "skill", "serve", "--cwd", str(tree.project),
                               env=tree.env, cwd=str(tree.project)) as client:
                for name in (acts.INVISIBLE_GLOBAL, acts.INVISIBLE_SKILL, acts.BLOCKED_SKILL):
                    result = await client.call_tool("load_skill", {"name": name})
                    seen[name] = json.dumps(result.model_dump(), ensure_ascii=False)
                    seen[f"{name} error"] = str(result.is_error)
                for uri in (f"skill://{acts.INVISIBLE_GLOBAL}/SKILL.md",
                            "skill://linked-refs/references/SKILL.md"):
                    try:
                        read = await client.read_resource(uri)
                        seen[uri] = json.dumps(read.model_dump(), ensure_ascii=False)
                    except Exception as exc:  # noqa: BLE001 - an MCP error is a refusal
                        seen[uri] = f"refused: {exc}"

    anyio.run(body)
    shown = "\n".join(seen.values())
    assert not unsafe_characters(shown), unsafe_characters(shown)
    assert "\\u202e" in seen[acts.INVISIBLE_GLOBAL].lower()
    assert acts.TAG_TEXT not in shown
    for withheld in (acts.INVISIBLE_SKILL, acts.BLOCKED_SKILL):
        assert seen[f"{withheld} error"] == "True"
        assert "lemon skill audit" in seen[withheld]
    assert "id_rsa" not in seen[acts.BLOCKED_SKILL]
    assert tree.foreign_markers["outside_skill"] not in shown
    listed = lemon(tree, "skill", "list")
    assert acts.BLOCKED_SKILL in listed.stdout
    row = next(line for line in listed.stdout.splitlines() if line.startswith(acts.BLOCKED_SKILL))
    assert "block" in row.lower()


# -- §8 messages that say what happened ----------------------------------------------------------


def test_a_lock_path_squatter_is_named_and_left_alone(tmp_path: Path) -> None:
    tree = acts.build_acting_tree(tmp_path, ("lock_squatters",))
    run = lemon(tree, "mcp", "add", "demo", "--stdio", "echo")
    assert run.code == 1
    assert "mcp.json.lock is a symbolic link" in run.stderr
    assert "stale" not in run.stderr
    run = lemon(tree, "skill", "disable", "valid-beta", "--local")
    assert run.code == 1
    assert "is a regular file, not a lock lemon made" in run.stderr
    assert (tree.project / ".lemon" / "mcp.json.lock").is_symlink()
    assert (tree.project / ".lemon" / "skills.json.lock").is_file()


def test_the_audit_reads_a_manifest_as_install_does(tree: ht.HostileTree) -> None:
    acts.ACT_ATTACKS["toml_bomb"][1](tree)
    audit = lemon(tree, "skill", "audit", "./src/toml-bomb")
    install = lemon(tree, "skill", "install", "./src/toml-bomb", "--approve")
    assert audit.code == install.code == 1
    for run in (audit, install):
        assert "frontmatter_too_deep" in run.stdout + run.stderr
