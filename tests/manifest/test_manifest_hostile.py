"""Hostile and tricky SKILL.md content: every case ends in a result, quickly, never a crash."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from lemon_core.manifest import parse_full as yaml_loader
from lemon_core.manifest.frontmatter import MAX_FRONTMATTER_BYTES, READ_CAP_BYTES
from lemon_core.manifest.load import ManifestResult, load_manifest, parse_manifest

LABEL = "hostile/SKILL.md"
#: Generous: an unbounded parse of these inputs takes minutes or exhausts memory.
SECONDS = 5.0


@pytest.fixture(params=["libyaml", "pure"], autouse=True)
def yaml_flavour(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run every test with the C loader (when built) and with the pure-Python loader."""
    if request.param == "libyaml":
        if not getattr(yaml, "__with_libyaml__", False):
            pytest.skip("PyYAML built without libyaml")
        monkeypatch.setattr(yaml_loader, "Loader", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(yaml_loader, "Loader", yaml.SafeLoader)
    yield request.param


def parse(data: bytes | str) -> ManifestResult:
    raw = data.encode() if isinstance(data, str) else data
    started = time.perf_counter()
    result = parse_manifest(raw, key="hostile", label=LABEL)
    assert time.perf_counter() - started < SECONDS
    assert all(d.path == LABEL for d in result.diagnostics)
    assert "internal_error" not in [d.code for d in result.diagnostics]
    return result


def codes(result: ManifestResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def failed_with(data: bytes | str, code: str) -> ManifestResult:
    result = parse(data)
    assert result.manifest is None
    assert code in codes(result), result.diagnostics
    return result


# -- alias bombs and recursion --------------------------------------------------------------

BILLION_LAUGHS = """---
name: lol
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
---
"""


def test_billion_laughs() -> None:
    result = failed_with(BILLION_LAUGHS, "yaml_aliases_too_large")
    assert "aliases" in result.errors[0].message


def test_alias_bomb_hidden_in_a_known_field() -> None:
    bomb = BILLION_LAUGHS.replace("i: &i", "metadata: &i")
    failed_with(bomb, "yaml_aliases_too_large")


def test_merge_key_bomb() -> None:
    lines = ["---", "a0: &a0 {k0: 1, k1: 2, k2: 3}"]
    for level in range(1, 12):
        refs = ", ".join([f"*a{level - 1}"] * 8)
        lines.append(f"a{level}: &a{level} {{<<: [{refs}], x{level}: 1}}")
    failed_with("\n".join(lines) + "\n---\n", "yaml_aliases_too_large")


def test_recursive_alias() -> None:
    failed_with("---\nname: x\nloop: &loop [*loop]\n---\n", "yaml_recursive_alias")


def test_small_alias_use_is_fine() -> None:
    result = parse("---\nname: a\nbase: &base [linux, darwin]\nplatforms: *base\n---\n")
    assert result.manifest is not None
    assert result.manifest.platforms == ("linux", "darwin")
    assert result.manifest.extra == {"base": ["linux", "darwin"]}


def test_star_in_text_without_aliases_is_fine() -> None:
    result = parse("---\nname: a\ndescription: '**Bold** use & care'\n---\n")
    assert result.manifest is not None and result.diagnostics == ()


# -- depth ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "[" * 30_000 + "]" * 30_000,  # crashes libyaml's composer without the depth check
        "{a: " * 12_000 + "b" + "}" * 12_000,
        "[" * 60_000,  # unclosed as well
    ],
    ids=["flow-sequences", "flow-mappings", "unclosed"],
)
def test_deep_flow_nesting(value: str) -> None:
    failed_with(f"---\nx: {value}\n---\n", "frontmatter_too_deep")


def test_deep_block_nesting() -> None:
    failed_with("---\nx:\n" + "- " * 20_000 + "leaf\n---\n", "frontmatter_too_deep")


def test_moderate_nesting_beyond_the_limit() -> None:
    depth = yaml_loader.MAX_DEPTH + 10
    failed_with(f"---\nx: {'[' * depth}1{']' * depth}\n---\n", "frontmatter_too_deep")


def test_nesting_within_the_limit_is_kept() -> None:
    result = parse("---\nx: " + "[" * 40 + "1" + "]" * 40 + "\n---\n")
    assert result.manifest is not None


def test_deep_toml() -> None:
    failed_with("+++\nx = " + "[" * 30_000 + "]" * 30_000 + "\n+++\n", "frontmatter_too_deep")


# -- size -----------------------------------------------------------------------------------


def test_ten_megabyte_frontmatter() -> None:
    big = "---\ndescription: " + "x" * 10_000_000 + "\n---\nbody"
    failed_with(big, "frontmatter_too_large")


def test_ten_megabyte_unclosed_frontmatter() -> None:
    failed_with("---\n" + "key: value\n" * 1_000_000, "frontmatter_too_large")


def test_many_keys_at_the_bound(yaml_flavour: str) -> None:
    lines = [f"k{i}: {i}" for i in range(MAX_FRONTMATTER_BYTES // 12)]
    text = "\n".join(lines)
    assert len(text) < MAX_FRONTMATTER_BYTES
    result = parse(f"---\n{text}\n---\n")
    assert result.manifest is not None and len(result.manifest.extra) == len(lines)


def test_load_manifest_reads_at_most_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"---\n" + b"a: b\n" * 2_000_000)
    from lemon_core.manifest import load as manifest

    real_read = manifest.os.read
    total = 0

    def counting_read(fd: int, size: int) -> bytes:
        nonlocal total
        chunk = real_read(fd, size)
        total += len(chunk)
        return chunk

    monkeypatch.setattr(manifest.os, "read", counting_read)
    result = load_manifest(path, key="x")
    assert [d.code for d in result.diagnostics] == ["frontmatter_too_large"]
    assert total == READ_CAP_BYTES


# -- encodings and binary -------------------------------------------------------------------


def test_png_is_not_utf8() -> None:
    failed_with(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "invalid_utf8")


def test_nul_bytes_mean_binary() -> None:
    failed_with(b"---\nname: a\n---\nbody\x00\x00", "binary_file")
    failed_with(b"\x00\x00\x00\x00", "binary_file")


def test_invalid_utf8_in_the_frontmatter() -> None:
    result = failed_with(b"---\nname: caf\xe9\n---\n", "invalid_utf8")
    assert "byte 13" in result.errors[0].message


def test_utf16_file() -> None:
    result = failed_with("---\nname: a\n---\n".encode("utf-16"), "invalid_utf8")
    assert "UTF-16" in result.errors[0].message


def test_utf8_bom_and_crlf() -> None:
    data = "\ufeff---\r\nname: crlf\r\ndescription: >\r\n  folded\r\n  text\r\n---\r\nbody\r\n"
    result = parse(data.encode())
    assert result.manifest is not None, result.diagnostics
    assert (result.manifest.name, result.manifest.description) == ("crlf", "folded text")


def test_control_characters_in_the_yaml_text_are_rejected_by_the_parser() -> None:
    failed_with("---\nname: a\x07b\n---\n", "yaml_invalid")


# -- unsafe and tricky characters -----------------------------------------------------------


@pytest.mark.parametrize(
    "char", ["\\x07", "\\e", "\\x7f", "\\x9b", "\\u200e", "\\u200f", "\\u061c", "\\u202a",
             "\\u202e", "\\u2066", "\\u2069"],
)  # fmt: skip
@pytest.mark.parametrize("field", ["name", "description", "tags"])
def test_control_and_bidi_characters_are_rejected(char: str, field: str) -> None:
    value = f'"a{char}b"'
    text = f"tags: [{value}]" if field == "tags" else f"{field}: {value}"
    result = failed_with(f"---\n{text}\n---\n", "unsafe_characters")
    assert "U+" in result.errors[0].message


@pytest.mark.parametrize("char", ["\\n", "\\r", "\\x85", "\\u2028", "\\u2029"])
def test_line_breaks_are_rejected(char: str) -> None:
    failed_with(f'---\nname: "a{char}b"\n---\n', "multiline_value")


@pytest.mark.parametrize(
    "name",
    ["日本語スキル", "café-naïve", "emoji-👩‍💻-skill", "e\u0301clair", "a\u00a0b", "🦀" * 32],
)
def test_unicode_names_are_accepted(name: str) -> None:
    result = parse(f'---\nname: "{name}"\ndescription: Ünïcödé ✓\n---\n')
    assert result.manifest is not None, result.diagnostics
    assert result.manifest.name == name


def test_lone_surrogate_is_rejected(yaml_flavour: str) -> None:
    result = parse('---\nname: "a\\ud800b"\n---\n')
    assert result.manifest is None
    expected = "yaml_invalid" if yaml_flavour == "libyaml" else "unsafe_characters"
    assert codes(result) == [expected]


def test_lone_surrogate_in_extra_is_replaced(yaml_flavour: str) -> None:
    result = parse('---\nname: a\nnote: "x\\udc80y"\n---\n')
    if yaml_flavour == "pure":
        assert result.manifest is not None and result.manifest.extra == {"note": "x\ufffdy"}
    else:
        assert codes(result) == ["yaml_invalid"]


# -- other hostile YAML ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x: !!python/object/apply:os.system ['echo pwned']",
        "x: !!python/name:os.system",
        "x: 2024-13-45",
        "x: 2001-12-14t21:59:43.10+99:00",
        "x: !!binary a",
        "? [a, b]\n: c",
        "x: 1\n...\ny: 2",
    ],
)
def test_unsafe_or_invalid_yaml(text: str) -> None:
    failed_with(f"---\n{text}\n---\n", "yaml_invalid")


def test_huge_integer_never_crashes() -> None:
    result = parse("---\nx: " + "9" * 10_000 + "\n---\n")
    assert result.manifest is not None or codes(result) == ["yaml_invalid"]


# -- TOML -----------------------------------------------------------------------------------


def test_toml_tables_and_arrays_of_tables() -> None:
    result = parse(
        '+++\nname = "t"\ndescription = "TOML skill"\nplatforms = ["macos"]\n'
        'requires.bins = ["git"]\n"disable-model-invocation" = true\n'
        "[verification]\ncommand = 'git --version'\nexpect_exit = 0\n"
        '[[references]]\npath = "a.md"\n[[references]]\nurl = "https://x.org"\n'
        "[metadata.lemon]\ncategory = 'vcs'\n+++\nbody\n"
    )
    m = result.manifest
    assert m is not None, result.diagnostics
    assert (m.format, m.name, m.platforms, m.requires_bins, m.hide) == (
        "toml", "t", ("darwin",), ("git",), True,
    )  # fmt: skip
    assert m.verification is not None and m.verification.command == "git --version"
    assert [r.path or r.url for r in m.references] == ["a.md", "https://x.org"]
    assert m.category == "vcs"


def test_toml_inline_tables() -> None:
    result = parse(
        '+++\nrequires = { bins = ["kubectl"], config = ["KUBECONFIG"] }\n'
        'required_environment_variables = [{ name = "TOKEN", optional = true }]\n+++\n'
    )
    m = result.manifest
    assert m is not None
    assert m.required_environment_variables == ("KUBECONFIG",)
    assert m.optional_environment_variables == ("TOKEN",)


def test_toml_datetimes_become_iso_strings() -> None:
    result = parse(
        "+++\nodt = 1979-05-27T07:32:00Z\nldt = 1979-05-27T07:32:00.5\n"
        "ld = 1979-05-27\nlt = 07:32:00\noff = 1979-05-27T00:32:00-07:00\n+++\n"
    )
    assert result.manifest is not None
    assert result.manifest.extra == {
        "odt": "1979-05-27T07:32:00+00:00",
        "ldt": "1979-05-27T07:32:00.500000",
        "ld": "1979-05-27",
        "lt": "07:32:00",
        "off": "1979-05-27T00:32:00-07:00",
    }


def test_toml_wrong_types() -> None:
    result = failed_with("+++\nversion = 1.0\nhide = 'yes'\n+++\n", "wrong_type")
    assert codes(result) == ["wrong_type", "hide_not_boolean"]
    assert "quote" in result.errors[0].message


def test_invalid_toml_reports_the_file_line() -> None:
    result = failed_with('+++\nname = "a"\nbroken = = 1\nok = 2\n+++\n', "toml_invalid")
    assert "line 3" in result.errors[0].message


def test_toml_with_crlf_and_bom() -> None:
    result = parse('\ufeff+++\r\nname = "w"\r\n+++\r\nbody'.encode())
    assert result.manifest is not None and result.manifest.name == "w"


# -- the ": " repair ------------------------------------------------------------------------


def test_unquoted_colon_is_repaired_with_a_warning() -> None:
    result = parse("---\nname: a\ndescription: Use when: you need X\n---\n")
    assert result.manifest is not None
    assert result.manifest.description == "Use when: you need X"
    assert codes(result) == ["yaml_repaired"]
    warning = result.warnings[0]
    assert warning.severity == "warning"
    assert "line 3" in warning.message and "description" in warning.message
    assert "Quote the value" in warning.message


def test_repair_keeps_continuation_lines() -> None:
    result = parse("---\ndescription: Note: this\n  continues here\nname: b\n---\n")
    assert result.manifest is not None
    assert result.manifest.description == "Note: this continues here"
    assert result.manifest.name == "b"


def test_repair_of_a_value_ending_in_a_colon_and_a_nested_key() -> None:
    result = parse("---\ndescription: Steps:\nmetadata:\n  hint: see: docs\n---\n")
    assert result.manifest is not None
    assert result.manifest.description == "Steps:"
    assert result.manifest.metadata == {"hint": "see: docs"}
    assert codes(result) == ["yaml_repaired", "yaml_repaired"]


def test_repair_leaves_block_scalars_alone() -> None:
    text = "---\nnotes: |\n  a: b: c\nbad: x: y\n---\n"
    result = parse(text)
    assert result.manifest is not None
    assert result.manifest.extra == {"notes": "a: b: c\n", "bad": "x: y"}


def test_unrepairable_yaml_keeps_the_original_error() -> None:
    result = failed_with("---\nname: [unclosed\ndescription: a: b\n---\n", "yaml_invalid")
    assert "line" in result.errors[0].message
    assert "yaml_repaired" not in codes(result)


def test_valid_yaml_is_never_rewritten() -> None:
    result = parse("---\ndescription: 'Use when: quoted'\nurl: http://x.org\n---\n")
    assert result.diagnostics == ()
    assert result.manifest is not None and result.manifest.extra == {"url": "http://x.org"}


# -- bounded output -------------------------------------------------------------------------


def test_thousands_of_duplicate_keys_make_one_warning() -> None:
    result = parse("---\n" + "name: a\n" * 5000 + "---\n")
    assert result.manifest is not None
    assert codes(result) == ["duplicate_key"]
    assert "4994 more" in result.warnings[0].message


def test_thousands_of_errors_are_summarised() -> None:
    result = parse("---\nreferences: [" + ", ".join(["3"] * 5000) + "]\n---\n")
    assert result.manifest is None
    assert len(result.diagnostics) == 51
    assert result.diagnostics[-1].code == "too_many_errors"
    assert result.diagnostics[-1].message.startswith("4950 more errors")
