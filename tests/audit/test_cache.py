"""The verdict cache: by bundle hash, metadata and rule versions; sealed; never lowers."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from lemon_core.audit.host import audit_folder
from lemon_core.audit.sealed import MAGIC, SUBDIR
from lemon_core.catalog.cache_folder import read_key, seal
from tests.audit.conftest import Crashing, PatternAuditor

Skill = Callable[..., Path]


def _cache_files(ctx: object) -> list[Path]:
    folder = Path(ctx.cache_dir) / SUBDIR  # type: ignore[attr-defined]
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def test_a_second_audit_of_the_same_bytes_is_cached(skill: Skill, make_ctx: Callable) -> None:
    ctx = make_ctx()
    folder = skill({"a.sh": "curl x\n"})
    auditor = PatternAuditor()
    first = audit_folder(folder, ctx, auditors=[auditor])
    second = audit_folder(folder, ctx, auditors=[auditor])
    assert auditor.calls == 1
    assert (first.cached, second.cached) == (False, True)
    assert first.findings == second.findings and second.verdict == "block"
    assert len(_cache_files(ctx)) == 1
    mode = os.stat(_cache_files(ctx)[0].parent).st_mode & 0o777
    assert mode == 0o700


def test_a_changed_byte_a_rule_version_or_an_auditor_misses(skill: Skill,
                                                            make_ctx: Callable) -> None:
    ctx = make_ctx()
    folder = skill({"a.sh": "curl x\n"})
    auditor = PatternAuditor()
    audit_folder(folder, ctx, auditors=[auditor])
    (folder / "a.sh").write_text("curl y\n")
    audit_folder(folder, ctx, auditors=[auditor])
    assert auditor.calls == 2
    auditor.rules_version = "2"
    audit_folder(folder, ctx, auditors=[auditor])
    assert auditor.calls == 3
    audit_folder(folder, ctx, auditors=[auditor, PatternAuditor("zz", name="other")])
    assert auditor.calls == 4
    os.chmod(folder / "a.sh", 0o640)  # a mode the hash leaves out, an auditor may see
    audit_folder(folder, ctx, auditors=[auditor])
    assert auditor.calls == 5


def test_an_unversioned_auditor_is_never_cached(skill: Skill, make_ctx: Callable) -> None:
    ctx = make_ctx()
    folder = skill()
    auditor = PatternAuditor(rules_version=None)
    audit_folder(folder, ctx, auditors=[auditor, PatternAuditor(name="v")])
    audit_folder(folder, ctx, auditors=[auditor, PatternAuditor(name="v")])
    assert auditor.calls == 2 and _cache_files(ctx) == []


def test_a_failed_run_is_not_cached(skill: Skill, make_ctx: Callable) -> None:
    ctx = make_ctx()
    folder = skill()
    audit_folder(folder, ctx, auditors=[Crashing()])
    assert _cache_files(ctx) == []
    assert audit_folder(folder, ctx, auditors=[Crashing()]).verdict == "block"


def test_a_planted_or_edited_entry_cannot_lower_the_verdict(skill: Skill,
                                                            make_ctx: Callable) -> None:
    ctx = make_ctx()
    folder = skill({"a.sh": "curl x\n"})
    auditor = PatternAuditor()
    audit_folder(folder, ctx, auditors=[auditor])
    [entry] = _cache_files(ctx)
    name = entry.stem
    clean = b'{"format":1,"key":"%s","findings":[]}' % name.encode()
    entry.write_bytes(b"lemon-audit-cache " + b"0" * 64 + b"\n" + clean)  # forged MAC
    assert audit_folder(folder, ctx, auditors=[auditor]).verdict == "block"
    assert auditor.calls == 2
    entry.write_bytes(seal(os.urandom(32), MAGIC, clean))  # sealed with another key
    assert audit_folder(folder, ctx, auditors=[auditor]).verdict == "block"
    assert auditor.calls == 3
    entry.unlink()
    os.mkfifo(entry)  # a FIFO where the entry was: never blocks, never trusted
    assert audit_folder(folder, ctx, auditors=[auditor]).verdict == "block"


def test_host_findings_are_never_taken_from_the_cache(skill: Skill, make_ctx: Callable) -> None:
    """A sealed entry (the user's own key) holds only auditors' findings; the host's are
    recomputed, so a FIFO added next to identical bytes still blocks."""
    ctx = make_ctx()
    folder = skill()
    auditor = PatternAuditor()
    assert audit_folder(folder, ctx, auditors=[auditor]).verdict == "pass"
    os.mkfifo(folder / "pipe")
    report = audit_folder(folder, ctx, auditors=[auditor])
    assert report.verdict == "block"
    assert read_key(Path(ctx.cache_dir)) is not None


def test_no_context_no_cache(skill: Skill) -> None:
    folder = skill()
    auditor = PatternAuditor()
    audit_folder(folder, auditors=[auditor])
    audit_folder(folder, auditors=[auditor])
    assert auditor.calls == 2
