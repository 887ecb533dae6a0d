"""Skill Manifest v1/v2: fields, defaults, normalisation and the error rules."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from lemon_core.manifest import load as manifest_module
from lemon_core.manifest.load import (
    DIAGNOSTIC_CODES,
    ManifestResult,
    load_manifest,
    parse_manifest,
    validate_manifest_data,
)
from lemon_core.models import Reference, SkillManifest, Verification

LABEL = "skills/demo/SKILL.md"

FULL_EXAMPLE = """\
---
name: k8s-rollout
description: Use when managing Kubernetes deployments and rollouts.
version: "1.2.0"
author: acme-infra
tags:
  - kubernetes
  - devops
  - deployment
requires:
  bins:
    - kubectl
    - helm
  config:
    - KUBECONFIG
platforms:
  - linux
  - darwin
metadata:
  lemon:
    category: devops
requires_tools:
  - kubectl
  - helm
fallback_for_tools:
  - kube-ps1
required_environment_variables:
  - KUBECONFIG
  - KUBE_CONTEXT
verification:
  command: kubectl version --client
  expect_exit: 0
references:
  - path: examples/rollout.md
  - url: https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
---
# Body
"""


def parse(text: str) -> ManifestResult:
    result = parse_manifest(text.encode(), key="demo", label=LABEL)
    for diagnostic in result.diagnostics:
        assert diagnostic.path == LABEL
        assert DIAGNOSTIC_CODES[diagnostic.code] == diagnostic.severity
    assert (result.manifest is None) == bool(result.errors)
    return result


def yaml_skill(frontmatter: str) -> ManifestResult:
    return parse("---\n" + textwrap.dedent(frontmatter).strip("\n") + "\n---\nbody\n")


def loaded(frontmatter: str) -> SkillManifest:
    result = yaml_skill(frontmatter)
    assert result.manifest is not None, result.diagnostics
    return result.manifest


def codes(result: ManifestResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def error_codes(frontmatter: str) -> list[str]:
    result = yaml_skill(frontmatter)
    assert result.manifest is None
    return [d.code for d in result.errors]


# -- the full example and defaults ----------------------------------------------------------


def test_full_v2_example() -> None:
    result = parse(FULL_EXAMPLE)
    assert result.diagnostics == ()
    m = result.manifest
    assert m is not None
    assert (m.name, m.version, m.author, m.format) == ("k8s-rollout", "1.2.0", "acme-infra", "yaml")
    assert m.description == "Use when managing Kubernetes deployments and rollouts."
    assert m.tags == ("kubernetes", "devops", "deployment")
    assert m.requires_bins == ("kubectl", "helm")
    assert m.requires_config == ("KUBECONFIG",)
    assert m.platforms == ("linux", "darwin")
    assert m.category == "devops"
    assert m.requires_tools == ("kubectl", "helm")
    assert m.fallback_for_tools == ("kube-ps1",)
    assert m.required_environment_variables == ("KUBECONFIG", "KUBE_CONTEXT")
    assert m.verification == Verification("kubectl version --client", 0, None)
    assert m.references == (
        Reference(path="examples/rollout.md"),
        Reference(url="https://kubernetes.io/docs/concepts/workloads/controllers/deployment/"),
    )
    assert (m.hide, m.extra) == (False, {})


def test_no_frontmatter_loads_with_defaults() -> None:
    result = parse("# Just a heading\n\nSome text.\n")
    assert result.diagnostics == ()
    assert result.manifest == SkillManifest(format="none")
    assert result.manifest.name is None
    assert result.manifest.description == ""
    assert result.manifest.platforms == ("any",)


@pytest.mark.parametrize("text", ["---\n---\nbody", "---\n# only a comment\n---\n", "+++\n+++\n"])
def test_empty_frontmatter_loads_with_defaults(text: str) -> None:
    result = parse(text)
    assert result.diagnostics == ()
    assert result.manifest is not None
    assert (result.manifest.name, result.manifest.description) == (None, "")
    assert result.manifest.format in ("yaml", "toml")


def test_v1_manifest() -> None:
    m = loaded(
        """
        name: legacy
        description: Old style.
        requires:
          bins: [git]
          config: [GITHUB_TOKEN]
        """
    )
    assert m.requires_bins == ("git",)
    assert m.required_environment_variables == ("GITHUB_TOKEN",)
    assert (m.platforms, m.requires_tools, m.references) == (("any",), (), ())


def test_null_fields_count_as_absent() -> None:
    m = loaded("name:\ndescription: ~\ntags:\nplatforms:\nverification:\nhide:\n")
    assert (m.name, m.description, m.tags, m.platforms, m.verification, m.hide) == (
        None, "", (), ("any",), None, False,
    )  # fmt: skip


def test_frontmatter_must_be_a_mapping() -> None:
    assert error_codes("- a\n- b") == ["frontmatter_not_mapping"]
    assert error_codes("just text") == ["frontmatter_not_mapping"]


def test_leading_blank_lines_are_a_warning() -> None:
    result = parse("\n\n---\nname: a\n---\n")
    assert result.manifest is not None and result.manifest.name == "a"
    assert codes(result) == ["frontmatter_not_at_start"]


# -- name and description -------------------------------------------------------------------


def test_name_and_description_are_stripped() -> None:
    m = loaded('name: "  padded  "\ndescription: "\\tText. "')
    assert (m.name, m.description) == ("padded", "Text.")


def test_folded_description_is_one_line() -> None:
    m = loaded("description: >\n  Use when you\n  need it.\n")
    assert m.description == "Use when you need it."


def test_literal_multiline_description_is_rejected() -> None:
    result = yaml_skill("description: |\n  line one\n  line two\n")
    assert codes(result) == ["multiline_value"]
    assert "folded block scalar" in result.errors[0].message


@pytest.mark.parametrize("field", ["name", "description"])
def test_empty_name_or_description_is_rejected(field: str) -> None:
    assert error_codes(f'{field}: "   "') == ["empty_value"]


def test_name_limit_is_128_utf8_bytes() -> None:
    assert loaded("name: " + "a" * 128).name == "a" * 128
    assert loaded("name: " + "é" * 64).name == "é" * 64
    assert error_codes("name: " + "a" * 129) == ["too_long"]
    assert error_codes("name: " + "é" * 65) == ["too_long"]


def test_description_limit_is_1024_characters() -> None:
    assert len(loaded("description: " + "a" * 1024).description) == 1024
    assert len(loaded("description: " + "😀" * 1024).description) == 1024  # 4,096 bytes
    result = yaml_skill("description: " + "a" * 1025)
    # a limit some agents enforce (Codex, the standard), not a safety cap: its own code
    assert codes(result) == ["long_description"]
    assert "at most 1024" in result.errors[0].message
    # over 4,096 bytes of UTF-8 is the safety cap, whatever the characters
    assert codes(yaml_skill("description: " + "😀" * 1025)) == ["too_long"]


@pytest.mark.parametrize("field", ["name", "description", "version", "author"])
@pytest.mark.parametrize("value", ["1.0", "12", "true", "2024-01-01", "[a]", "{a: b}"])
def test_text_fields_reject_other_types(field: str, value: str) -> None:
    result = yaml_skill(f"{field}: {value}")
    assert codes(result) == ["wrong_type"]


def test_unquoted_version_number_says_to_quote_it() -> None:
    result = yaml_skill("version: 1.0")
    assert codes(result) == ["wrong_type"]
    assert "quote" in result.errors[0].message
    assert loaded('version: "1.10"').version == "1.10"


# -- list fields ----------------------------------------------------------------------------

LIST_FIELDS = [
    "tags",
    "keywords",
    "platforms",
    "requires_tools",
    "fallback_for_tools",
    "required_environment_variables",
]


def _list_yaml(field: str, items: list[str]) -> str:
    body = json.dumps(items)
    if field in ("requires.bins", "requires.config"):
        return f"requires:\n  {field.split('.')[1]}: {body}"
    return f"{field}: {body}"


@pytest.mark.parametrize("field", [*LIST_FIELDS, "requires.bins", "requires.config"])
def test_list_limits(field: str) -> None:
    item = "linux" if field == "platforms" else "x"
    assert yaml_skill(_list_yaml(field, [item] * 32)).manifest is not None
    assert error_codes(_list_yaml(field, [item] * 33)) == ["too_many_items"]
    assert error_codes(_list_yaml(field, [""])) == ["empty_value"]
    assert error_codes(_list_yaml(field, ["a\nb"])) == ["multiline_value"]
    if field != "platforms":
        assert error_codes(_list_yaml(field, ["a" * 129])) == ["too_long"]
        assert yaml_skill(_list_yaml(field, ["a" * 128])).manifest is not None


@pytest.mark.parametrize("field", [*LIST_FIELDS, "requires.bins", "requires.config"])
@pytest.mark.parametrize("value", ["text", "3", "{a: b}"])
def test_list_fields_must_be_lists(field: str, value: str) -> None:
    if field.startswith("requires."):
        text = f"requires:\n  {field.split('.')[1]}: {value}"
    else:
        text = f"{field}: {value}"
    assert error_codes(text) == ["wrong_type"]


def test_boolean_in_a_string_list_is_rejected_not_coerced() -> None:
    result = yaml_skill("tags: [ok, true, 3]")
    assert codes(result) == ["wrong_type", "wrong_type"]
    assert "tags[1]" in result.errors[0].message


def test_list_items_are_deduplicated_in_order() -> None:
    assert loaded("tags: [b, a, b, c, a]").tags == ("b", "a", "c")


# -- platforms ------------------------------------------------------------------------------


def test_platform_aliases() -> None:
    assert loaded("platforms: [macos, windows, linux]").platforms == ("darwin", "win32", "linux")
    assert loaded("platforms: [macos, darwin]").platforms == ("darwin",)


@pytest.mark.parametrize("value", ["[platform-agnostic]", "[Linux]", "[linux, freebsd]"])
def test_unknown_platforms_are_rejected(value: str) -> None:
    result = yaml_skill(f"platforms: {value}")
    assert codes(result) == ["unknown_platform"]
    assert "linux, darwin, win32 or any" in result.errors[0].message


def test_empty_platforms_means_any() -> None:
    assert loaded("platforms: []").platforms == ("any",)


# -- hide -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["hide", "disable-model-invocation"])
def test_hide_true_hides(key: str) -> None:
    assert loaded(f"{key}: true").hide is True
    assert loaded(f"{key}: false").hide is False


@pytest.mark.parametrize("value", ['"true"', "1", "[true]"])
def test_non_boolean_hide_is_a_warning_and_does_not_hide(value: str) -> None:
    result = yaml_skill(f"name: a\nhide: {value}")
    assert result.manifest is not None and result.manifest.hide is False
    assert codes(result) == ["hide_not_boolean"]


def test_either_hide_key_hides() -> None:
    assert loaded("hide: false\ndisable-model-invocation: true").hide is True


# -- requirements and Hermes normalisation --------------------------------------------------


def test_requires_config_is_promoted_and_deduplicated() -> None:
    m = loaded(
        """
        requires:
          config: [B, A]
        required_environment_variables: [A, C]
        """
    )
    assert m.requires_config == ("B", "A")
    assert m.required_environment_variables == ("A", "C", "B")


def test_requires_must_be_a_mapping() -> None:
    assert error_codes("requires: [git]") == ["wrong_type"]


def test_unknown_requires_keys_are_a_warning() -> None:
    result = yaml_skill("requires:\n  bins: [git]\n  env: [TOKEN]")
    assert result.manifest is not None and result.manifest.requires_bins == ("git",)
    assert codes(result) == ["unknown_key"]
    assert "env" in result.warnings[0].message


def test_hermes_prerequisites_fill_absent_fields() -> None:
    m = loaded(
        """
        prerequisites:
          commands: [ffmpeg, yt-dlp]
          env_vars: [API_KEY]
        """
    )
    assert m.requires_bins == ("ffmpeg", "yt-dlp")
    assert m.requires_config == ("API_KEY",)
    assert m.required_environment_variables == ("API_KEY",)
    assert "prerequisites" not in m.extra


def test_hermes_prerequisites_never_override_lemon_fields() -> None:
    m = loaded(
        """
        requires:
          bins: [git]
          config: [CONFIG_VAR]
        required_environment_variables: [ENV_VAR]
        prerequisites:
          commands: [ffmpeg]
          env_vars: [HERMES_VAR]
        """
    )
    assert m.requires_bins == ("git",)
    assert m.requires_config == ("CONFIG_VAR",)
    assert m.required_environment_variables == ("ENV_VAR", "CONFIG_VAR")


def test_hermes_prerequisites_fill_only_what_is_absent() -> None:
    m = loaded(
        """
        required_environment_variables: [ENV_VAR]
        prerequisites:
          env_vars: [HERMES_VAR]
        """
    )
    assert m.requires_config == ("HERMES_VAR",)
    assert m.required_environment_variables == ("ENV_VAR", "HERMES_VAR")


def test_hermes_structured_environment_variables() -> None:
    m = loaded(
        """
        required_environment_variables:
          - name: TENOR_API_KEY
            prompt: Tenor API key
            help: Get a key at https://developers.google.com/tenor
            required_for: full functionality
          - name: OPTIONAL_KEY
            optional: true
          - PLAIN
        """
    )
    assert m.required_environment_variables == ("TENOR_API_KEY", "PLAIN")
    assert m.optional_environment_variables == ("OPTIONAL_KEY",)


def test_optional_variable_required_elsewhere_is_required() -> None:
    m = loaded(
        """
        required_environment_variables:
          - {name: KEY, optional: true}
        requires:
          config: [KEY]
        """
    )
    assert (m.required_environment_variables, m.optional_environment_variables) == (("KEY",), ())


@pytest.mark.parametrize(
    ("entry", "code"),
    [("{prompt: x}", "missing_field"), ("{name: 3}", "wrong_type"),
     ("{name: A, optional: 'yes'}", "wrong_type"), ("[A]", "wrong_type")],
)  # fmt: skip
def test_bad_structured_environment_variables(entry: str, code: str) -> None:
    assert error_codes(f"required_environment_variables: [{entry}]") == [code]


def test_structured_entries_are_not_accepted_in_requires_config() -> None:
    assert error_codes("requires:\n  config: [{name: A}]") == ["wrong_type"]


# -- verification and references ------------------------------------------------------------


def test_verification_defaults_and_fields() -> None:
    m = loaded("verification:\n  command: gh --version\n  expect_output: gh version")
    assert m.verification == Verification("gh --version", 0, "gh version")


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ("verification: gh --version", "wrong_type"),
        ("verification: {expect_exit: 0}", "missing_field"),
        ("verification: {command: 3}", "wrong_type"),
        ("verification: {command: ''}", "empty_value"),
        ("verification: {command: x, expect_exit: true}", "wrong_type"),
        ("verification: {command: x, expect_exit: '0'}", "wrong_type"),
        ("verification: {command: x, expect_exit: 1.5}", "wrong_type"),
        ("verification: {command: x, expect_output: 3}", "wrong_type"),
    ],
)
def test_bad_verification(spec: str, code: str) -> None:
    assert error_codes(spec) == [code]


def test_references_forms() -> None:
    m = loaded(
        """
        references:
          - docs/a.md
          - path: schemas/config.json
            description: Configuration schema
          - url: https://example.com/docs
          - {path: b.md, url: https://example.com/b}
        """
    )
    assert m.references == (
        Reference(path="docs/a.md"),
        Reference(path="schemas/config.json", description="Configuration schema"),
        Reference(url="https://example.com/docs"),
        Reference(path="b.md", url="https://example.com/b"),
    )


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ("references: docs/a.md", "wrong_type"),
        ("references: [3]", "wrong_type"),
        ("references: [{description: x}]", "missing_field"),
        ("references: [{path: 3}]", "wrong_type"),
        ("references: [{url: [a]}]", "wrong_type"),
        ("references: [{path: a, description: 3}]", "wrong_type"),
        ("references: ['']", "empty_value"),
        ("references: [{path: ''}]", "empty_value"),
    ],
)
def test_bad_references(spec: str, code: str) -> None:
    assert error_codes(spec) == [code]


# -- metadata and unknown keys --------------------------------------------------------------


def test_metadata_must_be_a_mapping() -> None:
    assert error_codes("metadata: [a]") == ["wrong_type"]
    assert error_codes("metadata:\n  lemon: devops") == ["wrong_type"]
    assert error_codes("metadata:\n  lemon:\n    category: 3") == ["wrong_type"]


def test_metadata_and_extra_are_json_compatible() -> None:
    m = loaded(
        """
        license: MIT
        allowed-tools: Bash(git:*) Read
        released: 2024-05-01
        stamp: 2024-05-01 10:20:30
        ratio: .nan
        1: numeric key
        metadata:
          hermes: {tags: [a, b], created: 2024-01-02}
          lemon: {category: languages/elixir}
        """
    )
    assert m.extra == {
        "license": "MIT",
        "allowed-tools": "Bash(git:*) Read",
        "released": "2024-05-01",
        "stamp": "2024-05-01T10:20:30",
        "ratio": "nan",
        "1": "numeric key",
    }
    assert m.metadata == {
        "hermes": {"tags": ["a", "b"], "created": "2024-01-02"},
        "lemon": {"category": "languages/elixir"},
    }
    assert m.category == "languages/elixir"
    json.dumps({"extra": dict(m.extra), "metadata": dict(m.metadata)}, allow_nan=False)


def test_duplicate_keys_warn_and_the_last_wins() -> None:
    result = yaml_skill("name: first\ndescription: d\nname: second")
    assert result.manifest is not None and result.manifest.name == "second"
    assert codes(result) == ["duplicate_key"]
    assert "line 4" in result.warnings[0].message


def test_every_error_is_reported_not_only_the_first() -> None:
    result = yaml_skill("name: 3\ntags: [true]\nplatforms: [beos]\nverification: x")
    assert codes(result) == ["wrong_type", "wrong_type", "unknown_platform", "wrong_type"]


def test_validate_manifest_data() -> None:
    result = validate_manifest_data({"name": "x", "tags": ["a"]}, label="index.json", fmt="toml")
    assert result.manifest is not None and result.manifest.format == "toml"
    bad = validate_manifest_data({"tags": "a"}, label="index.json")
    assert [d.code for d in bad.diagnostics] == ["wrong_type"]
    assert bad.diagnostics[0].path == "index.json"


# -- load_manifest --------------------------------------------------------------------------


def test_load_manifest_matches_parse_manifest(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(FULL_EXAMPLE)
    loaded_result = load_manifest(path, key="k8s")
    assert loaded_result == parse_manifest(FULL_EXAMPLE.encode(), key="k8s", label=str(path))
    assert loaded_result.manifest is not None


def test_load_manifest_never_reads_the_body(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"---\nname: a\n---\n" + b"x" * 10_000 + b"\xff\xfe\x00 not text")
    result = load_manifest(path, key="a")
    assert result.diagnostics == ()
    assert result.manifest is not None and result.manifest.name == "a"


def test_load_manifest_reads_long_frontmatter(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    tags = "\n".join(f"  - tag-{i}-" + "x" * 100 for i in range(32))
    path.write_text(f"---\nname: long\ntags:\n{tags}\n---\nbody")
    manifest = load_manifest(path, key="long").manifest
    assert manifest is not None and len(manifest.tags) == 32


def test_load_manifest_missing_file(tmp_path: Path) -> None:
    result = load_manifest(tmp_path / "nope" / "SKILL.md", key="nope")
    assert result.manifest is None
    assert codes(result) == ["read_failed"]
    assert result.diagnostics[0].path == str(tmp_path / "nope" / "SKILL.md")


def test_load_manifest_directory(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").mkdir()
    result = load_manifest(tmp_path / "SKILL.md", key="x")
    assert codes(result) in (["not_a_file"], ["read_failed"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_load_manifest_fifo_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "SKILL.md")
    assert codes(load_manifest(tmp_path / "SKILL.md", key="x")) == ["not_a_file"]


def test_load_manifest_read_error_is_a_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(FULL_EXAMPLE)

    def failing_read(fd: int, size: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(manifest_module.os, "read", failing_read)
    result = load_manifest(path, key="x")
    assert codes(result) == ["read_failed"]
    assert "Input/output error" in result.errors[0].message


def test_a_bug_becomes_an_internal_error_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(manifest_module, "build_manifest", broken)
    result = parse_manifest(b"---\nname: a\n---\n", key="demo", label=LABEL)
    assert codes(result) == ["internal_error"]
    assert "demo" in result.errors[0].message


def test_diagnostic_codes_are_snake_case() -> None:
    for code in DIAGNOSTIC_CODES:
        assert code.isidentifier() and code == code.lower()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_load_manifest_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(FULL_EXAMPLE)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running with privileges that ignore permissions")
        assert codes(load_manifest(path, key="x")) == ["read_failed"]
    finally:
        path.chmod(0o600)


def test_every_code_is_documented() -> None:
    doc = Path(__file__).parents[2] / "docs" / "reference" / "manifest.md"
    text = doc.read_text(encoding="utf-8")
    for code, severity in DIAGNOSTIC_CODES.items():
        assert f"| `{code}` | {severity} |" in text, code


def test_load_manifest_path_with_nul_is_a_diagnostic(tmp_path: Path) -> None:
    result = load_manifest(tmp_path / "bad\x00name" / "SKILL.md", key="x")
    assert codes(result) == ["read_failed"]
