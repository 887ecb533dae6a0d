"""Install-time leniency: the manifest rules of lemon that are stricter than the agents.

lemon's own rules are stricter than what some agents load:

- a ``description`` spanning lines (the spec: one line). Claude Code, Codex, Copilot and the
  ``skills`` CLI read a YAML block scalar description (``/work/shared/reference/
  skills-ecosystem.md`` §3: multi-line descriptions are common in published repositories);
  ``lemon skill lint --fix`` folds it.
- a ``description`` over 1,024 characters (``long_description``). The Agent Skills standard
  (``skills-ref validate``: "Description exceeds 1024 character limit") and Codex
  (``codex-rs/core/src/skills/loader.rs``: ``MAX_DESCRIPTION_LEN`` 1024, the skill is
  skipped with an error) refuse it; Claude Code loads it (its listing cuts each description
  at 1,536 characters), and so does omp (a warning). Only an author can shorten it. Over
  4,096 bytes of UTF-8 it is ``too_long``: a safety cap, never relaxed.

:data:`STRICTER_THAN_AGENTS` names exactly those codes; :func:`load_for_install` accepts a
SKILL.md whose *only* errors carry them, by validating it again with the description's lines
folded into one (so every other rule, control and bidi characters anywhere in it, the byte
cap, the name, still applies to the folded text) and, for a long description, once more with
it cut to the limit to build the manifest (the manifest then keeps the whole folded text).
The catalog and lint never use it: they keep reporting the skill as invalid with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from lemon_core.manifest.build_full import LONG_DESCRIPTION, MAX_DESCRIPTION_CHARS
from lemon_core.manifest.checks import STRIP
from lemon_core.manifest.load import ManifestResult, load_manifest, parse_manifest
from lemon_core.models import Diagnostic

#: ``load(adjust) -> result``: one SKILL.md validated, its data mapped by ``adjust`` first.
Loader = Callable[[Callable[[Any], Any] | None], ManifestResult]

#: Manifest codes some agents do not enforce: a skill failing only these is installed on
#: request, with a warning naming the agents that refuse it. Safety rules (unsafe_characters,
#: too_long, nesting, names) are never in this set.
STRICTER_THAN_AGENTS = frozenset({"multiline_value", LONG_DESCRIPTION})
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


def _clipper(whole: list[str]) -> Callable[[Any], Any]:
    """An ``adjust`` folding the data and cutting its description to the character limit;
    the whole folded, stripped description is appended to ``whole``."""
    def clip(data: Any) -> Any:
        data = fold_description(data)
        if not isinstance(data, dict) or not isinstance(data.get(FOLDED_FIELD), str):
            return data
        whole.append(data[FOLDED_FIELD].strip(STRIP))
        return {**data, FOLDED_FIELD: data[FOLDED_FIELD][:MAX_DESCRIPTION_CHARS]}

    return clip


def _codes(diagnostics: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    """One diagnostic per code, in order."""
    seen: dict[str, Diagnostic] = {}
    for item in diagnostics:
        seen.setdefault(item.code, item)
    return tuple(seen.values())


def _lenient(load: Loader) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    result = load(None)
    errors = result.errors
    if result.ok or not errors or any(d.code not in STRICTER_THAN_AGENTS for d in errors):
        return result, ()
    folded = load(fold_description)
    if folded.ok:
        return folded, errors
    if any(d.code not in STRICTER_THAN_AGENTS for d in folded.errors):  # say what else, once
        more = tuple(d for d in folded.errors if d.code not in STRICTER_THAN_AGENTS)
        return ManifestResult(None, (*result.diagnostics, *more)), ()
    # Only stricter-than-agents errors are left once folded: the description's safety (its
    # characters, its bytes) has been checked whole; cut it to the limit to check the rest.
    whole: list[str] = []
    clipped = load(_clipper(whole))
    if clipped.manifest is None:
        return ManifestResult(None, (*result.diagnostics, *clipped.errors)), ()
    manifest = attrs.evolve(clipped.manifest, description=whole[0]) if whole else (
        clipped.manifest)
    return ManifestResult(manifest, clipped.diagnostics), _codes((*errors, *folded.errors))


def load_for_install(path: Path, *, key: str) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    """The manifest at ``path`` as install judges it, and the stricter-than-agents errors it
    was accepted despite (empty when it loads as it is, or does not load even folded)."""
    return _lenient(lambda adjust: load_manifest(path, key=key, adjust=adjust))


def parse_for_install(data: bytes, *, key: str, label: str
                      ) -> tuple[ManifestResult, tuple[Diagnostic, ...]]:
    """:func:`load_for_install` of the bytes ``data`` (what the audit read)."""
    return _lenient(lambda adjust: parse_manifest(data, key=key, label=label, adjust=adjust))


def relaxed_warning(key: str, relaxed: tuple[Diagnostic, ...], where: str) -> str:
    """The warning an install accepted despite ``relaxed`` prints: each rule (a long
    description's message names the agents refusing it and the fix) and what lint can fix
    (``where``: the installed folder)."""
    rules = "; ".join(f"{d.message} [{d.code}]" for d in relaxed)
    lint = f"`lemon skill lint --fix {where}`"
    if all(d.code == "multiline_value" for d in relaxed):
        return (f"{key}: installed although its SKILL.md breaks a lemon rule the agents do "
                f"not enforce ({rules}); your agents load it, lemon's catalog lists it as "
                f"invalid until you run {lint}")
    folds = (f"; {lint} folds its lines" if any(d.code == "multiline_value" for d in relaxed)
             else "")
    return (f"{key}: installed although its SKILL.md breaks a rule not every agent enforces "
            f"({rules}); lemon's catalog lists it as invalid until its author fixes it{folds}")


__all__ = ["STRICTER_THAN_AGENTS", "fold_description", "load_for_install", "parse_for_install",
           "relaxed_warning"]
