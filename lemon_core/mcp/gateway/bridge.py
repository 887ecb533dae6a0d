"""The gateway's requests, routed to one :class:`~lemon_core.mcp.runtime.host.McpHost`.

``tools/list`` is the host's inventory (model-facing names, descriptions, input schemas,
utilities included; the backends' words defanged by :mod:`.shown`); ``tools/call`` is :meth:`McpHost.call`, with approvals asked through MCP
elicitation (:mod:`.elicit` on the handshake protocols, :mod:`.rounds`'s
``InputRequiredResult`` rounds on 2026-07-28) and every lemon failure a fixed tool error
(:mod:`.results`).
The host runs on the gateway's own event loop (:meth:`McpHost.on_current_loop`), so a call
goes from the client's request to the server's pipe and back with no thread hand-off; only an
approval runs in a worker thread, and the loop keeps answering meanwhile (an elicitation's
answer arrives while its call waits). The first discovery starts with the gateway and every
request waits for it; the inventory is then rediscovered every
``refresh_s``, and entries that run ``lemon mcp serve`` are skipped (:mod:`.selfref`).
Project servers the user has not trusted are not started; while there are any, one extra tool
says so and asks the person to trust them (:mod:`.trust`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from lemon_core.approval import ApprovalRefused
from lemon_core.context import LemonContext
from lemon_core.errors import LemonError, NotFoundError
from lemon_core.mcp.gateway import elicit, results, rounds, shown, trust
from lemon_core.mcp.gateway.notify import ChangeNotifier
from lemon_core.mcp.gateway.selfref import self_reason
from lemon_core.mcp.runtime.approvals import approval_key

NOT_APPROVED = ("the call of {name} was not approved (declined, cancelled or unanswered); "
                "nothing was called")
STALE = ("this approval answer does not belong to a pending request of this gateway (already "
         "used, expired, or for another call); nothing was called: call the tool again")


class Gateway:
    def __init__(self, ctx: LemonContext, *, notice: Callable[[str], None] | None = None,
                 approval_wait_s: float = elicit.WAIT_S, **host_options: Any) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus

        from lemon_core.mcp.runtime.host import McpHost

        self.ctx = ctx
        self.notice = notice
        self.approval_wait_s = approval_wait_s
        self.pending = rounds.Pending(approval_wait_s)
        #: where 2026-07-28 clients' ``subscriptions/listen`` streams get their change events
        self.bus = InMemorySubscriptionBus()
        self.notifier = ChangeNotifier(self.visible, self.bus)
        self._session: Any = None  # the client's session, once it sent a request
        self._has_session = threading.Event()
        host_options.setdefault("approver", self._host_approver)
        self.host = McpHost(ctx, on_change=self.notifier.changed, skip=self_reason,
                            **host_options)
        self._ready: Any = None
        self._config_said: tuple[Any, ...] = ()

    # -- lifecycle -----------------------------------------------------------------------
    async def run(self) -> None:
        """The gateway's background work: the first discovery, change notices and the
        periodic rediscovery (until cancelled)."""
        import anyio

        self._ready = self._ready or anyio.Event()
        async with self.host.on_current_loop(), anyio.create_task_group() as tg:
            tg.start_soon(self.notifier.run)
            await self._discover()
            self._ready.set()
            self._report_skipped()
            while True:
                await anyio.sleep(self.host.refresh_s + 0.1)
                await self._discover()

    def close(self) -> None:
        self.notifier.stop()
        self.host.close()

    async def ready(self) -> None:
        import anyio

        self._ready = self._ready or anyio.Event()
        await self._ready.wait()

    async def _discover(self) -> Sequence[Any]:
        try:
            found = await self.host.atools()
        except LemonError as exc:  # an unreadable configuration: say so, serve nothing
            self._say(str(exc))
            return ()
        self._report_config()
        return found

    async def tools(self) -> Sequence[Any]:
        return await self._discover()

    async def visible(self) -> list[Any]:
        """What a client's ``tools/list`` shows: the hosted tools, and while project servers
        are untrusted, the tool that says so (:mod:`.trust`)."""
        import mcp_types as types

        listed = [types.Tool(name=t.name, description=shown.description(t.description),
                             input_schema=shown.schema(dict(t.input_schema)) or {"type": "object"})
                  for t in await self.tools()]
        if self.host.untrusted:
            listed.append(trust.tool(self.host.untrusted, str(self.ctx.cwd)))
        return listed

    def _say(self, message: str) -> None:
        if self.notice is not None:
            self.notice(message)

    def _report_config(self) -> None:
        """Say once what is wrong with the configuration (an unusable lemon file disables its
        scope's servers: the client would otherwise see no tools and no reason), and again
        only when that changes."""
        errors = self.host.config_errors
        if errors != self._config_said:
            self._config_said = errors
            for error in errors:
                self._say(f"MCP configuration ({error.provider}:{error.scope}): "
                          f"{error.message}")

    def _report_skipped(self) -> None:
        for item in self.host.last_status():
            if item.last_error:
                self._say(f"MCP server \"{item.name}\": {item.last_error}")
        if self.host.untrusted:
            self._say(trust.note(self.host.untrusted, str(self.ctx.cwd)))

    def _seen(self, session: Any) -> None:
        self._session = session
        self._has_session.set()

    def _host_approver(self, request: Any) -> bool:
        """The host's own approver (a worker thread): an OAuth login of a hosted server is
        carried to the person through elicitation (the URL in it); nothing else is approved
        here (calls are asked per request). It waits for the client's first request, which
        brings the session to ask on."""
        import anyio

        from lemon_core.mcp.runtime.authorize import OAuthApproval

        if not isinstance(request, OAuthApproval):
            return False
        if not self._has_session.wait(self.approval_wait_s):
            return False
        return bool(anyio.from_thread.run(elicit.ask_login, self._session, request,
                                          self.approval_wait_s))

    # -- requests ------------------------------------------------------------------------
    async def list_tools(self, session: Any) -> list[Any]:
        self._seen(session)
        await self.ready()
        listed = await self.visible()
        self.notifier.listed_now(session, listed)
        return listed

    async def call_tool(self, session: Any, request_id: Any, name: str,
                        arguments: dict[str, Any], *, protocol_version: str | None = None,
                        input_responses: Any = None, request_state: Any = None) -> Any:
        import anyio

        self._seen(session)
        await self.ready()
        if name == trust.TOOL:
            return await self._trust_call(session, request_id, protocol_version,
                                          input_responses, request_state)
        try:
            tool = self.host.find(name)  # the inventory in memory: no discovery, no thread
        except NotFoundError:
            return results.unknown(name)
        version = protocol_version or getattr(session, "protocol_version", None)
        asked: list[Any] = []
        approver = None
        if rounds.is_modern(version):  # 2026-07-28: ask through InputRequiredResult rounds
            if request_state is not None:
                if not self.pending.redeem(request_state, name, arguments):
                    return results.tool_error(STALE)
                if not rounds.answered_yes(input_responses):
                    return results.tool_error(NOT_APPROVED.format(name=tool.name))

                def approver(request: Any) -> bool:  # the person said yes to this call
                    return True
            elif rounds.can_ask(session):

                def approver(request: Any) -> bool:  # ask in the result, call nothing now
                    asked.append(request)
                    return False
        elif elicit.can_elicit(session):
            wait_s = self.approval_wait_s

            def approver(request: Any) -> bool:
                return anyio.from_thread.run(elicit.ask, session, request, request_id, wait_s)

        try:
            result = await self.host.acall(name, arguments, approver=approver)
        except NotFoundError:
            return results.unknown(name)
        except ApprovalRefused:
            if asked:
                return rounds.input_required(asked[0], self.pending.mint(name, arguments))
            if approver is not None:
                return results.tool_error(NOT_APPROVED.format(name=tool.name))
            source = await anyio.to_thread.run_sync(self._source_of, tool)
            return results.tool_error(elicit.how_to_allow(
                tool, approval_key(tool.kind, tool.raw), source))
        except Exception:  # noqa: BLE001 - fixed text, never the exception's own
            return results.tool_error(f"the call of {tool.name} failed inside lemon; it "
                                      "was not retried")
        return results.from_host(tool, result)

    async def _trust_call(self, session: Any, request_id: Any, protocol_version: str | None,
                          input_responses: Any, request_state: Any) -> Any:
        """The extra tool: ask the person to trust the untrusted servers (never the agent)."""
        import anyio
        import mcp_types as types

        from lemon_core.mcp.runtime.names import server_identity
        from lemon_core.mcp.trust.store import trust_servers

        servers = tuple(self.host.untrusted)
        project = str(self.ctx.cwd)
        if not servers:
            return types.CallToolResult(content=[types.TextContent(
                text="Every MCP server of this project is trusted; list the tools again.")])
        shown = {"shown": [server_identity(s) for s in servers]}  # what the form showed
        version = protocol_version or getattr(session, "protocol_version", None)
        if rounds.is_modern(version):
            if request_state is None:
                if not rounds.can_ask(session):
                    return results.tool_error(trust.refused(servers, project, asked=False))
                return trust.input_required(servers, project,
                                            self.pending.mint(trust.TOOL, shown))
            if not self.pending.redeem(request_state, trust.TOOL, shown):
                return results.tool_error(STALE)
            yes = rounds.answered_yes(input_responses)
        elif elicit.can_elicit(session):
            yes = await trust.ask(session, servers, project, request_id, self.approval_wait_s)
        else:
            return results.tool_error(trust.refused(servers, project, asked=False))
        if not yes:
            return results.tool_error(trust.refused(servers, project, asked=True))
        try:
            names = await anyio.to_thread.run_sync(trust_servers, self.ctx, servers)
        except LemonError as exc:
            return results.tool_error(f"the trust could not be recorded: {exc}")
        await self.host.atools(refresh=True)
        return types.CallToolResult(content=[types.TextContent(
            text=f"The user trusted {len(names)} MCP server(s) of this project; lemon started "
                 "them. List the tools again to see their tools.")])

    def _source_of(self, tool: Any) -> Any:
        """The configuration entry's source (file) of ``tool``'s server, for the refusal."""
        from lemon_core.mcp.effective import effective_servers
        from lemon_core.mcp.runtime.names import server_identity

        for item in effective_servers(self.ctx).servers:
            if server_identity(item.server) == tool.identity:
                return item.server.source
        return None


__all__ = ["Gateway"]
