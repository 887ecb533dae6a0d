"""The registry of loaded plugins: a typed facade over lemon's hooks.

:class:`Plugins` holds the registered plugins (from entry points, see
:mod:`lemon_core.plugins`, or in-process), validates each one as it is registered (unknown,
unmarked or wrapper hooks, another group's registration hook), runs the registration hooks with
attribution to the plugin, and sends observer events so that one failing observer never stops
the others. Core code asks it for sources, importers and auditors and never calls
``manager.hook`` itself. Every problem is a :class:`~lemon_core.errors.PluginError` naming the
plugin and saying what to do.
"""

from __future__ import annotations

import logging
import re
import types
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from lemon_core import hookspecs
from lemon_core.errors import NotFoundError, PluginError

if TYPE_CHECKING:
    from lemon_core.protocols import Auditor, CliCommand, McpImporter, SkillSource

#: The group shown for plugins registered in-process (tests, embedders).
INLINE_GROUP = "inline"
BUILTIN_DISTRIBUTION = "lemon-core"
DISABLE_ENV = "LEMON_DISABLE_PLUGINS"

_log = logging.getLogger("lemon.plugins")


def normalise_distribution(name: str) -> str:
    """A distribution name in PEP 503 form (``Lemon_Core`` → ``lemon-core``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def one_line(text: object) -> str:
    """``text`` with all white space runs collapsed to one space (for one-line errors)."""
    return " ".join(str(text).split())


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
        """True for the plugins shipped in ``lemon-core`` itself."""
        dist = self.distribution
        return dist is not None and normalise_distribution(dist) == BUILTIN_DISTRIBUTION

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (keys: name, group, entry_point, distribution, version,
        builtin, hooks)."""
        return {
            "name": self.name,
            "group": self.group,
            "entry_point": self.entry_point,
            "distribution": self.distribution,
            "version": self.version,
            "builtin": self.builtin,
            "hooks": list(self.hooks),
        }


@attrs.frozen
class HookFailure:
    """An observer hook implementation raised; the other observers still ran."""

    plugin: str
    hook: str
    error: BaseException

    @property
    def message(self) -> str:
        return f"plugin {self.plugin} failed in {self.hook}: {type(self.error).__name__}: " + (
            one_line(self.error)
        )


@attrs.frozen
class _Family:
    hook: str
    label: str
    methods: tuple[str, ...]
    needs_order: bool
    #: The attribute two objects of the family may not share (a command's is its path).
    unique: str = "name"


#: Plugin kind → what its registration hook registers and what each object must have.
_FAMILIES: dict[str, _Family] = {
    "sources": _Family(
        "lemon_register_sources",
        "source",
        ("parse", "trust_level", "fetch", "upstream_hash", "search"),
        True,
    ),
    "mcp_importers": _Family(
        "lemon_register_mcp_importers", "MCP importer", ("import_scope",), True
    ),
    "auditors": _Family("lemon_register_auditors", "auditor", ("audit",), False),
    "commands": _Family("lemon_register_commands", "command", ("callback",), False, "path"),
}
_DEFAULT_ORDER = 1000
_HOOK_NAMES: tuple[str, ...] = tuple(
    name
    for name, value in vars(hookspecs).items()
    if hasattr(value, f"{hookspecs.PROJECT_NAME}_spec")
)


def new_manager() -> pluggy.PluginManager:
    """A pluggy manager that knows lemon's hook specifications and no plugin."""
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    return manager


@attrs.define
class Plugins:
    """The loaded plugins and a typed facade over their hooks.

    Build one with :func:`lemon_core.plugins.load_plugins` (entry points) or directly
    (``Plugins()`` is empty) and add in-process plugins with :meth:`register`;
    :mod:`lemon_core.testing` wraps both for tests.
    """

    manager: pluggy.PluginManager = attrs.field(factory=new_manager)
    #: Problems worth telling the user that did not stop loading (e.g. an unknown disabled name).
    warnings: list[str] = attrs.field(factory=list)
    #: The families (``mcp_importers``…) whose built-in plugins were not loaded
    #: (``load_plugins(needs=…)``): asking for one of them is an error, not a short list.
    partial: frozenset[str] = attrs.field(default=frozenset())
    _infos: dict[str, PluginInfo] = attrs.field(factory=dict, init=False)
    _cache: dict[str, tuple[Any, ...]] = attrs.field(factory=dict, init=False)
    #: Plugin -> the paths of the commands it registered (filled by :meth:`commands`).
    _owners: dict[str, list[str]] = attrs.field(factory=dict, init=False)

    # -- membership -------------------------------------------------------------------------

    @property
    def infos(self) -> tuple[PluginInfo, ...]:
        """Every registered plugin, sorted by group then name."""
        return tuple(sorted(self._infos.values(), key=lambda info: (info.group, info.name)))

    def register(
        self,
        plugin: object,
        name: str,
        *,
        group: str = INLINE_GROUP,
        entry_point: str | None = None,
        distribution: str | None = None,
        version: str | None = None,
    ) -> PluginInfo | None:
        """Register ``plugin`` (a module or object with ``@hookimpl`` functions) as ``name``.

        Returns None when ``name`` is blocked. Raises :class:`PluginError` naming the plugin
        when the name is taken, the object is already registered, a hook is unknown, unmarked
        or a wrapper, or the plugin implements another group's registration hook.
        """
        if self.manager.is_blocked(name):
            return None
        if name in self._infos or self.manager.get_plugin(name) is not None:
            raise PluginError(f"two plugins are named {name}; rename or uninstall one of them")
        other = self.manager.get_name(plugin)
        if other is not None:
            raise PluginError(
                f"plugin {name} is the same object as plugin {other}; each entry point must "
                "name its own module or object"
            )
        self._check_unmarked(plugin, name)
        try:
            self.manager.register(plugin, name=name)
        except (pluggy.PluginValidationError, ValueError) as exc:
            raise PluginError(
                f"plugin {name} could not be registered: {one_line(exc)}; check its hook "
                "implementations against lemon_core.hookspecs"
            ) from exc
        try:
            hooks = self._validate(plugin, name, group)
        except PluginError:
            self.manager.unregister(name=name)
            raise
        if entry_point is None:
            entry_point = _describe(plugin)
        info = PluginInfo(name, group, entry_point, distribution, version, hooks)
        self._infos[name] = info
        self._cache.clear()
        self._owners.clear()
        return info

    def unregister(self, name: str) -> None:
        """Remove the plugin registered as ``name``."""
        if name not in self._infos:
            raise NotFoundError(f"no plugin named {name} is registered")
        self.manager.unregister(name=name)
        del self._infos[name]
        self._cache.clear()
        self._owners.clear()

    def _check_unmarked(self, plugin: object, name: str) -> None:
        for hook in _HOOK_NAMES:
            attr = getattr(plugin, hook, None)
            if attr is None or attr is getattr(hookspecs, hook):  # absent, or the spec imported
                continue
            if callable(attr) and self.manager.parse_hookimpl_opts(plugin, hook) is None:
                raise PluginError(
                    f"plugin {name} defines {hook} without @hookimpl, so lemon would never "
                    "call it; decorate it with @lemon_core.hookimpl"
                )

    def _validate(self, plugin: object, name: str, group: str) -> tuple[str, ...]:
        own_hook = hookspecs.REGISTRATION_HOOKS.get(group)
        hooks = []
        for caller in self.manager.get_hookcallers(plugin) or ():
            impls = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
            if not caller.has_spec() and not all(impl.optionalhook for impl in impls):
                raise PluginError(
                    f"plugin {name} implements unknown hook {caller.name}; check the spelling "
                    "against lemon_core.hookspecs, or mark it @hookimpl(optionalhook=True) if "
                    "it is meant for a newer lemon"
                )
            if any(impl.wrapper or impl.hookwrapper for impl in impls):
                raise PluginError(
                    f"plugin {name} implements {caller.name} as a wrapper; lemon hooks are "
                    "plain functions, drop wrapper=True / hookwrapper=True"
                )
            if group == hookspecs.OBSERVER_GROUP and caller.name in _REGISTRATION:
                wanted = _REGISTRATION[caller.name]
                raise PluginError(
                    f"plugin {name} (group {group}) implements {caller.name}, but an observer "
                    f"only observes; declare a separate entry point in {wanted} for it"
                )
            if own_hook and caller.name in _REGISTRATION and caller.name != own_hook:
                wanted = _REGISTRATION[caller.name]
                raise PluginError(
                    f"plugin {name} (group {group}) implements {caller.name}, which belongs to "
                    f"group {wanted}; declare a separate entry point in {wanted} for it"
                )
            hooks.append(caller.name)
        return tuple(sorted(hooks))

    # -- the typed facade -------------------------------------------------------------------

    def sources(self) -> list[SkillSource]:
        """Registered skill sources, in router order (``order``, then name)."""
        return self._collect("sources")

    def mcp_importers(self) -> list[McpImporter]:
        """Registered MCP config importers, in provider order (``order``, then name)."""
        return self._collect("mcp_importers")

    def auditors(self) -> list[Auditor]:
        """Registered auditors, by ``order`` when they have one, then by name."""
        return self._collect("auditors")

    def commands(self, kit: Any = None) -> list[CliCommand]:
        """Commands plugins add to the CLI (``lemon_register_commands``), by name; ``kit`` is
        the :class:`~lemon_core.protocols.CommandKit` handed to each implementation."""
        return self._collect("commands", kit=kit)

    def command_owners(self, kit: Any = None) -> dict[str, list[str]]:
        """Plugin name -> the paths of the commands it adds (``["skill hermes"]``)."""
        self.commands(kit)
        return {owner: list(paths) for owner, paths in self._owners.items()}

    def observers(self) -> list[PluginInfo]:
        """The plugins that implement an observer hook (whatever their group)."""
        return [info for info in self.infos
                if any(hook in hookspecs.OBSERVER_HOOKS for hook in info.hooks)]

    def notify_skill_loaded(self, event: Any) -> list[HookFailure]:
        """Send a :class:`~lemon_core.protocols.SkillLoadEvent` to every observer.

        An observer that raises is logged and returned; the others still run.
        """
        return self._notify("lemon_skill_loaded", event=event)

    def notify_skill_written(self, event: Any) -> list[HookFailure]:
        """Send a :class:`~lemon_core.protocols.SkillWriteEvent` to every observer (as above)."""
        return self._notify("lemon_skill_written", event=event)

    # -- calling hooks ----------------------------------------------------------------------

    def _impls(self, hook: str) -> list[Any]:
        # pluggy calls the last registered implementation first; keep its order.
        return list(reversed(getattr(self.manager.hook, hook).get_hookimpls()))

    @staticmethod
    def _call(impl: Any, kwargs: dict[str, Any]) -> None:
        # Pass only the arguments the implementation names (pluggy's opt-in arguments).
        impl.function(*[kwargs[arg] for arg in impl.argnames])

    def _notify(self, hook: str, **kwargs: Any) -> list[HookFailure]:
        failures = []
        for impl in self._impls(hook):
            try:
                self._call(impl, kwargs)
            except Exception as exc:  # noqa: BLE001 - an observer never breaks the operation it observes
                failure = HookFailure(impl.plugin_name, hook, exc)
                _log.warning("%s", failure.message)
                failures.append(failure)
        return failures

    def _collect(self, kind: str, **extra: Any) -> list[Any]:
        if kind in self.partial:
            raise PluginError(
                f"these plugins were loaded without lemon's own {_FAMILIES[kind].label}s "
                "(load_plugins(needs=...)); load them with the group "
                f"lemon.{kind} among needs to use them"
            )
        if kind not in self._cache:
            self._cache[kind] = tuple(self._run_registration(_FAMILIES[kind], extra))
        return list(self._cache[kind])

    def _run_registration(self, family: _Family, extra: dict[str, Any]) -> list[Any]:
        found: list[tuple[Any, str]] = []
        for impl in self._impls(family.hook):
            owner = impl.plugin_name
            register = _Register(found, owner, family.hook)
            try:
                self._call(impl, {"register": register, **extra})
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {owner} failed in {family.hook}: {type(exc).__name__}: "
                    f"{one_line(exc)}; fix it, or disable it with {DISABLE_ENV}={owner}"
                ) from exc
            finally:
                register.open = False
        by_name: dict[str, str] = {}
        for obj, owner in found:
            _check_object(obj, owner, family)
            name = getattr(obj, family.unique)
            if name in by_name:
                raise PluginError(
                    f"two {family.label}s are named {name!r}: one from plugin {by_name[name]}, "
                    f"one from plugin {owner}; rename one, or disable a plugin with "
                    f"{DISABLE_ENV}=<qualified name>"
                )
            by_name[name] = owner
            if family.unique == "path":
                self._owners.setdefault(owner, []).append(name)
        found.sort(key=lambda pair: (getattr(pair[0], "order", _DEFAULT_ORDER), pair[0].name))
        return [obj for obj, _ in found]


_REGISTRATION: dict[str, str] = {
    hook: group for group, hook in hookspecs.REGISTRATION_HOOKS.items()
}


@attrs.define
class _Register:
    """The ``register`` callable handed to one registration hook implementation."""

    found: list[tuple[Any, str]]
    owner: str
    hook: str
    open: bool = True

    def __call__(self, obj: Any) -> None:
        if not self.open:
            raise PluginError(
                f"plugin {self.owner} called register after {self.hook} returned; register "
                "objects while the hook runs"
            )
        self.found.append((obj, self.owner))


def _check_object(obj: Any, owner: str, family: _Family) -> str:
    """The object's name, after checking it has what its family needs."""
    label = family.label
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise PluginError(
            f"plugin {owner} registered a {label} without a name; give it a non-empty str "
            "attribute 'name'"
        )
    order = getattr(obj, "order", None)
    if (order is None and family.needs_order) or (
        order is not None and (not isinstance(order, int) or isinstance(order, bool))
    ):
        raise PluginError(
            f"plugin {owner} registered {label} {name!r} without an int 'order'; give it one "
            "(see lemon_core.protocols)"
        )
    missing = [method for method in family.methods if not callable(getattr(obj, method, None))]
    if missing:
        raise PluginError(
            f"plugin {owner} registered {label} {name!r} without {', '.join(missing)}; "
            "implement the protocol of lemon_core.protocols"
        )
    return name


def _describe(plugin: object) -> str:
    """How an in-process plugin is shown in the entry-point column (like an entry point)."""
    if isinstance(plugin, types.ModuleType):
        return plugin.__name__
    if isinstance(plugin, type):
        return f"{plugin.__module__}:{plugin.__qualname__}"
    cls = type(plugin)
    return f"{cls.__module__}:{cls.__qualname__}()"


__all__ = [
    "BUILTIN_DISTRIBUTION",
    "INLINE_GROUP",
    "HookFailure",
    "PluginInfo",
    "Plugins",
    "new_manager",
    "normalise_distribution",
    "one_line",
]
