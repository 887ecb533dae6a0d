"""Properties: parse_manifest never raises, answers in bounded time, and round-trips valid data."""

from __future__ import annotations

import datetime
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.manifest.frontmatter import FrontmatterError, split_frontmatter
from lemon_core.manifest.load import (
    DIAGNOSTIC_CODES,
    ManifestResult,
    load_manifest,
    parse_manifest,
)

LABEL = "prop/SKILL.md"
BOUNDED = settings(
    max_examples=100,
    deadline=datetime.timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow],
)


def check_result(result: ManifestResult) -> None:
    """The invariants of every result."""
    assert isinstance(result, ManifestResult)
    for diagnostic in result.diagnostics:
        assert diagnostic.path == LABEL
        assert DIAGNOSTIC_CODES[diagnostic.code] == diagnostic.severity
        assert diagnostic.message
    assert "internal_error" not in [d.code for d in result.diagnostics]
    assert (result.manifest is None) == any(d.severity == "error" for d in result.diagnostics)
    if result.manifest is not None:
        json.dumps(dict(result.manifest.extra), allow_nan=False)
        json.dumps(dict(result.manifest.metadata), allow_nan=False)


def parse(data: bytes) -> ManifestResult:
    result = parse_manifest(data, key="prop", label=LABEL)
    check_result(result)
    return result


# -- arbitrary input ------------------------------------------------------------------------


@BOUNDED
@given(st.binary(max_size=6000))
def test_arbitrary_bytes(data: bytes) -> None:
    parse(data)


@BOUNDED
@given(st.sampled_from([b"---\n", b"+++\n", b"\xef\xbb\xbf---\r\n"]), st.binary(max_size=3000))
def test_arbitrary_bytes_after_a_delimiter(opening: bytes, data: bytes) -> None:
    parse(opening + data)
    parse(opening + data + b"\n" + opening)


@BOUNDED
@given(st.text(max_size=3000))
def test_arbitrary_text_in_frontmatter(text: str) -> None:
    parse(f"---\n{text}\n---\nbody".encode("utf-8", "surrogatepass"))
    parse(f"+++\n{text}\n+++\nbody".encode("utf-8", "surrogatepass"))


@BOUNDED
@given(st.text(max_size=3000))
def test_split_frontmatter_never_fails_unexpectedly(text: str) -> None:
    try:
        fm = split_frontmatter(text)
    except FrontmatterError:  # the documented error; anything else fails the test
        return
    assert text[fm.body_offset :] == fm.body


# -- near-valid frontmatter -----------------------------------------------------------------

KEYS = [
    "name", "description", "version", "author", "tags", "keywords", "platforms", "requires",
    "requires_tools", "fallback_for_tools", "required_environment_variables", "verification",
    "references", "metadata", "hide", "disable-model-invocation", "prerequisites", "license",
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.dates(),
    st.sampled_from(["linux", "macos", "windows", "any", "beos", "", " ", "a\u202eb"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.sampled_from(["name", "path", "url", "command", "bins", "config",
                                         "commands", "env_vars", "optional", "lemon",
                                         "category", "expect_exit"]) | st.text(max_size=8),
                        inner, max_size=5),
    ),
    max_leaves=20,
)  # fmt: skip
near_valid = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=10), values, max_size=10)


@pytest.mark.slow
@BOUNDED
@given(near_valid)
def test_near_valid_yaml(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    parse(f"---\n{text}---\nbody\n".encode("utf-8", "surrogatepass"))


@BOUNDED
@given(near_valid, st.integers(min_value=0), st.text(min_size=1, max_size=5))
def test_mutated_yaml(data: dict[str, Any], position: int, noise: str) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    at = position % (len(text) + 1)
    parse(f"---\n{text[:at]}{noise}{text[at:]}---\n".encode("utf-8", "surrogatepass"))


# -- valid manifests round-trip -------------------------------------------------------------

safe_item = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp", "Cf")),
    min_size=1,
    max_size=20,
).filter(lambda s: s.strip(" \t\r\n") == s and s.strip() != "")
item_lists = st.lists(safe_item, max_size=32)


@BOUNDED
@given(
    name=safe_item,
    description=safe_item,
    tags=item_lists,
    bins=item_lists,
    env=item_lists,
    platforms=st.lists(st.sampled_from(["linux", "darwin", "win32", "any", "macos"]), max_size=5),
    hide=st.booleans(),
    as_toml=st.booleans(),
)
def test_valid_manifests_round_trip(
    name: str,
    description: str,
    tags: list[str],
    bins: list[str],
    env: list[str],
    platforms: list[str],
    hide: bool,
    as_toml: bool,
) -> None:
    data = {"name": name, "description": description, "tags": tags, "hide": hide,
            "platforms": platforms, "requires": {"bins": bins},
            "required_environment_variables": env}  # fmt: skip
    if as_toml:
        text = "+++\n" + _toml(data) + "+++\n"
    else:
        text = "---\n" + yaml.safe_dump(data, allow_unicode=True) + "---\n"
    result = parse(text.encode())
    manifest = result.manifest
    assert manifest is not None, result.diagnostics
    assert (manifest.name, manifest.description, manifest.hide) == (name, description, hide)
    assert manifest.tags == tuple(dict.fromkeys(tags))
    assert manifest.requires_bins == tuple(dict.fromkeys(bins))
    assert manifest.required_environment_variables == tuple(dict.fromkeys(env))
    expected = tuple(dict.fromkeys({"macos": "darwin"}.get(p, p) for p in platforms))
    assert manifest.platforms == (expected or ("any",))
    assert manifest.format == ("toml" if as_toml else "yaml")


def _toml(data: dict[str, Any]) -> str:
    """A tiny TOML writer for strings, booleans, lists of strings and one level of tables.

    JSON strings are valid TOML basic strings for the characters ``safe_item`` produces.
    """
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append(f"[{key}]\n" + _toml(value))
        elif isinstance(value, bool):
            lines.append(f"{key} = {str(value).lower()}")
        else:
            lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n" + "".join(tables)


# -- the file path agrees with the bytes path -----------------------------------------------


@settings(BOUNDED, max_examples=50)
@given(st.binary(max_size=9000) | near_valid.map(lambda d: ("---\n" + yaml.safe_dump(d)
                                                           + "---\n").encode()))  # fmt: skip
def test_load_manifest_agrees_with_parse_manifest(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "SKILL.md"
        path.write_bytes(data)
        from_file = load_manifest(path, key="prop")
    from_bytes = parse_manifest(data, key="prop", label=str(path))
    assert from_file == from_bytes
