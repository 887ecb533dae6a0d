"""What trusting a server means: which entries need trust, and the launch identity a trust
record binds.

An entry needs trust when it comes from the project (lemon's ``.lemon/mcp.json``, every
importer's project scope, the root files): anything a cloned repository can hold. The user's own
scopes stay trusted: lemon's global file (``global``), other tools' user-level files the user
opted into (``user``) and ``LEMON_MCP_SERVERS`` (``env``). A scope lemon does not know (a
third-party importer's) needs trust too: fail closed.

The launch identity is what decides what runs or what is contacted: transport, command,
argument vector, working directory, URL, and a keyed digest of the environment, the headers and
the OAuth settings (keys and values; the values are never stored). Any change makes the entry
untrusted again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lemon_core.models import McpServer

#: Scopes the user wrote: their servers are trusted without a record.
USER_SCOPES = frozenset({"global", "user", "env", "app"})  # app: given in code
#: An option or variable name whose value is a credential (``--token X``, ``--api-key=X``,
#: ``GITHUB_TOKEN=X``).
_SECRET_NAME = re.compile(r"token|secret|passw|passphrase|pwd|api[-_]?key|access[-_]?key|"
                          r"private[-_]?key|credential|auth|bearer|cookie|session|(^|[-_])key$|"
                          r"(^|[-_])pat$", re.IGNORECASE)
#: A value shaped like a credential whatever option carries it.
_SECRET_VALUE = re.compile(r"^(?:bearer\s|basic\s|gh[opusr]_|github_pat_|glpat-|sk-|sk_|pk_|rk_|"
                           r"xox[abprs]-|AKIA|ASIA|AIza|ya29\.|eyJ)", re.IGNORECASE)
#: An argument that is a URL and nothing else (a shell line holding one is shown whole).
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S*$", re.IGNORECASE)
HIDDEN = "<hidden>"


def needs_trust(server: McpServer) -> bool:
    """Whether ``server`` comes from the project (or an unknown scope) and so needs a record."""
    return server.source.scope not in USER_SCOPES


def record_name(server: McpServer) -> str:
    """The key of a server's record: its name, or ``unnamed-<8 hex>`` for a legacy entry (the
    same label the tool host shows: the start of
    :func:`lemon_core.mcp.runtime.names.server_identity`, computed alike here)."""
    if server.name:
        return server.name
    data = [server.name, server.transport, server.command, list(server.args),
            sorted(server.env.items()), server.cwd, server.url, sorted(server.headers.items())]
    return "unnamed-" + hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:8]


def secrets_digest(server: McpServer, key: bytes) -> str:
    """A keyed digest (BLAKE2b, the store's own random key) of the environment, headers and
    OAuth settings, keys and values: equal values give equal digests, and a stolen store file
    cannot be used to confirm a guessed secret without that key."""
    data = [sorted(server.env.items()), sorted(server.headers.items()),
            json.dumps(server.oauth, sort_keys=True, default=str) if server.oauth else None]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), key=key,
                           digest_size=32).hexdigest()


def launch_record(server: McpServer, key: bytes) -> dict[str, Any]:
    """The fields a trust record stores and compares for ``server``."""
    return {"transport": server.transport, "command": server.command,
            "args": list(server.args), "cwd": server.cwd, "url": server.url,
            "secrets": secrets_digest(server, key)}


def shown_url(url: str) -> str:
    """``url`` with any user:password and every query value hidden."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an invalid URL>"
    host = parts.netloc.rpartition("@")[2]
    netloc = f"***@{host}" if "@" in parts.netloc else host
    query = "&".join(f"{item.partition('=')[0]}=***" if "=" in item else item
                     for item in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _option_name(arg: str) -> str:
    return arg.lstrip("-")


def shown_args(args: Sequence[str]) -> list[str]:
    """``args`` as a person may see them: the value of an option or assignment named like a
    credential (``--token X``, ``--api-key=X``, ``TOKEN=X``), anything shaped like a credential,
    and a URL's password and query values are hidden; everything else is shown as it is."""
    shown: list[str] = []
    hide_next = False
    for arg in args:
        name, equals, value = arg.partition("=")
        if hide_next and not arg.startswith("-"):
            shown.append(HIDDEN)
        elif _SECRET_VALUE.match(arg):
            shown.append(HIDDEN)
        elif equals and _SECRET_NAME.search(_option_name(name)):
            shown.append(f"{name}={HIDDEN}")
        elif _URL.match(arg):
            shown.append(shown_url(arg))
        else:
            shown.append(arg)
        hide_next = arg.startswith("-") and not equals and bool(
            _SECRET_NAME.search(_option_name(arg)))
    return shown


def launch_lines(server: McpServer) -> list[str]:
    """What a person must see before trusting ``server`` (plain text: escape it to print):
    the command and every argument (credentials hidden: :func:`shown_args`), the working
    directory, the URL, and the names (never the values) of environment variables and
    headers."""
    src = server.source
    where = f"{src.provider}:{src.scope}" + (f" {src.file}" if src.file else "")
    lines = [f"from {where}", f"transport: {server.transport}"]
    if server.command is not None:
        lines.append("command: " + json.dumps([server.command, *shown_args(server.args)],
                                              ensure_ascii=False))
    if server.cwd:
        lines.append(f"cwd: {server.cwd}")
    if server.url:
        lines.append(f"url: {shown_url(server.url)}")
    if server.env:
        lines.append("env: " + ", ".join(f"{k}=<hidden>" for k in sorted(server.env)))
    if server.headers:
        lines.append("headers: " + ", ".join(f"{k}: <hidden>" for k in sorted(server.headers)))
    if server.oauth:
        lines.append("oauth: settings present (values hidden)")
    return lines


__all__ = ["USER_SCOPES", "launch_lines", "launch_record", "needs_trust", "record_name",
           "secrets_digest", "shown_args", "shown_url"]
