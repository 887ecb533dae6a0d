"""Hostile skill trees through the real ``lemon skill list --json``: every bad file is reported
with its path and a reason, the rest still lists, and nothing escapes as a traceback.

The tree mixes binary and UTF-16 files, a huge frontmatter and a huge body, alias bombs, deep
nesting (flow, block, TOML, and folders), folders whose names are not valid UTF-8 (the project's
own folder too), a FIFO, a folder and a dangling link where SKILL.md should be, and a symlink loop.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lemon_core.catalog.walk import MAX_DEPTH
from tests.helpers import LEMON, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names and FIFOs")

BOMB = (
    "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n"
)
MERGE_BOMB = (
    "---\na: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1}\n"
    + "".join(f"l{i}: &l{i} [*{'a' if i == 0 else f'l{i - 1}'}, "
              f"*{'a' if i == 0 else f'l{i - 1}'}, *{'a' if i == 0 else f'l{i - 1}'}]\n"
              for i in range(12))
    + "---\n"
)

#: key (folder under .agents/skills) -> (SKILL.md bytes, the diagnostic code it must produce)
BAD_FILES: dict[str, tuple[bytes, str]] = {
    "binary": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(128)) * 512, "binary_file"),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\xff" * 4096, "invalid_utf8"),
    "utf16": ("---\ndescription: hi\n---\n".encode("utf-16"), "invalid_utf8"),
    "bad-utf8": (b"---\ndescription: caf\xe9\n---\n", "invalid_utf8"),
    "huge-frontmatter": (b"---\ndescription: " + b"a" * (8 * 1024 * 1024) + b"\n---\n",
                         "frontmatter_too_large"),
    "never-closed": (b"---\nname: open\n" + b"tags: [x]\n" * 200_000, "frontmatter_too_large"),
    "alias-bomb": (BOMB.encode(), "yaml_aliases_too_large"),
    "merge-bomb": (MERGE_BOMB.encode(), "yaml_aliases_too_large"),
    "recursive-alias": (b"---\na: &a [*a]\n---\n", "yaml_recursive_alias"),
    "deep-flow": (b"---\nx: " + b"[" * 20_000 + b"]" * 20_000 + b"\n---\n",
                  "frontmatter_too_deep"),
    "deep-block": (b"---\n" + b"".join(b" " * i + b"k:\n" for i in range(300)) + b"---\n",
                   "frontmatter_too_deep"),
    "deep-toml": (b"+++\nx = " + b"[" * 20_000 + b"]" * 20_000 + b"\n+++\n",
                  "frontmatter_too_deep"),
    "not-a-mapping": (b"---\n- a\n- b\n---\n", "frontmatter_not_mapping"),
}


def _build(project: Path) -> dict[str, str]:
    """Write the hostile tree; returns {expected diagnostic path: code}."""
    root = project / ".agents" / "skills"
    expected: dict[str, str] = {}
    for key, (data, code) in BAD_FILES.items():
        (root / key).mkdir(parents=True)
        (root / key / "SKILL.md").write_bytes(data)
        expected[str(root / key / "SKILL.md")] = code
    # A huge body after a small, valid frontmatter loads: the body is never read.
    (root / "huge-body").mkdir()
    (root / "huge-body" / "SKILL.md").write_bytes(
        b"---\ndescription: Big body.\n---\n" + b"lorem ipsum\n" * 800_000)
    write_skill(root, "good", description="The good one.")
    raw_root = os.fsencode(root)
    # A folder whose name is not UTF-8 cannot be a key: reported, with its path.
    bad_key = raw_root + b"/bad-\xff-key"
    os.makedirs(bad_key)
    with open(bad_key + b"/SKILL.md", "wb") as handle:
        handle.write(b"---\ndescription: unreachable\n---\n")
    expected[os.fsdecode(bad_key)] = "invalid_key"
    # A sub-folder whose name is not UTF-8 holds a skill agents do not load (not a direct child).
    group = raw_root + b"/group-\xfe"
    os.makedirs(group + b"/in-bad-group")
    with open(group + b"/in-bad-group/SKILL.md", "wb") as handle:
        handle.write(b"---\ndescription: Inside a badly named group.\n---\n")
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    expected[str(root / "fifo" / "SKILL.md")] = "not_a_file"
    (root / "folder" / "SKILL.md").mkdir(parents=True)
    expected[str(root / "folder" / "SKILL.md")] = "not_a_file"
    (root / "dangling").mkdir()
    os.symlink(root / "nowhere" / "SKILL.md", root / "dangling" / "SKILL.md")
    expected[str(root / "dangling" / "SKILL.md")] = "broken_symlink"
    os.symlink("..", root / "loop")
    # Sub-folders nested deeper than the walk goes: nothing there is a skill anyway.
    parts = ["deep-dirs", *(f"g{i}" for i in range(1, MAX_DEPTH + 4))]
    write_skill(root.joinpath(*parts), "too-deep")
    expected[str(root)] = "nested_skills"  # in-bad-group, reported once for the root
    return expected


def _lemon(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LEMON, *argv], env=env, capture_output=True, timeout=120,
                          check=False, text=True, errors="surrogateescape")


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / os.fsdecode(b"repo-\xfe")
    (project / ".git").mkdir(parents=True)
    expected = _build(project)
    env = {**os.environ, "HOME": str(home), "LEMON_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONIOENCODING": "utf-8:strict"}
    env = {k: v for k, v in env.items() if not k.startswith("LEMON_") or k == "LEMON_CACHE_DIR"}
    return project, expected, {**env, "LEMON_BUILTIN_SKILLS": "0"}


@POSIX_ONLY
def test_every_bad_file_is_reported_and_the_rest_lists(hostile) -> None:
    project, expected, env = hostile
    done = _lemon(env, "skill", "list", "--cwd", str(project), "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads(done.stdout)
    assert [s["key"] for s in data["skills"]] == ["good", "huge-body"]
    good = data["skills"][0]
    assert os.fsencode(good["path"]).endswith(b"/repo-\xfe/.agents/skills/good/SKILL.md")
    found = {d["path"]: d for d in data["diagnostics"]}
    for path, code in expected.items():
        assert path in found, f"{path} is not reported"
        assert found[path]["code"] == code, (path, found[path])
        warning = code in ("broken_symlink", "nested_skills")
        assert found[path]["severity"] == ("warning" if warning else "error")
        assert found[path]["message"]
    nested = found[str(project / ".agents" / "skills")]["message"]
    assert nested.startswith("1 SKILL.md is below a sub-folder")
    assert os.fsencode(nested).find(b"group-\xfe/in-bad-group/SKILL.md") > 0


@POSIX_ONLY
def test_a_hostile_tree_is_cached_like_any_other(hostile) -> None:
    """Undecodable folder names must not stop the persistent cache from being written."""
    project, _, env = hostile
    first = _lemon(env, "skill", "list", "--cwd", str(project), "--json")
    cache = Path(env["LEMON_CACHE_DIR"]) / "skills"
    assert first.returncode == 0 and len(list(cache.glob("catalog-*.json"))) == 1
    second = _lemon(env, "skill", "list", "--cwd", str(project), "--json")
    assert json.loads(second.stdout) == json.loads(first.stdout)


@POSIX_ONLY
def test_undecodable_paths_print_on_a_strict_terminal(hostile) -> None:
    """On a terminal whose encoding is strict UTF-8 the indented JSON and the human views still
    print, the undecodable bytes as a backslash escape (valid inside a JSON string)."""
    pty = pytest.importorskip("pty")
    project, expected, env = hostile
    main_fd, child_fd = pty.openpty()
    with subprocess.Popen([*LEMON, "skill", "list", "--cwd", str(project), "--json"], env=env,
                          stdout=child_fd, stderr=subprocess.PIPE) as proc:
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        err = proc.stderr.read()
    os.close(main_fd)
    assert proc.returncode == 0, err
    data = json.loads(b"".join(chunks).replace(b"\r\n", b"\n"))
    assert set(expected) <= {d["path"] for d in data["diagnostics"]}
    done = _lemon(env, "skill", "inspect", "good", "--cwd", str(project))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "repo-\\udcfe" in done.stdout
