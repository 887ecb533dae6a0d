"""The plugin manager: loading entry points, qualified names, switches, validation, errors.

Entry points are faked with real ``.dist-info`` folders on ``sys.path``
(:func:`lemon_core.testing.write_distribution`), so ``importlib.metadata`` finds them as it
would an installed plugin. Loads are restricted to the fake distributions (and lemon-core) so
that plugins installed in the developer's environment never leak in.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from lemon_core import hookimpl
from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError, PluginError
from lemon_core.plugins import GROUPS, INLINE_GROUP, Plugins, load_plugins, plugin_infos
from lemon_core.testing import (
    EventRecorder,
    inline_name,
    inline_plugins,
    installed_plugins,
    registered,
    write_distribution,
)
from tests.helpers import FakeSource

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "thirdparty_plugin"
FAKE = "lemon-fake"

SOURCE_MODULE = """
from lemon_core import hookimpl

class Source:
    order = 10
    def __init__(self, name):
        self.name = name
    def parse(self, identifier): return None
    def trust_level(self, ref): return "community"
    def fetch(self, ref, dest, ctx, progress): pass
    def upstream_hash(self, ref, ctx): return None
    def search(self, query, ctx, limit): return []

@hookimpl
def lemon_register_sources(register):
    register(Source({name!r}))
"""
IMPORTER_MODULE = """
from lemon_core import hookimpl

class Importer:
    name = {name!r}
    order = 10
    def import_scope(self, request): return []

@hookimpl
def lemon_register_mcp_importers(register):
    register(Importer())
"""
AUDITOR_MODULE = """
from lemon_core import hookimpl

class Auditor:
    name = {name!r}
    def audit(self, bundle): return []

@hookimpl
def lemon_register_auditors(register):
    register(Auditor())
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path for fake distributions; their modules are forgotten afterwards."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(root)):
            del sys.modules[name]


def ctx(**env: str) -> LemonContext:
    return LemonContext.from_environment(env=env)


def load(context: LemonContext | None = None, **kwargs) -> Plugins:
    """Load only the fake distributions (and lemon-core's built-ins if asked)."""
    kwargs.setdefault("distributions", {FAKE, "lemon-other"})
    return load_plugins(context or ctx(), **kwargs)


def names(plugins: Plugins) -> list[str]:
    return [info.name for info in plugins.infos]


def fake(site: Path, name: str = FAKE, version: str = "1.0", **modules: tuple[str, str]) -> None:
    """A fake distribution; each keyword is a module: ``mod=(entry point "group:name", text)``."""
    entry_points: dict[str, dict[str, str]] = {}
    files = {}
    for module, (where, text) in modules.items():
        group, _, ep_name = where.rpartition(":")
        entry_points.setdefault(group, {})[ep_name] = module
        files[f"{module}.py"] = text
    write_distribution(site, name, version, entry_points, files)


# -- loading and qualified names ----------------------------------------------------------------


def test_one_short_name_in_three_groups_loads_three_plugins(site):
    fake(
        site,
        fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")),
        fake_git_importer=("lemon.mcp_importers:git", IMPORTER_MODULE.format(name="git")),
        fake_git_auditor=("lemon.auditors:git", AUDITOR_MODULE.format(name="git")),
    )
    plugins = load()
    assert names(plugins) == ["auditors.git", "mcp_importers.git", "sources.git"]
    info = {i.name: i for i in plugins.infos}["sources.git"]
    assert info.group == "lemon.sources"
    assert info.entry_point == "fake_git_source"
    assert (info.distribution, info.version, info.builtin) == (FAKE, "1.0", False)
    assert info.hooks == ("lemon_register_sources",)
    assert [s.name for s in plugins.sources()] == ["git"]
    assert [i.name for i in plugins.mcp_importers()] == ["git"]
    assert [a.name for a in plugins.auditors()] == ["git"]
    assert plugin_infos(plugins) == list(plugins.infos)


def test_an_entry_point_may_name_an_object_in_a_module(site):
    text = (
        "from lemon_core import hookimpl\n\nclass Plugin:\n    @hookimpl\n"
        "    def lemon_skill_loaded(self, event):\n        pass\n\nPLUGIN = Plugin()\n"
    )
    write_distribution(
        site, FAKE, "1.0", {"lemon.auditors": {"obj": "fake_obj:PLUGIN"}}, {"fake_obj.py": text}
    )
    (info,) = load().infos
    assert (info.name, info.entry_point, info.hooks) == (
        "auditors.obj",
        "fake_obj:PLUGIN",
        ("lemon_skill_loaded",),
    )


def test_a_plugin_that_cannot_be_imported_fails_loudly_by_name(site):
    fake(site, fake_broken=("lemon.sources:broken", "raise ImportError('No module named boto3')\n"))
    with pytest.raises(PluginError) as caught:
        load()
    message = str(caught.value)
    assert message.startswith("plugin sources.broken (entry point 'fake_broken' of lemon-fake 1.0)")
    assert "ImportError: No module named boto3" in message
    assert "LEMON_DISABLE_PLUGINS=sources.broken" in message
    assert "\n" not in message
    assert isinstance(caught.value.__cause__, ImportError)


@pytest.mark.parametrize(
    "text, kind",
    [("def broken(:\n", "SyntaxError"), ("import sys\nsys.exit(3)\n", "SystemExit")],
)
def test_any_import_failure_is_a_plugin_error(site, text, kind):
    fake(site, fake_syntax=("lemon.auditors:bad", text))
    with pytest.raises(PluginError, match=f"plugin auditors.bad .* {kind}") as caught:
        load()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("how", ["env", "argument"])
def test_a_disabled_plugin_is_never_imported(site, how):
    fake(
        site,
        fake_boom=("lemon.sources:boom", "raise RuntimeError('must not be imported')\n"),
        fake_fine=("lemon.auditors:fine", AUDITOR_MODULE.format(name="fine")),
    )
    if how == "env":
        plugins = load(ctx(LEMON_DISABLE_PLUGINS=" sources.boom , "))
    else:
        plugins = load(disabled=["sources.boom"])
    assert names(plugins) == ["auditors.fine"]
    assert "fake_boom" not in sys.modules
    assert plugins.warnings == []


def test_disabling_one_group_keeps_the_same_short_name_in_another(site):
    fake(
        site,
        fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")),
        fake_git_auditor=("lemon.auditors:git", AUDITOR_MODULE.format(name="git")),
    )
    assert names(load(ctx(LEMON_DISABLE_PLUGINS="sources.git"))) == ["auditors.git"]


def test_disabling_by_short_name_is_an_error_that_suggests_the_qualified_one(site):
    fake(site, fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")))
    with pytest.raises(
        PluginError, match=r"LEMON_DISABLE_PLUGINS names 'git'.*did you mean sources.git\?"
    ):
        load(ctx(LEMON_DISABLE_PLUGINS="git"))
    with pytest.raises(PluginError, match=r"disabled names 'nonsense.x'"):
        load(disabled=["nonsense.x"])


def test_disabling_an_unknown_qualified_name_is_a_warning(site):
    fake(site, fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")))
    plugins = load(ctx(LEMON_DISABLE_PLUGINS="sources.gti"))
    assert names(plugins) == ["sources.git"]
    assert plugins.warnings == [
        "LEMON_DISABLE_PLUGINS names sources.gti, but no installed plugin has that name; see "
        "`lemon plugins list`"
    ]


def test_builtins_only_switch(site):
    fake(site, fake_s3_source=("lemon.sources:s3", SOURCE_MODULE.format(name="s3")))
    both = {FAKE, "lemon-core"}
    on = ctx(LEMON_BUILTIN_PLUGINS_ONLY="1")
    assert all(info.builtin for info in load(on, distributions=both).infos)
    assert "sources.s3" not in names(load(on, distributions=both))
    assert "sources.s3" not in names(load(distributions=both, builtins_only=True))
    # The library argument overrides the environment.
    assert "sources.s3" in names(load(on, distributions=both, builtins_only=False))
    assert "sources.s3" in names(load(ctx(LEMON_BUILTIN_PLUGINS_ONLY="0"), distributions=both))
    with pytest.raises(PluginError, match="LEMON_BUILTIN_PLUGINS_ONLY must be 1 or 0"):
        load(ctx(LEMON_BUILTIN_PLUGINS_ONLY="maybe"))


def test_one_qualified_name_from_two_distributions_is_an_error(site):
    fake(site, fake_a=("lemon.sources:dup", SOURCE_MODULE.format(name="a")))
    fake(
        site,
        name="lemon-other",
        version="2.0",
        fake_b=("lemon.sources:dup", SOURCE_MODULE.format(name="b")),
    )
    with pytest.raises(PluginError) as caught:
        load()
    message = str(caught.value)
    assert message.startswith("plugin sources.dup is declared twice: by ")
    assert "lemon-fake 1.0 (fake_a)" in message and "lemon-other 2.0 (fake_b)" in message
    assert message.endswith("uninstall one of them")


def test_a_clash_can_be_escaped_by_disabling_or_filtering(site):
    fake(site, fake_a=("lemon.sources:dup", SOURCE_MODULE.format(name="a")))
    fake(site, name="lemon-other", fake_b=("lemon.sources:dup", SOURCE_MODULE.format(name="b")))
    assert names(load(ctx(LEMON_DISABLE_PLUGINS="sources.dup"))) == []
    assert names(load(distributions={FAKE})) == ["sources.dup"]
    assert "sources.dup" not in names(load(builtins_only=True, distributions=None))


def test_one_module_in_two_groups_is_an_error(site):
    write_distribution(
        site,
        FAKE,
        "1.0",
        {"lemon.sources": {"both": "fake_both"}, "lemon.auditors": {"both": "fake_both"}},
        {"fake_both.py": AUDITOR_MODULE.format(name="x")},
    )
    with pytest.raises(
        PluginError, match="plugin sources.both is the same object as plugin auditors.both"
    ):
        load()


def test_a_plugin_may_not_implement_another_groups_registration_hook(site):
    fake(site, fake_wrong=("lemon.sources:wrong", AUDITOR_MODULE.format(name="x")))
    with pytest.raises(
        PluginError,
        match="plugin sources.wrong \\(group lemon.sources\\) implements lemon_register_auditors, "
        "which belongs to group lemon.auditors",
    ):
        load()


def test_observers_may_live_in_any_group(site):
    observer = "\n@hookimpl\ndef lemon_skill_written(event):\n    pass\n"
    fake(site, fake_obs=("lemon.auditors:obs", AUDITOR_MODULE.format(name="obs") + observer))
    (info,) = load().infos
    assert info.hooks == ("lemon_register_auditors", "lemon_skill_written")


def test_an_unknown_hook_is_an_error_naming_the_plugin(site):
    typo = "from lemon_core import hookimpl\n\n@hookimpl\ndef lemon_register_source(register):\n"
    typo += "    pass\n"
    fake(site, fake_typo=("lemon.sources:typo", typo))
    with pytest.raises(
        PluginError, match="plugin sources.typo implements unknown hook lemon_register_source"
    ):
        load()


def test_an_optional_unknown_hook_is_allowed(site):
    future = (
        "from lemon_core import hookimpl\n\n@hookimpl(optionalhook=True)\n"
        "def lemon_from_the_future(register):\n    pass\n"
    )
    fake(site, fake_future=("lemon.sources:future", future))
    (info,) = load().infos
    assert info.hooks == ("lemon_from_the_future",)


def test_a_hook_function_without_hookimpl_is_an_error(site):
    fake(
        site, fake_bare=("lemon.sources:bare", "def lemon_register_sources(register):\n    pass\n")
    )
    with pytest.raises(
        PluginError, match="plugin sources.bare defines lemon_register_sources without @hookimpl"
    ):
        load()


def test_a_hook_with_an_argument_the_spec_lacks_is_an_error(site):
    text = "from lemon_core import hookimpl\n\n@hookimpl\n"
    text += "def lemon_register_sources(register, colour):\n    pass\n"
    fake(site, fake_args=("lemon.sources:args", text))
    with pytest.raises(PluginError, match="plugin sources.args could not be registered: .*colour"):
        load()


def test_inline_extra_plugins_are_registered_and_can_be_disabled(site):
    recorder = EventRecorder()
    plugins = load(extra=[("inline.rec", recorder)])
    assert [(i.name, i.group) for i in plugins.infos] == [("inline.rec", INLINE_GROUP)]
    assert (
        load(ctx(LEMON_DISABLE_PLUGINS="inline.rec"), extra=[("inline.rec", recorder)]).infos == ()
    )


# -- the registry: registration hooks -----------------------------------------------------------


class Aud:
    def __init__(self, name: str, order: int | None = None) -> None:
        self.name = name
        if order is not None:
            self.order = order

    def audit(self, bundle):
        return []


def registers(*objects: object, hook: str = "lemon_register_sources") -> object:
    """A plugin object whose registration hook registers ``objects``."""

    def impl(register):
        for obj in objects:
            register(obj)

    return type(
        f"Registers{len(objects)}", (), {hook: staticmethod(hookimpl(specname=hook)(impl))}
    )()


def test_duplicate_object_names_are_an_error_naming_both_plugins():
    plugins = inline_plugins(
        ("inline.a", registers(FakeSource("git"))), ("inline.b", registers(FakeSource("git")))
    )
    with pytest.raises(PluginError) as caught:
        plugins.sources()
    message = str(caught.value)
    assert "two sources are named 'git'" in message
    assert "inline.a" in message and "inline.b" in message


@pytest.mark.parametrize(
    "obj, fragment",
    [
        (FakeSource(""), "registered a source without a name"),
        (FakeSource("x", order=None), "registered source 'x' without an int 'order'"),
        (FakeSource("x", order=True), "registered source 'x' without an int 'order'"),
        (FakeSource("x", order="1"), "registered source 'x' without an int 'order'"),
        (
            Aud("y", 5),
            "registered source 'y' without parse, trust_level, fetch, upstream_hash, search",
        ),
    ],
)
def test_registered_objects_are_checked(obj, fragment):
    plugins = inline_plugins(("inline.p", registers(obj)))
    with pytest.raises(PluginError, match=f"plugin inline.p {fragment}"):
        plugins.sources()


def test_objects_are_ordered_by_order_then_name_whatever_the_registration_order():
    plugins = inline_plugins(
        ("inline.a", registers(FakeSource("zeta", 20), FakeSource("beta", 30))),
        ("inline.b", registers(FakeSource("alpha", 20), FakeSource("first", 0))),
    )
    assert [s.name for s in plugins.sources()] == ["first", "alpha", "zeta", "beta"]
    auditors = inline_plugins(
        ("inline.a", registers(Aud("b"), Aud("a"), Aud("early", 1), hook="lemon_register_auditors"))
    ).auditors()
    assert [a.name for a in auditors] == ["early", "a", "b"]


def test_a_registration_hook_that_raises_is_a_plugin_error_naming_it():
    class Raises:
        @hookimpl
        def lemon_register_auditors(self, register):
            raise KeyError("boom")

    plugins = inline_plugins(("inline.raises", Raises()))
    with pytest.raises(PluginError) as caught:
        plugins.auditors()
    assert str(caught.value) == (
        "plugin inline.raises failed in lemon_register_auditors: KeyError: 'boom'; fix it, or "
        "disable it with LEMON_DISABLE_PLUGINS=inline.raises"
    )
    assert isinstance(caught.value.__cause__, KeyError)


def test_register_only_works_while_the_hook_runs():
    kept = []

    class Keeps:
        @hookimpl
        def lemon_register_auditors(self, register):
            kept.append(register)

    plugins = inline_plugins(Keeps())
    assert plugins.auditors() == []
    with pytest.raises(PluginError, match="called register after lemon_register_auditors returned"):
        kept[0](Aud("late"))


def test_an_implementation_may_take_fewer_arguments_than_its_spec():
    calls = []

    class NoArgs:
        @hookimpl
        def lemon_register_sources(self):
            calls.append("sources")

        @hookimpl
        def lemon_skill_loaded(self):
            calls.append("loaded")

    plugins = inline_plugins(NoArgs())
    assert plugins.sources() == []
    assert plugins.notify_skill_loaded(object()) == []
    assert calls == ["sources", "loaded"]


def test_registration_hooks_run_once_until_the_plugins_change():
    calls = []

    class Counting:
        @hookimpl
        def lemon_register_sources(self, register):
            calls.append(1)
            register(FakeSource("counted"))

    plugins = inline_plugins(Counting())
    first = plugins.sources()
    assert plugins.sources() == first and len(calls) == 1
    first.clear()  # callers get their own list
    assert [s.name for s in plugins.sources()] == ["counted"]
    with registered(plugins, registers(FakeSource("more"))):
        assert [s.name for s in plugins.sources()] == ["counted", "more"]
    assert [s.name for s in plugins.sources()] == ["counted"]
    assert len(calls) == 3


def test_wrappers_are_rejected():
    class Wraps:
        @hookimpl(wrapper=True)
        def lemon_register_sources(self, register):
            return (yield)

    with pytest.raises(
        PluginError, match="plugin inline.Wraps implements lemon_register_sources as a wrapper"
    ):
        inline_plugins(Wraps())


def test_registry_membership_errors():
    plugins = Plugins()
    plugin = registers()
    plugins.register(plugin, "inline.one")
    with pytest.raises(PluginError, match="two plugins are named inline.one"):
        plugins.register(registers(), "inline.one")
    with pytest.raises(
        PluginError, match="plugin inline.two is the same object as plugin inline.one"
    ):
        plugins.register(plugin, "inline.two")
    with pytest.raises(NotFoundError, match="no plugin named inline.nope is registered"):
        plugins.unregister("inline.nope")
    plugins.unregister("inline.one")
    assert plugins.infos == ()
    plugins.manager.set_blocked("inline.blocked")
    assert plugins.register(registers(), "inline.blocked") is None


def test_a_failed_validation_leaves_the_registry_unchanged():
    class Typo:
        @hookimpl
        def lemon_skill_lodaed(self, event):
            pass

    plugins = Plugins()
    with pytest.raises(PluginError, match="unknown hook lemon_skill_lodaed"):
        plugins.register(Typo(), "inline.typo")
    assert plugins.infos == () and plugins.manager.get_plugin("inline.typo") is None


# -- the registry: observers --------------------------------------------------------------------


def test_a_failing_observer_is_reported_and_the_others_still_run(caplog):
    class Fails:
        @hookimpl
        def lemon_skill_written(self, event):
            raise OSError("disk full")

    recorder = EventRecorder()
    plugins = inline_plugins(recorder, Fails())
    with caplog.at_level(logging.WARNING, logger="lemon.plugins"):
        failures = plugins.notify_skill_written("event")
    assert recorder.written == ["event"]
    assert [(f.plugin, f.hook) for f in failures] == [("inline.Fails", "lemon_skill_written")]
    assert (
        failures[0].message
        == "plugin inline.Fails failed in lemon_skill_written: OSError: disk full"
    )
    assert "plugin inline.Fails failed in lemon_skill_written" in caplog.text


def test_observers_are_called_in_pluggy_order():
    order = []

    def observer(tag: str) -> object:
        class Observer:
            @hookimpl
            def lemon_skill_loaded(self, event):
                order.append(tag)

        return Observer()

    plugins = inline_plugins(
        ("inline.first", observer("first")), ("inline.second", observer("second"))
    )
    plugins.notify_skill_loaded("e")
    plugins.manager.hook.lemon_skill_loaded(event="e")
    assert order == ["second", "first", "second", "first"]


# -- lemon_core.testing -------------------------------------------------------------------------


def test_inline_names():
    import lemon_core.testing as module

    assert inline_name(module) == "inline.lemon_core.testing"
    assert inline_name(EventRecorder) == "inline.EventRecorder"
    assert inline_name(EventRecorder()) == "inline.EventRecorder"


def test_inline_plugins_hold_only_what_they_are_given(site):
    fake(site, fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")))
    plugins = inline_plugins(EventRecorder())
    assert names(plugins) == ["inline.EventRecorder"]
    info = plugins.infos[0]
    assert info.entry_point == "lemon_core.testing:EventRecorder()"
    assert (info.distribution, info.version, info.builtin) == (None, None, False)


def test_inline_plugins_with_builtins_adds_only_lemon_core(site, monkeypatch):
    fake(site, fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")))
    monkeypatch.setenv("LEMON_DISABLE_PLUGINS", "inline.EventRecorder")  # ignored: own context
    plugins = inline_plugins(EventRecorder(), builtins=True)
    others = [info for info in plugins.infos if info.group != INLINE_GROUP]
    assert all(info.builtin for info in others)
    assert "inline.EventRecorder" in names(plugins)
    blocked = inline_plugins(EventRecorder(), ctx=ctx(LEMON_DISABLE_PLUGINS="inline.EventRecorder"))
    assert blocked.infos == ()


def test_installed_plugins_loads_only_the_named_distribution(site):
    fake(site, fake_git_source=("lemon.sources:git", SOURCE_MODULE.format(name="git")))
    fake(
        site,
        name="lemon-other",
        fake_other=("lemon.auditors:other", AUDITOR_MODULE.format(name="o")),
    )
    assert names(installed_plugins("lemon_fake")) == ["sources.git"]
    assert {"sources.git", "auditors.other"} <= set(names(installed_plugins(FAKE, "lemon-other")))


def test_write_distribution_is_seen_by_importlib_metadata(site):
    import importlib.metadata

    write_distribution(site, "Lemon_Weird.Name", "3.1", {"lemon.sources": {"w": "w_mod"}})
    dist = importlib.metadata.distribution("lemon-weird-name")
    assert dist.version == "3.1"
    assert [(ep.group, ep.name, ep.value) for ep in dist.entry_points] == [
        ("lemon.sources", "w", "w_mod")
    ]


# -- docs ---------------------------------------------------------------------------------------


def test_the_docs_example_plugin_is_the_tested_fixture():
    docs = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    files = sorted(p for p in FIXTURE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert files, "the fixture plugin is missing"
    for path in files:
        text = path.read_text(encoding="utf-8").strip()
        assert text in docs, f"docs/plugins.md does not show {path.relative_to(FIXTURE)} verbatim"


def test_groups_are_the_four_families_and_the_observers():
    assert GROUPS == {
        "lemon.sources": "sources",
        "lemon.mcp_importers": "mcp_importers",
        "lemon.auditors": "auditors",
        "lemon.commands": "commands",
        "lemon.observers": "observers",
    }


# -- loading only the groups a command needs ----------------------------------------------------


def test_no_builtin_plugin_outside_the_observers_group_observes_events():
    """What lets load_plugins(needs=...) skip the built-ins of the other groups; the built-in
    observers (the usage sidecar) load whatever a command needs."""
    from lemon_core.hookspecs import OBSERVER_HOOKS

    infos = load_plugins(ctx(), builtins_only=True).infos
    assert {info.group for info in infos} == set(GROUPS)
    assert [(i.name, h) for i in infos for h in i.hooks if h in OBSERVER_HOOKS] == [
        ("observers.usage", "lemon_skill_loaded")]
    needed = load_plugins(ctx(), builtins_only=True, needs=("lemon.sources",))
    assert "observers.usage" in names(needed)


def test_needs_skips_the_builtins_of_other_groups_never_a_third_partys_observer(site):
    observer = ("\nSEEN = []\n\n@hookimpl\ndef lemon_skill_written(event):\n"
                "    SEEN.append(event)\n")
    fake(site, fake_watching_importer=(
        "lemon.mcp_importers:watching", IMPORTER_MODULE.format(name="watching") + observer))
    plugins = load_plugins(ctx(), needs=("lemon.sources", "lemon.auditors"))
    names_ = names(plugins)
    assert "mcp_importers.watching" in names_  # a third party's: it may observe
    assert [n for n in names_ if n.startswith("mcp_importers.")] == ["mcp_importers.watching"]
    assert {"sources.git", "auditors.code"} <= set(names_)
    plugins.notify_skill_written("event")
    assert sys.modules["fake_watching_importer"].SEEN == ["event"]
    assert plugins.sources() and plugins.auditors()
    with pytest.raises(PluginError, match="loaded without lemon's own MCP importers"):
        plugins.mcp_importers()
    assert load_plugins(ctx()).mcp_importers()  # all groups by default
