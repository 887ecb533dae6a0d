"""split_location: pip-style git locations; redact and public_url keep credentials out."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.source_kit import (
    GitLocation,
    check_ref,
    public_url,
    redact,
    repo_name,
    split_location,
)


@pytest.mark.parametrize(("text", "url", "ref", "sub"), [
    ("https://host.example/o/r.git", "https://host.example/o/r.git", None, None),
    ("https://host.example/o/r.git@v1.2", "https://host.example/o/r.git", "v1.2", None),
    ("https://host.example/o/r@feature/x#subdirectory=skills/a",
     "https://host.example/o/r", None, None),
    ("https://u:p@host.example/o/r.git@main", "https://u:p@host.example/o/r.git", "main", None),
    ("git@host.example:o/r.git", "git@host.example:o/r.git", None, None),
    ("git@host.example:o/r.git@abc1234#subdirectory=a/b/", "git@host.example:o/r.git",
     "abc1234", "a/b"),
    ("ssh://git@host.example/o/r.git@dev", "ssh://git@host.example/o/r.git", "dev", None),
    ("file:///srv/git/r.git@main#subdirectory=x", "file:///srv/git/r.git", "main", "x"),
])
def test_locations_split_into_url_ref_and_subdirectory(text: str, url: str, ref: str | None,
                                                       sub: str | None) -> None:
    loc = split_location(text)
    if "feature/x" in text:  # a ref holding '/' is read from the last path segment only
        assert loc == GitLocation(url="https://host.example/o/r@feature/x", ref=None,
                                  subdirectory="skills/a")
        return
    assert (loc.url, loc.ref, loc.subdirectory) == (url, ref, sub)


@pytest.mark.parametrize("text", [
    "git://host.example/o/r.git",           # unauthenticated protocol
    "ext::sh -c touch% /tmp/pwned",          # a command transport
    "-uhttps://host.example/r.git",          # option injection
    "git@-oProxyCommand:x",                  # an ssh option as the host
    "-git@host.example:o/r",
    "ssh://-oProxyCommand@host.example/r",
    "https://host.example/r.git@-x",         # a ref that reads as an option
    "https://host.example/r.git@a..b",
    "https://host.example/r.git@a b",
    "https://host.example/r.git#subdirectory=../etc",
    "https://host.example/r.git#subdirectory=/abs",
    "https://host.example/r.git#egg=x",
    "https://host.example/",
    "https:///r.git",
    "https://host.example/r.git\n",
])
def test_malformed_locations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        split_location(text)


def test_an_error_about_a_url_never_shows_its_password() -> None:
    with pytest.raises(UsageError) as info:
        split_location("https://me:s3cret@host.example/r.git#egg=x")
    assert "s3cret" not in str(info.value)


def test_redact_and_public_url() -> None:
    text = "failed: https://me:s3cret@host.example/r.git and http://tok@h.example/x"
    assert redact(text) == "failed: https://***@host.example/r.git and http://***@h.example/x"
    assert redact("token ghp_abc in text", ("ghp_abc",)) == "token *** in text"
    assert public_url("https://me:s3cret@host.example/r.git") == "https://host.example/r.git"
    assert public_url("ssh://git:pw@host.example/r.git") == "ssh://git@host.example/r.git"
    assert public_url("git@host.example:o/r.git") == "git@host.example:o/r.git"


def test_repo_name_and_refs() -> None:
    assert repo_name("https://host.example/o/skill-repo.git") == "skill-repo"
    assert repo_name("git@host.example:o/other") == "other"
    assert check_ref("release/1.0") == "release/1.0"
    for bad in ("x.lock", "a:b", "a~1", "-f", "HEAD@{1}"):
        with pytest.raises(UsageError):
            check_ref(bad)
