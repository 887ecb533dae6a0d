"""Splitting a SKILL.md into frontmatter and body."""

from __future__ import annotations

import io

import pytest

from lemon_core.manifest.frontmatter import (
    HEAD_BYTES,
    MAX_FRONTMATTER_BYTES,
    READ_CAP_BYTES,
    FrontmatterError,
    decode_skill_text,
    read_frontmatter,
    split_frontmatter,
)


def _error_code(text: str) -> str:
    with pytest.raises(FrontmatterError) as info:
        split_frontmatter(text)
    return info.value.code


class CountingReader:
    """A ``read(n)`` over bytes that remembers how much was asked for and returned."""

    def __init__(self, data: bytes) -> None:
        self.stream = io.BytesIO(data)
        self.returned = 0

    def __call__(self, size: int) -> bytes:
        chunk = self.stream.read(size)
        self.returned += len(chunk)
        return chunk


def test_yaml_frontmatter_and_body() -> None:
    text = "---\nname: a\ndescription: b\n---\n# Title\nbody\n"
    fm = split_frontmatter(text)
    assert (fm.format, fm.raw, fm.body) == ("yaml", "name: a\ndescription: b", "# Title\nbody\n")
    assert text[fm.body_offset :] == fm.body
    assert fm.raw_line == 2
    assert fm.leading_blank_lines == 0


def test_toml_frontmatter() -> None:
    fm = split_frontmatter('+++\nname = "a"\n+++\nbody')
    assert (fm.format, fm.raw, fm.body) == ("toml", 'name = "a"', "body")


def test_no_frontmatter_is_the_whole_body() -> None:
    fm = split_frontmatter("# Heading\n\ntext\n")
    assert (fm.format, fm.raw, fm.body, fm.body_offset) == ("none", "", "# Heading\n\ntext\n", 0)


def test_empty_text() -> None:
    fm = split_frontmatter("")
    assert (fm.format, fm.raw, fm.body) == ("none", "", "")


@pytest.mark.parametrize("text", ["---\n---\nbody", "---\n---", "---\r\n---\r\n"])
def test_empty_frontmatter(text: str) -> None:
    fm = split_frontmatter(text)
    assert (fm.format, fm.raw) == ("yaml", "")


def test_closing_delimiter_at_end_of_file_means_no_body() -> None:
    fm = split_frontmatter("---\nname: a\n---")
    assert (fm.raw, fm.body) == ("name: a", "")


def test_bom_is_skipped_and_counted_in_the_offset() -> None:
    text = "\ufeff---\nname: a\n---\nbody"
    fm = split_frontmatter(text)
    assert (fm.format, fm.raw, fm.body) == ("yaml", "name: a", "body")
    assert text[fm.body_offset :] == "body"


def test_bom_without_frontmatter_is_not_part_of_the_body() -> None:
    fm = split_frontmatter("\ufeff# Title")
    assert (fm.format, fm.body, fm.body_offset) == ("none", "# Title", 1)


def test_crlf_line_endings_are_normalised_in_raw() -> None:
    text = "---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n"
    fm = split_frontmatter(text)
    assert fm.raw == "name: a\ndescription: b"
    assert fm.body == "body\r\n"
    assert text[fm.body_offset :] == fm.body


def test_trailing_spaces_after_delimiters_are_tolerated() -> None:
    fm = split_frontmatter("---  \nname: a\n--- \t\nbody")
    assert (fm.format, fm.raw, fm.body) == ("yaml", "name: a", "body")


def test_leading_blank_lines_are_counted() -> None:
    fm = split_frontmatter("\n  \n---\nname: a\n---\nbody")
    assert (fm.format, fm.raw, fm.leading_blank_lines, fm.raw_line) == ("yaml", "name: a", 2, 4)


@pytest.mark.parametrize(
    "text",
    ["----\nname: a\n----\n", "--- title\n---\n", "  ---\nname: a\n---\n", "# x\n---\na: b\n---\n"],
)
def test_lines_that_are_not_an_opening_delimiter(text: str) -> None:
    assert split_frontmatter(text).format == "none"


def test_delimiter_inside_a_line_does_not_close() -> None:
    fm = split_frontmatter("---\ndescription: a --- b\n---x\n---\nbody")
    assert fm.raw == "description: a --- b\n---x"
    assert fm.body == "body"


def test_toml_is_not_closed_by_a_yaml_delimiter() -> None:
    fm = split_frontmatter('+++\na = "b"\n---\n+++\nbody')
    assert fm.raw == 'a = "b"\n---'


@pytest.mark.parametrize("text", ["---\nname: a\n", "---", "+++\na = 1\n", "---\nname: a\n----\n"])
def test_unclosed_frontmatter_is_an_error(text: str) -> None:
    assert _error_code(text) == "frontmatter_unclosed"


def test_frontmatter_at_the_size_bound_is_accepted() -> None:
    raw = "a: " + "x" * (MAX_FRONTMATTER_BYTES - 3)
    assert split_frontmatter(f"---\n{raw}\n---\n").raw == raw


def test_frontmatter_over_the_size_bound_is_an_error() -> None:
    raw = "a: " + "x" * (MAX_FRONTMATTER_BYTES - 2)
    assert _error_code(f"---\n{raw}\n---\n") == "frontmatter_too_large"


def test_size_bound_counts_utf8_bytes() -> None:
    raw = "a: " + "é" * (MAX_FRONTMATTER_BYTES // 2)  # fewer characters than the bound
    assert _error_code(f"---\n{raw}\n---\n") == "frontmatter_too_large"


def test_unclosed_and_huge_is_reported_as_too_large() -> None:
    assert _error_code("---\n" + "a: b\n" * 100_000) == "frontmatter_too_large"


def test_read_frontmatter_reads_only_the_head() -> None:
    data = b"---\nname: a\n---\n" + b"body line\n" * 100_000
    reader = CountingReader(data)
    text, fm = read_frontmatter(reader)
    assert (fm.format, fm.raw) == ("yaml", "name: a")
    assert reader.returned == HEAD_BYTES
    assert len(text) == HEAD_BYTES


def test_read_frontmatter_without_frontmatter_reads_only_the_head() -> None:
    reader = CountingReader(b"# Title\n" + b"x" * 1_000_000)
    _, fm = read_frontmatter(reader)
    assert fm.format == "none"
    assert reader.returned == HEAD_BYTES


def test_read_frontmatter_grows_for_long_frontmatter() -> None:
    raw = "description: " + "word " * 3000  # about 15 KB
    data = f"---\n{raw}\n---\nbody".encode() + b"\n" * 200_000
    reader = CountingReader(data)
    _, fm = read_frontmatter(reader)
    assert fm.raw == raw
    assert HEAD_BYTES < reader.returned < 64 * 1024


def test_read_frontmatter_stops_at_the_cap() -> None:
    reader = CountingReader(b"---\n" + b"a: b\n" * 2_000_000)
    with pytest.raises(FrontmatterError) as info:
        read_frontmatter(reader)
    assert info.value.code == "frontmatter_too_large"
    assert reader.returned == READ_CAP_BYTES


def test_read_frontmatter_decodes_characters_split_across_reads() -> None:
    raw = "description: " + "é" * 3000  # a two-byte character straddles byte 4096
    _, fm = read_frontmatter(CountingReader(f"---\n{raw}\n---\n".encode()))
    assert fm.raw == raw


def test_read_frontmatter_matches_split_frontmatter() -> None:
    text = "\ufeff\r\n---\r\nname: a\r\n---\r\nbody"
    _, fm = read_frontmatter(CountingReader(text.encode()))
    assert fm == split_frontmatter(text)


def test_read_frontmatter_rejects_invalid_utf8_with_its_offset() -> None:
    with pytest.raises(FrontmatterError) as info:
        read_frontmatter(CountingReader(b"---\nname: \xff\n---\n"))
    assert info.value.code == "invalid_utf8"
    assert "byte 10" in info.value.message


def test_invalid_utf8_offset_in_a_later_chunk() -> None:
    data = b"---\ndescription: " + b"a" * 5000 + b"\xc3(\n---\n"
    with pytest.raises(FrontmatterError) as info:
        read_frontmatter(CountingReader(data))
    offset = data.index(b"\xc3(")
    assert f"byte {offset}" in info.value.message


def test_utf16_gets_a_hint() -> None:
    with pytest.raises(FrontmatterError) as info:
        decode_skill_text("---\nname: a\n---\n".encode("utf-16"))
    assert info.value.code == "invalid_utf8"
    assert "UTF-16" in info.value.message


def test_decode_skill_text_rejects_nul() -> None:
    with pytest.raises(FrontmatterError) as info:
        decode_skill_text(b"---\nname: a\x00\n---\n")
    assert info.value.code == "binary_file"


def test_decode_skill_text_keeps_the_bom_for_the_splitter() -> None:
    text = decode_skill_text("\ufeff---\nname: a\n---\n".encode())
    assert split_frontmatter(text).raw == "name: a"
