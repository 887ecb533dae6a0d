"""The manifest loader's fast paths agree with the full paths they shortcut.

Each fast path (the YAML loader's lean composer and builder, the manifest rules' plain-data
check, the head read's one-call decode and first-line split) may only decline: whenever it
answers, the answer must be exactly the full path's (data and types, warnings, codes and
messages). These tests run both on the same input and compare.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaml.nodes import ScalarNode

from lemon_core.manifest import build_fast as manifest_fast
from lemon_core.manifest import build_full as manifest_rules
from lemon_core.manifest import frontmatter
from lemon_core.manifest import parse_fast as yaml_fast
from lemon_core.manifest import parse_full as yaml_loader
from lemon_core.manifest.checks import Checker
from lemon_core.manifest.frontmatter import HEAD_BYTES, FrontmatterError
from lemon_core.manifest.load import load_manifest, parse_manifest

LIBYAML = yaml_fast.FAST_FOR is not None
needs_libyaml = pytest.mark.skipif(not LIBYAML, reason="the YAML fast path needs libyaml")
SETTINGS = settings(
    max_examples=150,
    deadline=datetime.timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow],
)


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """What a call did, comparable across paths: its result's repr (which tells ``1`` from
    ``True``, ``"1"`` and ``1.0``) or the error it raised."""
    try:
        result = call()
    except FrontmatterError as exc:
        return ("error", exc.code, exc.message)
    return ("ok", repr(result))


# -- YAML --------------------------------------------------------------------------------------


def load_both(text: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    fast = outcome(lambda: yaml_loader.load_yaml(text, first_line=2))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_fast, "FAST_FOR", None)  # the full loader only
        full = outcome(lambda: yaml_loader.load_yaml(text, first_line=2))
    return fast, full


TRICKY_YAML = [
    "name: a\ndescription: b\ntags: [x, y]\n",
    "a: 1\nb: 2\na: 3\n",  # a duplicate key
    "1: a\n'1': b\n",  # one raw key, two values
    "yes: a\ntrue: b\n",  # two raw keys, one value
    ".nan: a\n.nan: b\n",
    "a: &x [1, 2]\nb: 3\n",  # an anchor without an alias
    "a: &x 1\na: &x 2\n",  # a duplicate anchor
    "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
    "<<: {a: 1}\nb: 2\n",  # a merge without an alias
    "=: a\n",
    "a: =\n",
    "a: !!binary aGVsbG8=\n",
    "a: !!binary '@@'\n",
    "a: !!int x\n",
    "a: !!int '12'\nb: !!float 1\nc: !!bool yes\nd: !!null ''\n",
    "a: !!str 1\n!!str 2: b\n",
    "a: !custom x\n",
    "a: !!python/object:os.system x\n",
    "a: !!set {x, y}\nb: !!omap [x: 1]\nc: !!pairs [y: 2]\n",
    "a: !!map {x: 1}\nb: !!seq [1]\nc: !!str {x: 1}\nd: !!map [1]\n",
    "? [a, b]\n: c\n",
    "{a: 1}: b\n",
    "a: 2024-01-01\nb: 2024-13-45\nc: 2001-12-14t21:59:43.10-05:00\n2024-01-02: d\n",
    "a: 0x1F\nb: 0o17\nc: 017\nd: 0b101\ne: 1_000\nf: 1:20\ng: 190:20:30\n",
    "a: .inf\nb: -.Inf\nc: .nan\nd: 1e3\ne: 6.8523015e+5\nf: 1.10\n",
    "a: ~\nb: null\nc:\n'': x\n~: y\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\n",
    "- a\n- b\n",
    "just text",
    "",
    "# only a comment\n",
    "a: b: c\n",
    "a: [b, c\n",
    "a:\n\tb: c\n",
    '"\\ud800": x\n',
    "a: '\x01'\n",
    "---\na: 1\n---\nb: 2\n",
    "a: |\n  line\n  line\nb: >-\n  folded\n  text\n",
    "a: {b: {c: {d: [e, {f: g}]}}}\n",
    "[" * 40 + "]" * 40,
    "a: " + "[" * 70 + "]" * 70 + "\n",
    "x: " + "- " * 300 + "\n",
    "description: Use when: you need X\nname: a\n",
]


@needs_libyaml
@pytest.mark.parametrize("text", TRICKY_YAML)
def test_yaml_fast_path_agrees_with_the_full_loader(text: str) -> None:
    fast, full = load_both(text)
    assert fast == full


@needs_libyaml
def test_yaml_fast_path_answers_plain_frontmatter() -> None:
    text = 'name: a\ndescription: "b"\nversion: 1.2\ntags: [x, y]\nmetadata:\n  k: [1, true]\n'
    assert yaml_fast.load_plain(text) == (
        {"name": "a", "description": "b", "version": 1.2, "tags": ["x", "y"],
         "metadata": {"k": [1, True]}},
        None,
    )  # fmt: skip
    assert yaml_fast.load_plain("a: !!set {x}\n") is None  # declines: full loader


KEYS = ["name", "description", "tags", "metadata", "a", "b", "1", "yes", "~", "<<", "=",
        '"q"', "!!str 1", "? c"]  # fmt: skip
SCALARS = ["x", "yes", "No", "~", "", "null", "1", "-2", "0x1F", "017", "1_0", "1:20", ".inf",
           ".NaN", "1.5", "1e3", "2024-01-01", "2024-13-45", "2001-12-14 21:59:43.10",
           "!!binary aGVsbG8=", "!!binary x", "!!str 1", "!!int x", "!!float 2", "!custom x",
           "&a x", "*a", '"a\\tb"', '"\\u202e"', "'x'", "é", "a\u2028b", "a # c", "=", "<<",
           "[a, b]", "{a: 1}", "{}", "[]", "!!set {a}", "{<<: {a: 1}}", "[*a]", "x: y"]  # fmt: skip


@st.composite
def yaml_values(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """A value as lines (relative indentation), nested block mappings and sequences."""
    kind = draw(st.integers(0, 8 if depth < 3 else 4))
    if kind <= 4:
        return [draw(st.sampled_from(SCALARS))]
    items = draw(st.lists(st.sampled_from(KEYS), max_size=4)) if kind <= 6 else None
    lines = []
    for key in items if items is not None else range(draw(st.integers(0, 3))):
        inner = draw(yaml_values(depth + 1))
        head = f"{key}:" if items is not None else "-"
        if len(inner) == 1 and not inner[0].startswith("  "):
            lines.append(f"{head} {inner[0]}")
        else:
            lines += [head] + ["  " + line for line in inner]
    return ["  " + line for line in lines] or ["{}" if items is not None else "[]"]


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    lines = []
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=8)):
        value = draw(yaml_values())
        if len(value) == 1 and not value[0].startswith("  "):
            lines.append(f"{key}: {value[0]}")
        else:
            lines += [f"{key}:", *value]
    if draw(st.booleans()):  # some noise: a stray indent, a tab, a flow opener
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from([" x: 1", "\tx: 1", "[", "- a", "#", "..."])))
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@needs_libyaml
@SETTINGS
@given(yaml_documents())
def test_yaml_fast_path_agrees_on_generated_documents(text: str) -> None:
    fast, full = load_both(text)
    assert fast == full


SPECIAL = ["", "~", "null", "Null", "NULL", "n", "N", "y", "yes", "No", "true", "FALSE", "on",
           "off", "0", "-0", "+1", "0x1F", "0o7", "0b1", "1_000", "1:2", "1.5", ".5", "-.inf",
           ".NaN", "1e3", "2024-01-01", "2024-01-01T00:00:00Z", "<<", "=", "==", "x", "é"]  # fmt: skip


@needs_libyaml
@SETTINGS
@given(st.sampled_from(SPECIAL) | st.text(max_size=12) | st.from_regex(r"[A-Za-z]\w*", fullmatch=True))
def test_a_plain_word_is_text_as_the_loader_resolves_it(value: str) -> None:
    """The fast path reads a plain scalar opening with an ASCII letter as text without asking
    the resolver, unless it is one of YAML 1.1's boolean and null words: the loader agrees."""
    loader = yaml.CSafeLoader("")
    tag = loader.resolve(ScalarNode, value, (True, False))
    loader.dispose()
    shortcut = value[:1].isalpha() and value[:1].isascii() and value not in yaml_fast._WORDS
    assert not shortcut or tag == "tag:yaml.org,2002:str"
    assert (value in yaml_fast._WORDS) <= (tag != "tag:yaml.org,2002:str")


def test_the_off_switch_takes_the_full_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(yaml_fast, "load_plain", lambda text: calls.append(text))
    monkeypatch.setenv("LEMON_PLAIN", "yaml")
    assert yaml_loader.load_yaml("a: b\n") == ({"a": "b"}, [])
    assert calls == []


# -- manifest rules ----------------------------------------------------------------------------


def build_both(data: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    def build() -> tuple[Any, ...]:
        check = Checker("x")
        manifest = manifest_fast.build_manifest(data, check, fmt="yaml")
        return manifest, check.diagnostics

    def decline(data: Any, fmt: str) -> Any:
        raise manifest_fast._NotPlain

    fast = outcome(build)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_fast, "_plain_manifest", decline)  # the full rules only
        full = outcome(build)
    return fast, full


TEXTS = ["a", "linux", "macos", "windows", "any", "Linux", "", " ", "a b", " a ", "\ta",
         "a\u202eb", "a\u200eb", "\u00a0a", "a\nb", "a\u2028b", "\ud800", "é", "日本", "x" * 128,
         "x" * 129, "é" * 64, "é" * 65, "y" * 1024, "y" * 1025, "é" * 1024, "\x00", "\x7f",
         "KUBECONFIG", "https://example.com"]  # fmt: skip
scalars = st.one_of(
    st.sampled_from(TEXTS),
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.dates(),
    st.text(max_size=12),
)
NESTED_KEYS = ["name", "path", "url", "description", "command", "expect_exit", "expect_output",
               "bins", "config", "commands", "env_vars", "optional", "lemon", "category",
               "prompt", "other", "1"]  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(st.sampled_from(TEXTS), max_size=40)
    | st.dictionaries(st.sampled_from(NESTED_KEYS), inner, max_size=4),
    max_leaves=12,
)
MANIFEST_KEYS = sorted(manifest_rules.KNOWN_KEYS) + ["license", "x-extra", "1"]
manifest_data = st.dictionaries(
    st.sampled_from(MANIFEST_KEYS) | st.integers(0, 2) | st.booleans(), values, max_size=8
)


def plain_base() -> dict[Any, Any]:
    """A manifest that uses every field plainly: the fast path answers it."""
    return {
        "name": " skill-name ",
        "description": "Does x.",
        "version": "1.0",
        "author": "me",
        "tags": ["a", "b"],
        "keywords": ["k"],
        "platforms": ["linux", "macos"],
        "requires": {"bins": ["git"], "config": ["A"]},
        "prerequisites": {"commands": ["c"], "env_vars": ["B"]},
        "required_environment_variables": ["KUBECONFIG"],
        "requires_tools": ["t"],
        "fallback_for_tools": ["f"],
        "verification": {"command": "ls", "expect_exit": 0, "expect_output": "o"},
        "references": ["a.md", {"path": "p", "description": "d"}, {"url": "u"}],
        "metadata": {"lemon": {"category": "c"}},
        "hide": False,
        "disable-model-invocation": True,
        "license": "MIT",
    }


PATHS = [
    ("name",), ("description",), ("version",), ("author",), ("tags",), ("keywords",),
    ("platforms",), ("requires",), ("requires", "bins"), ("requires", "config"),
    ("requires", "other"), ("prerequisites",), ("prerequisites", "commands"),
    ("prerequisites", "env_vars"), ("required_environment_variables",), ("requires_tools",),
    ("fallback_for_tools",), ("verification",), ("verification", "command"),
    ("verification", "expect_exit"), ("verification", "expect_output"),
    ("verification", "other"), ("references",), ("references", 0), ("references", 1),
    ("references", 1, "path"), ("references", 1, "description"), ("references", 2, "url"),
    ("references", 2, "other"), ("metadata",), ("metadata", "lemon"),
    ("metadata", "lemon", "category"), ("hide",), ("disable-model-invocation",), ("x-extra",),
    (True,), ("tags", 0), ("platforms", 1), ("requires", "bins", 0),
    ("required_environment_variables", 0),
]  # fmt: skip
#: Values at the edges of the rules.
EDGE_VALUES = [
    None, True, False, 0, 1, 1.5, float("nan"), datetime.date(2024, 1, 1), "", " ", "a", "\t",
    "darwin", "solaris", "x" * 128, "x" * 129, "é" * 64, "é" * 65, "y" * 1024, "y" * 1025,
    "é" * 1025, "a\nb", "a\u2028b", "\u00a0a", "a\u202eb", "\x00", "\ud800", [], [" "],
    ["a", ""], ["a", "a"], ["a"] * 32, ["a"] * 33, ["x" * 129], [1], [True], [None], [[]], {},
    {"other": 1}, {"name": "X"}, {"name": "X", "optional": True}, {"name": "X", "optional": 1},
    {"optional": True}, {"path": " "}, {"path": "p", "url": 1}, {"url": "u", "x": 1},
    {"category": 1}, {"lemon": {"category": 1}}, {"lemon": 2}, {"command": " "},
    {"command": "ls", "expect_exit": True}, {1: 2}, {"a": [1, {"b": float("inf")}]},
]  # fmt: skip


def changed(data: dict[Any, Any], path: tuple[Any, ...], value: Any) -> dict[Any, Any]:
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize("path", PATHS, ids=lambda path: ".".join(map(str, path)))
def test_rules_fast_path_agrees_at_every_edge(path: tuple[Any, ...]) -> None:
    for value in EDGE_VALUES:
        data = changed(plain_base(), path, value)
        fast, full = build_both(data)
        assert fast == full, (path, value)


@st.composite
def near_plain_data(draw: st.DrawFn) -> dict[Any, Any]:
    """The plain manifest with up to three fields changed, to values at an edge or any value."""
    data = plain_base()
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        try:
            changed(data, path, draw(st.sampled_from(EDGE_VALUES) | values))
        except (LookupError, TypeError):  # an earlier change replaced the container
            pass
    return data


@settings(SETTINGS, max_examples=300)
@given(manifest_data | near_plain_data())
def test_rules_fast_path_agrees_with_the_full_rules(data: dict[Any, Any]) -> None:
    fast, full = build_both(data)
    assert fast == full


PLAIN_MANIFESTS = [
    {},
    plain_base(),
    {"name": "a", "description": " b ", "version": "1", "author": "me"},
    {"tags": ["a", "a", "b"], "keywords": [], "platforms": ["macos", "darwin", "linux"]},
    {"platforms": []},
    {"requires": {"bins": ["git"], "config": ["A", "B"]}, "required_environment_variables": ["B"]},
    {"requires": {}, "prerequisites": {"commands": ["x"], "env_vars": ["E"]}},
    {"prerequisites": {"commands": ["x"], "env_vars": ["E"]}},
    {"required_environment_variables": ["E", "E"]},
    {"requires": {"bins": ["git"]}, "prerequisites": {"commands": ["x"]}},
    {"prerequisites": {"env_vars": ["E"]}, "required_environment_variables": ["F"]},
    {"verification": {"command": "ls", "expect_exit": 2, "expect_output": "ok"}},
    {"references": ["a.md", {"path": "p"}, {"url": "u", "description": "d"}]},
    {"metadata": {"lemon": {"category": "c"}, "when": datetime.date(2024, 1, 1)}},
    {"hide": True, "disable-model-invocation": False, "license": "MIT", 1: [True]},
]


@pytest.mark.parametrize("data", PLAIN_MANIFESTS)
def test_rules_fast_path_answers_plain_manifests(data: dict[Any, Any]) -> None:
    manifest_fast._plain_manifest(data, "yaml")  # does not decline
    fast, full = build_both(data)
    assert fast == full


def test_rules_fast_path_keeps_earlier_errors() -> None:
    check = Checker("x")
    check.error("wrong_type", "reported before")
    assert manifest_fast.build_manifest({"name": "a"}, check) is None


# -- reading the head --------------------------------------------------------------------------


def reader(data: bytes) -> Callable[[int], bytes]:
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        chunk = data[position : position + size]
        position += len(chunk)
        return chunk

    return read


@st.composite
def skill_bytes(draw: st.DrawFn) -> bytes:
    opener = draw(st.sampled_from(["---", "+++", "\ufeff---", "\n---", "---  ", "--- x", ""]))
    fill = draw(st.sampled_from(["a", "é", "日", "\x00", "\ud800"]))
    size = draw(st.integers(0, 3 * HEAD_BYTES))
    closer = draw(st.sampled_from(["---", "+++", "", "----"]))
    text = f"{opener}\nk: {fill * (size // 3)}\n{closer}\nbody"
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    cut = draw(st.integers(0, len(data)))
    return data[:cut] if draw(st.booleans()) else data


@SETTINGS
@given(skill_bytes())
def test_one_call_decode_agrees_with_incremental_reading(data: bytes) -> None:
    def fast() -> Any:
        read = reader(data)
        return frontmatter.read_split(read, read(HEAD_BYTES))

    def incremental() -> Any:
        read = reader(data)
        return frontmatter._read_on(read, read(HEAD_BYTES))

    assert outcome(fast) == outcome(incremental)


@SETTINGS
@given(
    st.sampled_from(["---", "+++"]),
    st.lists(st.sampled_from(["a: 1", "", "---", "+++", "--- ", "---x", "\r"]), max_size=5),
    st.text(max_size=20),
    st.booleans(),
)
def test_first_line_shortcut_agrees_with_the_general_split(
    delimiter: str, lines: list[str], rest: str, complete: bool
) -> None:
    text = f"{delimiter}\n" + "\n".join(lines) + rest
    shifted = "\n" + text  # one blank line first: the general path, everything one line later

    def split(value: str) -> Any:
        return frontmatter._split(value, complete)

    direct, general = outcome(lambda: split(text)), outcome(lambda: split(shifted))
    if direct[0] == "error" or general[0] == "error":
        assert direct == general
        return
    found, moved = split(text), split(shifted)
    if found is None or moved is None:
        assert found is moved
        return
    fmt, raw, body_offset, raw_line, blank = found
    assert moved == (fmt, raw, body_offset + 1, raw_line + 1, blank + 1)


@pytest.fixture
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    sizes: list[int] = []
    real_read = os.read

    def read(fd: int, size: int) -> bytes:
        sizes.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", read)
    yield sizes


def test_a_small_file_is_read_in_one_call(tmp_path: Path, counted_reads: list[int]) -> None:
    path = tmp_path / "SKILL.md"
    data = b"---\nname: a\ndescription: b\n---\nbody\n"
    path.write_bytes(data)
    result = load_manifest(path, key="a")
    assert counted_reads == [HEAD_BYTES]
    assert result == parse_manifest(data, key="a", label=str(path))


@pytest.mark.parametrize("size", [HEAD_BYTES - 1, HEAD_BYTES, HEAD_BYTES + 1, 3 * HEAD_BYTES])
def test_longer_files_read_on_as_before(tmp_path: Path, size: int) -> None:
    path = tmp_path / "SKILL.md"
    head = b"---\nname: a\ndescription: "
    data = head + b"x" * max(0, size - len(head) - 9) + b"\n---\nb\n"
    path.write_bytes(data)
    assert load_manifest(path, key="a") == parse_manifest(data, key="a", label=str(path))


@pytest.mark.parametrize("data", [b"---\nname: a\n---\nb\n", b"---\nd: " + b"x" * 9000 + b"\n---\n"])
def test_short_reads_read_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(data)
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: real_read(fd, min(size, 7)))
    assert load_manifest(path, key="a") == parse_manifest(data, key="a", label=str(path))


def test_checker_without_reports_has_no_diagnostics() -> None:
    assert Checker("x").diagnostics == ()
