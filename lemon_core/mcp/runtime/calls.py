"""One call through a live client: bounded, never replayed.

A call waits at most the entry's ``timeout_ms`` (default 10 s, capped at :data:`MAX_CALL_S`).
A timeout or a lost connection returns an error result and the call is NOT retried: the server
may have received it, so a timed-out mutation may have happened. Utilities call the MCP method
they stand for, with the entry's resource/prompt filters checked again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.runtime.filters import prompt_allowed, resource_allowed
from lemon_core.models import McpServer

MAX_CALL_S = 300.0
DEFAULT_CALL_MS = 10_000


@attrs.frozen
class CallResult:
    """``ok`` false with ``error_kind`` (``timeout``, ``closed``, ``oversized``, ``exited``,
    ``refused``, ``blocked``, ``not_found``, ``approval``, ``unavailable``) and a fixed
    ``error`` message, or ``result``:
    the MCP result as JSON data (``is_error`` when the tool itself reported failure)."""

    name: str
    ok: bool
    result: dict[str, Any] | None = None
    is_error: bool = False
    error_kind: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "ok": self.ok}
        if self.ok:
            data.update(is_error=self.is_error, result=self.result)
        else:
            data["error"] = {"kind": self.error_kind, "message": self.error}
        return data


def call_timeout(server: McpServer) -> float:
    return min((server.timeout_ms or DEFAULT_CALL_MS) / 1000, MAX_CALL_S)


def failed(name: str, kind: str, message: str) -> CallResult:
    return CallResult(name, False, error_kind=kind, error=message)


async def _dispatch(client: Any, server: McpServer, tool: Any, args: dict[str, Any],
                    timeout: float) -> Any:
    if tool.kind == "tool":
        return await client.call_tool(tool.raw, args, read_timeout_seconds=timeout)
    if tool.raw == "resources_list":
        page = await client.list_resources(cursor=args.get("cursor"))
        kept = [r for r in page.resources if resource_allowed(server, str(r.uri))]
        return page.model_copy(update={"resources": kept})
    if tool.raw == "resource_read":
        uri = str(args.get("uri", ""))
        if not resource_allowed(server, uri):
            raise PermissionError("resource")
        return await client.read_resource(uri)
    if tool.raw == "prompts_list":
        page = await client.list_prompts(cursor=args.get("cursor"))
        kept = [p for p in page.prompts if prompt_allowed(server, p.name)]
        return page.model_copy(update={"prompts": kept})
    name = str(args.get("name", ""))
    if not prompt_allowed(server, name):
        raise PermissionError("prompt")
    arguments = {str(k): str(v) for k, v in dict(args.get("arguments") or {}).items()}
    return await client.get_prompt(name, arguments or None)


async def invoke(client: Any, server: McpServer, tool: Any, args: dict[str, Any], *,
                 why_closed: Callable[[str], Awaitable[McpConnectionError | None]] | None = None,
                 ) -> CallResult:
    """Call ``tool`` once on ``client`` (see the module docstring). When the connection
    closes under the call, ``why_closed`` (the connection's
    :meth:`~lemon_core.mcp.runtime.connection.Connection.why_closed`) says why, if it knows:
    the result over the stdio limit (``oversized``) or the server's exit (``exited``)."""
    import anyio

    from lemon_core.mcp.client.connection import classify

    timeout = call_timeout(server)
    try:
        with anyio.fail_after(timeout):
            result = await _dispatch(client, server, tool, args, timeout)
    except PermissionError as exc:
        return failed(tool.name, "blocked", f"that {exc} is blocked by the server's filters")
    except TimeoutError:
        return failed(tool.name, "timeout", f"no answer within {timeout:g} s; the call was not "
                      "retried and may still have taken effect on the server")
    except Exception as exc:  # noqa: BLE001 - every failure becomes one fixed kind
        error = classify(exc, server, "call")
        if error.kind in ("closed", "protocol") and why_closed is not None:
            error = await why_closed("call") or error
        if error.kind == "timeout":
            return failed(tool.name, "timeout", f"no answer within {timeout:g} s; the call was "
                          "not retried and may still have taken effect on the server")
        return failed(tool.name, error.kind, str(error) + "; the call was not retried")
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return CallResult(tool.name, True, data, bool(getattr(result, "is_error", False)))


__all__ = ["MAX_CALL_S", "CallResult", "McpConnectionError", "call_timeout", "failed", "invoke"]
