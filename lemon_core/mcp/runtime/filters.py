"""Exact allow/block filters of a server entry (``allow_tools``/``block_tools``,
``allow_resources``/``block_resources`` by URI, ``allow_prompts``/``block_prompts`` by name),
applied before anything is exposed and again at the call boundary. No patterns: a value is
allowed when it is in the allow list (or there is none) and not in the block list."""

from __future__ import annotations

from collections.abc import Iterable

from lemon_core.models import McpServer


def allowed(value: str, allow: Iterable[str] | None, block: Iterable[str] | None) -> bool:
    if block is not None and value in block:
        return False
    return allow is None or value in allow


def tool_allowed(server: McpServer, raw: str) -> bool:
    return allowed(raw, server.allow_tools, server.block_tools)


def resource_allowed(server: McpServer, uri: str) -> bool:
    return allowed(uri, server.allow_resources, server.block_resources)


def prompt_allowed(server: McpServer, name: str) -> bool:
    return allowed(name, server.allow_prompts, server.block_prompts)


__all__ = ["allowed", "prompt_allowed", "resource_allowed", "tool_allowed"]
