"""A hostile project tree (issue 7): one cloned repository and a fake home holding every trick
lemon must survive.

Standard library only, and no import of lemon: ``benchmarks/hostile.py`` builds the same tree to
measure any lemon checkout (an older one too) through its console script alone
(``measured_run.py`` runs it; ``hostile_cache.py`` plants the cache attacks).

Layout under ``base``::

    project/            the repository (a ``.git`` folder) and the working directory
    home/               $HOME, with $XDG_CACHE_HOME = home/.cache
    outside/            a planted secret SKILL.md that no project may read
    checkout/           a legitimate skill that the project links in (it must stay listed)

Attacks are named (:data:`ATTACKS`) so the benchmark can plant one at a time; files that lemon
reads at one fixed path (``skills.json``, ``skills.lock.json`` of both scopes, the project's
``.lemon/mcp.json``, the persistent cache) are *slots*: one file cannot be a FIFO and a
100,000-deep JSON at once, so :data:`VARIANTS` rotates the slot contents while every other
trick stays in place. Running as root is expected: a folder without the execute bit is then
still searchable by the process, so that attack only bites other users.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: The size of every sparse file (no disk is used: ``truncate``).
SPARSE_BYTES = 3 * 1024**3
DEEP_LEVELS = 100_000
BIG_DIGITS = 5_000
CACHE_BRACKETS = 200_000

#: A group folder name that would clear the screen, set the window title and forge a line.
ESC_GROUP = "\x1b]0;pwned-title\x07\x1b[2J\x1b[H\r\nlemon: error: forged line\u202e\u200bgrp"
#: A skill folder name (an invalid key) with the same kind of payload.
ESC_SKILL = "evil\x1b[31m\x07\r\nlemon: error: forged key\u202ekey"
#: Five folders that all look like ``deploy``; only the first is a valid key.
DEPLOY_LOOKALIKES = ("deploy", "de\u200bploy", "deploy\u2060", "\ufeffdeploy", "dep\u00adloy")

#: Skills that must be listed whatever else the tree holds.
VALID_SKILLS = ("valid-alpha", "valid-beta", "valid-claude", "deploy", "linked-ok",
                "global-skill")
#: Skills that may be listed: valid keys whose path or text is hostile, a folder that only the
#: running user (root) can still search, and skills in group folders (listed by older lemons;
#: lemon now lists only ``<root>/<key>/SKILL.md``, as agents load them, and warns about them).
TOLERATED_SKILLS = ("esc-inner", "bidi-desc", "noexec-skill", "valid-gamma")
#: Planted broken skills (a FIFO, a sparse file, links out of the folder, a bidi description):
#: listed as ``invalid`` at most, never with their content.
BROKEN_SKILLS = ("fifo-skill", "huge-skill", "leak", "passwd", "bidi-desc")
#: MCP servers that ``lemon mcp list --all`` must still list.
VALID_SERVERS = ("valid-server", "valid-http")

#: Variants of the slot files: (project skills.json, project skills.lock.json, global
#: skills.json, global skills.lock.json, project .lemon/mcp.json, persistent cache).
SLOTS = ("project_settings", "project_lock", "global_settings", "global_lock", "project_mcp",
         "cache")
VARIANTS: dict[str, dict[str, str]] = {
    "a": dict(zip(SLOTS, ("fifo", "fifo", "dev_zero", "sparse", "fifo", "fifo"))),
    "b": dict(zip(SLOTS, ("deep", "bigint", "bigint", "deep", "deep", "forged"))),
    "c": dict(zip(SLOTS, ("sparse", "dev_zero", "fifo", "fifo", "dev_zero", "dev_zero"))),
}


@dataclass
class HostileTree:
    base: Path
    project: Path
    home: Path
    outside: Path
    checkout: Path
    #: name -> unique random string that must never be printed (outside ``--reveal``).
    secrets: dict[str, str]
    #: Strings that prove something from outside the tree (or a forged cache) was shown.
    foreign_markers: dict[str, str]
    env: dict[str, str]
    #: The file that a forged verification command would create.
    pwned_file: Path
    attacks: list[str] = field(default_factory=list)
    #: The persistent cache files found by a priming run (their names depend on lemon's roots).
    cache_files: list[Path] = field(default_factory=list)
    #: Bytes of the forged cache, per cache file, once made.
    forged_cache: dict[Path, bytes] = field(default_factory=dict)
    #: The cache files of the clean tree, as the priming run wrote them.
    primed_cache: dict[Path, bytes] = field(default_factory=dict)
    slots: dict[str, str] = field(default_factory=dict)

    @property
    def cache_dir(self) -> Path:
        return self.home / ".cache"

    @property
    def agent_dir(self) -> Path:
        return self.home / ".lemon" / "agent"

    def slot_path(self, slot: str) -> Path:
        return {
            "project_settings": self.project / ".lemon" / "skills.json",
            "project_lock": self.project / ".lemon" / "skills.lock.json",
            "global_settings": self.agent_dir / "skills.json",
            "global_lock": self.agent_dir / "skills.lock.json",
            "project_mcp": self.project / ".lemon" / "mcp.json",
        }[slot]

    def allowed_dirs(self) -> tuple[str, ...]:
        """Real paths under which a listed skill may live."""
        return tuple(os.path.realpath(p) for p in (self.project, self.home, self.checkout))


# -- writing files -----------------------------------------------------------------------------


def _skill(folder: Path, name: str, description: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {json.dumps(name)}\ndescription: {json.dumps(description)}\n"
                    f"{extra}---\n# {name}\n\nBody.\n", encoding="utf-8")
    return path


def remove(path: Path) -> None:
    if path.is_symlink() or path.exists():
        if path.is_dir() and not path.is_symlink():
            for child in path.iterdir():
                remove(child)
            path.rmdir()
        else:
            path.unlink()


def _json_bytes(doc: object) -> bytes:
    return json.dumps(doc, indent=2).encode()


def deep_json(levels: int = DEEP_LEVELS) -> bytes:
    return b"[" * levels + b"]" * levels


def bigint_json(key: str) -> bytes:
    return f'{{"{key}": {"9" * BIG_DIGITS}}}'.encode()


def plant(path: Path, kind: str, *, bigint_key: str = "version") -> None:
    """Put one hostile file at ``path``: fifo, dev_zero, dev_stdin, sparse, deep, bigint,
    brackets (``[`` repeated, never closed) or a folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("dev_zero", "dev_stdin"):
        path.symlink_to("/dev/zero" if kind == "dev_zero" else "/dev/stdin")
    elif kind == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(SPARSE_BYTES)
    elif kind == "deep":
        path.write_bytes(deep_json())
    elif kind == "bigint":
        path.write_bytes(bigint_json(bigint_key))
    elif kind == "brackets":
        path.write_bytes(b"[" * CACHE_BRACKETS)
    elif kind == "folder":
        path.mkdir()
    else:
        raise ValueError(f"unknown kind {kind!r}")


def age_tree(*roots: Path, seconds: int = 3600) -> None:
    """Set every mtime (links themselves, never their targets) an hour into the past: a
    catalog re-reads files changed just before a scan, which would hide the cache attacks."""
    when = time.time() - seconds
    for root in roots:
        for parent, dirs, files in os.walk(root):  # never follows links
            for name in [*dirs, *files]:
                try:
                    os.utime(os.path.join(parent, name), (when, when), follow_symlinks=False)
                except OSError:
                    pass
        os.utime(root, (when, when), follow_symlinks=False)


# -- the base tree -----------------------------------------------------------------------------


def build_base(base: Path) -> HostileTree:
    """Ordinary valid skills and servers, the secrets, and the planted outside files."""
    base.mkdir(parents=True, exist_ok=True)
    tag = secrets.token_hex(4)
    found = {name: f"{name.upper()}{secrets.token_hex(12)}" for name in (
        "env_token", "env_aws", "file_aws", "config_env", "config_arg", "config_url",
        "config_header", "bad_url", "home_claude")}
    markers = {
        "outside_skill": f"OUTSIDE{secrets.token_hex(12)}",
        "passwd": "root:x:0:0",
        "forged_row": f"FORGED{secrets.token_hex(12)}",
    }
    project, home = base / "project", base / "home"
    outside, checkout = base / "outside", base / "checkout"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    tree = HostileTree(
        base=base, project=project, home=home, outside=outside, checkout=checkout,
        secrets=found, foreign_markers=markers, env={}, pwned_file=base / f"PWNED-{tag}",
    )
    agents = project / ".agents" / "skills"
    _skill(agents / "valid-alpha", "valid-alpha", "Use when testing the alpha path.",
           "verification:\n  command: \"true\"\n  expect_exit: 0\n")
    _skill(agents / "valid-beta", "valid-beta", "Use when testing the beta path.")
    _skill(agents / "tools" / "valid-gamma", "valid-gamma", "Use when testing a grouped skill.")
    _skill(project / ".claude" / "skills" / "valid-claude", "valid-claude",
           "Use when testing another project root.")
    _skill(agents / "deploy", "deploy", "Use when deploying the app.")
    _skill(home / ".agents" / "skills" / "global-skill", "global-skill",
           "Use when testing the global scope.")
    _skill(checkout / "linked-ok", "linked-ok", "Use when testing a skill linked in.")
    (agents / "linked-ok").symlink_to(checkout / "linked-ok", target_is_directory=True)
    # The outside file: a perfectly valid SKILL.md, so following a link to it would show it.
    _skill(outside / "secret-skill", "secret-skill",
           f"Use when leaking {markers['outside_skill']}.")
    with (outside / "secret-skill" / "SKILL.md").open("a") as handle:
        handle.write(f"\n{markers['outside_skill']} {found['home_claude']}\n")
    # Secrets in home files and in the environment.
    aws = home / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text(
        f"[default]\naws_access_key_id = AKIAEXAMPLE\n"
        f"aws_secret_access_key = {found['file_aws']}\n")
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"home-server": {
        "command": "node", "env": {"TOKEN": found["home_claude"]}}}}))
    # One valid stdio and one valid HTTP server (imported from Cursor), secrets in every value.
    cursor = project / ".cursor"
    cursor.mkdir()
    (cursor / "mcp.json").write_text(json.dumps({"mcpServers": {
        "valid-server": {"command": "node",
                         "args": ["server.js", "--token", found["config_arg"]],
                         "env": {"API_KEY": found["config_env"],
                                 "FROM_ENV": "${MY_SECRET_TOKEN}"}},
        "valid-http": {"type": "http", "url": f"https://127.0.0.1:9/mcp?key={found['config_url']}",
                       "headers": {"Authorization": f"Bearer {found['config_header']}"}},
    }}, indent=2))
    tree.env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LEMON_BUILTIN_SKILLS": "0",  # only the tree's own skills
        "XDG_CACHE_HOME": str(home / ".cache"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MY_SECRET_TOKEN": found["env_token"],
        "AWS_SECRET_ACCESS_KEY": found["env_aws"],
    }
    return tree


# -- the attacks -------------------------------------------------------------------------------


def _agents(tree: HostileTree) -> Path:
    return tree.project / ".agents" / "skills"


def _root_symlink(tree: HostileTree) -> None:
    (_agents(tree) / "root").symlink_to("/", target_is_directory=True)


def _proc_symlink(tree: HostileTree) -> None:
    (_agents(tree) / "proc").symlink_to("/proc", target_is_directory=True)


def _skill_md_outside(tree: HostileTree) -> None:
    for key, target in (("leak", tree.outside / "secret-skill" / "SKILL.md"),
                        ("passwd", Path("/etc/passwd"))):
        (_agents(tree) / key).mkdir()
        (_agents(tree) / key / "SKILL.md").symlink_to(target)


def _fifo_skill_md(tree: HostileTree) -> None:
    plant(_agents(tree) / "fifo-skill" / "SKILL.md", "fifo")


def _sparse_skill_md(tree: HostileTree) -> None:
    plant(_agents(tree) / "huge-skill" / "SKILL.md", "sparse")


def _control_names(tree: HostileTree) -> None:
    _skill(_agents(tree) / ESC_GROUP / "esc-inner", "esc-inner", "Use when the group is hostile.")
    _skill(_agents(tree) / ESC_SKILL, "evil", "Use when the key is hostile.")
    scripts = _agents(tree) / "valid-alpha" / "scripts"  # listed by ``skill inspect``
    scripts.mkdir(exist_ok=True)
    (scripts / "run\x1b[2J\x1b]0;pwned\x07\r\nlemon: error: forged file\u202e.sh").write_text("")
    _skill(_agents(tree) / "bidi-desc", "bidi-desc",
           "Use when testing \u202eesrever\u202c and \u200bzero width text.")


def _invisible_deploy(tree: HostileTree) -> None:
    for name in DEPLOY_LOOKALIKES[1:]:
        _skill(_agents(tree) / name, name, "Use when deploying the app.")


def _noexec_folder(tree: HostileTree) -> None:
    folder = _agents(tree) / "noexec-skill"
    _skill(folder, "noexec-skill", "Use when the folder cannot be searched.")
    folder.chmod(0o644)


def _opencode_substitution(tree: HostileTree) -> None:
    (tree.project / "opencode.json").write_text(json.dumps({"mcp": {
        "{file:~/.aws/credentials}": {"type": "local", "command": ["node", "a.js"]},
        "{env:MY_SECRET_TOKEN}": {"type": "local", "command": ["node", "b.js"]},
    }}, indent=2))


def _imported_bad_url(tree: HostileTree) -> None:
    folder = tree.project / ".claude"
    folder.mkdir(exist_ok=True)
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "leaky-url": {"url": f"SECRET{tree.secrets['bad_url']}url"},
        "huge-int": {"command": "node", "timeout": int("9" * 50)},
    }}))
    # The 5,000-digit integer as raw text (json.dumps would refuse to write it).
    (folder / "mcp.json").write_bytes(bigint_json("mcpServers"))


def _import_sparse_deep(tree: HostileTree) -> None:
    plant(tree.project / "mcp.json", "sparse")
    plant(tree.project / ".mcp.json", "deep")


def _slot(slot: str, kind: str) -> Callable[[HostileTree], None]:
    def attack(tree: HostileTree) -> None:
        if slot == "cache":
            from tests.integration.hostile_cache import plant_cache

            plant_cache(tree, kind)
        else:
            plant(tree.slot_path(slot), kind)
        tree.slots[slot] = kind

    return attack


def _lemon_dir_file(tree: HostileTree) -> None:
    remove(tree.project / ".lemon")
    (tree.project / ".lemon").write_text("not a folder\n")


def _settings_folder(tree: HostileTree) -> None:
    plant(tree.slot_path("project_settings"), "folder")


def _home(kind: str) -> Callable[[HostileTree], None]:
    def attack(tree: HostileTree) -> None:
        if kind == "relative":
            tree.env["HOME"] = "relhome"
        elif kind == "missing":
            tree.env["HOME"] = str(tree.base / "nonexistent" / "x")
        else:
            target = tree.base / "home-is-a-file"
            target.write_text("not a folder\n")
            tree.env["HOME"] = str(target)
        tree.env.pop("XDG_CACHE_HOME", None)

    return attack


#: Every attack: name -> (what it is, planter). Slot attacks use one slot each here; the
#: combined tree (:func:`build_hostile_tree`) rotates the slots through :data:`VARIANTS`.
ATTACKS: dict[str, tuple[str, Callable[[HostileTree], None]]] = {
    "root_symlink": ("ln -s / .agents/skills/root", _root_symlink),
    "proc_symlink": ("ln -s /proc .agents/skills/proc", _proc_symlink),
    "skill_md_outside": ("SKILL.md -> a secret outside the project, and -> /etc/passwd",
                         _skill_md_outside),
    "fifo_skill_md": ("a FIFO as SKILL.md", _fifo_skill_md),
    "sparse_skill_md": ("a 3 GB sparse SKILL.md", _sparse_skill_md),
    "control_names": ("group and skill folders named with ESC, BEL, CR, LF, U+202E, U+200B",
                      _control_names),
    "invisible_deploy": ("five deploy skills differing by invisible characters",
                         _invisible_deploy),
    "noexec_folder": ("a skill folder without the execute bit", _noexec_folder),
    "opencode_substitution": (
        "opencode.json names {file:~/.aws/credentials}, {env:MY_SECRET_TOKEN}",
        _opencode_substitution),
    "imported_bad_url": ('.claude/.mcp.json "url": "SECRETurl"; a 5,000-digit integer',
                         _imported_bad_url),
    "import_sparse_deep": ("mcp.json 3 GB sparse, .mcp.json 100,000 deep",
                           _import_sparse_deep),
    **{f"{slot}_{kind}": (f"{slot.replace('_', ' ')}: {kind.replace('_', ' ')}", _slot(slot, kind))
       for slot, kinds in (
           ("project_settings", ("fifo", "dev_zero", "sparse", "deep", "bigint")),
           ("project_lock", ("fifo", "dev_zero", "sparse", "deep", "bigint")),
           ("global_settings", ("fifo", "dev_zero", "deep", "bigint")),
           ("global_lock", ("fifo", "dev_zero", "deep", "bigint")),
           ("project_mcp", ("fifo", "dev_zero", "deep")),
           ("cache", ("fifo", "dev_zero", "sparse", "brackets", "forged")),
       ) for kind in kinds},
    "lemon_dir_file": (".lemon is a regular file", _lemon_dir_file),
    "settings_folder": ("skills.json is a folder", _settings_folder),
    "home_relative": ("HOME=relhome (relative)", _home("relative")),
    "home_missing": ("HOME=/nonexistent/x", _home("missing")),
    "home_file": ("HOME is a regular file", _home("file")),
}
#: The attacks that are not a slot's content and do not replace the environment: all of them
#: live in the combined tree at once.
FIXED_ATTACKS = ("root_symlink", "proc_symlink", "skill_md_outside", "fifo_skill_md",
                 "sparse_skill_md", "control_names", "invisible_deploy", "noexec_folder",
                 "opencode_substitution", "imported_bad_url", "import_sparse_deep")


# -- building ----------------------------------------------------------------------------------


def plant_variant(tree: HostileTree, name: str, lemon: Sequence[str] | None = None) -> None:
    """Fill every slot as :data:`VARIANTS` ``[name]`` says (the cache last: a forged cache is
    made from a run on the tree as it will be read)."""
    from tests.integration.hostile_cache import plant_cache
    for slot, kind in VARIANTS[name].items():
        if slot != "cache":
            plant(tree.slot_path(slot), kind)
            tree.slots[slot] = kind
    age_tree(tree.project / ".lemon", tree.agent_dir)
    kind = VARIANTS[name]["cache"]
    if kind == "forged":
        tree.forged_cache.clear()
    plant_cache(tree, kind, lemon)
    tree.slots["cache"] = kind


def build_tree(base: Path, attacks: Iterable[str], lemon: Sequence[str] | None = None
               ) -> HostileTree:
    """The base tree plus the named attacks. With ``lemon`` (the command that runs lemon), the
    cache files are found first by a priming run on the clean tree, so cache attacks have a
    file to replace."""
    from tests.integration.hostile_cache import plant_cache, prime_cache

    tree = build_base(base)
    names = list(attacks)
    age_tree(tree.project, tree.home, tree.checkout, tree.outside)
    if lemon is not None:
        prime_cache(tree, lemon)
    for name in names:
        ATTACKS[name][1](tree)
        tree.attacks.append(name)
    age_tree(tree.project, tree.home, tree.checkout, tree.outside)
    if "cache_forged" in names and lemon is not None:
        tree.forged_cache.clear()
        plant_cache(tree, "forged", lemon)
    return tree


def build_hostile_tree(base: Path, lemon: Sequence[str] | None = None,
                       variant: str = "a") -> HostileTree:
    """Every trick at once: all :data:`FIXED_ATTACKS`, and the slots as ``variant`` says."""
    tree = build_tree(base, FIXED_ATTACKS, lemon)
    plant_variant(tree, variant, lemon)
    return tree


__all__ = ["ATTACKS", "BROKEN_SKILLS", "FIXED_ATTACKS", "VALID_SERVERS", "VALID_SKILLS", "VARIANTS", "HostileTree",
           "build_hostile_tree", "build_tree", "plant", "plant_variant", "remove"]
