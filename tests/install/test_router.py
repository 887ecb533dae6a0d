"""The router: sources by order, a third-party source routed like a built-in, the forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core import hookimpl
from lemon_core.errors import UsageError
from lemon_core.install import router
from lemon_core.install.pipeline import InstallRequest
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
    result = pipeline.install(InstallRequest("example:hello", approve=True), ctx, plugins)
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


# -- the typed shorthands (issue 18): owner/repo is GitHub, a folder is named with ./ ----------


def _real_sources():
    from lemon_plugins.sources import gh, local, registry

    return inline_plugins(("sources.gh", gh), ("sources.local", local),
                          ("sources.registry", registry))


@pytest.mark.parametrize(("typed", "expanded"), [
    ("anthropics/skills", "gh:anthropics/skills"),
    ("  openai/skills  ", "gh:openai/skills"),
    ("vercel-labs/agent-skills.git", "gh:vercel-labs/agent-skills.git"),
    ("gh:octo/skills", "gh:octo/skills"),
    ("./octo/skills", "./octo/skills"),
    ("official/tools/pdf", "official/tools/pdf"),
    ("octo/skills@v1", "octo/skills@v1"),
    ("-x/skills", "-x/skills"),
    ("my folder/x", "my folder/x"),
    ("octo/..", "octo/.."),
    ("builtin", "builtin"),
])
def test_the_github_shorthand_is_written_out(make_ctx, typed: str, expanded: str) -> None:
    assert router.shorthand(typed, make_ctx()) == expanded


def test_owner_repo_routes_to_the_gh_source(make_ctx) -> None:
    ctx = make_ctx()
    source, ref = router.resolve(router.shorthand("octo/skills", ctx), ctx,
                                 plugins=_real_sources())
    assert source.name == "gh"
    assert (ref.identifier, ref.canonical_id, ref.name, ref.subpath) == (
        "gh:octo/skills", "octo/skills", "skills", None)


def test_owner_repo_that_is_a_folder_here_names_both_readings(make_ctx, project: Path) -> None:
    (project / "octo" / "skills").mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        router.shorthand("octo/skills", make_ctx())
    assert str(caught.value) == ("./octo/skills is a folder here; use ./octo/skills for the "
                                 "folder or gh:octo/skills for GitHub")
    # both readings named in the message route as they say
    ctx = make_ctx()
    assert router.resolve(router.shorthand("./octo/skills", ctx), ctx,
                          plugins=_real_sources())[0].name == "local"
    assert router.resolve(router.shorthand("gh:octo/skills", ctx), ctx,
                          plugins=_real_sources())[0].name == "gh"


def test_a_file_of_that_name_is_not_a_folder(make_ctx, project: Path) -> None:
    (project / "octo").mkdir()
    (project / "octo" / "skills").write_text("x")
    assert router.shorthand("octo/skills", make_ctx()) == "gh:octo/skills"


def test_a_three_part_folder_is_not_taken_for_a_registry_ref(make_ctx, project: Path) -> None:
    ctx = make_ctx()
    source, ref = router.resolve(router.shorthand("a/b/c", ctx), ctx, plugins=_real_sources())
    assert source.name == "registry" and ref.identifier == "a/b/c"  # no such folder: a ref
    (project / "a" / "b" / "c").mkdir(parents=True)
    with pytest.raises(UsageError, match=r"use \./a/b/c for the folder"):
        router.shorthand("a/b/c", ctx)
    source, ref = router.resolve(router.shorthand("./a/b/c", ctx), ctx,
                                 plugins=_real_sources())
    assert source.name == "local" and ref.canonical_id == str(project / "a" / "b" / "c")


def test_a_recorded_identifier_is_routed_without_the_shorthand(make_ctx, project) -> None:
    """resolve() itself reads what a lockfile recorded, as it was recorded."""
    (project / "a" / "b" / "c").mkdir(parents=True)
    source, _ = router.resolve("a/b/c", make_ctx(), plugins=_real_sources())
    assert source.name == "registry"
