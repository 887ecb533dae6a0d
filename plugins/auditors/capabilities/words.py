"""Findings in words a user can judge: sources, destinations and hosts of the flow judge."""

from __future__ import annotations

from typing import NamedTuple

from lemon_core.auditor_kit.capabilities.model import (
    CLOCK,
    CONFIG,
    DECODED,
    ENV,
    FETCHED,
    FILE,
    SECRET,
    Fact,
    Source,
)
from lemon_core.auditor_kit.capabilities.values import HOLE


class Raw(NamedTuple):
    rule: str
    severity: str
    message: str
    path: str
    line: int
    excerpt: str


def shown(text: str) -> str:
    """``text`` with the parts folding could not resolve shown as ``…``."""
    return text.replace(HOLE, "…")


def place(source: Source) -> str:
    return f"{source.path}:{source.line}"


def describe(source: Source) -> str:
    """A source in words a user can judge."""
    if source.kind == SECRET:
        label = shown(source.label)
        if "/" in label or label.startswith((".", "~")):
            return f"the contents of {label}"
        return label
    if source.kind == ENV:
        return f"the environment variable {source.label}"
    if source.kind == CONFIG:
        return f"the configuration file {source.label}"
    if source.kind == DECODED:
        return f"data decoded from {source.label}"
    if source.kind == FETCHED:
        return f"data downloaded from {source.label}"
    if source.kind == FILE:
        return f"the file {shown(source.label)}"
    if source.kind == CLOCK:
        return f"{source.label} compared with a fixed moment"
    return shown(source.label)


def words(sources: dict[Source, str | None], fact: Fact, limit: int = 3) -> str:
    parts = []
    ordered = sorted(sources.items(), key=lambda item: (item[0].path, item[0].line,
                                                         item[0].kind, item[0].label))
    for source, via in ordered[:limit]:  # the same words whatever the hash seed
        notes = []
        if (source.path, source.line) != (fact.path, fact.line) and source.line:
            notes.append(f"read at {place(source)}")
        if via:
            notes.append(via)
        parts.append(describe(source) + (f" ({', '.join(notes)})" if notes else ""))
    more = len(sources) - limit
    return "; ".join(parts) + (f" and {more} more" if more > 0 else "")


def destination(fact: Fact) -> str:
    value = fact.value
    if not value or HOLE in value.partition("://")[2].partition("/")[0] or value == HOLE:
        return "a destination built at run time" + (f" ({shown(value)})" if value else "")
    return shown(value)


def host_of(url: str | None) -> str | None:
    """The host of a destination when folding resolved it (None when it is built at run
    time)."""
    if not url or url == HOLE:
        return None
    rest = url.split("://", 1)[-1]
    host = rest.split("/", 1)[0].split("?", 1)[0]
    if not host or HOLE in host or "." not in host and ":" not in host:
        return None
    return host


_ALIASES = {"gh": "github", "hf": "huggingface", "aws": "amazonaws", "gcp": "googleapis",
            "google": "googleapis", "gemini": "googleapis", "claude": "anthropic",
            "npm": "npmjs", "twine": "pypi", "copilot": "githubcopilot",
            "azure": "microsoftonline", "do": "digitalocean", "gl": "gitlab"}
_GENERIC = frozenset({"api", "key", "token", "secret", "access", "auth", "bearer", "pat", "id",
                      "env", "oauth", "code", "bot", "password", "session", "client",
                      "application", "credentials", "private", "ssh", "storage"})


def names_strictly(credential: str, host: str) -> bool:
    """Whether a well-known credential's vendor *is* the host's registered name
    (``SLACK_BOT_TOKEN`` to ``slack.com``, not to ``slack-api-relay.example``)."""
    labels = [label for label in host.lower().split(".") if label]
    if len(labels) < 2:
        return False
    registered = labels[-2]
    if registered in ("co", "com", "org", "net", "ac", "gov") and len(labels) >= 3:
        registered = labels[-3]
    words = {w for w in credential.lower().split("_") if w and w not in _GENERIC}
    words |= {_ALIASES[w] for w in list(words) if w in _ALIASES}
    return registered in words or (registered == "azure" and "azure" in words)


__all__ = ["Raw", "describe", "destination", "host_of", "names_strictly", "place", "shown", "words"]
