"""Credentials from a netrc file: parsing, the host match, where they may be sent, and a
netrc that is not a regular file."""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core.source_kit import Auth
from lemon_core.source_kit.netrc import netrc_auth, netrc_path, parse_netrc

NETRC = """\
# a comment line: machine evil.example login x password y
machine git.example.com login alice password s3cret
machine Other.Example
    login bob
    password pw2
macdef init
machine inside.macro login m password m

machine nopassword.example login carol
default login anon password anonpw
machine git.example.com login second password ignored
"""


def test_parse_netrc() -> None:
    assert parse_netrc(NETRC) == {"git.example.com": ("alice", "s3cret"),
                                  "other.example": ("bob", "pw2"), "": ("anon", "anonpw")}
    assert parse_netrc("") == {} and parse_netrc("machine") == {}


def test_netrc_auth_matches_the_host_and_falls_back_to_default(tmp_path: Path) -> None:
    (tmp_path / ".netrc").write_text(NETRC)
    assert netrc_auth("https://git.example.com:8443/o/r.git", tmp_path) == Auth("alice", "s3cret")
    assert netrc_auth("https://OTHER.example/r", tmp_path) == Auth("bob", "pw2")
    assert netrc_auth("https://unknown.example/r", tmp_path) == Auth("anon", "anonpw")
    assert netrc_auth("https://nopassword.example/r", tmp_path) == Auth("anon", "anonpw")


def test_only_over_https_or_loopback_http(tmp_path: Path) -> None:
    (tmp_path / ".netrc").write_text("default login u password p\n")
    assert netrc_auth("http://git.example.com/r", tmp_path) is None
    assert netrc_auth("ssh://git.example.com/r", tmp_path) is None
    assert netrc_auth("http://127.0.0.1:9/r", tmp_path) == Auth("u", "p")


def test_netrc_env_names_another_file(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.write_text("machine h.example login u password p\n")
    env = {"NETRC": str(other)}
    assert netrc_path(tmp_path, env) == other
    assert netrc_auth("https://h.example/r", tmp_path, env) == Auth("u", "p")
    assert netrc_auth("https://h.example/r", tmp_path) is None  # no ~/.netrc


def test_a_fifo_or_folder_is_ignored_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".netrc")
    assert netrc_auth("https://h.example/r", tmp_path) is None
    os.unlink(tmp_path / ".netrc")
    (tmp_path / ".netrc").mkdir()
    assert netrc_auth("https://h.example/r", tmp_path) is None
