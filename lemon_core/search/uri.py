"""``skill://`` URIs: ``skill://<key>`` names a skill's SKILL.md, ``skill://<key>/<relative
path>`` a file inside the skill (percent-escapes decoded). Read-only, and never a way out of
the skill: the path is checked by the reader (:mod:`lemon_core.fsio.inside`)."""

from __future__ import annotations

from urllib.parse import unquote

from lemon_core.errors import UsageError

SCHEME = "skill://"


def parse_skill_uri(uri: str) -> tuple[str, str | None]:
    """``(key, relative path or None for the SKILL.md)`` of ``uri``.

    :raises UsageError: when ``uri`` is not a ``skill://`` URI with a key.
    """
    if not isinstance(uri, str) or not uri.startswith(SCHEME):
        raise UsageError(f"{uri!r} is not a skill:// URI; use skill://<key> or "
                         f"skill://<key>/<relative path>")
    rest = uri[len(SCHEME):].split("?", 1)[0].split("#", 1)[0]
    key, _, path = rest.partition("/")
    key = unquote(key)
    if not key or key in (".", "..") or "/" in key or "\\" in key or "\0" in key:
        raise UsageError(f"{uri!r} names no skill key; use skill://<key> or "
                         f"skill://<key>/<relative path>")
    path = unquote(path).strip("/")
    if not path or path == "SKILL.md":
        return key, None
    if "\0" in path:
        raise UsageError(f"{uri!r} holds a NUL character")
    return key, path


__all__ = ["SCHEME", "parse_skill_uri"]
