"""The plugin loader: finds lemon's entry points and registers them under qualified names.

Entry points of ``lemon.sources``, ``lemon.mcp_importers`` and ``lemon.auditors`` are
registered under qualified names (``sources.git``, ``mcp_importers.codex``) so equal short names
in two groups never shadow each other. Environment (read from the :class:`LemonContext`):

- ``LEMON_DISABLE_PLUGINS``: comma list of qualified names that are not even imported;
- ``LEMON_BUILTIN_PLUGINS_ONLY=1``: load only the plugins shipped in ``lemon-core``.

A plugin that cannot be imported, is declared twice, or is invalid raises
:class:`~lemon_core.errors.PluginError` whose message names the plugin and says what to do.
The loaded plugins come back as a :class:`~lemon_core.plugin_registry.Plugins` (re-exported
here, with the rest of the registry's public names).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs
import pluggy

from lemon_core.entry_points import EntryPoint, entry_points
from lemon_core.errors import PluginError
from lemon_core.hookspecs import OBSERVER_GROUP
from lemon_core.plugin_registry import (
    BUILTIN_DISTRIBUTION,
    DISABLE_ENV,
    INLINE_GROUP,
    HookFailure,
    PluginInfo,
    Plugins,
    new_manager,
    normalise_distribution,
    one_line,
)

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

#: Entry-point group → the kind used in qualified names.
GROUPS: dict[str, str] = {
    "lemon.sources": "sources",
    "lemon.mcp_importers": "mcp_importers",
    "lemon.auditors": "auditors",
    "lemon.commands": "commands",
    "lemon.observers": "observers",
}
BUILTINS_ONLY_ENV = "LEMON_BUILTIN_PLUGINS_ONLY"


@attrs.frozen
class _Candidate:
    qualified: str
    group: str
    entry_point: EntryPoint
    distribution: str | None
    version: str | None

    @property
    def where(self) -> str:
        return f"{self.distribution or 'an unknown distribution'} {self.version or ''}".rstrip()


def _scan() -> list[_Candidate]:
    """Every entry point of the three groups, sorted by qualified name
    (:mod:`lemon_core.entry_points`: one read of each distribution that declares one)."""
    found = [_Candidate(f"{GROUPS[ep.group]}.{ep.name}", ep.group, ep, ep.distribution,
                        ep.version) for ep in entry_points(GROUPS)]
    return sorted(found, key=lambda cand: cand.qualified)


def _check_unique(candidates: Sequence[_Candidate]) -> None:
    """Two distributions declaring one qualified name is an error naming both."""
    seen: dict[str, _Candidate] = {}
    for cand in candidates:
        first = seen.setdefault(cand.qualified, cand)
        if first is not cand:
            raise PluginError(
                f"plugin {cand.qualified} is declared twice: by {first.where} "
                f"({first.entry_point.value}) and by {cand.where} ({cand.entry_point.value}); "
                "uninstall one of them"
            )


def _builtin(cand: _Candidate) -> bool:
    return normalise_distribution(cand.distribution or "") == BUILTIN_DISTRIBUTION


def _import(cand: _Candidate) -> object:
    ep = cand.entry_point
    try:
        return ep.load()
    except (Exception, SystemExit) as exc:  # a broken plugin fails loudly, by name
        raise PluginError(
            f"plugin {cand.qualified} (entry point {ep.value!r} of {cand.where}) could not be "
            f"imported: {type(exc).__name__}: {one_line(exc)}; fix or uninstall "
            f"{cand.distribution or 'it'}, or skip it with {DISABLE_ENV}={cand.qualified}"
        ) from exc


def _blocked_names(
    sources: Iterable[tuple[str, Iterable[str]]], known: set[str], warnings: list[str]
) -> set[str]:
    """The names to block; a malformed name is an error, an unknown one a warning."""
    kinds = {*GROUPS.values(), INLINE_GROUP}
    blocked: set[str] = set()
    for origin, names in sources:
        for name in names:
            kind, _, short = name.partition(".")
            if name not in known and (kind not in kinds or not short):
                hint = " or ".join(sorted(k for k in known if k.partition(".")[2] == name))
                raise PluginError(
                    f"{origin} names {name!r}, which is not a qualified plugin name "
                    f"(<kind>.<name>, kind one of {', '.join(GROUPS.values())})"
                    + (f"; did you mean {hint}?" if hint else "; see `lemon plugins list`")
                )
            if name not in known:
                warnings.append(
                    f"{origin} names {name}, but no installed plugin has that name; see "
                    "`lemon plugins list`"
                )
            blocked.add(name)
    return blocked


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _wanted(
    ctx: LemonContext, builtins_only: bool | None, distributions: Iterable[str] | None
) -> set[str] | None:
    """The distributions whose entry points load, or None for all of them."""
    if builtins_only is None:
        builtins_only = ctx.flag(BUILTINS_ONLY_ENV)
        if builtins_only is None and ctx.getenv(BUILTINS_ONLY_ENV) is not None:
            raise PluginError(
                f"{BUILTINS_ONLY_ENV} must be 1 or 0, not {ctx.getenv(BUILTINS_ONLY_ENV)!r}"
            )
    wanted = None if distributions is None else {normalise_distribution(d) for d in distributions}
    if builtins_only:
        wanted = {BUILTIN_DISTRIBUTION} if wanted is None else wanted & {BUILTIN_DISTRIBUTION}
    return wanted


def load_plugins(
    ctx: LemonContext | None = None,
    *,
    builtins_only: bool | None = None,
    disabled: Iterable[str] | None = None,
    distributions: Iterable[str] | None = None,
    extra: Iterable[tuple[str, object]] = (),
    needs: Iterable[str] | None = None,
) -> Plugins:
    """Load every plugin of the three groups and validate them.

    :param ctx: where to read ``LEMON_DISABLE_PLUGINS`` and ``LEMON_BUILTIN_PLUGINS_ONLY``
        from (defaults to the process environment).
    :param builtins_only: load only ``lemon-core``'s own plugins (overrides the environment;
        False loads every distribution even when the environment says built-ins only).
    :param disabled: qualified names to skip (added to the environment's list).
    :param distributions: load only the entry points of these distributions.
    :param extra: ``(name, plugin object)`` pairs registered in-process (group ``inline``),
        for embedders and tests.
    :param needs: the groups the caller uses (default: all three). lemon's own plugins of the
        other groups are then not imported: none of them observes an event (a test keeps it
        so), and a command that does not use them should not pay for them (the built-in MCP
        importers were ~4% of ``lemon skill install``). Third-party plugins of every group
        still load, since any of them may observe the events the command sends. Asking the
        returned registry for a family it was not loaded for raises :class:`PluginError`.
    :raises PluginError: naming the plugin, when one cannot be imported or is invalid.
    """
    if ctx is None:
        from lemon_core.context import LemonContext

        ctx = LemonContext.from_environment()
    extra = list(extra)
    candidates = _scan()
    plugins = Plugins()
    known = {cand.qualified for cand in candidates} | {name for name, _ in extra}
    blocked = _blocked_names(
        [(DISABLE_ENV, _split(ctx.getenv(DISABLE_ENV))), ("disabled", disabled or ())],
        known,
        plugins.warnings,
    )
    wanted = _wanted(ctx, builtins_only, distributions)
    for name in blocked:
        plugins.manager.set_blocked(name)
    # lemon's own observers (the usage sidecar) load whatever the command needs: every
    # command that sends an event must reach them.
    unused = set() if needs is None else set(GROUPS) - set(needs) - {OBSERVER_GROUP}
    plugins.partial = frozenset(GROUPS[group] for group in unused)
    chosen = [
        cand
        for cand in candidates
        if cand.qualified not in blocked  # a blocked plugin is never imported
        and (wanted is None or normalise_distribution(cand.distribution or "") in wanted)
        and not (cand.group in unused and _builtin(cand))
    ]
    _check_unique(chosen)
    for cand in chosen:
        plugins.register(
            _import(cand),
            cand.qualified,
            group=cand.group,
            entry_point=cand.entry_point.value,
            distribution=cand.distribution,
            version=cand.version,
        )
    for name, obj in extra:
        plugins.register(obj, name)
    try:
        plugins.manager.check_pending()
    except pluggy.PluginValidationError as exc:  # register() checks each plugin; a safety net
        name = plugins.manager.get_name(exc.plugin) or repr(exc.plugin)
        raise PluginError(f"plugin {name} is invalid: {one_line(exc)}") from exc
    return plugins


def plugin_infos(plugins: Plugins) -> list[PluginInfo]:
    """Every loaded plugin, sorted by group then name (same as ``plugins.infos``)."""
    return list(plugins.infos)


__all__ = [
    "BUILTINS_ONLY_ENV",
    "BUILTIN_DISTRIBUTION",
    "DISABLE_ENV",
    "GROUPS",
    "INLINE_GROUP",
    "HookFailure",
    "PluginInfo",
    "Plugins",
    "load_plugins",
    "new_manager",
    "normalise_distribution",
    "plugin_infos",
]
