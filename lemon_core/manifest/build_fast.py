"""Skill manifests the fast way, for the frontmatter most skills have.

Most manifests pass every rule: plain text, short lists of short ASCII words, a few nested
mappings with known keys. ``_plain_manifest`` recognises those with a few type checks and
builds exactly the manifest the full rules (``manifest_rules``) would; anything else (a wrong type, a value
that may be unsafe or too long, an unknown nested key, a Hermes declaration, ...) raises
``_NotPlain`` before anything is reported, and the full rules run from the start. It never
reports: what it accepts, the full rules accept without a diagnostic
(``tests/skills/test_manifest_fastpath.py`` checks both agree).
"""

from __future__ import annotations

from typing import Any

from lemon_core.manifest.build_full import (
    HIDE_KEYS,
    KNOWN_KEYS,
    MAX_DESCRIPTION_BYTES,
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_BYTES,
    PLATFORM_ALIASES,
    PLATFORMS,
    EnvNames,
    combine_requirements,
    rules_manifest,
)
from lemon_core.manifest.checks import (
    Checker,
    json_key,
    json_value,
    plain_list,
    plain_text,
)
from lemon_core.manifest.frontmatter import FrontmatterError
from lemon_core.models import Reference, SkillManifest, Verification
from lemon_core.text import identifier_reason


def build_manifest(data: Any, check: Checker, *, fmt: str = "none") -> SkillManifest | None:
    """Validate parsed frontmatter ``data`` (None for none/empty); None when any error.

    Plainly valid data takes the fast path; anything else, and anything the fast path is not
    sure of, gets every rule of :func:`~lemon_core.manifest.build_full.rules_manifest`.
    """
    if type(data) is dict and not check.errors:
        try:
            return _plain_manifest(data, fmt)
        except _NotPlain:  # some field needs the full rules, which report on it
            pass
        except FrontmatterError:  # free-form values nested too deep: the full rules raise it
            pass
    return rules_manifest(data, check, fmt=fmt)


class _NotPlain(Exception):
    """The data needs the full rules."""


def _plain_manifest(data: dict[Any, Any], fmt: str) -> SkillManifest:
    """The manifest of ``data`` when every field is plainly valid; else ``_NotPlain``."""
    get = data.get
    name = get("name")
    if name is not None:
        name = _text(name, MAX_NAME_BYTES, MAX_NAME_BYTES)
        if not name.isascii() and identifier_reason(name):  # a printable invisible (U+3164)
            raise _NotPlain
    description = get("description")
    if description is None:
        description = ""
    else:
        description = _text(description, MAX_DESCRIPTION_CHARS, MAX_DESCRIPTION_BYTES)
    version, author = get("version"), get("author")
    if not (version is None or type(version) is str) or not (
        author is None or type(author) is str
    ):
        raise _NotPlain
    tags, keywords, tools, fallback = (
        get("tags"), get("keywords"), get("requires_tools"), get("fallback_for_tools")
    )
    platforms = get("platforms")
    if platforms is None:
        platforms = ("any",)
    else:
        names = [PLATFORM_ALIASES.get(item, item) for item in _words(platforms)]
        if not all(item in PLATFORMS for item in names):
            raise _NotPlain
        platforms = tuple(dict.fromkeys(names)) or ("any",)
    verification = get("verification")
    if verification is not None:
        verification = _plain_verification(verification)
    references = get("references")
    references = () if references is None else _plain_references(references)
    metadata = get("metadata")
    metadata = {} if metadata is None else _plain_metadata(metadata)
    hidden = False
    for key in HIDE_KEYS:
        value = get(key)
        if value is True:
            hidden = True
        elif value is not None and value is not False:
            raise _NotPlain
    if (
        get("requires") is None
        and get("prerequisites") is None
        and get("required_environment_variables") is None
    ):
        requirements = _NO_REQUIREMENTS
    else:
        requirements = _plain_requirements(get)
    return SkillManifest(
        name=name,
        description=description,
        version=version,
        author=author,
        tags=() if tags is None else _words(tags),
        keywords=() if keywords is None else _words(keywords),
        platforms=platforms,
        **requirements,
        requires_tools=() if tools is None else _words(tools),
        fallback_for_tools=() if fallback is None else _words(fallback),
        verification=verification,
        references=references,
        metadata=metadata,
        hide=hidden,
        extra=(
            {}
            if KNOWN_KEYS.issuperset(data)
            else {json_key(k): json_value(v) for k, v in data.items() if k not in KNOWN_KEYS}
        ),
        format=fmt,
    )


_NO_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "requires_bins": (),
    "requires_config": (),
    "required_environment_variables": (),
    "optional_environment_variables": (),
}


def _text(value: Any, max_chars: int, max_bytes: int) -> str:
    """Safe text as :func:`safe_text` accepts it (stripped); else ``_NotPlain``."""
    text = plain_text(value, max_chars, max_bytes)
    if text is None:
        raise _NotPlain
    return text


def _words(value: Any) -> tuple[str, ...]:
    """A list field as :func:`string_list` accepts it without a word; else ``_NotPlain``."""
    if not plain_list(value):
        raise _NotPlain
    return tuple(dict.fromkeys(value))


def _known_keys(value: Any, known: tuple[str, ...]) -> dict[Any, Any]:
    """A nested mapping that :func:`_mapping` accepts without a warning; else ``_NotPlain``."""
    if type(value) is not dict or len(value) > len(known) or not all(k in known for k in value):
        raise _NotPlain
    return value


def _plain_requirements(get: Any) -> dict[str, tuple[str, ...]]:
    """:func:`_requirements` for plain lists of names."""
    requires = get("requires")
    bins: tuple[str, ...] | None = None
    config: EnvNames | None = None
    if requires is not None:
        requires = _known_keys(requires, ("bins", "config"))
        value = requires.get("bins")
        bins = None if value is None else _words(value)
        value = requires.get("config")
        config = None if value is None else (_words(value), ())
    value = get("required_environment_variables")
    declared: EnvNames | None = None if value is None else (_words(value), ())
    hermes = get("prerequisites")
    if hermes is not None:
        hermes = _known_keys(hermes, ("commands", "env_vars"))
        if bins is None:
            value = hermes.get("commands")
            bins = None if value is None else _words(value)
        value = hermes.get("env_vars")
        if value is not None:
            hermes_env = (_words(value), ())
            if config is None:
                config = hermes_env
            if declared is None:
                declared = hermes_env
    return combine_requirements(bins, config, declared)


def _plain_verification(value: Any) -> Verification:
    spec = _known_keys(value, ("command", "expect_exit", "expect_output"))
    command, expect_exit = spec.get("command"), spec.get("expect_exit")
    output = spec.get("expect_output")
    if type(command) is not str or not command.strip():
        raise _NotPlain
    if expect_exit is None:
        expect_exit = 0
    elif type(expect_exit) is not int:
        raise _NotPlain
    if not (output is None or type(output) is str):
        raise _NotPlain
    return Verification(command=command, expect_exit=expect_exit, expect_output=output)


def _plain_references(value: Any) -> tuple[Reference, ...]:
    if type(value) is not list:
        raise _NotPlain
    references = []
    for entry in value:
        if type(entry) is str and entry.strip():
            references.append(Reference(path=entry))
            continue
        entry = _known_keys(entry, ("path", "url", "description"))
        path, url, description = entry.get("path"), entry.get("url"), entry.get("description")
        if (path is None and url is None) or not (
            (path is None or (type(path) is str and path.strip()))
            and (url is None or (type(url) is str and url.strip()))
            and (description is None or type(description) is str)
        ):
            raise _NotPlain
        references.append(Reference(path=path, url=url, description=description))
    return tuple(references)


def _plain_metadata(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise _NotPlain
    lemon = value.get("lemon")
    if lemon is not None:
        if type(lemon) is not dict:
            raise _NotPlain
        category = lemon.get("category")
        if not (category is None or type(category) is str):
            raise _NotPlain
    return json_value(value)


__all__ = ["build_manifest"]
