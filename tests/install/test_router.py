"""The router: sources by order, a third-party source routed like a built-in, the forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core import hookimpl
from lemon_core.errors import UsageError
from lemon_core.install import router
from lemon_core.protocols import SourceRef
from lemon_core.testing import inline_plugins
from tests.helpers import FakeSource

FIXTURES = Path(__file__).parent.parent / "fixtures" / "thirdparty_plugin"


class Claiming(FakeSource):
    def __init__(self, name: str, order: int, prefix: str) -> None:
        super().__init__(name, order)
        self.prefix = prefix
        self.forms = (f"{prefix}<x>",)

    def parse(self, identifier: str) -> SourceRef | None:
        if identifier.startswith(self.prefix):
            return SourceRef(self.name, identifier, identifier, identifier[len(self.prefix):])
        return None


class Bound(Claiming):
    def bind(self, ref: SourceRef, ctx) -> SourceRef:
        return SourceRef(ref.source, ref.identifier, f"bound:{ctx.cwd}", ref.name)


def _plugins(*sources):
    class Plugin:
        @hookimpl
        def lemon_register_sources(self, register):
            for source in sources:
                register(source)

    return inline_plugins(Plugin())


def test_the_lowest_order_that_accepts_wins(make_ctx) -> None:
    late, early = Claiming("late", 50, "x"), Claiming("early", 10, "x")
    source, ref = router.resolve("  xy  ", make_ctx(), plugins=_plugins(late, early))
    assert source is early and ref.identifier == "xy" and ref.name == "y"


def test_bind_makes_the_reference_canonical(make_ctx) -> None:
    ctx = make_ctx()
    _, ref = router.resolve("b:1", ctx, plugins=_plugins(Bound("b", 5, "b:")))
    assert ref.canonical_id == f"bound:{ctx.cwd}"


@pytest.mark.parametrize("identifier", ["nothing", "", "   "])
def test_an_unaccepted_identifier_lists_every_form(make_ctx, identifier) -> None:
    plugins = _plugins(Claiming("a", 1, "a:"), Claiming("b", 2, "b:"))
    with pytest.raises(UsageError, match="accepted forms: a:<x>; b:<x>"):
        router.resolve(identifier, make_ctx(), plugins=plugins)


def test_a_third_party_source_is_routed_and_installs(make_ctx, monkeypatch, home) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))
    from lemon_example_plugin import source as example

    from lemon_core.install import pipeline

    plugins = inline_plugins(("sources.example", example))
    ctx = make_ctx()
    source, ref = router.resolve("example:hello", ctx, plugins=plugins)
    assert source.name == "example" and ref.name == "hello"
    result = pipeline.install("example:hello", ctx, plugins=plugins, approve=True)
    assert result.key == "hello" and result.trust == "community"
    assert (home / ".lemon" / "agent" / "skill" / "hello" / "SKILL.md").is_file()


def test_the_installed_sources_route_their_own_forms(make_ctx) -> None:
    plugins = inline_plugins(builtins=True)
    names = {s.name for s in plugins.sources()}
    ctx = make_ctx()
    if "local" in names:
        assert router.resolve("./skill", ctx, plugins=plugins)[0].name == "local"
    if "gh" in names:
        assert router.resolve("gh:owner/repo", ctx, plugins=plugins)[0].name == "gh"
