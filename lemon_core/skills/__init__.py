"""Skills: discovery, manifests, catalog, status and settings.

The library API, under the spec's names (one name per function)::

    from lemon_core import skills
    listing = skills.list(cwd="/path/to/project")
    entry = skills.get("bun-file-io")
    status = skills.status("k8s-rollout", verify=True)
    skills.disable("noisy-skill")          # global skills.json
    skills.enable("noisy-skill", local=True)
    skills.refresh()

Each call builds a :class:`Workspace` for itself; a program making many calls (a server, an
agent harness) opens one and passes it, so the catalog, its views and the plugins are kept
between calls::

    workspace = skills.Workspace.open(cwd="/path/to/project")
    hits = skills.find_relevant("read a PDF", workspace=workspace)

The functions are defined in the modules of this package (:mod:`.api`, :mod:`.agent`,
:mod:`.installing`, :mod:`.updating`, :mod:`.scaffold`) and imported from here on first use,
so importing one submodule (the manifest parser, the install path) does not import the rest.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lemon_core.skills.agent import (
        find_relevant,
        prompt_listing,
        read_skill,
        resolve_skill_uri,
    )
    from lemon_core.skills.api import disable_skill as disable
    from lemon_core.skills.api import enable_skill as enable
    from lemon_core.skills.api import get_skill as get
    from lemon_core.skills.api import list_skills as list
    from lemon_core.skills.api import lock_record, refresh
    from lemon_core.skills.api import skill_status as status
    from lemon_core.skills.installing import install, preview
    from lemon_core.skills.installing import remove as uninstall
    from lemon_core.skills.scaffold import new_skill
    from lemon_core.skills.updating import check_upstream, outdated, sync, update
    from lemon_core.skills.workspace import Workspace

#: Public name -> (module of this package, its name there): each function has one public name.
_PUBLIC: dict[str, tuple[str, str]] = {
    "list": ("api", "list_skills"),
    "get": ("api", "get_skill"),
    "status": ("api", "skill_status"),
    "enable": ("api", "enable_skill"),
    "disable": ("api", "disable_skill"),
    "refresh": ("api", "refresh"),
    "lock_record": ("api", "lock_record"),
    "install": ("installing", "install"),
    "uninstall": ("installing", "remove"),
    "preview": ("installing", "preview"),
    "update": ("updating", "update"),
    "outdated": ("updating", "outdated"),
    "sync": ("updating", "sync"),
    "check_upstream": ("updating", "check_upstream"),
    "new_skill": ("scaffold", "new_skill"),
    "find_relevant": ("agent", "find_relevant"),
    "prompt_listing": ("agent", "prompt_listing"),
    "read_skill": ("agent", "read_skill"),
    "resolve_skill_uri": ("agent", "resolve_skill_uri"),
    "Workspace": ("workspace", "Workspace"),
}


def __getattr__(name: str) -> Any:
    # Deferred: importing a submodule (e.g. the manifest parser) must not pull in the API.
    if name in _PUBLIC:
        import importlib

        module, attr = _PUBLIC[name]
        return getattr(importlib.import_module(f"lemon_core.skills.{module}"), attr)
    raise AttributeError(f"module 'lemon_core.skills' has no attribute {name!r}")


def __dir__() -> builtins.list[str]:
    # The API is resolved lazily by ``__getattr__``; show it to ``dir()`` and completion too.
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = [
    "Workspace", "check_upstream", "disable", "enable", "find_relevant", "get", "install",
    "list", "lock_record", "new_skill", "outdated", "preview", "prompt_listing", "read_skill",
    "refresh", "resolve_skill_uri", "status", "sync", "uninstall", "update",
]
