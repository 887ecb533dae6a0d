"""Skills: discovery, manifests, catalog, status and settings.

The library API, under the spec's names::

    from lemon_core import skills
    listing = skills.list(cwd="/path/to/project")
    entry = skills.get("bun-file-io")
    status = skills.status("k8s-rollout", verify=True)
    skills.disable("noisy-skill")          # global skills.json
    skills.enable("noisy-skill", local=True)
    skills.refresh()

The same functions live in :mod:`lemon_core.skills.api` as ``list_skills``, ``get_skill``, …
(both spellings are importable from here, and ``dir(lemon_core.skills)`` lists them).
"""

from __future__ import annotations

from typing import Any

_ALIASES = {
    "list": "list_skills",
    "get": "get_skill",
    "status": "skill_status",
    "enable": "enable_skill",
    "disable": "disable_skill",
    "refresh": "refresh",
    "lock_record": "lock_record",
    "install": "installing:install",
    "remove": "installing:remove",
    "preview": "installing:preview",
    "uninstall": "installing:remove",
    "list_skills": "list_skills",
    "get_skill": "get_skill",
    "skill_status": "skill_status",
    "enable_skill": "enable_skill",
    "disable_skill": "disable_skill",
    # "<module>:<name>": a function of another module of this package
    "find_relevant": "agent:find_relevant",
    "prompt_listing": "agent:prompt_listing",
    "read_skill": "agent:read_skill",
    "resolve_skill_uri": "agent:resolve_skill_uri",
    "update": "updating:update",
    "outdated": "updating:outdated",
    "sync": "updating:sync",
    "new": "scaffold:new_skill",
    "new_skill": "scaffold:new_skill",
    "check_upstream": "updating:check_upstream",
}


def __getattr__(name: str) -> Any:
    # Deferred: importing a submodule (e.g. the manifest parser) must not pull in the API.
    if name in _ALIASES:
        import importlib

        module, _, attr = _ALIASES[name].rpartition(":")
        return getattr(importlib.import_module(f"lemon_core.skills.{module or 'api'}"), attr)
    raise AttributeError(f"module 'lemon_core.skills' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The API is resolved lazily by ``__getattr__``; show it to ``dir()`` and completion too.
    return sorted(set(globals()) | set(_ALIASES))
