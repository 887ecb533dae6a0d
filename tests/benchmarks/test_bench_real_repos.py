"""benchmarks/bench_real_repos.py runs on a small repository built here with the layouts of the
real ones (hidden group folders, a multi-line description among valid skills, a nested skill,
a folder whose name differs from its skill's, a node_modules copy agents skip) and reports
counts and failures (behaviour, never time or memory)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.gitserver import build_repo

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_real_repos.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_real_repos", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _skill(name: str, description: str = "Use when benchmarking real repositories.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


FILES = {
    "README.md": "# skills\n",
    "skills/alpha/SKILL.md": _skill("alpha"),
    "skills/beta/SKILL.md": _skill("beta"),
    "skills/.curated/gamma/SKILL.md": _skill("gamma"),
    "skills/multi/SKILL.md": "---\nname: multi\ndescription: Use when a description\n"
                             "  spans two lines.\n---\n# multi\n",
    "skills/beta/inner/SKILL.md": _skill("inner"),
    "skills/renamed/SKILL.md": _skill("other-name"),
    "skills/broken/SKILL.md": "# no frontmatter\n",
    "node_modules/pkg/skills/delta/SKILL.md": _skill("delta"),
}


def test_counts_what_agents_load_and_what_lemon_installs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = build_repo(tmp_path / "tiny.git", FILES)
    repo.close()
    module = _load()
    assert module.main(["--repos", str(tmp_path / "tiny.git"), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["repository"] == "tiny"
    # broken/ is a SKILL.md agents skip; node_modules is never walked
    assert row["skill_md"] == 7
    # alpha, beta, gamma (hidden group), multi, other-name; inner is nested in beta
    assert row["loads"] == 5
    assert row["nested"] == 1 and row["hidden"] == 1
    assert row["not_loaded"] == {"skills/broken": "no frontmatter"}
    # skills/renamed holds other-name: agents load it by that name
    assert row["renamed"] == 1 and row["names"]["skills/renamed"] == "other-name"
    # every skill agents load installs: other-name under its name (warned), inner as a file
    # of beta (and broken: lemon's legacy defaults take a
    # SKILL.md without frontmatter); the folders match the lockfile
    assert row["installed"] == row["lock_records"] == row["loads"] + 1
    assert row["lemon_status"] == "exit 0" and row["failures"] == []
    assert row["unreported"] == []
    warned = " ".join(row["warnings"])
    assert "installed as … (…); agents load it by that name" in warned, warned
    assert row["lemon_peak_rss_mb"] > 0
    assert row["clone_status"] in ("exit 0", "no git on PATH")


def test_table_and_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("one", "two"):
        repo, _ = build_repo(tmp_path / f"{name}.git", {"skills/alpha/SKILL.md": _skill("alpha")})
        repo.close()
    module = _load()
    assert module.main(["--repos", str(tmp_path / "one.git"), str(tmp_path / "two.git"),
                        "--only", "two"]) == 0
    out = capsys.readouterr().out
    assert "agents load" in out and "lemon installs" in out
    lines = [line for line in out.splitlines() if line.startswith(("one ", "two "))]
    assert len(lines) == 1 and lines[0].split()[:1] == ["two"]
    # renamed, installed, lock records, unreported
    assert lines[0].split()[5:9] == ["0", "1", "1", "0"]
    assert "exit 0" in lines[0]


def test_frontmatter_rule() -> None:
    assert _load().frontmatter_name(_skill("a-b").encode()) == "a-b"
    assert _load().frontmatter_name(b"---\nname: a\n---\n") is None
    fault = _load().frontmatter_fault
    assert fault(_skill("a").encode()) is None
    assert fault(b"\xef\xbb\xbf---\r\nname: a\r\ndescription: b\r\n---\r\n") is None
    assert fault(b"---\nname: a\n") == "frontmatter not closed"
    assert fault(b"---\nname: a\ndescription: [\n---\n") == "invalid YAML"
    assert fault(b"---\n- a\n---\n") == "frontmatter not a mapping"
    assert fault(b"---\nname: a\n---\n") == "no description"
    assert fault(b"---\ndescription: b\n---\n") == "no name"


def test_a_snapshot_lacking_a_blob_is_served_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dulwich.objects import Blob

    repo, _ = build_repo(tmp_path / "holey.git", {"skills/alpha/SKILL.md": _skill("alpha"),
                                                  "site/demo.gif": b"GIF89a not here"})
    sha = Blob.from_string(b"GIF89a not here").id.decode()
    repo.close()
    (tmp_path / "holey.git" / "objects" / sha[:2] / sha[2:]).unlink()  # as a snapshot lacks it
    assert _load().main(["--repos", str(tmp_path / "holey.git"), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["absent_blobs"] == ["site/demo.gif"]
    assert row["lemon_status"] == "exit 0" and row["installed"] == 1
    assert row["clone_status"] in ("exit 0", "no git on PATH")


def test_failures_and_warnings_are_read_from_stderr_and_json() -> None:
    module = _load()
    stdout = json.dumps({
        "installed": [{"key": "a", "warnings": ["description spans lines"]},
                       {"key": "b", "warnings": []}],
        "failed": [{"key": "c", "folder": "skills/c", "reason": "blocked by the audit"},
                   {"key": "d", "folder": "skills/d", "reason": "blocked by the audit"}]})
    lines = module.failure_lines("progress\nlemon: 'e' is broken\n", stdout)
    assert lines == ["lemon: 'e' is broken", "'c' in 'skills/c': blocked by the audit",
                     "'d' in 'skills/d': blocked by the audit"]
    groups = module.group_reasons(lines)
    assert groups["'…' in '…': blocked by the audit"] == {"count": 2, "names": ["c", "d"]}
    assert groups["'…' is broken"] == {"count": 1, "names": ["e"]}
    assert module.warnings_of(stdout) == ["'a': description spans lines"]
    # the same rule groups together whatever the names, files and numbers
    assert module.reason_of("'x' in 'skills/x': x is blocked by the security audit: [warn] a.b: "
                            "w; [block] c.d: why (an override must name sha256:00)") \
        == "blocked by the security audit: [block] c.d"
    assert module.reason_of("x is blocked by the security audit: [warn] b.c: w; [warn] a.b: v") \
        == "blocked by the security audit, no [block] finding listed: [warn] a.b, b.c"
    assert module.reason_of("'x' in 'a/x': 'x' is not installed: 4 file(s) are Git LFS pointers "
                            "(a/b.png, c/d.gif)") \
        == "'…' in '…': '…' is not installed: N file(s) are Git LFS pointers (…)"
    assert module.reason_of("'ab-c': ab-c: installed although (x) [y]; run `lint --fix /tmp/q`") \
        == "'…': …: installed although (x) [y]; run `lint --fix PATH`"
