"""The public toolkit of git-based skill sources (plugins may import it).

- :func:`split_location` parses ``<url>[@<ref>][#subdirectory=<path>]``; :func:`redact` and
  :func:`public_url` keep credentials out of messages and records.
- :func:`fetch_tree` fetches one commit with dulwich (shallow when the server allows) and
  writes its tree, or a folder of it, into a staging folder; :func:`upstream_commit` is the
  commit a ref points at upstream (one ref listing; a :class:`RefCache` shares listings of
  one repository between many skills); :func:`list_refs` / :func:`resolve` are the pieces.
- :func:`token_auth` turns a token into HTTP credentials, only for https or loopback http.
- :class:`FetchLimits` caps what a fetch may bring in (pack bytes, objects, inflated bytes,
  entries written); :class:`FetchTooLarge` says which.
- :class:`GitSourceError` is every failure, its message free of credentials.
"""

from lemon_core.source_kit.checkout import LFS_REFUSAL
from lemon_core.source_kit.fetch import FetchedTree, fetch_tree, upstream_commit
from lemon_core.source_kit.limits import DEFAULT_LIMITS, FetchLimits, FetchTooLarge
from lemon_core.source_kit.location import (
    GitLocation,
    check_ref,
    check_subdirectory,
    public_url,
    redact,
    repo_name,
    split_location,
    url_scheme,
)
from lemon_core.source_kit.refs import (
    RefCache,
    RemoteRefs,
    Resolution,
    list_refs,
    remote_refs,
    resolve,
)
from lemon_core.source_kit.transport import (
    Auth,
    GitSourceError,
    RedirectRefused,
    is_loopback,
    token_auth,
)

__all__ = [
    "DEFAULT_LIMITS",
    "LFS_REFUSAL",
    "Auth",
    "FetchLimits",
    "FetchTooLarge",
    "FetchedTree",
    "GitLocation",
    "GitSourceError",
    "RedirectRefused",
    "RefCache",
    "RemoteRefs",
    "Resolution",
    "check_ref",
    "check_subdirectory",
    "fetch_tree",
    "is_loopback",
    "list_refs",
    "public_url",
    "redact",
    "remote_refs",
    "repo_name",
    "resolve",
    "split_location",
    "token_auth",
    "upstream_commit",
    "url_scheme",
]
