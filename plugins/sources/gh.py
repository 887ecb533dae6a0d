"""The ``gh`` skill source: ``gh:<owner>/<repo>[/<path>][@<ref>]``, fetched as git over
``<base>/<owner>/<repo>.git``.

``<base>`` is ``https://github.com`` unless ``LEMON_GITHUB_URL`` names another (GitHub
Enterprise, a mirror, the loopback server of the tests). ``GITHUB_TOKEN``, when set, is sent
as HTTP credentials to that base only (over https, or plain http to a loopback address) and
is never printed: every message is scrubbed of it. Trust ``community``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lemon_core import hookimpl
from lemon_core.errors import UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

BASE_ENV = "LEMON_GITHUB_URL"
TOKEN_ENV = "GITHUB_TOKEN"
DEFAULT_BASE = "https://github.com"
FORM = "gh:<owner>/<repo>[/<path>][@<ref>]"

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


def base_url(ctx: Any) -> str:
    """The configured GitHub base URL (no trailing ``/``)."""
    value = (ctx.getenv(BASE_ENV) if ctx is not None else None) or DEFAULT_BASE
    value = value.rstrip("/")
    if not value.lower().startswith(("https://", "http://")):
        raise UsageError(f"{BASE_ENV} must be an https:// URL (it is {value!r})")
    return value


def token(ctx: Any) -> str | None:
    return ctx.getenv(TOKEN_ENV) if ctx is not None else None


class GhSource:
    name = "gh"
    order = 30
    forms = (FORM,)

    def parse(self, identifier: str) -> SourceRef | None:
        from lemon_core.source_kit import check_ref, check_subdirectory

        text = identifier.strip()
        if not text.startswith("gh:"):
            return None
        body = text[len("gh:"):]
        ref = None
        if "@" in body:
            body, _, ref = body.rpartition("@")
            check_ref(ref)
        parts = body.split("/")
        if len(parts) < 2:
            raise UsageError(f"invalid GitHub identifier {text!r}: use {FORM}")
        owner, repo = parts[0], parts[1].removesuffix(".git")
        if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
            raise UsageError(f"invalid GitHub owner or repository in {text!r}: use {FORM}")
        sub = check_subdirectory("/".join(parts[2:])) if len(parts) > 2 else None
        return SourceRef(source="gh", identifier=text, canonical_id=f"{owner}/{repo}",
                         name=sub.rsplit("/", 1)[-1] if sub else repo, subpath=sub,
                         revision=ref)

    def _url(self, ref: SourceRef, ctx: Any) -> str:
        owner_repo = ref.canonical_id or ""
        return f"{base_url(ctx)}/{owner_repo}.git"

    def trust_level(self, ref: SourceRef) -> str:
        return "community"

    def fetch(self, ref: SourceRef, dest: Path, ctx: Any, progress: Any) -> FetchResult:
        from lemon_core.source_kit import fetch_tree, token_auth

        url = self._url(ref, ctx)
        secret = token(ctx)
        fetched = fetch_tree(url, ref.revision, dest, subdirectory=ref.subpath,
                             auth=token_auth(url, secret),
                             secrets=(secret,) if secret else (), progress=progress)
        return FetchResult(revision=fetched.commit, notes=fetched.notes)

    def upstream_hash(self, ref: SourceRef, ctx: Any) -> str | None:
        from lemon_core.source_kit import token_auth, upstream_commit

        url = self._url(ref, ctx)
        secret = token(ctx)
        return upstream_commit(url, ref.revision, auth=token_auth(url, secret),
                               secrets=(secret,) if secret else ())

    def search(self, query: str, ctx: Any, limit: int) -> list[SearchHit]:
        return []


@hookimpl
def lemon_register_sources(register):  # type: ignore[no-untyped-def]
    """Register the gh source."""
    register(GhSource())
