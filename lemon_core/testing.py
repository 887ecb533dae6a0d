"""Helpers for testing lemon plugins: yours, and lemon's own code that calls them.

Nothing here needs pytest; the helpers work with any test runner.

Test a plugin in-process, without installing it::

    from lemon_core.testing import inline_plugins
    import my_plugin

    def test_my_source_is_registered():
        plugins = inline_plugins(my_plugin)        # a fresh Plugins holding only my_plugin
        assert [s.name for s in plugins.sources()] == ["s3"]

Check that your installed distribution declares its entry points right (after
``pip install -e .``)::

    from lemon_core.testing import installed_plugins

    def test_entry_points_load():
        plugins = installed_plugins("lemon-s3-source")
        assert [info.name for info in plugins.infos] == ["sources.s3"]

Record observer events sent by lemon code under test::

    recorder = EventRecorder()
    plugins = inline_plugins(recorder)
    ...  # run code that calls plugins.notify_skill_loaded(...)
    assert [event.key for event in recorder.loaded] == ["demo"]

And fake an installed distribution (a ``.dist-info`` folder with entry points) for tests of
entry-point loading, without pip: :func:`write_distribution`, then put its folder on
``sys.path`` (``monkeypatch.syspath_prepend(folder)`` with pytest).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.hookspecs import hookimpl
from lemon_core.plugin_registry import (
    BUILTIN_DISTRIBUTION,
    INLINE_GROUP,
    PluginInfo,
    Plugins,
    normalise_distribution,
)
from lemon_core.plugins import load_plugins


def inline_name(plugin: object) -> str:
    """The name :func:`inline_plugins` gives ``plugin``: ``inline.<module or class name>``."""
    if isinstance(plugin, (types.ModuleType, type)):
        short = plugin.__name__
    else:
        short = type(plugin).__name__
    return f"{INLINE_GROUP}.{short}"


def _neutral_context() -> LemonContext:
    """A context with an empty environment, so no LEMON_* switch of the caller leaks in."""
    return LemonContext.from_environment(env={})


def inline_plugins(
    *plugins: object | tuple[str, object],
    builtins: bool = False,
    ctx: LemonContext | None = None,
) -> Plugins:
    """A fresh :class:`Plugins` holding the given plugin objects (modules, classes or instances).

    :param plugins: plugin objects, each named :func:`inline_name` of it, or ``(name, object)``
        pairs to choose the name (needed for two instances of one class).
    :param builtins: also load lemon-core's own plugins from their entry points (never a
        third party's).
    :param ctx: the context whose ``LEMON_DISABLE_PLUGINS`` applies; by default an empty
        environment, whatever the test process has set.
    """
    pairs = [item if isinstance(item, tuple) else (inline_name(item), item) for item in plugins]
    return load_plugins(
        ctx or _neutral_context(),
        builtins_only=builtins,
        distributions=None if builtins else (),
        extra=pairs,
    )


@contextlib.contextmanager
def registered(plugins: Plugins, plugin: object, name: str | None = None) -> Iterator[PluginInfo]:
    """Register ``plugin`` on ``plugins`` for the ``with`` block, then unregister it.

    Yields the plugin's :class:`~lemon_core.plugin_registry.PluginInfo`.
    """
    name = name or inline_name(plugin)
    info = plugins.register(plugin, name)
    if info is None:
        raise ValueError(f"plugin name {name} is blocked in this Plugins")
    try:
        yield info
    finally:
        plugins.unregister(name)


def installed_plugins(
    *distributions: str, builtins: bool = False, ctx: LemonContext | None = None
) -> Plugins:
    """Load only the entry points of the named installed distributions (and, with
    ``builtins=True``, lemon-core's), as ``lemon`` would; raises ``PluginError`` like it."""
    wanted = set(distributions) | ({BUILTIN_DISTRIBUTION} if builtins else set())
    return load_plugins(ctx or _neutral_context(), builtins_only=False, distributions=wanted)


class EventRecorder:
    """An observer plugin that keeps every event it is sent, in order."""

    def __init__(self) -> None:
        self.loaded: list[Any] = []
        self.written: list[Any] = []

    @hookimpl
    def lemon_skill_loaded(self, event: Any) -> None:
        self.loaded.append(event)

    @hookimpl
    def lemon_skill_written(self, event: Any) -> None:
        self.written.append(event)


def write_distribution(
    site_dir: str | Path,
    name: str,
    version: str = "1.0",
    entry_points: Mapping[str, Mapping[str, str]] | None = None,
    files: Mapping[str, str] | None = None,
) -> Path:
    """Write a minimal installed distribution into ``site_dir`` and return ``site_dir``.

    :param name: the distribution name (``lemon-fake-plugin``).
    :param entry_points: ``{group: {entry point name: "module[:attr]"}}``.
    :param files: ``{relative path: text}`` written below ``site_dir`` (the plugin modules).

    The distribution is visible to ``importlib.metadata`` (and so to lemon) once ``site_dir``
    is on ``sys.path``; use a fresh module name per test, since imported modules stay cached
    in ``sys.modules``.
    """
    site = Path(site_dir)
    info_dir = site / f"{normalise_distribution(name).replace('-', '_')}-{version}.dist-info"
    info_dir.mkdir(parents=True, exist_ok=True)
    (info_dir / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = []
    for group, names in (entry_points or {}).items():
        lines.append(f"[{group}]")
        lines.extend(f"{ep_name} = {value}" for ep_name, value in names.items())
        lines.append("")
    (info_dir / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    for relative, text in (files or {}).items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return site


__all__ = [
    "EventRecorder",
    "inline_name",
    "inline_plugins",
    "installed_plugins",
    "registered",
    "write_distribution",
]
