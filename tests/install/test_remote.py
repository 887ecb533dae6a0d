"""search_remote asks every source and keeps each one's failure apart; browse calls a catalog."""

from __future__ import annotations

import threading

import pytest
from lemon_plugins.sources import builtin, hermes, registry

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.install.remote import RemoteSearch, SourceFailure, browse, search_remote
from lemon_core.protocols import SearchHit
from lemon_core.testing import inline_plugins
from tests.helpers import FakeSource
from tests.registry_server import WebServer, json_answer
from tests.registry_server import hermes as serve_hermes
from tests.registry_server import registry as serve_registry

pytestmark = pytest.mark.integration  # starts processes or loopback servers


class Failing(FakeSource):
    def __init__(self, name: str, error: Exception, order: int = 50) -> None:
        super().__init__(name, order)
        self.error = error

    def search(self, query, ctx, limit):
        raise self.error


class Many(FakeSource):
    def search(self, query, ctx, limit):
        return [SearchHit(f"many:{i}", f"s{i}", source=self.name) for i in range(limit + 5)]


class Slow(FakeSource):
    """Answers only once the other slow source has started: they must run at once."""

    barrier = threading.Barrier(2, timeout=5)

    def search(self, query, ctx, limit):
        self.barrier.wait()
        return [SearchHit(f"{self.name}:x", "x", source=self.name)]


def _plugin(*objects):
    class Plugin:
        @hookimpl
        def lemon_register_sources(self, register):
            for obj in objects:
                register(obj)

    return Plugin()


def _plugins(*objects):
    return inline_plugins(_plugin(*objects))


@pytest.fixture
def served(make_ctx):
    with WebServer() as server:
        env = serve_hermes(server, {
            "skills/research/arxiv/SKILL.md":
                b"---\nname: arxiv\ndescription: Search arXiv papers.\n---\nBody\n"})
        serve_registry(server, {"acme/research/arxiv-digest": {
            "description": "A daily arXiv digest.", "clone_url": "https://git.example/a.git"}})
        yield make_ctx(LEMON_REGISTRY_URL=server.url, **env)


def test_every_source_is_asked_and_hits_come_in_router_order(served):
    plugins = inline_plugins(builtin, hermes, registry)
    result = search_remote("arxiv", served, 5, plugins=plugins)
    assert [(h.source, h.identifier) for h in result.hits] == [
        ("hermes", "hermes:bundled/research/arxiv"), ("registry", "acme/research/arxiv-digest")]
    assert result.errors == ()


def test_one_failing_source_never_hides_the_others(served):
    plugins = inline_plugins(builtin, registry,
                             ("inline.down", _plugin(Failing("down", LemonError("down: 503")))),
                             ("inline.buggy", _plugin(Failing("buggy", KeyError("k"), 60))))
    result = search_remote("arxiv", served, 5, plugins=plugins)
    assert [h.identifier for h in result.hits] == ["acme/research/arxiv-digest"]
    assert result.errors == (SourceFailure("down", "down: 503"),
                             SourceFailure("buggy", "the source failed (KeyError: 'k')"))


def test_an_unreachable_registry_is_that_sources_error(make_ctx):
    ctx = make_ctx(LEMON_REGISTRY_URL="http://127.0.0.1:9")
    result = search_remote("writing", ctx, 5, plugins=inline_plugins(builtin, registry))
    assert [h.identifier for h in result.hits] == ["builtin:writing-skills"]
    assert [e.source for e in result.errors] == ["registry"]
    assert "cannot reach the server" in result.errors[0].message


def test_each_source_is_held_to_the_limit(make_ctx):
    result = search_remote("x", make_ctx(), 3, plugins=_plugins(Many("many")))
    assert len(result.hits) == 3


def test_sources_are_asked_at_once(make_ctx):
    result = search_remote("x", make_ctx(), 3, plugins=_plugins(Slow("a", 1), Slow("b", 2)))
    assert [h.identifier for h in result.hits] == ["a:x", "b:x"]


def test_no_source_no_hits(make_ctx):
    assert search_remote("x", make_ctx(), 3, plugins=_plugins()) == RemoteSearch(())


@pytest.mark.parametrize(("query", "limit"), [("", 5), ("  ", 5), ("x", 0)])
def test_bad_arguments(make_ctx, query, limit):
    with pytest.raises(UsageError):
        search_remote(query, make_ctx(), limit, plugins=_plugins())


def test_browse_calls_the_named_sources_catalog(served):
    rows = browse("hermes", served, plugins=inline_plugins(hermes), details=True)
    assert [(r["id"], r["description"]) for r in rows] == [
        ("hermes:bundled/research/arxiv", "Search arXiv papers.")]
    with pytest.raises(LemonError, match="no installed source named 'registry' has a catalog"):
        browse("registry", served, plugins=inline_plugins(registry))
    with pytest.raises(LemonError, match="'nope'"):
        browse("nope", served, plugins=inline_plugins(hermes))


def test_a_hit_without_an_identifier_is_dropped(make_ctx):
    class Odd(FakeSource):
        def search(self, query, ctx, limit):
            return [SearchHit("", "empty"), SearchHit("odd:1", "one")]

    assert [h.identifier for h in search_remote("x", make_ctx(), 5,
                                                plugins=_plugins(Odd("odd"))).hits] == ["odd:1"]


def test_json_answer_helper_is_json():
    assert json_answer({"a": 1}).body == b'{"a": 1}'
