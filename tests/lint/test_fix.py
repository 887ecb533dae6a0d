"""``lemon skill lint --fix [--diff]``: what is rewritten, what is kept byte for byte, and what
is never touched."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.lint.fix import Refused, fix_bytes, fix_skill_md
from lemon_core.lint.runner import lint_paths
from lemon_core.manifest import frontmatter as fm
from lemon_core.manifest.load import load_manifest, parse_manifest
from lemon_core.manifest.parse_full import load_yaml
from tests.helpers import run_cli

BODY = "# Title\n\nDo it: now.\n\n---\n\ntags: [not, frontmatter]\n"


def skill(tmp_path: Path, content: str | bytes, key: str = "my-skill") -> Path:
    folder = tmp_path / key
    folder.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    (folder / "SKILL.md").write_bytes(data)
    return folder


def fixed(folder: Path) -> str:
    return (folder / "SKILL.md").read_text(encoding="utf-8")


def body(data: bytes) -> str:
    return fm.split_frontmatter(data.decode("utf-8")).body


def codes(issues) -> list[str]:
    return [issue.code for issue in issues]


# -- what is fixed ------------------------------------------------------------------------------


def test_block_scalar_description_is_folded_and_everything_else_kept(tmp_path: Path) -> None:
    head = ("---\nname: my-skill\n# the description, as anthropics/skills writes it\n"
            "description: |-\n  Reference for the API.\n  TRIGGER: when the user\t asks.\n"
            "license: MIT  # a comment\nmetadata:\n  author: someone\n---\n")
    folder = skill(tmp_path, head + BODY)
    assert not load_manifest(folder / "SKILL.md", key="my-skill").ok  # multiline_value today
    [result] = lint_paths([folder], fix=True)
    assert codes(result.fixed) == ["fix_description_folded"] and result.ok, result
    assert fixed(folder) == head.replace(
        "|-\n  Reference for the API.\n  TRIGGER: when the user\t asks.",
        "'Reference for the API. TRIGGER: when the user asks.'") + BODY
    loaded = load_manifest(folder / "SKILL.md", key="my-skill")
    assert loaded.ok and loaded.manifest.description == (
        "Reference for the API. TRIGGER: when the user asks.")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (">\n  Folded\n  text.\n\n  Second paragraph.\n", "Folded text. Second paragraph."),
        ("|\n  Line one\n  Line two\n\n\n", "Line one Line two"),
        ("Plain text\n  continued here\n  and here # a comment\n",
         "Plain text continued here and here # a comment"),
        ('"Quoted\\nwith a break"\n', "Quoted with a break"),
        ("|\n  yes\n", "'yes'"),
    ],
    ids=["folded", "literal-trailing-blank", "plain", "double-quoted-break", "plain-unsafe"],
)
def test_other_multiline_descriptions(tmp_path: Path, value: str, expected: str) -> None:
    folder = skill(tmp_path, f"---\nname: my-skill\ndescription: {value}---\n{BODY}")
    [result] = lint_paths([folder], fix=True)
    assert codes(result.fixed) == ["fix_description_folded"]
    assert f"description: {expected}\n" in fixed(folder)
    folded = load_manifest(folder / "SKILL.md", key="my-skill").manifest.description
    assert folded == expected.strip("'").removesuffix(" # a comment")


def test_unquoted_colon_is_quoted(tmp_path: Path) -> None:
    folder = skill(tmp_path, "---\nname: my-skill\ndescription: Use when: the user asks\n"
                             "metadata:\n  note: it's: nested\n---\n" + BODY)
    before = load_manifest(folder / "SKILL.md", key="my-skill")
    assert "yaml_repaired" in codes(before.warnings)
    [result] = lint_paths([folder], fix=True, strict=True)
    assert codes(result.fixed) == ["fix_colon_quoted", "fix_colon_quoted"] and result.ok, result
    assert fixed(folder) == ("---\nname: my-skill\ndescription: 'Use when: the user asks'\n"
                             "metadata:\n  note: 'it''s: nested'\n---\n" + BODY)
    after = load_manifest(folder / "SKILL.md", key="my-skill")
    assert after.manifest == before.manifest and not after.warnings


def test_flow_lists_become_block_lists(tmp_path: Path) -> None:
    head = ("---\nname: my-skill\ndescription: Use when testing.\n"
            "tags: [writing, 'release notes']   # why\nrequires:\n  bins: [git]\n"
            "metadata:\n  flow: {a: b}\n  empty: []\n---\n")
    folder = skill(tmp_path, head + BODY)
    [result] = lint_paths([folder], fix=True)
    assert codes(result.fixed) == ["fix_flow_list", "fix_flow_list"]
    assert fixed(folder) == ("---\nname: my-skill\ndescription: Use when testing.\n"
                             "tags:   # why\n  - writing\n  - 'release notes'\nrequires:\n"
                             "  bins:\n    - git\nmetadata:\n  flow: {a: b}\n  empty: []\n---\n"
                             + BODY)
    # a flow mapping and an empty list have no block form lemon writes: they remain
    [after] = lint_paths([folder], standard=True)
    assert codes(after.errors) == ["standard_yaml_flow_mapping"]


def test_bom_and_crlf(tmp_path: Path) -> None:
    text = "---\nname: my-skill\ndescription: Use when testing.\n---\n" + BODY
    folder = skill(tmp_path, b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    [before] = lint_paths([folder], standard=True)
    assert codes(before.errors) == ["standard_bom"]
    [result] = lint_paths([folder], fix=True, standard=True)
    assert codes(result.fixed) == ["fix_bom", "fix_crlf"] and result.ok, result
    assert (folder / "SKILL.md").read_bytes() == text.encode()


def test_all_fixes_at_once_load_to_the_same_data(tmp_path: Path) -> None:
    text = ("---\nname: my-skill\ndescription: |\n  Use when: the user\n  asks.\n"
            "author: A: B\ntags: [a, b]\n---\n" + BODY)
    folder = skill(tmp_path, b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    original, _ = load_yaml(fm.split_frontmatter(text).raw)
    [result] = lint_paths([folder], fix=True)
    assert codes(result.fixed) == ["fix_bom", "fix_crlf", "fix_colon_quoted",
                                   "fix_description_folded", "fix_flow_list"], result
    data, notes = load_yaml(fm.split_frontmatter(fixed(folder)).raw)
    assert data == {**original, "description": "Use when: the user asks."} and notes == []
    assert body(fixed(folder).encode()) == BODY


# -- what is never touched ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "---\nname: my-skill\ndescription: [unclosed\r\n---\r\nBody\r\n",
        "---\nname: my-skill\ndescription: |\n  a\n  b\r\n",
        b"\xef\xbb\xbf---\nname: x\ndescription: d\n---\nbad \xff\n",
        "+++\r\nname = 'my-skill'\r\ndescription = [\r\n+++\r\nBody\r\n",
    ],
    ids=["yaml-invalid", "unclosed", "invalid-utf8", "toml-invalid"],
)
def test_unparsable_files_are_never_touched(tmp_path: Path, content: str | bytes) -> None:
    folder = skill(tmp_path, content)
    before = (folder / "SKILL.md").read_bytes()
    [result] = lint_paths([folder], fix=True)
    assert (folder / "SKILL.md").read_bytes() == before
    assert result.fixed == () and "fix_skipped" in codes(result.warnings) and not result.ok


def test_toml_gets_only_bom_and_crlf(tmp_path: Path) -> None:
    text = "+++\nname = 'my-skill'\ndescription = '''Use when\ntesting.'''\n+++\n" + BODY
    folder = skill(tmp_path, "\ufeff" + text.replace("\n", "\r\n"))
    [result] = lint_paths([folder], fix=True)
    assert codes(result.fixed) == ["fix_bom", "fix_crlf"]
    assert fixed(folder) == text  # the multi-line TOML description is left as it is


def test_a_fixed_file_with_nothing_to_fix_is_not_written(tmp_path: Path) -> None:
    folder = skill(tmp_path, "---\nname: my-skill\ndescription: Use when testing.\n---\n" + BODY)
    os.utime(folder / "SKILL.md", (1_000_000, 1_000_000))
    [result] = lint_paths([folder], fix=True)
    assert result.fixed == () and result.ok
    assert (folder / "SKILL.md").stat().st_mtime == 1_000_000


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and links")
def test_mode_is_kept_and_links_are_not_followed(tmp_path: Path) -> None:
    folder = skill(tmp_path, "---\nname: my-skill\ndescription: Use when.\ntags: [a]\n---\nB\n")
    (folder / "SKILL.md").chmod(0o640)
    fix_skill_md(folder / "SKILL.md")
    assert (folder / "SKILL.md").stat().st_mode & 0o777 == 0o640
    assert "  - a\n" in fixed(folder)
    other = skill(tmp_path, "---\nname: other\ndescription: Use when.\ntags: [a]\n---\nB\n",
                  key="other")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "SKILL.md").symlink_to(other / "SKILL.md")
    outcome = fix_skill_md(linked / "SKILL.md")
    assert outcome.skipped.code == "fix_skipped" and "symbolic link" in outcome.skipped.message
    assert "tags: [a]" in fixed(other)


def test_refuses_when_the_data_would_change() -> None:
    # an anchor on the description that an alias uses: folding would drop it
    text = "name: x\ndescription: &d |\n  a\n  b\nalso: *d\n"
    assert fix_bytes(f"---\n{text}---\nB\n".encode()) == (f"---\n{text}---\nB\n".encode(), [])
    with pytest.raises(Refused):
        fix_bytes(b"---\n- a list\n---\nB\n")


# -- --diff and the CLI -------------------------------------------------------------------------


def test_diff_writes_nothing_and_reports_what_would_remain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content = "---\nname: my-skill\ndescription: |\n  a\n  b\ntags: [x]\nversion: 1.0\n---\nB\n"
    folder = skill(tmp_path, content)
    code, out, _ = run_cli(capsys, "skill", "lint", "--fix", "--diff", str(folder))
    assert code == 1 and fixed(folder) == content
    assert "would fix: line 3: description folded from 3 line(s) onto one line" in out
    assert "\n-description: |\n-  a\n-  b\n-tags: [x]\n+description: a b\n+tags:\n+  - x\n" in out
    assert "error: version must be text" in out  # what the fixed file would still have
    code, out, _ = run_cli(capsys, "skill", "lint", "--fix", "--diff", "--json", str(folder))
    [result] = json.loads(out)["results"]
    assert code == 1 and result["diff"].startswith(f"--- a/{folder / 'SKILL.md'}\n")
    assert [f["code"] for f in result["fixed"]] == ["fix_description_folded", "fix_flow_list"]
    assert [e["code"] for e in result["errors"]] == ["wrong_type"]


def test_cli_fix_then_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = skill(tmp_path, "---\nname: my-skill\ndescription: Use when.\n"
                             "allowed-tools: [Read, Bash]\n---\nB\n")
    code, out, _ = run_cli(capsys, "skill", "lint", "--fix", "--standard", "--json", str(folder))
    [result] = json.loads(out)["results"]
    assert code == 0 and result["ok"] and result["fixed"][0]["code"] == "fix_flow_list"
    code, out, _ = run_cli(capsys, "skill", "lint", "--fix", "--diff", str(folder))
    assert code == 0 and "---" not in out  # nothing left to change
    code, _, err = run_cli(capsys, "skill", "lint", "--diff", str(folder))
    assert code == 2 and "--fix" in err


def test_without_fix_the_json_is_unchanged(tmp_path: Path) -> None:
    folder = skill(tmp_path, "---\nname: my-skill\ndescription: Use when.\n---\nB\n")
    [result] = lint_paths([folder])
    assert set(result.to_json()) == {"path", "ok", "errors", "warnings"}
    [result] = lint_paths([folder], fix=True)
    assert set(result.to_json()) == {"path", "ok", "errors", "warnings", "fixed"}


# -- property: folding never changes anything but the description -----------------------------

LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE, min_size=1, max_size=4), st.sampled_from(["|", "|-", ">", ">-"]),
       st.sampled_from(["", "tags: [a, b]\n", "license: MIT # c\n"]))
def test_folding_keeps_everything_else(lines: list[str], style: str, extra: str) -> None:
    block = "".join(f"  {line.strip()}\n" for line in lines)
    text = f"---\nname: my-skill\ndescription: {style}\n{block}{extra}---\n{BODY}"
    try:
        original, _ = load_yaml(fm.split_frontmatter(text).raw)
    except fm.FrontmatterError:
        return  # not YAML to begin with
    try:
        data, fixes = fix_bytes(text.encode())
    except Refused:
        return
    assert body(data) == BODY
    new, notes = load_yaml(fm.split_frontmatter(data.decode()).raw)
    description = original.get("description")
    if isinstance(description, str) and "fix_description_folded" in codes(fixes):
        assert new["description"] == _fold(description)
        new = {**new, "description": description}
    assert new == original and not notes
    assert "multiline_value" not in codes(parse_manifest(data, key="my-skill", label="x").errors)


def _fold(text: str) -> str:
    import re

    return re.sub("[ \t\r\n\x85\u2028\u2029]+", " ", text).strip()
