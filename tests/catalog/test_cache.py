"""The persistent catalog cache makes lemon faster, never different.

Whatever the cache file holds, every command prints what a cold scan of the same tree prints:
each attack of issue 7 (forged rows, descriptions, keys, verification commands, an emptied
listing, a FIFO, a link to ``/dev/zero``, a huge sparse file, deep nesting) runs the real CLI
against a tampered cache and compares with a run on a fresh cache folder. Also: the folder is
private, the key is trusted only when it is ours, and read-only commands create no folders
outside the cache folder.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lemon_core.catalog.cache import MAGIC, CacheStore
from lemon_core.catalog.cache_folder import KEY_FILE, read_key, seal
from lemon_core.context import LemonContext
from lemon_core.skills import api
from tests.helpers import run_cli, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes, FIFOs, devices")
OLD = 1_600_000_000  # every mtime of the tree: far outside the catalog's racy window

#: The commands whose output must not depend on the cache (``check --verify`` last: it acts).
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("skill", "list", "--json"),
    ("skill", "list"),
    ("skill", "inspect", "real", "--json"),
    ("skill", "inspect", "real"),
    ("skill", "check", "real", "--json"),
    ("skill", "check", "real", "--verify", "--json"),
)


def build_tree(base: Path) -> dict[str, Path]:
    """A small real tree: a project skill with a verification command, one shadowing a global
    copy, one that fails to load; every mtime aged so the cache is really used."""
    home, project = base / "home", base / "repo"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    skills = project / ".agents" / "skills"
    write_skill(skills, "real", "name: real\ndescription: The real skill.\ntags: [a, b]\n"
                "verification:\n  command: echo checked-real\n  expect_output: checked-real\n")
    write_skill(skills, "other", "description: Another one.\nrequires:\n  bins: [no-such-bin-x]\n")
    write_skill(project / ".claude" / "skills", "broken", "description: [not, text]\n")
    write_skill(home / ".agents" / "skills", "real", description="The global copy.")
    for path in [*project.rglob("*"), *home.rglob("*"), project, home]:
        os.utime(path, (OLD, OLD), follow_symlinks=False)
    return {"home": home, "project": project, "base": base}


def tree_files(tree: dict[str, Path]) -> list[str]:
    """Every path in the tree (a command that ran something foreign would add one)."""
    return sorted(str(p) for root in (tree["project"], tree["home"]) for p in root.rglob("*"))


class Runner:
    """The real CLI in this process, as a fresh process would run it (no in-process catalog)."""

    def __init__(self, tree: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        self.tree, self.capsys = tree, capsys
        self.cache = tree["base"] / "cache"
        self._fresh = 0

    def run(self, argv: tuple[str, ...], cache: Path | None = None) -> tuple[int, str, str]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("HOME", str(self.tree["home"]))
            mp.setenv("LEMON_CACHE_DIR", str(cache or self.cache))
            return run_cli(self.capsys, *argv, "--cwd", str(self.tree["project"]))

    def cold(self, argv: tuple[str, ...]) -> tuple[int, str, str]:
        """``argv`` on a cache folder that never held anything."""
        self._fresh += 1
        return self.run(argv, self.tree["base"] / f"cold-{self._fresh}")

    def cache_path(self) -> Path:
        """The sealed cache file of the tree (written by a first warm run)."""
        self.run(("skill", "list", "--json"))
        [path] = (self.cache / "skills").glob("catalog-*.json")
        return path


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    return build_tree(tmp_path)


@pytest.fixture
def runner(tree: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> Runner:
    return Runner(tree, capsys)


def split(data: bytes) -> tuple[bytes, Any]:
    """(header line, document) of a cache file; the header is empty for an unsealed one."""
    if data.startswith(b"{"):
        return b"", json.loads(data)
    header, _, payload = data.partition(b"\n")
    return header + b"\n", json.loads(payload)


def edited(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """The cache file with its document edited and its header (with its MAC) kept."""
    header, doc = split(data)
    edit(doc)
    return header + json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _row(doc: Any, key: str) -> list[Any]:
    return next(r for r in doc["skills"] if r[0] == key)


def _ghost(doc: Any) -> None:
    row = list(_row(doc, "real"))
    row[0] = "ghost"
    row[2] = row[2].replace("/real", "/ghost")
    doc["skills"].append(row)


def _rlo(doc: Any) -> None:
    _row(doc, "real")[7]["description"] = "evil \u202e txt.exe"


def _escape_key(doc: Any) -> None:
    _row(doc, "real")[0] = "real\x1b]0;pwned\x07\x1b[2J"


def _command(doc: Any) -> None:
    _row(doc, "real")[7]["verification"]["command"] = "touch pwned"


def _empty(doc: Any) -> None:
    doc["skills"] = []
    doc["watched_dirs"] = []


ATTACKS = {"ghost row": _ghost, "U+202E description": _rlo, "escapes in a key": _escape_key,
           "verification command": _command, "skills and watched_dirs emptied": _empty}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_forged_cache_changes_no_output(runner: Runner, tree, attack: str) -> None:
    """Each forgery of issue 7, against every command: the output is the cold scan's, and the
    verification that runs is the SKILL.md's (fails today: the forged row is believed)."""
    before = tree_files(tree)
    path = runner.cache_path()
    forged = edited(path.read_bytes(), ATTACKS[attack])
    for argv in COMMANDS:
        path.write_bytes(forged)
        assert runner.run(argv) == runner.cold(argv), (attack, argv)
        assert tree_files(tree) == before  # `touch pwned` never ran
    path.write_bytes(forged)
    runner.run(("skill", "list", "--json"))
    assert runner.run(("skill", "list", "--json")) == runner.cold(("skill", "list", "--json"))


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _sparse(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(3 * 1024 ** 3)


def _deep(path: Path) -> None:
    path.write_bytes(b"[" * 200_000)


def _deep_sealed(path: Path) -> None:
    """Deep nesting under the right MAC: only someone holding the key could write it."""
    path.write_bytes(seal(read_key(path.parent.parent), MAGIC, b"[" * 200_000))


@POSIX_ONLY
@pytest.mark.parametrize("plant", [_fifo, _dev_zero, _sparse, _deep, _deep_sealed],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_cache_file_that_cannot_be_read_costs_nothing(runner: Runner, tree, plant) -> None:
    """Through the real console script: never a hang, a memory blow-up or a traceback (fails
    today: the FIFO hangs, /dev/zero grows without bound, 200,000 '[' is a RecursionError)."""
    path = runner.cache_path()
    plant(path)
    env = {**os.environ, "HOME": str(tree["home"]), "LEMON_CACHE_DIR": str(runner.cache)}
    script = Path(sys.executable).parent / "lemon"
    if not script.exists():
        pytest.skip("no console script next to the interpreter")
    argv = [str(script), "skill", "list", "--json", "--cwd", str(tree["project"])]
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, timeout=30, check=False)
    assert time.monotonic() - started < 20
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-500:]
    cold = runner.cold(("skill", "list", "--json"))
    assert (0, done.stdout.decode(), done.stderr.decode()) == cold
    info = os.lstat(path)  # and the cache was rewritten as a regular, sealed file
    assert stat.S_ISREG(info.st_mode) and info.st_size < 1024 ** 2


def test_a_sealed_cache_is_used_and_one_flipped_bit_is_not(tree, runner: Runner) -> None:
    path = runner.cache_path()
    catalog = api.catalog_for(_ctx(tree, runner.cache), persistent=True)
    store = CacheStore(runner.cache)
    assert store.load(catalog.roots, catalog.aux_files) is not None
    data = path.read_bytes()
    for position in (0, len(MAGIC) + 5, len(data) // 2, len(data) - 2):
        flipped = bytearray(data)
        flipped[position] ^= 0x01
        path.write_bytes(bytes(flipped))
        assert store.load(catalog.roots, catalog.aux_files) is None, position


def _ctx(tree: dict[str, Path], cache: Path) -> LemonContext:
    return LemonContext(cwd=tree["project"], home=tree["home"],
                        env={"HOME": str(tree["home"]), "LEMON_CACHE_DIR": str(cache),
                             "PATH": os.environ.get("PATH", ""),
                             "LEMON_BUILTIN_SKILLS": "0"}, platform="linux")


def _reseal(path: Path, edit: Callable[[Any], None]) -> None:
    _, doc = split(path.read_bytes())
    edit(doc)
    payload = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
    path.write_bytes(seal(read_key(path.parent.parent), MAGIC, payload))


def _outside_root(doc: Any) -> None:
    row = _row(doc, "real")
    row[2], row[3] = "/etc", "/etc/SKILL.md"


def _key_not_folder(doc: Any) -> None:
    _row(doc, "real")[0] = "renamed"


@pytest.mark.parametrize("edit", [_empty, _outside_root, _key_not_folder, _escape_key],
                         ids=lambda f: f.__name__.strip("_"))
def test_even_a_resealed_file_must_look_like_a_walk(tree, runner: Runner, edit) -> None:
    """Defence in depth, for whoever holds the key: what a walk always guarantees (every root
    watched, each key its folder's name, each folder below its root) is checked on load."""
    path = runner.cache_path()
    catalog = api.catalog_for(_ctx(tree, runner.cache), persistent=True)
    _reseal(path, lambda doc: None)
    assert CacheStore(runner.cache).load(catalog.roots, catalog.aux_files) is not None
    _reseal(path, edit)
    assert CacheStore(runner.cache).load(catalog.roots, catalog.aux_files) is None


# -- the folder ----------------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@POSIX_ONLY
def test_the_cache_folder_is_private(tree, runner: Runner) -> None:
    runner.cache_path()
    assert _mode(runner.cache) == 0o700 and _mode(runner.cache / "skills") == 0o700
    assert _mode(runner.cache / KEY_FILE) == 0o600
    [path] = (runner.cache / "skills").glob("catalog-*.json")
    assert _mode(path) == 0o600


@POSIX_ONLY
def test_a_wider_cache_folder_is_tightened(tree, runner: Runner) -> None:
    runner.cache_path()
    os.chmod(runner.cache, 0o755)
    os.chmod(runner.cache / "skills", 0o777)
    runner.run(("skill", "list", "--json"))
    assert _mode(runner.cache) == 0o700 and _mode(runner.cache / "skills") == 0o700


@POSIX_ONLY
def test_a_shared_key_is_replaced_and_what_it_sealed_is_not_used(tree, runner: Runner) -> None:
    path = runner.cache_path()
    key = runner.cache / KEY_FILE
    old = key.read_bytes()
    os.chmod(key, 0o644)
    catalog = api.catalog_for(_ctx(tree, runner.cache), persistent=True)
    assert CacheStore(runner.cache).load(catalog.roots, catalog.aux_files) is None
    runner.run(("skill", "list", "--json"))
    assert _mode(key) == 0o600 and key.read_bytes() != old
    assert CacheStore(runner.cache).load(catalog.roots, catalog.aux_files) is not None
    assert path.exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a folder to another user needs root")
def test_a_cache_folder_of_another_user_is_not_used(tree, runner: Runner) -> None:
    path = runner.cache_path()
    before = path.read_bytes()
    for folder in (runner.cache, runner.cache / "skills"):
        os.chown(folder, 65534, 65534)
    catalog = api.catalog_for(_ctx(tree, runner.cache), persistent=True)
    assert CacheStore(runner.cache).load(catalog.roots, catalog.aux_files) is None
    write_skill(tree["project"] / ".agents" / "skills", "new")  # a save would rewrite it
    assert runner.run(("skill", "list", "--json")) == runner.cold(("skill", "list", "--json"))
    assert path.read_bytes() == before and os.stat(runner.cache).st_uid == 65534


# -- read-only commands create no folders ----------------------------------------------------


def _list_with(capsys, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("LEMON_CACHE_DIR", raising=False)
        mp.delenv("XDG_CACHE_HOME", raising=False)
        for name, value in env.items():
            mp.setenv(name, value)
        mp.chdir(cwd)
        return run_cli(capsys, "skill", "list", "--json")


def test_a_missing_home_is_never_created(tree, tmp_path: Path, capsys) -> None:
    home = tmp_path / "nonexistent" / "x"
    code, _, err = _list_with(capsys, tree["project"], {"HOME": str(home)})
    assert code == 0, err
    assert not (tmp_path / "nonexistent").exists()


def test_a_relative_home_creates_nothing_in_the_project(tree, capsys) -> None:
    before = tree_files(tree)
    code, _, err = _list_with(capsys, tree["project"], {"HOME": "relhome"})
    assert code == 0, err
    assert not (tree["project"] / "relhome").exists() and tree_files(tree) == before


def test_an_existing_home_gets_its_cache_folder(tree, capsys) -> None:
    code, _, err = _list_with(capsys, tree["project"], {"HOME": str(tree["home"])})
    assert code == 0, err
    cache = tree["home"] / ".cache" / "lemon"
    assert (cache / "skills").is_dir()
    if sys.platform != "win32":
        assert _mode(tree["home"] / ".cache") == 0o700 and _mode(cache) == 0o700


def test_a_cache_folder_two_levels_below_nothing_is_not_made(tree, tmp_path, capsys) -> None:
    cache = tmp_path / "gone" / "deeper" / "lemon"
    code, _, err = _list_with(capsys, tree["project"], {"HOME": str(tree["home"]),
                                                         "LEMON_CACHE_DIR": str(cache)})
    assert code == 0, err
    assert not (tmp_path / "gone").exists()
