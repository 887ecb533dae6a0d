"""The bounded body excerpt relevance reads."""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core.search.excerpt import EXCERPT_CHARS, body_excerpt, body_excerpt_of_text


def test_frontmatter_and_code_left_out() -> None:
    text = "---\ndescription: secret words\n---\nIntro.\n```sh\nrm -rf /tmp/x\n```\nOutro.\n"
    excerpt = body_excerpt_of_text(text)
    assert "Intro." in excerpt and "Outro." in excerpt
    assert "secret" not in excerpt and "rm -rf" not in excerpt


def test_bounded(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text("---\ndescription: x\n---\n" + "word " * 100_000)
    assert len(body_excerpt(str(path))) == EXCERPT_CHARS


def test_unreadable_files_give_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert body_excerpt(str(fifo)) == ""  # never blocks on a FIFO
    assert body_excerpt(str(tmp_path / "missing")) == ""
    assert body_excerpt(str(tmp_path)) == ""
    unclosed = tmp_path / "unclosed.md"
    unclosed.write_text("---\ndescription: x\n" + "y: z\n" * 10_000)
    assert body_excerpt(str(unclosed)) == ""


def test_fences_of_either_kind_and_length() -> None:
    from lemon_core.search.excerpt import without_fenced_code

    text = "a\n```py\nx\n~~~\ny\n```\nb\n````\n```\nz\n````\nc\n~~~\nopen\n"
    assert without_fenced_code(text).split() == ["a", "b", "c"]
    assert without_fenced_code("no fences") == "no fences"


def test_the_search_for_fences_may_stop_at_the_limit_with_the_same_prefix() -> None:
    from lemon_core.search.excerpt import without_fenced_code

    text = ("intro\n```sh\nrm -rf\n```\n" + "prose " * 50 + "\n~~~\ncode\n~~~\n") * 20 + "tail"
    whole = without_fenced_code(text)
    assert "rm -rf" not in whole and "code" not in whole and whole.endswith("tail")
    for limit in (0, 10, 300, 1000, len(whole)):
        assert without_fenced_code(text, limit)[:limit] == whole[:limit]
    assert without_fenced_code("no fence here\n") == "no fence here\n"
    assert without_fenced_code("a\n````\nx\n```\ny\n````\nb") == "a\n\n\nb"  # a longer fence
