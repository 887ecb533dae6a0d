"""The tool host: one project's MCP servers, connected, discovered, named, filtered, cached.

:class:`McpHost` runs its connections on an event loop of its own (a background thread), so
an embedder calls it synchronously from any thread::

    with McpHost(ctx, approver=ask_user) as host:
        for tool in host.tools():          # HostedTool: use tool.name as it is
            ...
        result = host.call(tool.name, {"path": "README.md"})

Discovery reads the effective set (:func:`lemon_core.mcp.effective.effective_servers`) for
``ctx.cwd``, connects to every enabled server in parallel, and lists tools, and resources and
prompts only when the server advertises those capabilities. A server that is down is skipped
(its status keeps the fixed, redacted reason). The inventory is reused for ``refresh_s``
(default 60 s); a timer task discovers again every ``refresh_s`` while the host lives (and
an access finding the inventory older discovers first). Each connection is watched: a server
that exits while idle starts its reconnect ladder at once (:mod:`.connection`,
:mod:`.recovery`); an HTTP/SSE server is pinged every ``heartbeat_s`` (default 30 s; None: no
pings) to the same end. ``list_changed`` notifications refresh their server, coalesced
(:mod:`.changes`). ``config`` takes the application configuration given in code
(:class:`~lemon_core.mcp.appconfig.McpAppConfig`). A server whose refresh fails keeps
its last inventory for at most ``ttl_s`` (default 300 s). A server removed or replaced in the
configuration is retired at the next discovery, and calls to its old names fail.
``LEMON_MCP_DISABLED=1`` (or the files' top-level ``"enabled": false``) means no connection.

Trust: a server of the project's own scopes (:func:`lemon_core.mcp.trust.identity.needs_trust`)
is started or contacted only when the ``trust`` policy says yes (default: the trust store that
``lemon mcp trust`` writes, :class:`~lemon_core.mcp.trust.policy.StoreTrust`); the others are
listed in :attr:`McpHost.untrusted` and never touched. An embedder passes its own
``trust(project, server) -> bool``.

Calls never take the discovery lock; each is bounded and never replayed
(:mod:`lemon_core.mcp.runtime.calls`); approval is asked at most once, through the caller's
callback (:mod:`lemon_core.mcp.runtime.approvals`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

from lemon_core.context import LemonContext
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.runtime import approvals
from lemon_core.mcp.runtime.calls import CallResult, failed, invoke
from lemon_core.mcp.runtime.changes import RefreshCoalescer
from lemon_core.mcp.runtime.connection import HEARTBEAT_S, Connection
from lemon_core.mcp.runtime.inventory import (
    HostedTool,
    ServerInventory,
    build,
    display_name,
    listed,
)
from lemon_core.mcp.runtime.names import server_identity
from lemon_core.mcp.runtime.recovery import (
    BREAKER_CRASHES,
    BREAKER_WINDOW_S,
    LADDER_S,
    Health,
)
from lemon_core.mcp.runtime.status import HostStatus, server_statuses

REFRESH_S = 60.0
TTL_S = 300.0


class McpHost:
    def __init__(self, ctx: LemonContext, *, refresh_s: float = REFRESH_S, ttl_s: float = TTL_S,
                 policy: approvals.Policy | None = None,
                 approver: approvals.Approver | None = None,
                 errlog: TextIO | None = None, ladder_s: tuple[float, ...] = LADDER_S,
                 breaker_crashes: int = BREAKER_CRASHES,
                 breaker_window_s: float = BREAKER_WINDOW_S,
                 on_change: Callable[[], None] | None = None,
                 skip: Callable[[Any], str | None] | None = None,
                 sampler: Any = None, trust: Any = None, config: Any = None,
                 sampling_policy: Any = None, authorizer: Any = None,
                 heartbeat_s: float | None = HEARTBEAT_S) -> None:
        #: the application configuration given in code
        #: (:class:`~lemon_core.mcp.appconfig.McpAppConfig`), or None
        self.config = config
        if config is not None:
            ctx = config.context(ctx)  # its switches, where the environment leaves them unset
        self.ctx = ctx
        if trust is None:
            from lemon_core.mcp.trust.policy import StoreTrust

            trust = StoreTrust(ctx)
        #: ``trust(project, server) -> bool``, asked for each enabled server that needs trust
        #: (:class:`~lemon_core.mcp.trust.policy.TrustPolicy`)
        self.trust = trust
        #: The enabled servers left out at the last discovery because they are not trusted
        self.untrusted: tuple[Any, ...] = ()
        #: ``sampler(SamplingRequest)``: servers may sample through it, each request approved
        #: by ``approver`` first (:mod:`lemon_core.mcp.runtime.sampling`); None: no sampling
        self.sampler = sampler
        #: the :class:`~lemon_core.mcp.runtime.sampling.SamplingPolicy` (None: reviewed, no
        #: limits)
        self.sampling_policy = sampling_policy
        #: ``authorizer(url)``: opens or shows a PKCE login's URL once the approver said yes
        #: (:mod:`lemon_core.mcp.runtime.authorize`)
        self.authorizer = authorizer
        #: called (on the host's loop thread; must not block) when the exposed tools change
        self.on_change = on_change
        #: ``skip(server) -> reason``: an enabled entry not to connect (shown in status)
        self.skip = skip
        self._skipped: dict[str, tuple[Any, str]] = {}
        self._recovery = (ladder_s, breaker_crashes, breaker_window_s)
        self._health: dict[str, Health] = {}
        self._supervised: set[str] = set()
        self.refresh_s = refresh_s
        self.ttl_s = ttl_s
        self.policy = policy
        self.approver = approver
        self.errlog = errlog
        self._portal: Any = None
        self._portal_cm: Any = None
        self._closing: Any = None
        self._tg: Any = None
        self._lock: Any = None
        self._conns: dict[str, Connection] = {}
        #: refreshes asked for by notifications, coalesced per server
        self._changes = RefreshCoalescer(self._notified)
        #: seconds between pings of an idle HTTP/SSE server (None: never)
        self.heartbeat_s = heartbeat_s
        self._inventories: dict[str, ServerInventory] = {}
        self._by_name: dict[str, HostedTool] = {}
        self._discovered_at: float | None = None
        self.disabled = ctx.flag("LEMON_MCP_DISABLED") is True
        #: The effective set's source errors at the last discovery
        #: (:class:`lemon_core.mcp.effective.SourceError`): an unusable lemon file disables
        #: its scope's servers, so a caller shows these to say why servers are missing.
        self.config_errors: tuple[Any, ...] = ()

    # -- lifecycle -----------------------------------------------------------------------
    def __enter__(self) -> McpHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> Any:
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal

            from lemon_core.mcp.servers.sdk import require_sdk

            require_sdk()
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
            self._portal.start_task(self._main)
        return self._portal

    @asynccontextmanager
    async def on_current_loop(self) -> AsyncIterator[McpHost]:
        """Run the host on the caller's event loop instead of a thread of its own, for an
        async embedder (``lemon mcp serve``): :meth:`acall` and :meth:`atools` then run
        inline, with no hand-off to another thread and back on every call. The synchronous
        methods keep working from worker threads (they wait on this loop), never from the
        loop's own thread. Leaving the block ends every connection."""
        import anyio
        from anyio.from_thread import BlockingPortal

        from lemon_core.mcp.servers.sdk import require_sdk

        require_sdk()
        if self._portal is not None:
            raise RuntimeError("this McpHost already runs on a loop of its own")
        async with BlockingPortal() as portal, anyio.create_task_group() as tg:
            await tg.start(self._main)
            self._portal = portal
            try:
                yield self
            finally:
                self._portal = None
                self._closing.set()

    async def _main(self, *, task_status: Any) -> None:
        import anyio

        self._closing = anyio.Event()
        self._lock = anyio.Lock()
        async with anyio.create_task_group() as tg:
            self._tg = tg
            timer = anyio.CancelScope()
            tg.start_soon(self._every_refresh, timer)
            task_status.started()
            await self._closing.wait()
            timer.cancel()
            for conn in self._conns.values():
                conn.stop.set()

    async def _every_refresh(self, scope: Any) -> None:
        """Discover again every ``refresh_s`` once a discovery has run, so a long-lived host
        (``lemon mcp serve``, an embedder) keeps its inventory fresh with nobody asking;
        ends when the host closes (``scope`` is cancelled). It sleeps between rounds."""
        import anyio

        with scope:
            while True:
                interval = self.refresh_s
                if interval <= 0 or self._discovered_at is None:
                    await anyio.sleep(max(interval, 1.0))  # nothing to keep fresh yet
                    continue
                await anyio.sleep(max(self._discovered_at + interval - time.monotonic(), 0.0))
                if self._fresh() or self.disabled:
                    continue
                try:
                    await self._discover()
                except Exception:  # noqa: BLE001 - the next access reports it; keep the timer
                    await anyio.sleep(interval)

    def close(self) -> None:
        """Stop every connection (stdio servers are ended by the SDK) and the host's own loop
        (on a caller's loop, :meth:`on_current_loop`, only the connections: the block ends
        the rest)."""
        if self._portal is None:
            return
        self._portal.call(self._closing.set)
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
            self._portal = self._portal_cm = None

    # -- discovery -----------------------------------------------------------------------
    def tools(self, *, refresh: bool = False) -> tuple[HostedTool, ...]:
        """The exposed tools (discovering first when the inventory is older than
        ``refresh_s``, or when ``refresh``)."""
        if self.disabled:
            return ()
        if refresh or not self._fresh():
            self._start().call(self._discover, refresh)
        return tuple(self._by_name.values())

    async def atools(self, *, refresh: bool = False) -> tuple[HostedTool, ...]:
        """:meth:`tools` on the host's own loop (:meth:`on_current_loop`)."""
        if self.disabled:
            return ()
        if refresh or not self._fresh():
            await self._discover(refresh)
        return tuple(self._by_name.values())

    def _fresh(self) -> bool:
        return self._discovered_at is not None and \
            time.monotonic() - self._discovered_at < self.refresh_s

    def status(self, *, refresh: bool = False) -> HostStatus:
        """Every server's :class:`ServerStatus` (a tuple), carrying the spec's top level as
        well: ``disabled``, ``cached_tools``, ``cache_ttl_ms`` (``to_json()``)."""
        self.tools(refresh=refresh)
        return self.last_status()

    def last_status(self) -> HostStatus:
        """:meth:`status` as of the last discovery (no discovery; from any thread)."""
        return HostStatus(server_statuses(self._conns, self._inventories, self._health,
                                          self._skipped),
                          disabled=self.disabled, cached_tools=len(self._by_name),
                          cache_ttl_ms=round(self.ttl_s * 1000))

    async def _discover(self, explicit: bool = False) -> None:
        import anyio

        from lemon_core.mcp.effective import effective_servers

        async with self._lock:
            if not explicit and self._fresh():
                return  # another discovery (the timer's) finished while this one waited
            effective = await anyio.to_thread.run_sync(
                lambda: effective_servers(self.ctx, app=self.config))
            untrusted = await anyio.to_thread.run_sync(self._untrusted, effective)
            # the read above cannot be cancelled; if the host was closed or cancelled
            # meanwhile, stop before starting connections on its ended task group
            await anyio.lowlevel.checkpoint_if_cancelled()
            self.config_errors = effective.errors
            wanted: dict[str, Any] = {}
            self._skipped = {}
            before, self.untrusted = self.untrusted, tuple(untrusted.values())
            if self.on_change is not None and before != self.untrusted:
                self.on_change()  # a client's view of what is missing changed
            if effective.mcp_enabled:
                for item in effective.servers:
                    reason = self.skip(item.server) if self.skip and item.enabled else None
                    if id(item.server) in untrusted:
                        continue
                    if reason:
                        self._skipped[server_identity(item.server)] = (item.server, reason)
                    elif item.enabled:
                        wanted[server_identity(item.server)] = item.server
            for ident in [i for i in self._conns if i not in wanted]:
                self._retire(ident)
            for ident, server in wanted.items():
                health = self._health.setdefault(ident, Health(*self._recovery))
                if explicit and health.unavailable:
                    health.reset()
                if ident not in self._supervised and not health.unavailable:
                    self._conns[ident] = self._connection(server, ident)
                    self._supervised.add(ident)
                    self._start_supervised(self._conns[ident])
            async with anyio.create_task_group() as tg:
                for conn in self._conns.values():
                    if not self._health[conn.identity].unavailable:
                        tg.start_soon(self._refresh, conn)
            self._rebuild()
            self._discovered_at = time.monotonic()

    def _untrusted(self, effective: Any) -> dict[int, Any]:
        """The enabled servers of ``effective`` that the trust policy does not trust."""
        from lemon_core.mcp.trust.policy import untrusted

        if not effective.mcp_enabled:
            return {}
        enabled = [item.server for item in effective.servers
                   if item.enabled and not (self.skip and self.skip(item.server))]
        return {id(s): s for s in untrusted(enabled, self.ctx.cwd, self.trust)}

    def _rebuild(self) -> None:
        now = time.monotonic()
        for ident, inv in list(self._inventories.items()):
            health = self._health.get(ident)
            if now - inv.fetched_at > self.ttl_s or health is None or health.unavailable:
                del self._inventories[ident]
        before = self._by_name
        self._by_name = {tool.name: tool for inv in self._inventories.values()
                         for tool in inv.tools}
        if self.on_change is not None and self._by_name != before:
            self.on_change()

    async def _supervise(self, conn: Connection) -> None:
        """Run ``conn``; when it ends without being retired, reconnect along the ladder
        (:mod:`lemon_core.mcp.runtime.recovery`) and refresh the new connection's inventory."""
        import anyio

        ident, health = conn.identity, self._health[conn.identity]
        try:
            while True:
                await conn.run()
                if conn.retired or self._closing.is_set() or self._conns.get(ident) is not conn:
                    return
                delay = health.crashed(time.monotonic(), conn.error)
                self._inventories.pop(ident, None)  # its tools leave until it is back
                self._rebuild()
                if delay is None:
                    return
                with anyio.move_on_after(delay):
                    await self._closing.wait()
                if conn.retired or self._closing.is_set() or self._conns.get(ident) is not conn:
                    return
                conn = self._connection(conn.server, ident)
                health.restarts += 1
                self._conns[ident] = conn
                self._tg.start_soon(self._after_reconnect, conn)
        finally:
            self._supervised.discard(ident)

    def _start_supervised(self, conn: Connection) -> None:
        """Supervise ``conn`` in a task whose PKCE logins go through the operator approval
        (:mod:`lemon_core.mcp.runtime.authorize`; reconnects run in the same task)."""
        from lemon_core.mcp.runtime.authorize import host_authorizer, start_with

        server = conn.server
        authorize = host_authorizer(server, display_name(server, conn.identity),
                                    lambda: self.approver, self.authorizer) \
            if server.oauth else None
        start_with(authorize, self._tg.start_soon, self._supervise, conn)

    def _connection(self, server: Any, ident: str) -> Connection:
        sampling = None
        if self.sampler is not None:
            from lemon_core.mcp.runtime.sampling import callback, entry_policy

            sampling = callback(self.sampler, lambda: self.approver, display_name(server, ident),
                                self.sampling_policy, entry_policy(server))
        return Connection(server, ident, self.ctx, self.errlog, self._changed, sampling,
                          self.heartbeat_s)

    def _changed(self, conn: Connection) -> None:
        """A ``list_changed`` notification (or one the rate limit dropped): refresh that
        server through the same filters, coalesced (:mod:`~lemon_core.mcp.runtime.changes`),
        unless the connection was retired or replaced (then the notification is ignored)."""
        if self._conns.get(conn.identity) is conn and not conn.retired:
            self._changes.ask(conn, self._tg.start_soon)

    async def _notified(self, conn: Connection) -> None:
        health = self._health.get(conn.identity)
        if health is None or health.unavailable or self._conns.get(conn.identity) is not conn:
            return
        await self._refresh(conn)
        self._rebuild()

    async def _after_reconnect(self, conn: Connection) -> None:
        await self._refresh(conn)
        self._rebuild()

    def _retire(self, ident: str) -> None:
        self._health.pop(ident, None)
        conn = self._conns.pop(ident)
        self._changes.forget(ident)
        conn.retired = True
        conn.stop.set()
        self._inventories.pop(ident, None)

    async def _refresh(self, conn: Connection) -> None:
        import anyio

        from lemon_core.mcp.client.connection import classify
        from lemon_core.mcp.client.transports import request_timeout

        await conn.ready.wait()
        client = conn.client
        if client is None:
            return
        try:
            with anyio.fail_after(request_timeout(conn.server) * 3):
                present, remote, resources, prompts = await listed(client)
        except TimeoutError:
            conn.lost(McpConnectionError(conn.server.name, conn.server.transport, "timeout",
                                         phase="discovery"))
            return
        except Exception as exc:  # noqa: BLE001 - a fixed kind
            conn.lost(classify(exc, conn.server, "discovery"))
            return
        if not conn.retired:
            self._inventories[conn.identity] = build(conn.server, conn.identity, remote,
                                                     resources, prompts, present,
                                                     time.monotonic())
            conn.error = None
            health = self._health.get(conn.identity)
            if health is not None and conn.connected:
                health.succeeded()

    # -- calls ---------------------------------------------------------------------------
    def find(self, name: str, tool: str | None = None) -> HostedTool:
        """The tool named ``name`` (model-facing), or with ``tool`` the raw tool ``tool`` of
        the server ``name`` (:func:`~lemon_core.mcp.runtime.lookup.find_tool`: a miss raises
        :class:`NotFoundError` with close names)."""
        from lemon_core.mcp.runtime.lookup import find_tool

        found = self._by_name.get(name) if tool is None and not self.disabled else None
        if found is not None:
            return found
        return find_tool(() if self.disabled else tuple(self._by_name.values()), name, tool)

    def call(self, name: str, arguments: dict[str, Any] | None = None, *,
             approver: approvals.Approver | None = None, tool: str | None = None) -> CallResult:
        """Call the tool ``name`` (a name :meth:`tools` returned; or with ``tool``, the raw
        tool ``tool`` of the server ``name``) once. Unknown or retired
        names raise :class:`NotFoundError`; a refused approval raises
        :class:`~lemon_core.mcp.runtime.approvals.ApprovalRefused`; everything else (timeout,
        disconnect, an MCP error) comes back as a failed :class:`CallResult`."""
        self.tools()
        hosted = self.find(name, tool)
        args = dict(arguments or {})
        approvals.check(hosted, args, policy=self.policy, approver=approver or self.approver)
        return self._start().call(self._call, hosted, args)

    async def acall(self, name: str, arguments: dict[str, Any] | None = None, *,
                    approver: approvals.Approver | None = None,
                    tool: str | None = None) -> CallResult:
        """:meth:`call` on the host's own loop (:meth:`on_current_loop`). The approver is
        still a plain function: when the call needs approval it is asked in a worker thread,
        so it may block (or wait on this loop through ``anyio.from_thread``)."""
        import anyio

        await self.atools()
        hosted = self.find(name, tool)
        args = dict(arguments or {})
        approver = approver or self.approver
        if approvals.needed(hosted, self.policy):
            await anyio.to_thread.run_sync(approvals.ask, hosted, args, approver)
        return await self._call(hosted, args)

    async def _call(self, tool: HostedTool, args: dict[str, Any]) -> CallResult:
        conn = self._conns.get(tool.identity)
        if conn is None or conn.retired:
            return failed(tool.name, "not_found", "that server was removed or replaced; "
                          "list the tools again")
        client = conn.client
        if client is None:
            return failed(tool.name, "unavailable", str(conn.error) if conn.error else
                          "the server is not connected")
        result = await invoke(client, conn.server, tool, args, why_closed=conn.why_closed)
        if result.error_kind in ("closed", "connect_failed", "oversized", "exited"):
            conn.lost(McpConnectionError(conn.server.name, conn.server.transport, "closed",
                                         phase="call"))
        return result


__all__ = ["REFRESH_S", "TTL_S", "McpHost"]
