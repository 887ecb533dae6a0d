"""The ``git`` skill source: any git repository, fetched with dulwich (no git binary).

Identifiers, pip's style: ``git+<url>[@<ref>][#subdirectory=<path>]`` (router order 10),
``user@host:path[@<ref>]`` (20, ssh) and plain ``https://``, ``http://``, ``ssh://`` and
``file://`` URLs (50). ``<ref>`` is a branch, a tag or a full or short commit id; without one,
the remote's default branch. The exact commit is returned as the fetch's revision; a
:class:`~lemon_core.protocols.SourceRef` whose ``revision`` is set fetches that revision instead
of the identifier's ``@ref`` (how a lockfile's commit is reproduced). Credentials written in a
URL are used for the fetch but never shown, nor kept in ``canonical_id`` (the fetch says so in
a note); a URL without them takes them from ``~/.netrc`` / ``$NETRC`` when it names the host
(:mod:`lemon_core.source_kit.netrc`), which is how an update of such an install gets them.
Trust ``community``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

#: The identifier forms, for the router's "accepted forms" message.
_URL_FORM = ("https://<host>/<owner>/<repo>[.git][@<ref>][#subdirectory=<path>] (also "
             "http://, ssh://, file://)")
FORMS = {
    "git+": ("git+<url>[@<ref>][#subdirectory=<path>]",),
    "scp": ("git@<host>:<owner>/<repo>[@<ref>][#subdirectory=<path>]",),
    "url": (_URL_FORM,),
}
_URL_PREFIXES = ("https://", "http://", "ssh://", "file://")


#: The note of a fetch whose URL held credentials.
URL_CREDENTIALS_NOTE = (
    "the credentials in the URL were used for this fetch only and are not recorded; for "
    "'lemon skill update', 'outdated' and 'sync' put them in ~/.netrc (machine HOST login "
    "USER password SECRET), or the file $NETRC names")


def _location_text(identifier: str) -> str:
    text = identifier.strip()
    return text.removeprefix("git+")


def _auth(url: str, ctx: Any) -> tuple[Any, tuple[str, ...]]:
    """Credentials for a URL that carries none, from netrc; (auth, secrets to redact)."""
    from urllib.parse import urlsplit

    from lemon_core.source_kit.netrc import netrc_auth

    if ctx is None or urlsplit(url).username is not None:
        return None, ()
    auth = netrc_auth(url, ctx.home, ctx.env)
    return auth, ((auth.password,) if auth is not None and auth.password else ())


class GitSource:
    """One git source object per router position (``kind``: ``git+``, ``scp`` or ``url``);
    all three are the same source, ``git``, to the lockfile."""

    def __init__(self, name: str, order: int, kind: str) -> None:
        self.name = name
        self.order = order
        self.kind = kind
        self.forms = FORMS[kind]
        self._refs: Any = None

    @property
    def refs(self) -> Any:
        """Ref listings shared by ``upstream_hash`` calls with one context (one command)."""
        if self._refs is None:
            from lemon_core.source_kit import RefCache

            self._refs = RefCache()
        return self._refs

    def _claims(self, text: str) -> bool:
        if self.kind == "git+":
            return text.startswith("git+")
        if self.kind == "scp":
            head = text.split(":", 1)[0]
            return "://" not in text and "@" in head and ":" in text and "/" not in head
        return text.lower().startswith(_URL_PREFIXES)

    def parse(self, identifier: str) -> SourceRef | None:
        from lemon_core.source_kit import repo_name, split_location

        text = identifier.strip()
        if not self._claims(text):
            return None
        location = split_location(_location_text(text))
        name = (location.subdirectory.rsplit("/", 1)[-1] if location.subdirectory
                else repo_name(location.url))
        return SourceRef(source="git", identifier=text, canonical_id=location.public,
                         name=name, subpath=location.subdirectory, revision=location.ref)

    def trust_level(self, ref: SourceRef) -> str:
        return "community"

    def fetch(self, ref: SourceRef, dest: Path, ctx: Any, progress: Any) -> FetchResult:
        from lemon_core.source_kit import fetch_tree, split_location

        location = split_location(_location_text(ref.identifier))
        auth, secrets = _auth(location.url, ctx)
        fetched = fetch_tree(location.url, ref.revision or location.ref, dest,
                             subdirectory=ref.subpath if ref.subpath is not None
                             else location.subdirectory, auth=auth, secrets=secrets,
                             progress=progress)
        notes = tuple(fetched.notes)
        if location.url != location.public and "://" in location.url and not \
                location.url.lower().startswith("ssh://"):
            notes += (URL_CREDENTIALS_NOTE,)
        return FetchResult(revision=fetched.commit, notes=notes, trees=fetched.trees)

    def upstream_hash(self, ref: SourceRef, ctx: Any) -> str | None:
        from lemon_core.source_kit import split_location, upstream_commit

        location = split_location(_location_text(ref.identifier))
        auth, secrets = _auth(location.url, ctx)
        return upstream_commit(location.url, ref.revision or location.ref, auth=auth,
                               secrets=secrets, cache=self.refs, scope=ctx)

    def upstream_trees(self, ref: SourceRef, folders: list[str], ctx: Any) -> Any:
        """The commit the ref points at now and the tree id of each of ``folders`` (paths in
        the repository) there: one fetch for them all."""
        from lemon_core.source_kit import split_location, upstream_trees

        location = split_location(_location_text(ref.identifier))
        auth, secrets = _auth(location.url, ctx)
        return upstream_trees(location.url, ref.revision or location.ref, folders, auth=auth,
                              secrets=secrets)

    def search(self, query: str, ctx: Any, limit: int) -> list[SearchHit]:
        return []


SOURCES = (GitSource("git", 10, "git+"), GitSource("git-ssh", 20, "scp"),
           GitSource("git-url", 50, "url"))


@hookimpl
def lemon_register_sources(register):
    """Register the git source at its three router positions."""
    for source in SOURCES:
        register(source)
