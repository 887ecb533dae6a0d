"""The ``gh`` skill source: ``gh:<owner>/<repo>[/<path>][@<ref>]``, fetched as git over
``<base>/<owner>/<repo>.git``.

``<base>`` is ``https://github.com`` unless ``LEMON_GITHUB_URL`` names another (GitHub
Enterprise, a mirror, the loopback server of the tests). ``GITHUB_TOKEN``, when set, is sent
as HTTP credentials to that base only (over https, or plain http to a loopback address) and
is never printed: every message is scrubbed of it. Without it, credentials for that host come
from ``~/.netrc`` (or ``$NETRC``) as for any git URL. Trust ``community``.

``search`` (opt-in: ``LEMON_GITHUB_SEARCH=1``, since it asks a third party and GitHub limits
unauthenticated searches to a few a minute) is GitHub's repository search for the topic
``lemon-skill`` (sorted by stars, at most ``limit`` hits), on ``<base>``'s API (``https://api.github.com`` for github.com,
``<base>/api/v3`` for GitHub Enterprise, or ``LEMON_GITHUB_API_URL``). A hit's score is its stars
(at most 100), plus 50 when its name holds the query and 20 when its description does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

BASE_ENV = "LEMON_GITHUB_URL"
API_ENV = "LEMON_GITHUB_API_URL"
SEARCH_ENV = "LEMON_GITHUB_SEARCH"
TOPIC = "lemon-skill"
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


def api_url(ctx: Any) -> str:
    """The REST API base of the configured GitHub (no trailing ``/``)."""
    value = ctx.getenv(API_ENV) if ctx is not None else None
    if value:
        return value.rstrip("/")
    base = base_url(ctx)
    return "https://api.github.com" if base == DEFAULT_BASE else f"{base}/api/v3"


def token(ctx: Any) -> str | None:
    return ctx.getenv(TOKEN_ENV) if ctx is not None else None


def credentials(url: str, ctx: Any) -> tuple[Any, tuple[str, ...]]:
    """(auth, secrets to redact) for ``url``: ``GITHUB_TOKEN``, else the netrc entry of its
    host, else none."""
    from lemon_core.source_kit import token_auth
    from lemon_core.source_kit.netrc import netrc_auth

    secret = token(ctx)
    if secret:
        return token_auth(url, secret), (secret,)
    auth = netrc_auth(url, ctx.home, ctx.env) if ctx is not None else None
    return auth, ((auth.password,) if auth is not None and auth.password else ())


class GhSource:
    name = "gh"
    order = 30
    #: ``<owner>/<repo>`` is read as ``gh:<owner>/<repo>`` before routing (the router's shorthand).
    forms = (FORM, "<owner>/<repo> (GitHub, as gh:<owner>/<repo>)")

    def __init__(self) -> None:
        self._refs: Any = None

    @property
    def refs(self) -> Any:
        """Ref listings shared by ``upstream_hash`` calls with one context (one command)."""
        if self._refs is None:
            from lemon_core.source_kit import RefCache

            self._refs = RefCache()
        return self._refs

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
        from lemon_core.source_kit import fetch_tree

        url = self._url(ref, ctx)
        auth, secrets = credentials(url, ctx)
        fetched = fetch_tree(url, ref.revision, dest, subdirectory=ref.subpath, auth=auth,
                             secrets=secrets, progress=progress)
        return FetchResult(revision=fetched.commit, notes=fetched.notes,
                           trees=fetched.trees)

    def upstream_hash(self, ref: SourceRef, ctx: Any) -> str | None:
        from lemon_core.source_kit import upstream_commit

        url = self._url(ref, ctx)
        auth, secrets = credentials(url, ctx)
        return upstream_commit(url, ref.revision, auth=auth, secrets=secrets, cache=self.refs,
                               scope=ctx)

    def upstream_trees(self, ref: SourceRef, folders: list[str], ctx: Any) -> Any:
        """The commit the ref points at now and the tree id of each of ``folders`` (paths in
        the repository) there: one fetch for them all."""
        from lemon_core.source_kit import upstream_trees

        url = self._url(ref, ctx)
        auth, secrets = credentials(url, ctx)
        return upstream_trees(url, ref.revision, folders, auth=auth, secrets=secrets)

    def search(self, query: str, ctx: Any, limit: int) -> list[SearchHit]:
        import urllib.parse

        from lemon_core.source_kit import token_auth
        from lemon_core.source_kit.web import get_json

        if ctx is None or not ctx.flag(SEARCH_ENV):
            return []
        api = api_url(ctx)
        q = f"topic:{TOPIC} {query} in:name,description,readme"
        url = f"{api}/search/repositories?" + urllib.parse.urlencode(
            {"q": q, "sort": "stars", "order": "desc", "per_page": max(1, min(limit, 100))})
        headers = {"Accept": "application/vnd.github+json"}
        secret = token(ctx)
        if token_auth(api, secret) is not None:
            headers["Authorization"] = f"Bearer {secret}"
        answer = get_json(url, ctx=ctx, headers=headers)
        items = answer.get("items") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise LemonError(f"the GitHub search at {api} answered without 'items'; check "
                             f"{API_ENV}")
        words = query.strip().lower()
        hits = []
        for item in items[:limit]:
            full = item.get("full_name") if isinstance(item, dict) else None
            if not isinstance(full, str) or full.count("/") != 1:
                continue
            name = full.split("/", 1)[1]
            description = item.get("description") or ""
            description = description if isinstance(description, str) else ""
            stars = item.get("stargazers_count")
            stars = stars if isinstance(stars, int) and not isinstance(stars, bool) else 0
            score = float(min(max(stars, 0), 100) + (50 if words and words in name.lower()
                                                     else 0)
                          + (20 if words and words in description.lower() else 0))
            try:
                self.parse(f"gh:{full}")
            except UsageError:
                continue
            hits.append(SearchHit(f"gh:{full}", name, description, self.name, score))
        hits.sort(key=lambda h: (-h.score, h.identifier))
        return hits


@hookimpl
def lemon_register_sources(register):
    """Register the gh source."""
    register(GhSource())
