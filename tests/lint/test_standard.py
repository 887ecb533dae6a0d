"""``validate_standard``: skills-ref 0.1.1's own validator and parser tests, its quirks, and the
inputs it crashes on (where lemon returns a clear error instead)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lemon_core.lint.standard import (
    MAX_FILE_BYTES,
    check_standard,
    standard_frontmatter,
    standard_target,
    validate_standard,
)

VALID = "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n"


def skill(tmp_path: Path, folder: str, content: str | bytes, file: str = "SKILL.md") -> Path:
    path = tmp_path / folder
    path.mkdir(exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    (path / file).write_bytes(data)
    return path


def fm(name: str, description: str = "A test skill", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody\n"


def one_error_containing(errors: list[str], *parts: str) -> None:
    assert any(all(part in error for part in parts) for error in errors), errors


# -- skills-ref tests/test_validator.py (21) ---------------------------------------------------


def test_valid_skill(tmp_path: Path) -> None:
    assert validate_standard(skill(tmp_path, "my-skill", VALID)) == []


def test_nonexistent_path(tmp_path: Path) -> None:
    errors = validate_standard(tmp_path / "nonexistent")
    assert len(errors) == 1 and "does not exist" in errors[0]


def test_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    errors = validate_standard(tmp_path / "file.txt")
    assert len(errors) == 1 and "Not a directory" in errors[0]


def test_missing_skill_md(tmp_path: Path) -> None:
    (tmp_path / "my-skill").mkdir()
    assert validate_standard(tmp_path / "my-skill") == ["Missing required file: SKILL.md"]


def test_invalid_name_uppercase(tmp_path: Path) -> None:
    one_error_containing(validate_standard(skill(tmp_path, "MySkill", fm("MySkill"))), "lowercase")


def test_name_too_long(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "a" * 70, fm("a" * 70)))
    one_error_containing(errors, "exceeds", "character limit")
    assert f"Skill name '{'a' * 70}' exceeds 64 character limit (70 chars)" in errors


def test_name_leading_hyphen(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "-my-skill", fm("-my-skill")))
    one_error_containing(errors, "cannot start or end with a hyphen")


def test_name_consecutive_hyphens(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my--skill", fm("my--skill")))
    one_error_containing(errors, "consecutive hyphens")


def test_name_invalid_characters(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my_skill", fm("my_skill")))
    one_error_containing(errors, "invalid characters")


def test_name_directory_mismatch(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "wrong-name", fm("correct-name")))
    assert errors == ["Directory name 'wrong-name' must match skill name 'correct-name'"]


def test_unexpected_fields(tmp_path: Path) -> None:
    folder = skill(tmp_path, "my-skill", fm("my-skill", extra="unknown_field: x\n"))
    errors = validate_standard(folder)
    one_error_containing(errors, "Unexpected fields")


def test_valid_with_all_fields(tmp_path: Path) -> None:
    extra = "license: MIT\nmetadata:\n  author: Test\n"
    assert validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra))) == []


def test_allowed_tools_accepted(tmp_path: Path) -> None:
    extra = "allowed-tools: Bash(jq:*) Bash(git:*)\n"
    assert validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra))) == []


@pytest.mark.parametrize("name", ["技能", "мой-навык", "навык"])
def test_i18n_names_valid(tmp_path: Path, name: str) -> None:
    assert validate_standard(skill(tmp_path, name, fm(name))) == []


def test_i18n_russian_uppercase_rejected(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "НАВЫК", fm("НАВЫК")))
    one_error_containing(errors, "lowercase")


def test_description_too_long(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", "x" * 1100)))
    assert errors == ["Description exceeds 1024 character limit (1100 chars)"]


def test_valid_compatibility(tmp_path: Path) -> None:
    extra = "compatibility: Requires Python 3.11+\n"
    assert validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra))) == []


def test_compatibility_too_long(tmp_path: Path) -> None:
    extra = f"compatibility: {'x' * 550}\n"
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra)))
    assert errors == ["Compatibility exceeds 500 character limit (550 chars)"]


def test_nfkc_normalization(tmp_path: Path) -> None:
    assert validate_standard(skill(tmp_path, "caf\u00e9", fm("cafe\u0301"))) == []


# -- skills-ref tests/test_parser.py (the parts validate exercises) ---------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: my-skill\n---\n", "SKILL.md must start with YAML frontmatter (---)"),
        ("---\nname: my-skill\ndescription: d\n", "SKILL.md frontmatter not properly closed"),
        ("---\nname: [invalid\n---\n", "Invalid YAML in frontmatter"),
        ("---\n- just\n- a list\n---\n", "SKILL.md frontmatter must be a YAML mapping"),
        ("---\ndescription: d\n---\n", "Missing required field in frontmatter: name"),
        ("---\nname: my-skill\n---\n", "Missing required field in frontmatter: description"),
    ],
)
def test_parse_failures(tmp_path: Path, content: str, message: str) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", content))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_metadata_values_stay_text(tmp_path: Path) -> None:
    extra = "metadata:\n  author: Test Author\n  version: 1.0\n  flag: yes\n  n: 012\n"
    assert validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra))) == []


def test_prefers_uppercase_skill_md(tmp_path: Path) -> None:
    folder = skill(tmp_path, "my-skill", VALID)
    (folder / "skill.md").write_text("not frontmatter")
    names = {p.name for p in folder.iterdir()}
    if names != {"SKILL.md", "skill.md"}:
        pytest.skip("case-insensitive file system")
    assert validate_standard(folder) == []


def test_accepts_lowercase_skill_md(tmp_path: Path) -> None:
    assert validate_standard(skill(tmp_path, "my-skill", VALID, file="skill.md")) == []


def test_other_spellings_are_missing(tmp_path: Path) -> None:
    folder = skill(tmp_path, "my-skill", VALID, file="Skill.md")
    if (folder / "SKILL.md").exists():
        pytest.skip("case-insensitive file system")
    assert validate_standard(folder) == ["Missing required file: SKILL.md"]


# -- quirks kept on purpose ---------------------------------------------------------------------


def test_bom_fails(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", "\ufeff" + VALID))
    assert errors == ["SKILL.md must start with YAML frontmatter (---)"]


@pytest.mark.parametrize("extra", ["metadata: {a: b}\n", "allowed-tools: [Read, Bash]\n"])
def test_flow_style_fails(tmp_path: Path, extra: str) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra)))
    assert len(errors) == 1 and errors[0].startswith("Invalid YAML in frontmatter: ")
    assert "flow" in errors[0]


@pytest.mark.parametrize("extra", ["name: again\n", "license: &a MIT\n", "license: !!str x\n"])
def test_strict_yaml_rejections(tmp_path: Path, extra: str) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", extra=extra)))
    assert len(errors) == 1 and errors[0].startswith("Invalid YAML in frontmatter: ")


def test_unicode_lowercase_letters_pass(tmp_path: Path) -> None:
    assert validate_standard(skill(tmp_path, "ñandú-2", fm("ñandú-2"))) == []


def test_nfkc_applies_to_directory_name(tmp_path: Path) -> None:
    assert validate_standard(skill(tmp_path, "\ufb01le", fm("file"))) == []


def test_description_length_is_raw(tmp_path: Path) -> None:
    padded = '"' + "x" * 1020 + '     "'
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", padded)))
    assert errors == ["Description exceeds 1024 character limit (1025 chars)"]
    block = "|\n  " + "y" * 1024 + "\n"
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", block)))
    assert errors == ["Description exceeds 1024 character limit (1025 chars)"]


def test_directory_check_uses_path_as_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = skill(tmp_path, "my-skill", VALID)
    monkeypatch.chdir(folder)
    assert validate_standard(Path(".")) == ["Directory name '' must match skill name 'my-skill'"]
    assert standard_target("SKILL.md") == Path(".")
    assert standard_target(folder / "SKILL.md") == folder
    assert standard_target(folder) == folder


def test_universal_newlines(tmp_path: Path) -> None:
    crlf = fm("my-skill", "x" * 1024).replace("\n", "\r\n")
    assert validate_standard(skill(tmp_path, "my-skill", crlf)) == []
    cr = VALID.replace("\n", "\r")
    assert validate_standard(skill(tmp_path, "my-skill", cr)) == []


def test_split_on_first_dashes_anywhere(tmp_path: Path) -> None:
    # no closing fence, but the '---' inside the value closes the frontmatter
    content = "---\nname: my-skill\ndescription: see---more\n"
    assert validate_standard(skill(tmp_path, "my-skill", content)) == []
    content = "---\nname: my-skill---\ndescription: d\n---\n"
    assert validate_standard(skill(tmp_path, "my-skill", content)) == [
        "Missing required field in frontmatter: description"
    ]


def test_errors_accumulate_in_order(tmp_path: Path) -> None:
    extra = "zeta: 1\nalpha: 2\ncompatibility: " + "c" * 501 + "\n"
    errors = validate_standard(skill(tmp_path, "Bad_Name", fm("Bad_Name", "", extra=extra)))
    assert errors == [
        (
            "Unexpected fields in frontmatter: alpha, zeta. Only ['allowed-tools', "
            "'compatibility', 'description', 'license', 'metadata', 'name'] are allowed."
        ),
        "Skill name 'Bad_Name' must be lowercase",
        (
            "Skill name 'Bad_Name' contains invalid characters. Only letters, digits, and "
            "hyphens are allowed."
        ),
        "Field 'description' must be a non-empty string",
        "Compatibility exceeds 500 character limit (501 chars)",
    ]


def test_non_string_fields(tmp_path: Path) -> None:
    extra = "compatibility:\n  - a\n"
    content = "---\nname:\n  k: v\ndescription:\n  - x\n" + extra + "---\n"
    assert validate_standard(skill(tmp_path, "my-skill", content)) == [
        "Field 'name' must be a non-empty string",
        "Field 'description' must be a non-empty string",
        "Field 'compatibility' must be a string",
    ]


def test_codes(tmp_path: Path) -> None:
    folder = skill(tmp_path, "other", fm("my-skill", "x" * 1100, extra="tags: a\n"))
    assert [code for code, _ in check_standard(folder)] == [
        "standard_fields", "standard_name", "standard_description",
    ]  # fmt: skip
    assert check_standard(tmp_path / "nope")[0][0] == "standard_path"


def test_standard_frontmatter() -> None:
    expected = {"name": "my-skill", "description": "A test skill"}
    assert standard_frontmatter(VALID) == (expected, None)
    assert standard_frontmatter("\ufeff" + VALID) == (
        None, "SKILL.md must start with YAML frontmatter (---)"
    )
    assert standard_frontmatter(VALID.replace("\n", "\r\n")) == (expected, None)


# -- where skills-ref crashes or hangs: one clear error -----------------------------------------


@pytest.mark.parametrize("char", ["\x80", "\x07", "\x9f"])
def test_control_character(tmp_path: Path, char: str) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", fm("my-skill", f"bad{char}text")))
    expected = (
        f"Invalid YAML in frontmatter: special characters are not allowed "
        f"(U+{ord(char):04X} at line 3, column 17)"
    )
    assert errors == [expected]


def test_invalid_utf8(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", VALID.encode() + b"\xff"))
    offset = len(VALID.encode())
    assert errors == [f"SKILL.md is not valid UTF-8 (byte 0xff at offset {offset})"]
    assert check_standard(tmp_path / "my-skill")[0][0] == "standard_unreadable"


def test_skill_md_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "my-skill" / "SKILL.md").mkdir(parents=True)
    errors = validate_standard(tmp_path / "my-skill")
    assert len(errors) == 1 and errors[0].startswith("Cannot read SKILL.md:")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_skill_md_is_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "my-skill").mkdir()
    os.mkfifo(tmp_path / "my-skill" / "SKILL.md")
    assert validate_standard(tmp_path / "my-skill") == [
        "Cannot read SKILL.md: not a regular file"
    ]


@pytest.mark.parametrize(
    "frontmatter",
    ["- " * 500 + "x\n", "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "x\n"],
    ids=["sequences", "mappings"],
)
def test_deep_nesting(tmp_path: Path, frontmatter: str) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", f"---\n{frontmatter}---\n"))
    assert len(errors) == 1 and errors[0].startswith("Invalid YAML in frontmatter: ")


def test_complex_key(tmp_path: Path) -> None:
    errors = validate_standard(skill(tmp_path, "my-skill", "---\n? - a\n: b\n---\n"))
    assert errors == ["Invalid YAML in frontmatter: unsupported construct (AssertionError)"]


def test_bounds(tmp_path: Path) -> None:
    big = VALID + "x" * MAX_FILE_BYTES
    assert validate_standard(skill(tmp_path, "a", big)) == [
        f"SKILL.md is larger than {MAX_FILE_BYTES} bytes"
    ]
    many = "".join(f"k{i}: v\n" for i in range(600))
    assert validate_standard(skill(tmp_path, "b", f"---\n{many}---\n")) == [
        "Frontmatter has more than 512 YAML entries"
    ]
    long = "description: |\n" + "  line\n" * 12000
    assert validate_standard(skill(tmp_path, "c", f"---\n{long}---\n")) == [
        "Frontmatter is longer than 65536 characters"
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unreadable_file(tmp_path: Path) -> None:
    folder = skill(tmp_path, "my-skill", VALID)
    (folder / "SKILL.md").chmod(0)
    try:
        if os.access(folder / "SKILL.md", os.R_OK):
            pytest.skip("running as root")
        assert validate_standard(folder)[0].startswith("Cannot read SKILL.md:")
    finally:
        (folder / "SKILL.md").chmod(0o644)


# -- lint --standard: the standard's verdicts in lemon's words, with rule ids -------------------


def explained(tmp_path: Path, content: str | bytes) -> list[tuple[str, str]]:
    from lemon_core.lint.standard_messages import explain_standard

    return explain_standard(skill(tmp_path, "my-skill", content))


@pytest.mark.parametrize(
    ("extra", "rule", "words"),
    [
        ("tags: [writing, release]\n", "standard_yaml_flow_list",
         ("line 4: flow list [writing, release] is not allowed by the standard's YAML; write one "
         "'- item' per line, or run `lemon skill lint --fix`")),
        ("metadata: {a: b}\n", "standard_yaml_flow_mapping",
         ("line 4: flow mapping {a: b} is not allowed by the standard's YAML; write one "
         "'key: value' per line, indented under its key")),
        ("name: again\n", "standard_yaml_duplicate_key",
         ("line 4: key 'name' appears a second time; the standard's YAML forbids duplicate "
         "keys: keep one")),
        ("license: !!str MIT\n", "standard_yaml_tag",
         ("line 4: the YAML tag !!str is not allowed by the standard's YAML (every value is "
         "text); remove it")),
        ("license: &a MIT\n", "standard_yaml_anchor",
         ("line 4: the YAML anchor or alias &a is not allowed by the standard's YAML; write the "
         "value out where it is used")),
        ("license: a: b\n", "standard_yaml_syntax",
         ("line 4, column 11: the frontmatter is not valid YAML (mapping values are not allowed "
         "here); quote the value (key: \"…\") that holds ': ', or run `lemon skill lint --fix`")),
    ],
    ids=["flow-list", "flow-mapping", "duplicate", "tag", "anchor", "syntax"],
)
def test_yaml_errors_in_lemons_words(tmp_path: Path, extra: str, rule: str, words: str) -> None:
    assert explained(tmp_path, fm("my-skill", extra=extra)) == [(rule, words)]
    # the reference's own message is still what validate_standard returns
    [reference] = validate_standard(tmp_path / "my-skill")
    assert reference.startswith("Invalid YAML in frontmatter: ")


def test_the_demo_flow_list_is_not_called_a_mapping(tmp_path: Path) -> None:
    [(_rule, words)] = explained(tmp_path, fm("my-skill", extra="tags: [writing, release]\n"))
    assert "mapping" not in words and "JSONesque" not in words and "list" in words


@pytest.mark.parametrize(
    ("content", "rule", "part"),
    [
        ("\ufeff" + VALID, "standard_bom", "byte-order mark"),
        ("+++\nname = 'my-skill'\n+++\n", "standard_toml", "TOML frontmatter (+++)"),
        ("\n\n" + VALID, "standard_frontmatter", "2 blank line(s) before the opening '---'"),
        ("# Title\n", "standard_frontmatter", "has no frontmatter"),
        ("---\nname: my-skill\n", "standard_frontmatter", "never closed"),
    ],
)
def test_start_messages(tmp_path: Path, content: str, rule: str, part: str) -> None:
    [(code, words)] = explained(tmp_path, content)
    assert code == rule and part in words


def test_field_messages(tmp_path: Path) -> None:
    extra = "zeta: 1\ncompatibility: " + "c" * 501 + "\n"
    content = fm("Bad_Name", "", extra=extra)
    assert explained(tmp_path, content) == [
        ("standard_fields", ("keys the standard does not define: zeta; it allows only name, "
         "description, license, allowed-tools, metadata and compatibility. Move other data "
         "under metadata (lemon's own keys such as tags or requires are lemon extensions that "
         "other agents reject)")),
        ("standard_name", "name 'Bad_Name' must be lowercase"),
        ("standard_name", "name 'Bad_Name' may hold only letters, digits and hyphens"),
        ("standard_name", ("name 'Bad_Name' must equal the folder name 'my-skill'; rename one "
         "of them")),
        ("standard_description", "description must be non-empty text"),
        ("standard_compatibility", ("compatibility has 501 characters; the standard allows at "
         "most 500")),
    ]


def test_lint_standard_uses_lemons_words(tmp_path: Path) -> None:
    from lemon_core.lint.runner import lint_paths

    folder = skill(tmp_path, "my-skill", fm("my-skill", extra="allowed-tools: [Read]\n"))
    [result] = lint_paths([folder], standard=True)
    assert [issue.code for issue in result.errors] == ["standard_yaml_flow_list"]
    [lemon] = lint_paths([folder])
    assert [issue.code for issue in lemon.warnings] == ["standard_yaml"]
    assert "(standard_yaml_flow_list): line 4: flow list [Read]" in lemon.warnings[0].message


def test_the_demo_teaches_what_passes() -> None:
    """examples/demo-project: the shared folder keeps to the standard, every skill passes
    lemon's rules and nothing is left for --fix, except the skill broken on purpose."""
    from lemon_core.lint.runner import lint_paths

    demo = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
    shared = lint_paths([demo / ".agents" / "skills"], standard=True)
    assert {Path(r.path).name: r.ok for r in shared} == {
        "broken-example": False, "release-notes": True,
    }  # fmt: skip
    roots = [demo / root for root in (".agents/skills", ".claude/skills", ".github/skills",
                                      ".codex/skills", ".lemon/skill")]
    lemon = lint_paths(roots, fix=True, dry_run=True)
    assert [Path(r.path).name for r in lemon if not r.ok] == ["broken-example"]
    assert [r.path for r in lemon if r.fixed] == []
    readme = (demo / "README.md").read_text(encoding="utf-8")
    assert all(f"`{Path(r.path).name}`" in readme for r in lemon)
    assert "broken on purpose" in readme
