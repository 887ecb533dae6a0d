"""A git location as a user writes it: ``<url>[@<ref>][#subdirectory=<path>]`` (pip's style).

:func:`split_location` turns the text into a :class:`GitLocation` (the URL to fetch, the ref,
the folder inside the repository), refusing what git itself would misread (a leading ``-``,
control characters, ``..`` in a ref or a subdirectory, schemes other than https, http, ssh and
file). :func:`redact` takes credentials out of any text before a person sees it, and
:func:`public_url` is the URL without them, the form worth recording.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

import attrs

from lemon_core.errors import UsageError

#: The URL schemes a git location may use (``git://`` and ``ext::`` are refused).
SCHEMES = ("https", "http", "ssh", "file")

_SCP = re.compile(r"^(?P<user>[A-Za-z0-9._~][A-Za-z0-9._~-]*@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*)"
                  r":(?P<path>[^/:-].*|/.+)$")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_HEX = re.compile(r"^[0-9a-f]{4,64}$")


@attrs.frozen
class GitLocation:
    """Where to fetch from. ``url`` may hold credentials: show :attr:`public` instead."""

    url: str = attrs.field(repr=False)
    ref: str | None = None
    subdirectory: str | None = None

    @property
    def public(self) -> str:
        return public_url(self.url)

    @property
    def scheme(self) -> str:
        return url_scheme(self.url)


def url_scheme(url: str) -> str:
    """``https``, ``http``, ``ssh`` (also for ``user@host:path``) or ``file``."""
    if "://" not in url:
        return "ssh"
    return url.split("://", 1)[0].lower()


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every ``scheme://user:pass@`` written ``scheme://***@`` and every value
    of ``secrets`` (tokens) written ``***``."""
    out = _USERINFO.sub(lambda m: m.group(1) + "***@", text)
    for secret in secrets:
        if secret:
            out = out.replace(secret, "***")
    return out


def public_url(url: str) -> str:
    """The URL without credentials (an ssh user name such as ``git@`` is kept, no password)."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    keep = ""
    if parts.scheme.lower() == "ssh":
        keep = userinfo.split(":", 1)[0] + "@"
    return urlunsplit((parts.scheme, keep + host, parts.path, parts.query, parts.fragment))


def check_ref(ref: str) -> str:
    """``ref`` if git could take it as a branch, tag or commit; else a UsageError."""
    if (not ref or ref.startswith(("-", "/")) or ref.endswith(("/", ".", ".lock"))
            or ".." in ref or "@{" in ref or "//" in ref or _BAD_REF.search(ref)):
        raise UsageError(f"invalid git ref {ref!r}: name a branch, a tag or a commit id")
    return ref


def check_subdirectory(path: str) -> str:
    """``path`` normalised (no leading or trailing ``/``) if it is a plain relative folder."""
    clean = path.strip("/")
    parts = clean.split("/")
    if (not clean or path.startswith("/") or "\\" in clean
            or any(p in ("", ".", "..") for p in parts)
            or any(ord(c) < 0x20 or ord(c) == 0x7F for c in clean)):
        raise UsageError(f"invalid subdirectory {path!r}: give a relative folder inside the "
                         "repository, such as #subdirectory=skills/my-skill")
    return clean


def looks_like_commit(ref: str) -> bool:
    """A lowercase hex string of 4 to 64 characters (a full or short commit id)."""
    return bool(_HEX.match(ref))


def _split_fragment(fragment: str, shown: str) -> str | None:
    subdirectory = None
    for pair in fragment.split("&"):
        key, sep, value = pair.partition("=")
        if key == "subdirectory" and sep:
            subdirectory = check_subdirectory(value)
        elif pair:
            raise UsageError(f"unknown {key!r} after '#' in {shown}: only "
                             "#subdirectory=<path> is understood")
    return subdirectory


def split_location(text: str) -> GitLocation:
    """Parse ``<url>[@<ref>][#subdirectory=<path>]`` (``url`` without ``git+``)."""
    shown = redact(text)
    if not text or any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise UsageError(f"invalid git URL {shown!r}: no spaces or control characters")
    if text.startswith("-"):
        raise UsageError(f"invalid git URL {shown!r}: it may not start with '-'")
    body, _, fragment = text.partition("#")
    subdirectory = _split_fragment(fragment, shown) if fragment else None
    ref: str | None = None
    if "://" in body:
        parts = urlsplit(body)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise UsageError(f"unsupported git URL scheme {scheme!r} in {shown}: use "
                             + ", ".join(f"{s}://" for s in SCHEMES) + " or user@host:path")
        path = parts.path
        if "@" in path.rsplit("/", 1)[-1]:
            path, _, ref = path.rpartition("@")
        if scheme != "file" and not parts.hostname:
            raise UsageError(f"invalid git URL {shown}: it names no host")
        if (parts.hostname or "").startswith("-") or (parts.username or "").startswith("-"):
            raise UsageError(f"invalid git URL {shown}: the host or user may not start with '-'")
        if not path.strip("/"):
            raise UsageError(f"invalid git URL {shown}: it names no repository path")
        url = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
    else:
        match = _SCP.match(body)
        if not match:
            raise UsageError(f"invalid git location {shown!r}: use a URL "
                             "(https://host/owner/repo.git) or user@host:owner/repo.git")
        path = match.group("path")
        if "@" in path.rsplit("/", 1)[-1]:
            path, _, ref = path.rpartition("@")
        url = f"{match.group('user') or ''}{match.group('host')}:{path}"
    if ref is not None:
        check_ref(ref)
    return GitLocation(url=url, ref=ref, subdirectory=subdirectory)


def repo_name(url: str) -> str:
    """The last path segment of the repository URL, without ``.git``."""
    path = urlsplit(url).path if "://" in url else url.split(":", 1)[-1]
    name = path.rstrip("/").rsplit("/", 1)[-1]
    name = name.removesuffix(".git")
    return name
