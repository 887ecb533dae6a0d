"""The ``mcp`` SDK, imported only when a server or client actually runs.

``mcp`` is an optional extra of lemon-core (``pip install 'lemon-core[mcp]'``); importing it
costs about a second, so nothing imports it at module level. :func:`require_sdk` imports it and
turns a missing or too old SDK into a :class:`McpSdkMissing` that says how to install it.
"""

from __future__ import annotations

from lemon_core.errors import LemonError

INSTALL_HINT = "pip install 'lemon-core[mcp]'"


class McpSdkMissing(LemonError):
    """The ``mcp`` SDK (2.x) is not installed."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the MCP Python SDK (mcp 2.x) is not installed ({detail}); install it "
                         f"with: {INSTALL_HINT}")


def require_sdk() -> None:
    """Import the SDK parts lemon uses, or raise :class:`McpSdkMissing`."""
    try:
        import mcp.server.lowlevel  # noqa: F401
        import mcp_types  # noqa: F401
    except ImportError as exc:
        raise McpSdkMissing(f"cannot import {exc.name or 'mcp'}") from None


#: The packages whose ``__init__`` a stdio server does not need (``mcp`` imports the whole
#: client, ``mcp.server`` the high-level ``MCPServer``): about a quarter of the SDK's import.
_DEFERRED_PACKAGES = ("mcp", "mcp.server")


def require_server_sdk() -> None:
    """:func:`require_sdk` for a stdio server: import only the modules a low-level
    ``Server`` on stdio uses, and not what the ``mcp`` and ``mcp.server`` packages import
    for everyone else (the client, ``MCPServer``).

    Each of those two packages is created from its own spec but its ``__init__`` is run only
    when a name it defines is first asked for (:func:`_complete`, a module ``__getattr__``), so
    ``from mcp import Client`` in the same process still works, only later. Where that cannot
    be arranged (the SDK already imported, or laid out otherwise) this is :func:`require_sdk`.
    """
    import sys

    if not any(name in sys.modules for name in _DEFERRED_PACKAGES):
        try:
            _defer_packages(sys.modules)
        except Exception:  # noqa: BLE001 - another layout: the plain import below
            for name in _DEFERRED_PACKAGES:
                sys.modules.pop(name, None)
    try:
        import mcp.server.lowlevel.server
        import mcp.server.stdio
        import mcp.shared.exceptions  # noqa: F401
    except ImportError as exc:
        raise McpSdkMissing(f"cannot import {exc.name or 'mcp'}") from None
    require_sdk()


def _defer_packages(modules: dict) -> None:
    import importlib.util

    for name in _DEFERRED_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not spec.submodule_search_locations:
            raise ImportError(name)
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _completer(module, spec)  # type: ignore[method-assign]
        modules[name] = module
        if "." in name:  # bind it on its parent, as an import would
            parent, _, child = name.rpartition(".")
            setattr(modules[parent], child, module)


def _completer(module: object, spec: object) -> object:
    busy: list[bool] = []

    def __getattr__(name: str) -> object:  # a module's __getattr__ (PEP 562)
        if busy or name.startswith("__"):
            raise AttributeError(name)
        busy.append(True)
        namespace = vars(module)
        namespace.pop("__getattr__", None)
        spec.loader.exec_module(module)  # type: ignore[attr-defined]
        try:
            return namespace[name]
        except KeyError:
            raise AttributeError(f"module {spec.name!r} has no attribute {name!r}") from None  # type: ignore[attr-defined]

    return __getattr__


__all__ = ["INSTALL_HINT", "McpSdkMissing", "require_sdk", "require_server_sdk"]
