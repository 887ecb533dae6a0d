"""The hook contract: one ``test_hook_<name>`` per hook, each hook documented (datasette style)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import lemon_core
from lemon_core import hookspecs
from lemon_core.errors import PluginError
from lemon_core.plugins import GROUPS, new_manager
from lemon_core.protocols import (
    AuditBundle,
    AuditFile,
    Finding,
    SkillLoadEvent,
    SkillWriteEvent,
    SourceRef,
)
from lemon_core.testing import EventRecorder, inline_plugins
from tests.helpers import FakeSource

hookimpl = lemon_core.hookimpl
DOCS = Path(__file__).resolve().parent.parent / "docs" / "plugins.md"
SPEC_MARK = f"{hookspecs.PROJECT_NAME}_spec"


def all_hooks() -> dict[str, object]:
    return {name: f for name, f in vars(hookspecs).items() if hasattr(f, SPEC_MARK)}


def signature(name: str) -> str:
    params = inspect.signature(all_hooks()[name]).parameters
    return f"{name}({', '.join(params)})"


# -- one test per hook --------------------------------------------------------------------------


class GitSource(FakeSource):
    def __init__(self) -> None:
        super().__init__("git", 10)

    def parse(self, identifier: str) -> SourceRef | None:
        if not identifier.startswith("git+"):
            return None
        return SourceRef(self.name, identifier, identifier, identifier.rsplit("/", 1)[-1])


class PathSource(FakeSource):
    def __init__(self) -> None:
        super().__init__("local", 60)

    def parse(self, identifier: str) -> SourceRef | None:
        return SourceRef(self.name, identifier, None, identifier)


def test_hook_lemon_register_sources():
    calls = []

    class Plugin:
        @hookimpl
        def lemon_register_sources(self, register):
            calls.append(register)
            register(PathSource())
            register(GitSource())

    plugins = inline_plugins(Plugin())
    sources = plugins.sources()
    assert [s.name for s in sources] == ["git", "local"]  # router order, not registration order
    routed = next(ref for s in sources if (ref := s.parse("git+https://h/x/skill")))
    assert routed.source == "git"
    plugins.sources()
    assert len(calls) == 1  # at most once per loaded set of plugins


def test_hook_lemon_register_mcp_importers():
    class Importer:
        order = 0

        def __init__(self, name: str, order: int) -> None:
            self.name, self.order = name, order

        def import_scope(self, request):
            return [f"{self.name}:{request}"]

    class Plugin:
        @hookimpl
        def lemon_register_mcp_importers(self, register):
            register(Importer("codex", 30))
            register(Importer("omp", 10))
            register(Importer("claude", 20))

    importers = inline_plugins(Plugin()).mcp_importers()
    assert [i.name for i in importers] == ["omp", "claude", "codex"]  # provider order
    assert importers[0].import_scope("project") == ["omp:project"]


def test_hook_lemon_register_auditors():
    class Secrets:
        name = "secrets"

        def audit(self, bundle):
            for file in bundle.files:
                if file.text and "AKIA" in file.text:
                    yield Finding(
                        "secrets.aws", "block", "an AWS key", file.path, auditor=self.name
                    )

    class Size:
        name = "size"

        def audit(self, bundle):
            return [
                Finding("size.big", "warn", "big file", f.path) for f in bundle.files if f.size > 10
            ]

    class One:
        @hookimpl
        def lemon_register_auditors(self, register):
            register(Size())

    class Two:
        @hookimpl
        def lemon_register_auditors(self, register):
            register(Secrets())

    bundle = AuditBundle("demo", Path("."), (AuditFile("SKILL.md", "AKIA" + "x" * 20, 24),))
    auditors = inline_plugins(One(), Two()).auditors()
    assert [a.name for a in auditors] == ["secrets", "size"]  # every auditor, by name
    findings = [f.rule for a in auditors for f in a.audit(bundle)]
    assert findings == ["secrets.aws", "size.big"]


def test_hook_lemon_register_commands():
    from lemon_core.cli.plugin_commands import Kit
    from lemon_core.protocols import CliCommand

    def greet() -> None:
        """Say hello."""

    class Greeter:
        @hookimpl
        def lemon_register_commands(self, register, kit):
            assert kit.one_line("a\n  b") == "a b"  # the kit lemon hands the hook
            register(CliCommand("greet", greet, group="skill", short_help="Say hello."))

    class Top:
        @hookimpl
        def lemon_register_commands(self, register):  # the kit is opt-in
            register(CliCommand("wave", greet, group=""))

    plugins = inline_plugins(Greeter(), Top())
    commands = plugins.commands(Kit())
    assert sorted(c.path for c in commands) == ["skill greet", "wave"]
    assert sorted(plugins.command_owners(Kit()).values()) == [["skill greet"], ["wave"]]


def test_hook_lemon_skill_loaded():
    class Broken:
        @hookimpl
        def lemon_skill_loaded(self, event):
            raise RuntimeError("observer bug")

    recorder = EventRecorder()
    plugins = inline_plugins(recorder, Broken())
    event = SkillLoadEvent(key="demo", found=True, path="/s/demo/SKILL.md", tool_call_id="t1")
    failures = plugins.notify_skill_loaded(event)
    assert recorder.loaded == [event] and recorder.written == []
    assert [f.plugin for f in failures] == ["inline.Broken"]
    assert not hasattr(event, "body") and not hasattr(event, "text")  # never the body


def test_hook_lemon_skill_written():
    recorder = EventRecorder()
    plugins = inline_plugins(recorder)
    refused = SkillWriteEvent(key="demo", action="install", accepted=False, reason="blocked")
    assert plugins.notify_skill_written(refused) == []
    assert recorder.written == [refused] and recorder.loaded == []
    assert not hasattr(refused, "body") and not hasattr(refused, "contents")


# -- meta-tests ---------------------------------------------------------------------------------


def test_every_hook_has_a_test():
    tests = {name for name in globals() if name.startswith("test_hook_")}
    missing = sorted(
        f"test_hook_{name}" for name in all_hooks() if f"test_hook_{name}" not in tests
    )
    assert not missing, f"write {', '.join(missing)} in tests/test_hookspecs.py"
    stale = sorted(t for t in tests if t.removeprefix("test_hook_") not in all_hooks())
    assert not stale, f"tests for hooks that no longer exist: {stale}"


@pytest.mark.parametrize("name", sorted(all_hooks()))
def test_every_hook_has_a_signature_heading_in_the_plugin_guide(name):
    headings = re.findall(r"^#{2,4} `?([a-z_]+\([^)]*\))`?\s*$", DOCS.read_text("utf-8"), re.M)
    assert signature(name) in headings, f"docs/plugins.md needs a heading '### {signature(name)}'"


def test_the_plugin_guide_documents_no_hook_that_does_not_exist():
    headings = re.findall(r"^#{2,4} `?(lemon_[a-z_]+)\(", DOCS.read_text("utf-8"), re.M)
    assert sorted(set(headings)) == sorted(all_hooks())


@pytest.mark.parametrize("name", sorted(all_hooks()))
def test_every_hook_docstring_documents_params_and_returns(name):
    function = all_hooks()[name]
    doc = inspect.getdoc(function) or ""
    for param in inspect.signature(function).parameters:
        assert f":param {param}:" in doc, f"{name} does not document {param}"
    assert ":returns:" in doc
    assert "Called " in doc, f"{name} does not say when it is called"
    opts = getattr(function, SPEC_MARK)
    assert not opts.get("firstresult") and not opts.get("historic")  # every implementation runs


def test_hooks_are_registration_hooks_or_observers():
    # every group has its registration hook, but the observers' group: it only observes
    assert set(hookspecs.REGISTRATION_HOOKS) == set(GROUPS) - {hookspecs.OBSERVER_GROUP}
    assert set(hookspecs.REGISTRATION_HOOKS.values()) | set(hookspecs.OBSERVER_HOOKS) == set(
        all_hooks()
    )
    for name in hookspecs.REGISTRATION_HOOKS.values():
        params = list(inspect.signature(all_hooks()[name]).parameters)
        assert params[0] == "register"
        assert params == (["register", "kit"] if name == "lemon_register_commands"
                          else ["register"])


def test_the_manager_knows_every_hook_and_lemon_core_exports_hookimpl():
    manager = new_manager()
    assert {name for name in all_hooks() if getattr(manager.hook, name).has_spec()} == set(
        all_hooks()
    )
    assert lemon_core.hookimpl is hookspecs.hookimpl
    assert set(hookspecs.__all__) >= set(all_hooks())


def test_hookimpl_of_another_project_is_not_a_lemon_hook():
    import pluggy

    other = pluggy.HookimplMarker("other")

    class Plugin:
        @other
        def lemon_register_sources(self, register):
            pass

    with pytest.raises(PluginError, match="defines lemon_register_sources without @hookimpl"):
        inline_plugins(Plugin())
