"""Refreshes asked for by notifications are coalesced per server: a burst costs at most one
running and one waiting refresh, started at least ``min_gap_s`` apart, and a notification
that comes while a refresh runs is followed by one more refresh."""

from __future__ import annotations

from typing import Any

import anyio
import attrs

from lemon_core.mcp.runtime.changes import RefreshCoalescer


@attrs.define(eq=False)
class Conn:
    identity: str


def run(body: Any) -> None:
    anyio.run(body)


def test_a_burst_costs_one_refresh_and_one_more() -> None:
    async def body() -> None:
        started: list[float] = []

        async def refresh(conn: Conn) -> None:
            started.append(anyio.current_time())
            await anyio.sleep(0.05)

        coalescer = RefreshCoalescer(refresh, min_gap_s=0.2)
        conn = Conn("a")
        async with anyio.create_task_group() as tg:
            for _ in range(1000):
                coalescer.ask(conn, tg.start_soon)
            await anyio.sleep(0.01)
            for _ in range(1000):  # while the first refresh runs
                coalescer.ask(conn, tg.start_soon)
        assert len(started) == 2 and coalescer.refreshes == {"a": 2}
        assert started[1] - started[0] >= 0.19

    run(body)


def test_servers_are_coalesced_apart_and_a_new_connection_starts_afresh() -> None:
    async def body() -> None:
        seen: list[str] = []

        async def refresh(conn: Conn) -> None:
            seen.append(conn.identity)

        coalescer = RefreshCoalescer(refresh, min_gap_s=0.0)
        old, other = Conn("a"), Conn("b")
        async with anyio.create_task_group() as tg:
            coalescer.ask(old, tg.start_soon)
            coalescer.ask(other, tg.start_soon)
        async with anyio.create_task_group() as tg:
            coalescer.forget("b")
            coalescer.ask(Conn("a"), tg.start_soon)  # reconnected: a new connection
        assert sorted(seen) == ["a", "a", "b"]

    run(body)


def test_a_forgotten_server_is_not_refreshed_again() -> None:
    async def body() -> None:
        seen: list[str] = []

        async def refresh(conn: Conn) -> None:
            seen.append(conn.identity)
            await anyio.sleep(0.05)
            coalescer.forget(conn.identity)  # retired while refreshing

        coalescer = RefreshCoalescer(refresh, min_gap_s=0.0)
        conn = Conn("a")
        async with anyio.create_task_group() as tg:
            coalescer.ask(conn, tg.start_soon)
            await anyio.sleep(0.01)
            coalescer.ask(conn, tg.start_soon)  # waits behind the running refresh
        assert seen == ["a"]

    run(body)
