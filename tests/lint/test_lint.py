"""``lint_paths``: lemon's rules, the standard warnings, --strict, --standard, folders of skills
and hostile input."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.lint.runner import (
    MAX_SKILL_MD_BYTES,
    LintIssue,
    LintResult,
    lint_paths,
    results_to_json,
)
from lemon_core.lint.standard import validate_standard

GOOD = "name: {key}\ndescription: Use when testing {key}.\n"


def make(root: Path, key: str, frontmatter: str | None = GOOD, body: str = "Do it.\n",
         *, file: str = "SKILL.md") -> Path:  # fmt: skip
    """``root/key/SKILL.md``; ``frontmatter`` None writes the body alone."""
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    head = "" if frontmatter is None else "---\n" + frontmatter.format(key=key) + "---\n"
    (folder / file).write_text(head + body, encoding="utf-8")
    return folder


def lint_one(path: Path, **options: bool) -> LintResult:
    results = lint_paths([path], **options)
    assert len(results) == 1
    return results[0]


def codes(issues: tuple[LintIssue, ...]) -> list[str]:
    return [issue.code for issue in issues]


# -- lemon's rules ----------------------------------------------------------------------------


def test_good_skill(tmp_path: Path) -> None:
    result = lint_one(make(tmp_path, "good"))
    assert result == LintResult(str(tmp_path / "good"), True, (), ())


def test_missing_skill_md(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert codes(lint_one(tmp_path / "empty").errors) == ["missing_skill_md"]
    folder = make(tmp_path, "lower", file="skill.md")
    result = lint_one(folder)
    assert codes(result.errors) == ["missing_skill_md"]
    assert "rename it to SKILL.md" in result.errors[0].message


@pytest.mark.parametrize(
    ("frontmatter", "code"),
    [
        ("name: [unclosed\n", "yaml_invalid"),
        ("- a\n- b\n", "frontmatter_not_mapping"),
        ('name = "toml in yaml fences"\n', "frontmatter_not_mapping"),
    ],
)
def test_unparsable_frontmatter(tmp_path: Path, frontmatter: str, code: str) -> None:
    result = lint_one(make(tmp_path, "bad", frontmatter))
    assert code in codes(result.errors) and not result.ok


def test_unclosed_frontmatter(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: open\ndescription: d\nBody\n")
    assert codes(lint_one(folder).errors) == ["frontmatter_unclosed"]


def test_missing_name_and_description(tmp_path: Path) -> None:
    result = lint_one(make(tmp_path, "bare", "version: '1'\n"))
    assert codes(result.errors) == ["missing_name", "missing_description"]
    result = lint_one(make(tmp_path, "none", None))
    assert codes(result.errors) == ["missing_name", "missing_description"]
    result = lint_one(make(tmp_path, "nulls", "name:\ndescription: ~\n"))
    assert codes(result.errors) == ["missing_name", "missing_description"]


def test_empty_name_and_description(tmp_path: Path) -> None:
    result = lint_one(make(tmp_path, "empty", "name: ''\ndescription: '   '\n"))
    assert codes(result.errors) == ["empty_value", "empty_value"]


def test_empty_body(tmp_path: Path) -> None:
    assert codes(lint_one(make(tmp_path, "a", body="")).errors) == ["empty_body"]
    assert codes(lint_one(make(tmp_path, "b", body=" \n\n\t\n")).errors) == ["empty_body"]
    empty_file = make(tmp_path, "c", None, body="")
    expected = ["missing_name", "missing_description", "empty_body"]
    assert codes(lint_one(empty_file).errors) == expected


def test_references(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    frontmatter = GOOD + (
        "references:\n"
        "  - docs/ok.md\n"
        "  - path: docs/ok.md\n    description: fine\n"
        "  - url: https://example.com/x\n"
        "  - ../outside.md\n"
        "  - path: /etc/passwd\n"
        "  - docs/../../outside.md\n"
        "  - link.md\n"
        "  - docs/missing.md\n"
        "  - C:\\\\Windows\\\\x\n"
    )
    folder = make(tmp_path, "refs", frontmatter)
    (folder / "docs").mkdir()
    (folder / "docs" / "ok.md").write_text("ok")
    (folder / "link.md").symlink_to(outside)
    result = lint_one(folder)
    assert codes(result.errors) == ["reference_escapes"] * 4 + ["reference_missing"] + [
        "reference_escapes"
    ]
    messages = [issue.message for issue in result.errors]
    assert messages[0].startswith("references[3].path '../outside.md'")
    assert "absolute" in messages[1] and "symbolic link" in messages[3]
    assert messages[4].startswith("references[7].path 'docs/missing.md' does not exist")


def test_reference_inside_through_symlinked_folder(tmp_path: Path) -> None:
    real = make(tmp_path / "real", "s", GOOD + "references:\n  - a.md\n")
    (real / "a.md").write_text("a")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "s").symlink_to(real, target_is_directory=True)
    assert lint_one(tmp_path / "links" / "s").ok


def test_manifest_diagnostics_keep_their_codes(tmp_path: Path) -> None:
    frontmatter = GOOD + "tags: 3\nrequires:\n  bins: [x]\n  other: 1\nhide: 'yes'\n"
    result = lint_one(make(tmp_path, "m", frontmatter))
    assert "wrong_type" in codes(result.errors)
    assert {"unknown_key", "hide_not_boolean"} <= set(codes(result.warnings))


# -- warnings where the skill deviates from the standard -----------------------------------------


def test_name_warnings(tmp_path: Path) -> None:
    result = lint_one(make(tmp_path, "folder", "name: My_Skill\ndescription: d\n"))
    assert result.ok and codes(result.warnings) == ["name_mismatch", "name_not_standard"]
    long = "a" * 65
    result = lint_one(make(tmp_path, long, GOOD))
    assert codes(result.warnings) == ["name_not_standard", "folder_name_not_portable"]
    for name in ("-x", "x-", "a--b", "技能"):
        assert "name_not_standard" in codes(lint_one(make(tmp_path, name, GOOD)).warnings)


@pytest.mark.parametrize(("folder", "why"), [("C:x", "Windows reserves"),
                                             ("\uff21\uff22\uff23", "compatibility forms"),
                                             ("a" * 65, "at most 64")])
def test_a_folder_name_install_would_refuse_is_a_warning(tmp_path: Path, folder: str,
                                                         why: str) -> None:
    """Issue 17 §7: listing still finds such a skill; lint says install would refuse it."""
    result = lint_one(make(tmp_path, folder, GOOD))
    (issue,) = [w for w in result.warnings if w.code == "folder_name_not_portable"]
    assert why in issue.message and "lemon skill install" in issue.message


def test_description_over_1024_with_whitespace(tmp_path: Path) -> None:
    frontmatter = "name: {key}\ndescription: |\n  " + "y" * 1024 + "\n"
    result = lint_one(make(tmp_path, "d", frontmatter))
    assert result.ok and codes(result.warnings) == ["description_too_long_for_standard"]
    too_long = "name: {key}\ndescription: " + "y" * 1025 + "\n"
    result = lint_one(make(tmp_path, "e", too_long))
    assert codes(result.errors) == ["long_description"] and result.warnings == ()


def test_nonstandard_keys(tmp_path: Path) -> None:
    lemon_keys = GOOD + "version: '1.0'\nlicense: MIT\nrequires:\n  bins:\n    - git\n"
    assert lint_one(make(tmp_path, "v2", lemon_keys)).warnings == ()
    frontmatter = lemon_keys + "argument-hint: '[file]'\nuser-invocable: false\n"
    result = lint_one(make(tmp_path, "k", frontmatter))
    assert codes(result.warnings) == ["nonstandard_keys"]
    assert "(argument-hint, user-invocable)" in result.warnings[0].message


def test_standard_yaml_warnings(tmp_path: Path) -> None:
    flow = lint_one(make(tmp_path, "flow", GOOD + "metadata: {{a: b}}\n"))
    assert codes(flow.warnings) == ["standard_yaml"] and flow.ok
    assert "\n" not in flow.warnings[0].message and "line 4" in flow.warnings[0].message
    bom = make(tmp_path, "bom")
    (bom / "SKILL.md").write_bytes(b"\xef\xbb\xbf" + (bom / "SKILL.md").read_bytes())
    assert codes(lint_one(bom).warnings) == ["standard_yaml"]
    blank = make(tmp_path, "blank")
    (blank / "SKILL.md").write_text("\n" + (blank / "SKILL.md").read_text())
    assert codes(lint_one(blank).warnings) == ["frontmatter_not_at_start"]
    crlf = make(tmp_path, "crlf")
    (crlf / "SKILL.md").write_bytes((crlf / "SKILL.md").read_bytes().replace(b"\n", b"\r\n"))
    assert lint_one(crlf).warnings == ()


def test_toml_warning(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "SKILL.md").write_text('+++\nname = "t"\ndescription = "d"\n+++\nBody\n')
    result = lint_one(folder)
    assert result.ok and codes(result.warnings) == ["standard_toml"]


# -- strict, paths, folders of skills ------------------------------------------------------------


def test_strict(tmp_path: Path) -> None:
    warned = make(tmp_path, "w", "name: other\ndescription: d\n")
    assert lint_one(warned).ok and not lint_one(warned, strict=True).ok
    assert lint_one(make(tmp_path, "clean"), strict=True).ok


def test_folder_of_skills_is_walked_as_a_checkout(tmp_path: Path) -> None:
    """Groups are searched as discovery searches a checkout; a folder with no skill in it
    is a group like any other, and a misspelt skill.md is linted where it is."""
    root = tmp_path / "skills"
    make(root, "b-skill")
    make(root, "a-skill")
    make(root, ".hidden")
    make(root / "dev" / "python", "c-skill")
    (root / "no-skill").mkdir()
    (root / "README.md").write_text("not a skill")
    lower = make(root / "dev", "lower", file="skill.md")
    results = lint_paths([root])
    names = [Path(r.path).relative_to(root).as_posix() for r in results]
    if (lower / "SKILL.md").exists():
        pytest.skip("a case-insensitive file system finds skill.md as SKILL.md")
    assert names == ["a-skill", "b-skill", "dev/lower", "dev/python/c-skill"]
    assert [r.ok for r in results] == [True, True, False, True]
    assert codes(results[2].errors) == ["missing_skill_md"]
    assert "rename it to SKILL.md" in results[2].errors[0].message


def test_an_unreadable_folder_is_not_a_folder_without_skills(tmp_path: Path) -> None:
    """Three different answers: cannot be entered, not a folder, nothing in it. The mode bits
    decide, so this holds as root too."""
    (tmp_path / "empty").mkdir()
    make(tmp_path / "locked" / "group", "inside")
    (tmp_path / "file.txt").write_text("x")
    os.chmod(tmp_path / "locked", 0o600)
    try:
        locked, empty, file = lint_paths([tmp_path / "locked", tmp_path / "empty",
                                          tmp_path / "file.txt"])
    finally:
        os.chmod(tmp_path / "locked", 0o755)
    assert (locked.path, codes(locked.errors)) == (str(tmp_path / "locked"),
                                                   ["unreadable_directory"])
    assert codes(empty.errors) == ["missing_skill_md"]
    assert codes(file.errors) == ["not_a_skill"]
    messages = {locked.errors[0].message, empty.errors[0].message, file.errors[0].message}
    assert len(messages) == 3 and "permission" in locked.errors[0].message


def test_an_unreadable_group_inside_a_checkout_is_reported(tmp_path: Path) -> None:
    make(tmp_path / "skills", "ok")
    make(tmp_path / "skills" / "group", "hidden-by-mode")
    os.chmod(tmp_path / "skills" / "group", 0o600)
    try:
        results = lint_paths([tmp_path / "skills"])
    finally:
        os.chmod(tmp_path / "skills" / "group", 0o755)
    assert [(Path(r.path).name, r.ok, codes(r.errors)) for r in results] == [
        ("group", False, ["unreadable_directory"]), ("ok", True, [])]


def test_a_skill_md_linked_outside_its_folder_is_never_read(tmp_path: Path) -> None:
    make(tmp_path / "skills", "ok")
    (tmp_path / "skills" / "pw").mkdir()
    os.symlink("/etc/passwd", tmp_path / "skills" / "pw" / "SKILL.md")
    results = lint_paths([tmp_path / "skills"])
    assert [(Path(r.path).name, codes(r.errors)) for r in results] == [
        ("ok", []), ("pw", ["skill_file_outside"])]
    assert "root:" not in results[1].errors[0].message


def test_empty_folder_and_odd_paths(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    results = lint_paths([tmp_path / "empty", tmp_path / "missing", tmp_path / "notes.txt"])
    assert [codes(r.errors) for r in results] == [["missing_skill_md"], ["path_missing"],
                                                  ["not_a_skill"]]  # fmt: skip


def test_skill_md_file_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = make(tmp_path, "f")
    assert lint_one(folder / "SKILL.md").path == str(folder)
    monkeypatch.chdir(folder)
    assert lint_one(Path("SKILL.md")).ok  # the folder name comes from the absolute path
    assert not lint_one(Path("SKILL.md"), standard=True).ok  # skills-ref's '' quirk


def test_json_contract(tmp_path: Path) -> None:
    make(tmp_path / "s", "x", "name: y\ndescription: d\n", body="")
    data = json.loads(json.dumps(results_to_json(lint_paths([tmp_path / "s"]))))
    (result,) = data["results"]
    assert set(result) == {"path", "ok", "errors", "warnings"}
    assert result["errors"] == [{"code": "empty_body", "message": result["errors"][0]["message"]}]
    assert result["warnings"][0]["code"] == "name_mismatch"


# -- --standard -----------------------------------------------------------------------------


def test_standard_mode_has_skills_ref_verdicts_in_lemons_words(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make(root, "ok")
    make(root, "Bad", "name: Bad\ndescription: d\nversion: 1\n")
    (root / "missing").mkdir()  # a group with no skill in it: nothing to lint
    results = lint_paths([root], standard=True)
    for result in results:
        assert len(result.errors) == len(validate_standard(Path(result.path)))
        assert result.warnings == () and result.ok == (not result.errors)
        assert all(code.startswith("standard_") for code in codes(result.errors))
    assert [(Path(r.path).name, r.ok) for r in results] == [("Bad", False), ("ok", True)]


def test_standard_mode_accepts_lowercase_and_rejects_bom(tmp_path: Path) -> None:
    lower = make(tmp_path, "lower", file="skill.md")
    assert lint_one(lower, standard=True).ok and not lint_one(lower).ok
    bom = make(tmp_path, "bom")
    (bom / "SKILL.md").write_bytes(b"\xef\xbb\xbf" + (bom / "SKILL.md").read_bytes())
    assert lint_one(bom).ok and not lint_one(bom, standard=True).ok


# -- hostile input ----------------------------------------------------------------------------


def test_hostile_files(tmp_path: Path) -> None:
    binary = make(tmp_path, "binary")
    (binary / "SKILL.md").write_bytes(b"---\nname: binary\n---\n\x00\x01")
    utf16 = make(tmp_path, "utf16")
    (utf16 / "SKILL.md").write_bytes("---\nname: x\n---\n".encode("utf-16"))
    body_utf8 = make(tmp_path, "late")
    (body_utf8 / "SKILL.md").write_bytes(b"---\nname: late\ndescription: d\n---\n" + b"a" * 9000
                                         + b"\xff")  # fmt: skip
    make(tmp_path, "bomb", 'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
                + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                          for p, c in zip("abcdefgh", "bcdefghi")))  # fmt: skip
    make(tmp_path, "deep", "a: " + "[" * 5000 + "]" * 5000 + "\n")
    results = {Path(r.path).name: codes(r.errors) for r in lint_paths([tmp_path])}
    assert results["binary"] == ["binary_file"]
    assert results["utf16"] == ["invalid_utf8"]
    assert results["late"] == ["invalid_utf8"]
    assert "yaml_aliases_too_large" in results["bomb"]
    assert results["deep"] and results["deep"][0].startswith("frontmatter_too_deep")


def test_special_files(tmp_path: Path) -> None:
    (tmp_path / "dir" / "SKILL.md").mkdir(parents=True)
    assert codes(lint_one(tmp_path / "dir").errors) == ["not_a_file"]
    if hasattr(os, "mkfifo"):
        (tmp_path / "fifo").mkdir()
        os.mkfifo(tmp_path / "fifo" / "SKILL.md")
        assert codes(lint_one(tmp_path / "fifo").errors) == ["not_a_file"]
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "SKILL.md").symlink_to(tmp_path / "loop" / "SKILL.md")
    assert codes(lint_one(tmp_path / "loop").errors) == ["read_failed"]


def test_reference_symlink_loop(tmp_path: Path) -> None:
    folder = make(tmp_path, "loop", GOOD + "references:\n  - a.md\n  - \"x\\0y\"\n")
    (folder / "a.md").symlink_to(folder / "a.md")
    result = lint_one(folder)
    assert not result.ok and "internal_error" not in codes(result.errors)


def test_huge_file(tmp_path: Path) -> None:
    folder = make(tmp_path, "huge", body="é" * MAX_SKILL_MD_BYTES)
    assert codes(lint_one(folder).errors) == ["file_too_large"]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: ("---\n" + t).encode()))
def test_never_raises(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        folder.mkdir()
        (folder / "SKILL.md").write_bytes(data)
        for standard in (False, True):
            (result,) = lint_paths([folder], standard=standard)
            assert result.ok == (not result.errors)
            assert "internal_error" not in codes(result.errors)
            assert all(issue.code and issue.message for issue in result.errors + result.warnings)
