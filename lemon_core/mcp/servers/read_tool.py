"""The ``read_skill`` tool of ``lemon skill serve`` (and ``lemon mcp serve --skills``): the
agent API's :func:`lemon_core.skills.agent.read_skill` as the spec's agent tool.

Arguments: ``key`` (required), ``view`` (``full`` by default, ``summary``, ``section`` with
``section``, ``file`` with ``path``: a path relative to the skill folder), and the optional
``include_status``, ``include_manifest`` and ``max_chars``. The result (structured content and
the same JSON in a text block) is the read's ``key``, ``name``, ``view``, ``content``,
``truncated``, ``size_bytes``, ``directory``, ``files``, ``source``, ``trust_level``, and
``section`` / ``path`` / ``status`` / ``manifest`` when they apply. The backend reads through
the same first-load audit as ``load_skill`` (a blocked skill is withheld, a tool error); the
content comes defanged from the agent API and every other string is defanged here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemon_core.search.views import VIEWS
from lemon_core.text import defang

NAME = "read_skill"

DESCRIPTION = (
    "Read one skill by its key (as find_skills returns it) in a view: full (default, the whole "
    "SKILL.md), summary (name, description, the outline of its headings and its other files), "
    "section (the part under the heading given as section) or file (the file given as path, "
    "relative to the skill folder; nothing outside it is read). include_status adds what the "
    "skill needs and lacks, include_manifest its parsed front matter, max_chars cuts the "
    "content (saying so). An unknown key is an error that lists close keys."
)

SCHEMA = {"type": "object", "required": ["key"], "additionalProperties": False, "properties": {
    "key": {"type": "string", "description": "The skill's key, as find_skills returns it."},
    "view": {"type": "string", "enum": list(VIEWS), "default": "full",
             "description": "What to return: full, summary, section or file."},
    "section": {"type": "string",
                "description": "A heading of the skill (section view; case and punctuation "
                               "ignored)."},
    "path": {"type": "string",
             "description": "A file of the skill, relative to its folder (file view)."},
    "include_status": {"type": "boolean", "default": False,
                       "description": "Add the skill's readiness (what it needs, what is "
                                      "missing)."},
    "include_manifest": {"type": "boolean", "default": False,
                         "description": "Add the skill's parsed front matter."},
    "max_chars": {"type": "integer", "minimum": 0,
                  "description": "Cut the content to this many characters."},
}}

_KNOWN = frozenset(SCHEMA["properties"])


def read_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the backend's ``read`` for a tool call; ValueError (what the
    server answers as a tool error, for a wrong type too) for anything the schema does not
    allow."""
    unknown = sorted(set(arguments) - _KNOWN)
    if unknown:
        raise ValueError(f"unknown argument {unknown[0]!r}; read_skill takes "
                         f"{', '.join(sorted(_KNOWN))}")
    key = arguments.get("key")
    if not isinstance(key, str) or not key:
        raise ValueError("key is required: a skill key as find_skills returns it")
    out: dict[str, Any] = {"view": arguments.get("view", "full")}
    if not isinstance(out["view"], str):
        raise ValueError(f"view must be one of {', '.join(VIEWS)}")
    for name, target in (("section", "section"), ("path", "file")):
        value = arguments.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string")
        if value is not None:
            out[target] = value
    for flag in ("include_status", "include_manifest"):
        value = arguments.get(flag, False)
        if not isinstance(value, bool):
            raise ValueError(f"{flag} must be true or false")
        out[flag] = value
    limit = arguments.get("max_chars")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ValueError("max_chars must be an integer, 0 or more")
    out["max_chars"] = limit
    return {"key": key, **out}


def _clean(value: Any) -> Any:
    """Every string in ``value`` (plain data) defanged."""
    if isinstance(value, str):
        return defang(value)
    if isinstance(value, Mapping):
        return {str(_clean(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def read_result(read: Any) -> dict[str, Any]:
    """The tool's structured result for a :class:`~lemon_core.skills.agent.SkillRead` (whose
    content is defanged already, with its note)."""
    data: dict[str, Any] = {
        "key": read.key, "name": read.name, "view": read.view,
        "content": read.content, "truncated": read.truncated, "size_bytes": read.size,
        "directory": read.dir, "files": list(read.files), "source": read.source,
        "trust_level": read.trust_level,
    }
    for name, value in (("section", read.section), ("path", read.file),
                        ("status", read.status), ("manifest", read.manifest)):
        if value is not None:
            data[name] = value
    content = data.pop("content")
    return {**_clean(data), "content": content}


__all__ = ["DESCRIPTION", "NAME", "SCHEMA", "read_arguments", "read_result"]
