"""The general guarantee of issue 7, tested on one hostile project tree.

The tree (``hostile_tree.py``) holds every trick of issues 2 and 7 at once: links to ``/`` and
``/proc``, SKILL.md links out of the project, FIFOs, ``/dev/zero`` links, 3 GB sparse files,
100,000-deep JSON and 5,000-digit integers in the settings and lock files, folder names with
terminal escapes and invisible characters, MCP names substituted from a home file and the
environment, a forged persistent cache. The files that lemon reads at one fixed path rotate
through three slot variants (a, b, c); everything else is always there.

Each test runs the real ``lemon`` console script once in the tree (stdin closed, a fake home,
nothing of the caller's environment but PATH) and asserts, for its command and output mode:

- it ends within :data:`TIME_LIMIT` seconds and :data:`MEMORY_LIMIT_MB` of peak RSS, with
  exit status 0 or 1 and no traceback;
- nothing from outside the project tree reaches the output (the planted outside SKILL.md, the
  content of /etc/passwd, a skill found through a link to ``/`` or ``/proc``, a forged cache row);
- no secret planted in the environment, in a home file or in a config value is printed;
- no raw control, bidi or invisible character reaches the terminal (human stdout, and stderr in
  both modes); JSON output parses;
- every ordinary skill and the valid servers are still listed (the project's own
  ``.lemon/mcp.json`` is hostile in every variant, so ``lemon mcp list`` must name it instead);
- a read-only command creates nothing in the project, and a forged cache never decides what
  ``--verify`` runs.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from tests.integration import hostile_cache, measured_run
from tests.integration import hostile_tree as ht

TIME_LIMIT = 20.0
MEMORY_LIMIT_MB = 500
#: The run's own limit: past it the process is killed and the test fails on time.
KILL_AFTER = 25.0

COMMANDS = {
    "skill-list": ["skill", "list"],
    "skill-inspect": ["skill", "inspect", "valid-alpha"],
    "skill-inspect-hostile-path": ["skill", "inspect", "esc-inner"],
    "skill-check": ["skill", "check", "valid-alpha"],
    "skill-check-verify": ["skill", "check", "valid-alpha", "--verify"],
    "skill-lint": ["skill", "lint", ".agents/skills"],
    "mcp-list": ["mcp", "list"],
    "mcp-list-all": ["mcp", "list", "--all"],
    # the commands that came after issue 7, on the same tree
    "skill-search": ["skill", "search", "alpha"],
    "skill-prompt": ["skill", "prompt"],
    "skill-read": ["skill", "read", "valid-alpha"],
    "skill-audit": ["skill", "audit", ".agents/skills/valid-alpha"],
    "skill-outdated": ["skill", "outdated"],
    "skill-sync-frozen": ["skill", "sync", "--frozen"],
    "mcp-tools": ["mcp", "tools"],
    "mcp-status": ["mcp", "status"],
}
#: Commands that must name the hostile lockfile they cannot read (every variant plants one in
#: the project) and fail, never pass it as "no records".
LOCKFILE_COMMANDS = ("skill-outdated", "skill-sync-frozen")
#: Commands that must name the unusable project ``.lemon/mcp.json`` (hostile in every variant)
#: and fail, never report an empty project.
MCP_FILE_COMMANDS = ("mcp-list", "mcp-tools", "mcp-status")
CASES = [(variant, command, as_json) for variant in ht.VARIANTS for command in COMMANDS
         for as_json in (False, True)]


class Trees:
    """One hostile tree for the module, switched between slot variants as the tests need."""

    def __init__(self, base: Path) -> None:
        self.lemon = measured_run.default_lemon()
        self.tree = ht.build_hostile_tree(base, self.lemon, variant="a")
        self.variant = "a"

    def get(self, variant: str) -> ht.HostileTree:
        if variant != self.variant:
            ht.plant_variant(self.tree, variant, self.lemon)
            self.variant = variant
        hostile_cache.replant_cache(self.tree)
        return self.tree


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Trees:
    return Trees(tmp_path_factory.mktemp("hostile"))


def unsafe_characters(text: str, *, allow: str = "\n\t") -> list[str]:
    """Every character a terminal must not receive raw, as ``U+XXXX``: C0 (but ``allow``),
    DEL, C1, format characters (bidi, zero-width, soft hyphen), line/paragraph separators, and
    undecodable bytes (held as lone surrogates by the decoder)."""
    found = []
    for char in set(text):
        if char in allow:
            continue
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            found.append(f"U+{ord(char):04X}")
    return sorted(found)


def listed_keys(run: measured_run.Run, as_json: bool) -> dict[str, str] | None:
    """The keys ``lemon skill list`` printed, with their state (None when stdout is not a
    listing)."""
    if as_json:
        try:
            return {skill["key"]: skill["state"] for skill in json.loads(run.stdout)["skills"]}
        except (ValueError, KeyError, TypeError):
            return None
    lines = run.stdout.splitlines()
    if not lines or not lines[0].startswith("KEY"):
        return None
    rows = [line.split() for line in lines[1:] if line.strip()]
    return {row[0]: row[1] if len(row) > 1 else "" for row in rows}


def listed_servers(run: measured_run.Run, as_json: bool) -> list[str] | None:
    if as_json:
        try:
            return [server["name"] for server in json.loads(run.stdout)["effective"]]
        except (ValueError, KeyError, TypeError):
            return None
    rows = [line.split() for line in run.stdout.splitlines()]
    return [row[0] for row in rows if row]


def check_listing(tree: ht.HostileTree, command: str, run: measured_run.Run, as_json: bool
                  ) -> list[str]:
    problems = []
    output = run.stdout + run.stderr
    if command == "skill-list":
        keys = listed_keys(run, as_json)
        if keys is None:
            return [f"no listing on stdout: {run.stdout[:200]!r}"]
        missing = sorted(set(ht.VALID_SKILLS) - set(keys))
        # A planted broken skill may be listed as "invalid" (its reason is a diagnostic, not
        # its content); anything else must be a skill of the tree.
        foreign = sorted(key for key, state in keys.items()
                         if key not in ht.VALID_SKILLS and key not in ht.TOLERATED_SKILLS
                         and not (state == "invalid" and key in ht.BROKEN_SKILLS))
        if missing:
            problems.append(f"ordinary skills not listed: {missing}")
        if foreign:
            problems.append(f"{len(foreign)} skills listed that the tree does not hold as "
                            f"valid skills (links to / or /proc, invisible keys, forged "
                            f"cache rows), e.g. {[ascii(k) for k in foreign[:5]]}")
        if as_json:
            allowed = tree.allowed_dirs()
            outside = [s["path"] for s in json.loads(run.stdout)["skills"]
                       if s["state"] != "invalid"
                       and not os.path.realpath(s["path"]).startswith(allowed)]
            if outside:
                problems.append(f"{len(outside)} skills live outside the project, the home "
                                f"and the linked checkout, e.g. {outside[:3]}")
    elif command in ("skill-inspect", "skill-check", "skill-check-verify", "skill-lint",
                     "skill-search", "skill-read", "skill-audit"):
        if "valid-alpha" not in run.stdout:
            problems.append(f"valid-alpha is not shown on stdout: {run.stdout[:200]!r}")
    elif command == "skill-prompt":
        prompt = json.loads(run.stdout)["prompt"] if as_json else run.stdout
        missing = [key for key in ht.VALID_SKILLS if f'key="{key}"' not in prompt]
        if missing:
            problems.append(f"ordinary skills not offered in the prompt: {missing}")
    elif command in LOCKFILE_COMMANDS:
        lockfile = str(tree.slot_path("project_lock"))
        if run.code != 1 or "cannot read the lockfile" not in run.stderr \
                or lockfile not in run.stderr:
            problems.append(f"the unreadable {lockfile} is not named as a failure "
                            f"(exit {run.code})")
    elif command == "mcp-list-all":
        names = listed_servers(run, as_json) or []
        missing = sorted(set(ht.VALID_SERVERS) - set(names))
        if missing:
            problems.append(f"valid servers not listed: {missing}")
    elif command in MCP_FILE_COMMANDS and (run.code != 1 or "mcp.json" not in output):
        problems.append(f"the unusable .lemon/mcp.json is not named as a failure "
                        f"(exit {run.code})")
    return problems


@pytest.mark.parametrize(("variant", "command", "as_json"), CASES,
                         ids=[f"{v}-{c}-{'json' if j else 'human'}" for v, c, j in CASES])
def test_hostile_project(trees: Trees, variant: str, command: str, as_json: bool) -> None:
    tree = trees.get(variant)
    args = [*COMMANDS[command], *(["--json"] if as_json else [])]
    before = measured_run.tree_entries(tree.project)
    if tree.pwned_file.exists():
        tree.pwned_file.unlink()
    run = measured_run.run(trees.lemon, args, tree.project, tree.env, timeout=KILL_AFTER)
    slots = ", ".join(f"{slot}={kind}" for slot, kind in tree.slots.items())
    where = f"lemon {' '.join(args)} [variant {variant}: {slots}]"
    problems: list[str] = []

    if run.timed_out or run.wall > TIME_LIMIT:
        problems.append(f"took {run.wall:.1f} s (limit {TIME_LIMIT:g} s; "
                        f"{'killed' if run.timed_out else 'finished'})")
    if run.peak_rss_mb > MEMORY_LIMIT_MB:
        problems.append(f"peak RSS {run.peak_rss_mb:.0f} MB (limit {MEMORY_LIMIT_MB} MB)")
    if not run.timed_out and run.code not in (0, 1):
        problems.append(f"exit status {run.code}")
    output = run.stdout + run.stderr
    if "Traceback" in output:
        last = [line for line in run.stderr.splitlines() if line.strip()][-1:]
        problems.append(f"a traceback: {last}")
    for name, secret in tree.secrets.items():
        if secret in output:
            problems.append(f"the secret {name} is printed")
    for name, marker in tree.foreign_markers.items():
        if marker in output:
            problems.append(f"foreign content is printed ({name})")
    streams = [("stderr", run.stderr)] + ([] if as_json else [("stdout", run.stdout)])
    for stream, text in streams:
        unsafe = unsafe_characters(text)
        if unsafe:
            problems.append(f"raw {', '.join(unsafe[:8])} on {stream}")
    if as_json and run.stdout.strip():
        try:
            json.loads(run.stdout)
        except ValueError:
            problems.append("stdout is not JSON")
    if not run.timed_out:
        problems.extend(check_listing(tree, command, run, as_json))
    if tree.pwned_file.exists():
        problems.append("a command from the forged cache ran")
    created = sorted(measured_run.tree_entries(tree.project) - before)
    if created:
        problems.append(f"a read-only command created {[ascii(c) for c in created[:5]]}")

    tail = [ascii(line)[1:-1][:300] for line in run.stderr.splitlines()[-3:]]
    assert not problems, (f"{where} ({run.status}, {run.wall:.1f} s, {run.peak_rss_mb:.0f} MB):"
                          f"\n  " + "\n  ".join(problems) + "\n  stderr: " + "\n  ".join(tail))


def test_reveal_prints_the_planted_config_secrets(trees: Trees) -> None:
    """The secrets are really there to be leaked: ``--reveal`` (debugging) shows them, so the
    tests above that find none in the other outputs can fail."""
    tree = trees.get(trees.variant)
    run = measured_run.run(trees.lemon, ["mcp", "list", "--all", "--json", "--reveal"],
                           tree.project, tree.env, timeout=KILL_AFTER)
    assert tree.secrets["config_env"] in run.stdout
    assert tree.secrets["config_arg"] in run.stdout
