"""Install-time leniency: the manifest rules of lemon that are stricter than the agents.

lemon's own rules (the spec: a ``description`` is one line) are stricter than what the agents
load: Claude Code, Codex, Copilot and the ``skills`` CLI read a YAML block scalar description
spanning lines (``/work/shared/reference/skills-ecosystem.md``: multi-line descriptions are
common in published repositories). :data:`STRICTER_THAN_AGENTS` names exactly those codes;
:func:`load_for_install` accepts a SKILL.md whose *only* errors carry them, by validating it
again with the description's lines folded into one (so every other rule, control and bidi
characters, sizes, nesting, the name, still applies to the folded text). The catalog and lint
never use it: they keep reporting the skill as invalid with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lemon_core.manifest.load import ManifestResult, load_manifest, parse_manifest
from lemon_core.models import Diagnostic

#: Manifest codes the agents do not enforce: a skill failing only these is installed on
#: request, with a warning. Safety rules (unsafe_characters, too_long, nesting, names) are
#: never in this set.
STRICTER_THAN_AGENTS = frozenset({"multiline_value"})
#: The only field folded: a ``name`` spanning lines stays an error.
FOLDED_FIELD = "description"
#: Runs of spaces, tabs and line breaks become one space (as ``lemon skill lint --fix`` folds).
_RUNS = re.compile("[ \t\n\r\x85\u2028\u2029]+")


def fold_description(data: Any) -> Any:
    """``data`` with a text description's lines joined by single spaces (else unchanged)."""
    if not isinstance(data, dict):
        return data
    value = data.get(FOLDED_FIELD)
    if not isinstance(value, str):
        return data
    return {**data, FOLDED_FIELD: _RUNS.sub(" ", value).strip(" ")}


def _lenient(result: ManifestResult, again: Callable[[], ManifestResult]
             ) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    errors = result.errors
    if result.ok or not errors or any(d.code not in STRICTER_THAN_AGENTS for d in errors):
        return result, ()
    folded = again()
    if not folded.ok:  # say what else keeps it out, once folded
        more = tuple(d for d in folded.errors if d.code not in STRICTER_THAN_AGENTS)
        return ManifestResult(None, (*result.diagnostics, *more)), ()
    return folded, errors


def load_for_install(path: Path, *, key: str) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    """The manifest at ``path`` as install judges it, and the stricter-than-agents errors it
    was accepted despite (empty when it loads as it is, or does not load even folded)."""
    return _lenient(load_manifest(path, key=key),
                    lambda: load_manifest(path, key=key, adjust=fold_description))


def parse_for_install(data: bytes, *, key: str, label: str
                      ) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    """:func:`load_for_install` of the bytes ``data`` (what the audit read)."""
    return _lenient(parse_manifest(data, key=key, label=label),
                    lambda: parse_manifest(data, key=key, label=label,
                                           adjust=fold_description))


def relaxed_warning(key: str, relaxed: tuple[Diagnostic, ...], where: str) -> str:
    """The warning an install accepted despite ``relaxed`` prints: the rule and the fix
    (``where``: the installed folder)."""
    rules = "; ".join(f"{d.message} [{d.code}]" for d in relaxed)
    return (f"{key}: installed although its SKILL.md breaks a lemon rule the agents do not "
            f"enforce ({rules}); your agents load it, lemon's catalog lists it as invalid "
            f"until you run `lemon skill lint --fix {where}`")


__all__ = ["STRICTER_THAN_AGENTS", "fold_description", "load_for_install", "parse_for_install",
           "relaxed_warning"]
