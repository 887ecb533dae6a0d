"""HTTP credentials from a netrc file, the way git (through curl) finds them: for git fetches
and for the HTTP requests of the Hermes and registry sources (:mod:`lemon_core.source_kit.web`).

lemon never records a password typed into a URL: the lockfile holds the URL without it. An
update, an ``outdated`` check or a ``sync`` of that install, or any fetch from a private
repository, can take its credentials from ``~/.netrc`` (or the file ``$NETRC`` names), one
line per host::

    machine git.example.com login alice password s3cret

A ``machine`` entry matches the URL's host name (any port); ``default`` matches every host.
Like a token (:func:`~lemon_core.source_kit.transport.token_auth`), the credentials are only
sent over https, or plain http to a loopback address. The file is read through the bounded
safe reader (a FIFO or device in its place is ignored, never waited on), and the password is
never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from lemon_core.source_kit.transport import Auth, is_loopback

NETRC_ENV = "NETRC"
MAX_NETRC_BYTES = 256 * 1024


def _tokens(text: str) -> list[str]:
    """The whitespace-separated tokens of ``text``, ``macdef`` bodies (up to a blank line)
    and ``#`` comment lines left out."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.lstrip().startswith("#"):
            continue
        words = line.split()
        if "macdef" in words:
            out.extend(words[:words.index("macdef")])
            while i < len(lines) and lines[i].strip():  # the macro body ends at a blank line
                i += 1
            continue
        out.extend(words)
    return out


def parse_netrc(text: str) -> dict[str, tuple[str, str]]:
    """``{host or "": (login, password)}`` from netrc ``text`` ("" is the ``default`` entry);
    the first entry of a host wins, an entry without a password is left out."""
    entries: dict[str, tuple[str, str]] = {}
    tokens = _tokens(text)
    host: str | None = None
    fields: dict[str, str] = {}

    def close() -> None:
        if host is not None and "password" in fields and host not in entries:
            entries[host] = (fields.get("login", ""), fields["password"])

    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("machine", "default"):
            close()
            fields = {}
            if word == "default":
                host, i = "", i + 1
            else:
                host, i = (tokens[i + 1].lower() if i + 1 < len(tokens) else None), i + 2
        elif word in ("login", "password", "account") and i + 1 < len(tokens):
            fields[word] = tokens[i + 1]
            i += 2
        else:
            i += 1
    close()
    return entries


def netrc_path(home: Path, env: Mapping[str, str] | None = None) -> Path:
    """``$NETRC`` when set, else ``<home>/.netrc``."""
    named = (env or {}).get(NETRC_ENV)
    return Path(named).expanduser() if named else home / ".netrc"


def netrc_auth(url: str, home: Path, env: Mapping[str, str] | None = None) -> Auth | None:
    """The netrc credentials for ``url``'s host, if it may be sent them (https, or plain http
    to a loopback address); None when there are none."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if not (scheme == "https" or (scheme == "http" and is_loopback(parts.hostname))):
        return None
    from lemon_core.fsio.read import FileProblem, read_text

    try:
        text = read_text(netrc_path(home, env), MAX_NETRC_BYTES)
    except (FileProblem, OSError, UnicodeDecodeError):
        return None
    if not text:
        return None
    entries = parse_netrc(text)
    found = entries.get((parts.hostname or "").lower(), entries.get(""))
    if found is None:
        return None
    return Auth(*found)


__all__ = ["NETRC_ENV", "netrc_auth", "netrc_path", "parse_netrc"]
