"""Model-facing names of discovered MCP tools: ``mcp_<server>_<tool>_<16 hex>``.

A name is ASCII, at most :data:`MAX_NAME` characters: a bounded readable prefix (the server's
and the tool's names lower-cased to ``[a-z0-9]`` runs joined by ``_``) and a 16-hex suffix, the
start of a SHA-256 over the server's configuration identity, the raw tool name and its kind
(``tool`` for a remote tool, ``utility`` for lemon's resource/prompt utilities). So two servers
both started with ``npx``, two raw names that slug alike (``Read-File`` and ``read_file``) and
a remote tool called ``resources_list`` beside the utility of that name all get distinct names.

Callers use the name discovery returns; they never build one (the suffix is not a public
format). The raw tool name stays inside the host's call boundary.
"""

from __future__ import annotations

import hashlib
import json
import re

from lemon_core.models import McpServer

MAX_NAME = 64
SUFFIX_HEX = 16
#: The longest readable server part; the tool part gets what is left.
MAX_SERVER_PART = 16
_BUDGET = MAX_NAME - len("mcp_") - 1 - 1 - SUFFIX_HEX  # the two parts and the "_" between
_RUNS = re.compile(r"[a-z0-9]+")

#: Utility tool -> the MCP method it calls (also its key in ``tool_approvals``).
UTILITIES = {
    "resources_list": "resources/list",
    "resource_read": "resources/read",
    "prompts_list": "prompts/list",
    "prompt_get": "prompts/get",
}


def slug(text: str, limit: int) -> str:
    """``text`` lower-cased to ``[a-z0-9]`` runs joined by ``_``, cut to ``limit`` ("x" if
    nothing is left)."""
    joined = "_".join(_RUNS.findall(text.lower()))[:limit].strip("_")
    return joined or "x"


def server_identity(server: McpServer) -> str:
    """A digest of what makes a server configuration this one (transport, command, argument
    vector, environment, working directory, URL, headers): the same name with another command
    or URL is another server. It is a one-way digest, never shown whole."""
    data = [server.name, server.transport, server.command, list(server.args),
            sorted(server.env.items()), server.cwd, server.url, sorted(server.headers.items())]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def model_name(identity: str, server_name: str, raw: str, kind: str = "tool") -> str:
    """The model-facing name of ``raw`` (a remote tool, or for ``kind="utility"`` a key of
    :data:`UTILITIES`) on the server with ``identity`` (:func:`server_identity`)."""
    suffix = hashlib.sha256(json.dumps([identity, kind, raw]).encode()).hexdigest()[:SUFFIX_HEX]
    server_part = slug(server_name, MAX_SERVER_PART)
    tool_part = slug(raw, _BUDGET - len(server_part))
    return f"mcp_{server_part}_{tool_part}_{suffix}"


__all__ = ["MAX_NAME", "UTILITIES", "model_name", "server_identity", "slug"]
