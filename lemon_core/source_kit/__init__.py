"""The public toolkit of git-based skill sources (plugins may import it).

- :func:`split_location` parses ``<url>[@<ref>][#subdirectory=<path>]``; :func:`redact` and
  :func:`public_url` keep credentials out of messages and records.
- :func:`fetch_tree` fetches one commit with dulwich (shallow when the server allows) and
  writes its tree, or a folder of it, into a staging folder; :func:`upstream_commit` is the
  commit a ref points at upstream, :func:`upstream_trees` the tree id of given folders there
  (one fetch for them all) (one ref listing; a :class:`RefCache` shares listings of
  one repository between many skills); :func:`list_refs` / :func:`resolve` are the pieces.
- :func:`token_auth` turns a token into HTTP credentials, only for https or loopback http.
- :class:`FetchLimits` caps what a fetch may bring in, on every transport (pack bytes,
  objects, bytes per object and per file written, bytes in all, entries written); only the
  chosen folder's objects are read, each by its header first, and files are streamed to disk
  (:mod:`lemon_core.source_kit.objects`); :class:`FetchTooLarge` says which cap.
- :class:`GitSourceError` is every failure, its message free of credentials.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lemon_core.source_kit.fetch import (
        FetchedTree,
        UpstreamTrees,
        fetch_tree,
        upstream_commit,
        upstream_trees,
    )
    from lemon_core.source_kit.lfs import LFS_REFUSAL
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

#: Where each public name lives. A name is imported on first use (PEP 562), so parsing an
#: identifier or installing a local folder does not import the fetch, its limits and refs.
_HOMES = {
    "LFS_REFUSAL": "lfs",
    "FetchedTree": "fetch", "fetch_tree": "fetch", "upstream_commit": "fetch",
    "UpstreamTrees": "fetch", "upstream_trees": "fetch",
    "DEFAULT_LIMITS": "limits", "FetchLimits": "limits", "FetchTooLarge": "limits",
    "GitLocation": "location", "check_ref": "location", "check_subdirectory": "location",
    "public_url": "location", "redact": "location", "repo_name": "location",
    "split_location": "location", "url_scheme": "location",
    "RefCache": "refs", "RemoteRefs": "refs", "Resolution": "refs", "list_refs": "refs",
    "remote_refs": "refs", "resolve": "refs",
    "Auth": "transport", "GitSourceError": "transport", "RedirectRefused": "transport",
    "is_loopback": "transport", "token_auth": "transport",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lemon_core.source_kit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lemon_core.source_kit.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


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
    "UpstreamTrees",
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
    "upstream_trees",
    "url_scheme",
]
