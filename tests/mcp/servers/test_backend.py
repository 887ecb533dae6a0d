"""The deferred backend: built aside, started by the handshake or by the first call."""

import threading
import time

import anyio
import pytest

from lemon_core.mcp.servers.backend import Deferred, Found


class _Backend:
    def names(self) -> list[str]:
        return ["one"]

    def find(self, query: str | None) -> list[Found]:
        return [Found("one", "The one skill.")]

    def described(self) -> list[Found]:
        return self.find(None)

    def close(self) -> None:
        pass


def _counting() -> tuple[list[int], object]:
    built: list[int] = []

    def make() -> _Backend:
        built.append(threading.get_ident())
        return _Backend()

    return built, make


def test_a_backend_not_started_is_built_by_the_first_call() -> None:
    built, make = _counting()
    backend = Deferred(make, start=False)
    time.sleep(0.05)
    assert built == []
    assert backend.names() == ["one"] and len(built) == 1
    backend.start()  # once only
    assert backend.names() == ["one"] and len(built) == 1


def test_a_failed_build_is_raised_by_every_call() -> None:
    def make() -> _Backend:
        raise RuntimeError("no catalog")

    backend = Deferred(make, start=False)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="no catalog"):
            backend.find("x")


def test_the_handshake_starts_the_build_before_any_call() -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from lemon_core.mcp.servers.app import build_server

    built, make = _counting()
    backend = Deferred(make, start=False)
    server = build_server(backend, name="test", version="0")

    async def body() -> None:
        async with Client(server, mode="legacy") as client:
            assert client.server_capabilities is not None
            with anyio.fail_after(10):
                while not built:  # started by notifications/initialized, not by a call
                    await anyio.sleep(0.01)
            found = await client.call_tool("find_skills", {"query": "one"})
            assert found.structured_content == {"skills": [
                {"name": "one", "description": "The one skill."}]}

    anyio.run(body)
    assert len(built) == 1
