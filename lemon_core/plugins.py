"""The plugin manager: loads the entry-point groups and hands out the registered objects.

Entry points of ``lemon.sources``, ``lemon.mcp_importers`` and ``lemon.auditors`` are
registered under qualified names (``sources.git``, ``mcp_importers.codex``) so equal short names
in two groups never shadow each other. Environment:

- ``LEMON_DISABLE_PLUGINS``: comma list of qualified names that are not even imported;
- ``LEMON_BUILTIN_PLUGINS_ONLY=1``: load only the plugins shipped in ``lemon-core``.

A plugin that cannot be imported, or implements a hook that does not exist, raises
:class:`~lemon_core.errors.PluginError` naming it.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import pluggy

from lemon_core import hookspecs
from lemon_core.errors import PluginError

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import Auditor, McpImporter, SkillSource

#: Entry-point group → the kind used in qualified names.
GROUPS: dict[str, str] = {
    "lemon.sources": "sources",
    "lemon.mcp_importers": "mcp_importers",
    "lemon.auditors": "auditors",
}
BUILTIN_DISTRIBUTION = "lemon-core"

T = TypeVar("T")


def _entry_points(group: str) -> Sequence[importlib.metadata.EntryPoint]:
    """The installed entry points of ``group`` (a seam tests replace with fakes)."""
    return tuple(importlib.metadata.entry_points(group=group))


@attrs.frozen
class PluginInfo:
    """What ``lemon plugins list`` shows of one plugin."""

    name: str
    group: str
    entry_point: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]

    @property
    def builtin(self) -> bool:
        return self.distribution == BUILTIN_DISTRIBUTION


@attrs.define
class Plugins:
    """The loaded plugins and a typed facade over their hooks (core code never calls
    ``pm.hook`` directly)."""

    manager: pluggy.PluginManager
    infos: list[PluginInfo] = attrs.field(factory=list)

    def sources(self) -> list[SkillSource]:
        """Registered skill sources, in router order."""
        return self._collect("lemon_register_sources", "source")

    def mcp_importers(self) -> list[McpImporter]:
        """Registered MCP config importers, in provider order."""
        return self._collect("lemon_register_mcp_importers", "MCP importer")

    def auditors(self) -> list[Auditor]:
        """Registered auditors, in order (by ``order`` when they have one, then by name)."""
        return self._collect("lemon_register_auditors", "auditor")

    def notify_skill_loaded(self, event: Any) -> None:
        self.manager.hook.lemon_skill_loaded(event=event)

    def notify_skill_written(self, event: Any) -> None:
        self.manager.hook.lemon_skill_written(event=event)

    def _collect(self, hook_name: str, family: str) -> list[Any]:
        found: list[tuple[Any, str]] = []
        for impl in getattr(self.manager.hook, hook_name).get_hookimpls():
            owner = impl.plugin_name

            def register(obj: Any, _owner: str = owner) -> None:
                found.append((obj, _owner))

            impl.function(**{arg: register for arg in impl.argnames if arg == "register"})
        by_name: dict[str, str] = {}
        for obj, owner in found:
            name = getattr(obj, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginError(f"plugin {owner} registered a {family} without a name")
            if name in by_name:
                raise PluginError(
                    f"two {family}s are named {name!r}: one from plugin {by_name[name]}, one "
                    f"from plugin {owner}; disable one with LEMON_DISABLE_PLUGINS"
                )
            by_name[name] = owner
        found.sort(key=lambda pair: (getattr(pair[0], "order", 1000), pair[0].name))
        return [obj for obj, _ in found]


def _dist_of(ep: importlib.metadata.EntryPoint) -> tuple[str | None, str | None]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    return dist.metadata["Name"], dist.version


def _parse_names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


def new_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    return manager


def load_plugins(
    ctx: LemonContext | None = None,
    *,
    builtins_only: bool | None = None,
    disabled: Iterable[str] | None = None,
    extra: Iterable[tuple[str, object]] = (),
) -> Plugins:
    """Load every plugin of the three groups and validate them.

    :param ctx: where to read ``LEMON_DISABLE_PLUGINS`` and ``LEMON_BUILTIN_PLUGINS_ONLY``
        from (defaults to the process environment).
    :param builtins_only: load only ``lemon-core``'s own plugins (overrides the environment).
    :param disabled: qualified names to skip (added to the environment's list).
    :param extra: ``(qualified name, plugin object)`` pairs registered in-process, for
        embedders and tests.
    """
    if ctx is None:
        from lemon_core.context import LemonContext

        ctx = LemonContext.from_environment()
    blocked = _parse_names(ctx.getenv("LEMON_DISABLE_PLUGINS")) | set(disabled or ())
    if builtins_only is None:
        builtins_only = bool(ctx.flag("LEMON_BUILTIN_PLUGINS_ONLY"))

    manager = new_manager()
    plugins = Plugins(manager)
    for qualified in blocked:
        manager.set_blocked(qualified)
    for group, kind in GROUPS.items():
        for ep in _entry_points(group):
            qualified = f"{kind}.{ep.name}"
            dist_name, version = _dist_of(ep)
            if builtins_only and dist_name != BUILTIN_DISTRIBUTION:
                continue
            if manager.is_blocked(qualified) or manager.get_plugin(qualified) is not None:
                continue
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must fail loudly, by name
                raise PluginError(
                    f"plugin {qualified} (entry point {ep.value!r} of distribution "
                    f"{dist_name or 'unknown'}) could not be imported: "
                    f"{type(exc).__name__}: {exc}; fix or uninstall it, or skip it with "
                    f"LEMON_DISABLE_PLUGINS={qualified}"
                ) from exc
            _register(manager, module, qualified)
            plugins.infos.append(
                PluginInfo(qualified, group, ep.value, dist_name, version, _hooks_of(manager, qualified))
            )
    for qualified, obj in extra:
        if manager.is_blocked(qualified):
            continue
        _register(manager, obj, qualified)
        plugins.infos.append(
            PluginInfo(qualified, "inline", repr(obj), None, None, _hooks_of(manager, qualified))
        )
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {exc.plugin_name or exc.plugin!r} is invalid: {exc}") from exc
    return plugins


def _register(manager: pluggy.PluginManager, obj: object, qualified: str) -> None:
    try:
        manager.register(obj, name=qualified)
    except (pluggy.PluginValidationError, ValueError) as exc:
        raise PluginError(f"plugin {qualified} could not be registered: {exc}") from exc


def _hooks_of(manager: pluggy.PluginManager, qualified: str) -> tuple[str, ...]:
    plugin = manager.get_plugin(qualified)
    callers = manager.get_hookcallers(plugin) or []
    return tuple(sorted(caller.name for caller in callers))


def plugin_infos(plugins: Plugins) -> list[PluginInfo]:
    return sorted(plugins.infos, key=lambda info: (info.group, info.name))


__all__ = ["GROUPS", "PluginInfo", "Plugins", "load_plugins", "new_manager", "plugin_infos"]

