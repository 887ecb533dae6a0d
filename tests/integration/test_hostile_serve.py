"""The agent-facing servers on the hostile project tree (``hostile_tree.py``): ``lemon skill
serve`` and ``lazy-skills-mcp`` driven by the SDK's real client over stdio.

What an agent receives must hold what the CLI's output holds (``test_hostile_project.py``):
every ordinary skill found and loadable (but one that holds a file named with terminal escapes,
which ``lemon skill serve``'s first-load audit withholds with a one-line reason); nothing from outside the project (the planted outside
SKILL.md, /etc/passwd, a forged cache row); no secret; no raw control, bidi or invisible
character in a tool result (a client shows them to a person, and a model reads them); a name
that walks out of the catalog (``valid-alpha/../../etc/passwd``) a tool error; and the server
creates nothing in the project but the usage sidecar ``lemon skill serve`` counts loads in
(issue 21), a regular file holding counts and times of the skills it served, nothing else.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest

from tests.integration import hostile_cache, measured_run
from tests.integration import hostile_tree as ht
from tests.mcp.servers.stdio import connect

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

#: server -> (its command, the skills folder it is pointed at: None for the project's catalog)
SERVERS = {"lemon skill serve": (("lemon", "skill", "serve"), None),
           "lazy-skills-mcp": (("lazy-skills-mcp",), ".agents/skills")}
#: The ordinary skills of .agents/skills, all lazy-skills-mcp is shown.
AGENTS_SKILLS = ("valid-alpha", "valid-beta", "deploy", "linked-ok")
#: Ordinary-looking skills the first-load audit of ``lemon skill serve`` withholds (issue 17 §5).
WITHHELD = ("valid-alpha",)
ESCAPES = ("valid-alpha/../../../../etc/passwd", "../outside/secret-skill", "leak", "passwd",
           "fifo-skill", "huge-skill", ht.ESC_SKILL)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> ht.HostileTree:
    built = ht.build_hostile_tree(tmp_path_factory.mktemp("hostile-serve"),
                                  measured_run.default_lemon(), variant="b")
    hostile_cache.replant_cache(built)
    return built


def _unsafe(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c not in "\n\t"
                   and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")})


@pytest.mark.parametrize("server", list(SERVERS))
def test_the_skills_servers_on_a_hostile_tree(tree: ht.HostileTree, server: str) -> None:
    before = measured_run.tree_entries(tree.project)
    seen: list[str] = []

    (command, *args), folder = SERVERS[server]
    where = ["--cwd", str(tree.project)] if folder is None else [
        "--skills-dir", str(tree.project / folder)]
    valid = ht.VALID_SKILLS if folder is None else AGENTS_SKILLS

    async def body() -> None:
        with anyio.fail_after(60):
            async with connect(command, *args, *where, env=tree.env,
                               cwd=str(tree.project)) as client:
                tools = (await client.list_tools()).tools
                seen.append(json.dumps([t.model_dump() for t in tools], ensure_ascii=False))
                every = await client.call_tool("find_skills", {"query": ""})
                names = [s["name"] for s in every.structured_content["skills"]]
                seen.append(json.dumps(every.model_dump(), ensure_ascii=False))
                missing = set(valid) - set(names)
                assert not missing, f"ordinary skills not found: {sorted(missing)}"
                for name in valid:
                    loaded = await client.call_tool("load_skill", {"name": name})
                    seen.append(json.dumps(loaded.model_dump(), ensure_ascii=False))
                    if name in WITHHELD and folder is None:
                        # a hand-placed project skill holding a file named with terminal
                        # escapes: lemon skill serve's first-load audit withholds it
                        assert loaded.is_error, name
                        assert "blocked it on first load" in loaded.content[0].text
                        assert f"lemon skill audit {name}" in loaded.content[0].text
                        continue
                    assert not loaded.is_error, (name, loaded.content[0].text)
                for name in ESCAPES:
                    refused = await client.call_tool("load_skill", {"name": name})
                    assert refused.is_error, name
                    seen.append(json.dumps(refused.model_dump(), ensure_ascii=False))

    anyio.run(body)
    output = "\n".join(seen)
    for name, secret in tree.secrets.items():
        assert secret not in output, f"the secret {name} reached the agent"
    for name, marker in tree.foreign_markers.items():
        assert marker not in output, f"foreign content reached the agent ({name})"
    assert not _unsafe(output), f"raw {_unsafe(output)[:8]} in what the agent got"
    created = measured_run.tree_entries(tree.project) - before
    counted = set(created) & {SIDECAR}
    assert created - counted == set(), f"the server created {sorted(created - counted)}"
    if counted:
        assert server == "lemon skill serve", f"{server} counted loads"
        _check_sidecar(tree, tree.project / SIDECAR, valid)


#: Where ``lemon skill serve`` counts the loads of project skills (issue 21).
SIDECAR = ".lemon/skills.usage.json"


def _check_sidecar(tree: ht.HostileTree, path: Path, served: Sequence[str]) -> None:
    assert path.is_file() and not path.is_symlink(), "the usage sidecar is not a regular file"
    text = path.read_text(encoding="utf-8")
    for name, secret in tree.secrets.items():
        assert secret not in text, f"the secret {name} is in the usage sidecar"
    for name, marker in tree.foreign_markers.items():
        assert marker not in text, f"foreign content is in the usage sidecar ({name})"
    keys = set(json.loads(text)["skills"])
    assert keys and keys <= set(served), f"counted loads of {sorted(keys - set(served))}"
