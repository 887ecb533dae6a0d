"""Skill Manifest v1/v2 field rules: parsed frontmatter data in, :class:`SkillManifest` out.

Types are checked, never coerced. A YAML/TOML null counts as an absent field. Hermes
``prerequisites`` and structured ``required_environment_variables`` are normalised, and
``requires.config`` is promoted into ``required_environment_variables``. Unknown top-level keys
and ``metadata`` are kept as JSON-compatible data. See ``docs/reference/manifest.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemon_core.manifest.checks import (
    Checker,
    bounded_list,
    dedupe,
    describe,
    json_key,
    json_value,
    list_item,
    plain_list,
    safe_text,
    string_list,
    wrong_type,
)
from lemon_core.models import Reference, SkillManifest, Verification

MAX_NAME_BYTES = 128
MAX_DESCRIPTION_CHARS = 1024
MAX_DESCRIPTION_BYTES = 4096
#: The code of a description over :data:`MAX_DESCRIPTION_CHARS` characters but within
#: :data:`MAX_DESCRIPTION_BYTES` (over the bytes it is ``too_long``, a safety cap): the
#: character limit of the Agent Skills standard, which Codex enforces and Claude Code does not.
LONG_DESCRIPTION = "long_description"
LONG_DESCRIPTION_WHY = ("; Codex and the Agent Skills standard (skills-ref validate) refuse a "
                        "longer one, Claude Code loads it: shorten it (lint --fix cannot)")
PLATFORMS = ("linux", "darwin", "win32", "any")
PLATFORM_ALIASES = {"macos": "darwin", "windows": "win32"}
HIDE_KEYS = ("hide", "disable-model-invocation")

KNOWN_KEYS = frozenset(
    {
        "name", "description", "version", "author", "tags", "keywords", "platforms",
        "requires", "requires_tools", "fallback_for_tools", "required_environment_variables",
        "verification", "references", "metadata", "prerequisites", *HIDE_KEYS,
    }
)  # fmt: skip

EnvNames = tuple[tuple[str, ...], tuple[str, ...]]


def rules_manifest(data: Any, check: Checker, *, fmt: str = "none") -> SkillManifest | None:
    """Apply every rule to parsed frontmatter ``data`` (None for none/empty), reporting to
    ``check``; None when any error."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        check.error(
            "frontmatter_not_mapping",
            f"the frontmatter must be a mapping of keys to values, not {describe(data)}",
        )
        return None
    fields = _fields(data, check)
    if check.errors:
        return None
    return SkillManifest(format=fmt, **fields)


def _fields(data: Mapping[Any, Any], check: Checker) -> dict[str, Any]:
    """Every manifest field, checked in the order of the reference (so are the messages)."""
    return {
        "name": safe_text(check, data.get("name"), "name", max_bytes=MAX_NAME_BYTES,
                          identifier=True),
        "description": _description(check, data.get("description")),
        "version": _plain(check, data.get("version"), "version"),
        "author": _plain(check, data.get("author"), "author"),
        "tags": string_list(check, data.get("tags"), "tags") or (),
        "keywords": string_list(check, data.get("keywords"), "keywords") or (),
        "platforms": _platforms(check, data.get("platforms")),
        **_requirements(data, check),
        "requires_tools": _list(check, data, "requires_tools"),
        "fallback_for_tools": _list(check, data, "fallback_for_tools"),
        "verification": _verification(check, data.get("verification")),
        "references": _references(check, data.get("references")),
        "metadata": _metadata(check, data.get("metadata")),
        "hide": _hide(check, data),
        "extra": {json_key(k): json_value(v) for k, v in data.items() if k not in KNOWN_KEYS},
    }


def _list(check: Checker, data: Mapping[Any, Any], field: str) -> tuple[str, ...]:
    return string_list(check, data.get(field), field) or ()


def _requirements(data: Mapping[Any, Any], check: Checker) -> dict[str, tuple[str, ...]]:
    """``requires``, Hermes ``prerequisites`` and the environment variable lists, normalised.

    ``prerequisites.commands`` stands in for an absent ``requires.bins``;
    ``prerequisites.env_vars`` for an absent ``requires.config`` and an absent
    ``required_environment_variables``. ``requires.config`` is then promoted into
    ``required_environment_variables`` (de-duplicated, order kept); optional names that are
    also required are dropped from the optional list.
    """
    requires = _mapping(check, data.get("requires"), "requires", ("bins", "config")) or {}
    hermes = _mapping(check, data.get("prerequisites"), "prerequisites", ("commands", "env_vars"))
    bins = string_list(check, requires.get("bins"), "requires.bins")
    config = _env_names(check, requires.get("config"), "requires.config", structured=False)
    declared = _env_names(
        check, data.get("required_environment_variables"), "required_environment_variables"
    )
    if hermes is not None:
        if bins is None:
            bins = string_list(check, hermes.get("commands"), "prerequisites.commands")
        hermes_env = _env_names(check, hermes.get("env_vars"), "prerequisites.env_vars")
        if config is None and hermes_env is not None:
            config = (hermes_env[0], ())
        if declared is None:
            declared = hermes_env
    return combine_requirements(bins, config, declared)


def combine_requirements(
    bins: tuple[str, ...] | None, config: EnvNames | None, declared: EnvNames | None
) -> dict[str, tuple[str, ...]]:
    """The requirement fields from the checked lists (see :func:`_requirements`)."""
    config_names = config[0] if config else ()
    required, optional = declared or ((), ())
    required = tuple(dedupe(required + config_names))
    return {
        "requires_bins": bins or (),
        "requires_config": config_names,
        "required_environment_variables": required,
        "optional_environment_variables": tuple(n for n in optional if n not in required),
    }


def _description(check: Checker, value: Any) -> str:
    limits = {"max_bytes": MAX_DESCRIPTION_BYTES, "max_chars": MAX_DESCRIPTION_CHARS}
    return safe_text(check, value, "description", chars_code=LONG_DESCRIPTION,
                     chars_why=LONG_DESCRIPTION_WHY, **limits) or ""


def _plain(check: Checker, value: Any, field: str) -> str | None:
    """A free text field (``version``, ``author``): a string, nothing else checked."""
    if value is None or isinstance(value, str):
        return value
    wrong_type(check, field, value, "text")
    return None


def _mapping(
    check: Checker, value: Any, field: str, known: tuple[str, ...]
) -> Mapping[Any, Any] | None:
    """A nested mapping with a fixed set of keys; other keys are a warning and ignored."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        wrong_type(check, field, value, f"a mapping with {' and/or '.join(known)}")
        return None
    if len(value) <= len(known) and all(key in known for key in value):
        return value
    unknown = sorted(json_key(key) for key in value if key not in known)
    if unknown:
        shown = ", ".join(unknown[:8]) + (", …" if len(unknown) > 8 else "")
        check.warn(
            "unknown_key",
            f"{field} has keys lemon does not know ({shown}); they are ignored, "
            f"use {', '.join(known)}",
        )
    return value


def _platforms(check: Checker, value: Any) -> tuple[str, ...]:
    items = string_list(check, value, "platforms")
    platforms: list[str] = []
    for index, item in enumerate(items or ()):
        canonical = PLATFORM_ALIASES.get(item, item)
        if canonical not in PLATFORMS:
            check.error(
                "unknown_platform",
                f"platforms[{index}] '{item}' is not a platform lemon knows; use linux, darwin, "
                "win32 or any (macos and windows are accepted as aliases)",
            )
        elif canonical not in platforms:
            platforms.append(canonical)
    return tuple(platforms) or ("any",)


def _env_names(
    check: Checker, value: Any, field: str, *, structured: bool = True
) -> EnvNames | None:
    """Environment variable names as ``(required, optional)``; None when absent or rejected.

    With ``structured``, an item may be a Hermes declaration ``{name, prompt, help,
    required_for, optional}``: it reduces to its name, and ``optional: true`` ones are optional.
    """
    if plain_list(value):  # names only, all valid: the common case
        return tuple(dict.fromkeys(value)), ()
    items = bounded_list(check, value, field, "a list of variable names")
    if items is None:
        return None
    before = check.errors
    required: list[str] = []
    optional: list[str] = []
    for index, item in enumerate(items):
        where, is_optional = f"{field}[{index}]", False
        if structured and isinstance(item, Mapping):
            if item.get("name") is None:
                check.error("missing_field", f"{where} has no name; add name: VARIABLE_NAME")
                continue
            is_optional = item.get("optional")
            if is_optional is not None and not isinstance(is_optional, bool):
                wrong_type(check, f"{where}.optional", is_optional, "true or false")
            where, item = f"{where}.name", item["name"]
        name = list_item(check, item, where)
        if name is not None:
            (optional if is_optional is True else required).append(name)
    if check.errors > before:
        return None
    return tuple(dedupe(required)), tuple(dedupe(optional))


def _verification(check: Checker, value: Any) -> Verification | None:
    fields = ("command", "expect_exit", "expect_output")
    spec = _mapping(check, value, "verification", fields)
    if spec is None:
        return None
    before = check.errors
    command, expect_exit, output = (spec.get(key) for key in fields)
    if command is None:
        check.error("missing_field", "verification has no command; add command: <shell command>")
    elif not isinstance(command, str):
        wrong_type(check, "verification.command", command, "text")
    elif not command.strip():
        check.error("empty_value", "verification.command is empty; give the command to run")
    if expect_exit is None:
        expect_exit = 0
    elif isinstance(expect_exit, bool) or not isinstance(expect_exit, int):
        wrong_type(check, "verification.expect_exit", expect_exit, "a whole number such as 0")
    if output is not None and not isinstance(output, str):
        wrong_type(check, "verification.expect_output", output, "text")
    if check.errors > before:
        return None
    return Verification(command=command, expect_exit=expect_exit, expect_output=output)


def _references(check: Checker, value: Any) -> tuple[Reference, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        wrong_type(check, "references", value, "a list of paths or {path|url, description}")
        return ()
    references = []
    for index, entry in enumerate(value):
        where = f"references[{index}]"
        if isinstance(entry, Mapping):
            reference = _reference_map(check, entry, where)
        elif isinstance(entry, str):
            reference = Reference(path=entry) if entry.strip() else None
            if reference is None:
                check.error("empty_value", f"{where} is empty; give a path or remove it")
        else:
            wrong_type(check, where, entry, "a path or a mapping with path or url")
            reference = None
        if reference is not None:
            references.append(reference)
    return tuple(references)


def _reference_map(check: Checker, entry: Mapping[Any, Any], where: str) -> Reference | None:
    keys = ("path", "url", "description")
    _mapping(check, entry, where, keys)
    before = check.errors
    values = {key: entry.get(key) for key in keys}
    for key, item in values.items():
        if item is not None and not isinstance(item, str):
            wrong_type(check, f"{where}.{key}", item, "text")
        elif key != "description" and item is not None and not item.strip():
            check.error("empty_value", f"{where}.{key} is empty; give a value or remove it")
    if values["path"] is None and values["url"] is None:
        check.error("missing_field", f"{where} needs a path or a url")
    return None if check.errors > before else Reference(**values)


def _metadata(check: Checker, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        wrong_type(check, "metadata", value, "a mapping")
        return {}
    lemon = value.get("lemon")
    if lemon is not None and not isinstance(lemon, Mapping):
        wrong_type(check, "metadata.lemon", lemon, "a mapping")
    elif lemon is not None:
        category = lemon.get("category")
        if category is not None and not isinstance(category, str):
            wrong_type(check, "metadata.lemon.category", category, "text")
    return json_value(value)


def _hide(check: Checker, data: Mapping[Any, Any]) -> bool:
    """``hide`` or ``disable-model-invocation``: only a boolean true hides."""
    hidden = False
    for key in HIDE_KEYS:
        value = data.get(key)
        if value is True:
            hidden = True
        elif value is not None and value is not False:
            check.warn(
                "hide_not_boolean",
                f"{key} is {describe(value)}, not true or false, so the skill is not hidden; "
                f"write {key}: true to hide it",
            )
    return hidden


__all__ = [
    "HIDE_KEYS",
    "KNOWN_KEYS",
    "LONG_DESCRIPTION",
    "MAX_DESCRIPTION_BYTES",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_BYTES",
    "PLATFORMS",
    "PLATFORM_ALIASES",
    "combine_requirements",
    "rules_manifest",
]
