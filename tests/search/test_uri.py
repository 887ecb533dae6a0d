"""skill:// URIs."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.search.uri import parse_skill_uri


def test_parse() -> None:
    assert parse_skill_uri("skill://demo") == ("demo", None)
    assert parse_skill_uri("skill://demo/") == ("demo", None)
    assert parse_skill_uri("skill://demo/SKILL.md") == ("demo", None)
    assert parse_skill_uri("skill://demo/references/a%20b.md") == ("demo", "references/a b.md")
    assert parse_skill_uri("skill://demo/x.md?v=1#top") == ("demo", "x.md")


@pytest.mark.parametrize("uri", ["demo", "file:///etc/passwd", "skill://", "skill:///x",
                                 "skill://../x", "skill://a%2Fb/x", "skill://demo/a%00b"])
def test_refused(uri: str) -> None:
    with pytest.raises(UsageError):
        parse_skill_uri(uri)
