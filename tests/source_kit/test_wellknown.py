"""The well-known index formats, read from documents written by hand in each version's
published shape (cloudflare/agent-skills-discovery-rfc v0.1.0 and v0.2.0)."""

from __future__ import annotations

import pytest

from lemon_core.source_kit.wellknown import SCHEMA_V2, index_urls, parse_index

DIGEST = "sha256:" + "ab" * 32
V2 = {
    "$schema": SCHEMA_V2,
    "skills": [
        {"name": "code-review", "type": "skill-md",
         "description": "Review code for bugs, security issues, and best practices.",
         "url": "/.well-known/agent-skills/code-review/SKILL.md", "digest": DIGEST},
        {"name": "wrangler", "type": "archive",
         "description": "Deploy and manage Cloudflare Workers projects.",
         "url": "wrangler.tar.gz", "digest": DIGEST, "unknown": "ignored"},
    ],
}
V1 = {"skills": [
    {"name": "wrangler", "description": "Deploy and manage Cloudflare Workers projects.",
     "files": ["SKILL.md", "references/commands.md", "references/configuration.md"]},
    {"name": "code-review", "description": "Review code.", "files": ["SKILL.md"]},
]}
INDEX2 = "https://example.com/docs/.well-known/agent-skills/index.json"
INDEX1 = "https://example.com/.well-known/skills/index.json"


def test_v2_entries_resolve_their_urls_against_the_index():
    entries, notes = parse_index(V2, INDEX2, 2)
    assert notes == []
    assert [(e.name, e.kind, e.url, e.digest, e.version) for e in entries] == [
        ("code-review", "skill-md",
         "https://example.com/.well-known/agent-skills/code-review/SKILL.md", DIGEST, 2),
        ("wrangler", "archive",
         "https://example.com/docs/.well-known/agent-skills/wrangler.tar.gz", DIGEST, 2)]


def test_v1_entries_keep_their_files_below_the_skill_folder():
    entries, _ = parse_index(V1, INDEX1, 1)
    assert [(e.name, e.files, e.base) for e in entries] == [
        ("wrangler", ("SKILL.md", "references/commands.md", "references/configuration.md"),
         "https://example.com/.well-known/skills/wrangler/"),
        ("code-review", ("SKILL.md",), "https://example.com/.well-known/skills/code-review/")]


def test_a_v2_document_without_schema_is_read_as_v1_and_an_unknown_schema_refused():
    entries, _ = parse_index(V1, INDEX2, 2)
    assert {e.version for e in entries} == {1}
    with pytest.raises(ValueError, match="schema lemon does not know"):
        parse_index({**V2, "$schema": "https://schemas.agentskills.io/discovery/9/s.json"},
                    INDEX2, 2)
    with pytest.raises(ValueError, match="no 'skills' list"):
        parse_index({"skills": "x"}, INDEX2, 2)


@pytest.mark.parametrize(("entry", "why"), [
    ({"name": "../etc", "files": ["SKILL.md"]}, "not an Agent Skills name"),
    ({"name": "a\x1b[2Jb", "files": ["SKILL.md"]}, "not an Agent Skills name"),
    ({"name": "Upper", "files": ["SKILL.md"]}, "not an Agent Skills name"),
    ({"name": "a--b", "files": ["SKILL.md"]}, "not an Agent Skills name"),
    ({"name": "ok", "files": ["SKILL.md", "../../.bashrc"]}, "'..'"),
    ({"name": "ok", "files": ["SKILL.md", "/etc/passwd"]}, "absolute"),
    ({"name": "ok", "files": ["SKILL.md", "a\\b"]}, "does not allow"),
    ({"name": "ok", "files": ["SKILL.md", "a\x1bb"]}, "does not allow"),
    ({"name": "ok", "files": ["README.md"]}, "SKILL.md"),
    ({"name": "ok", "files": []}, "files"),
])
def test_v1_entries_that_break_the_rules_are_left_out_with_a_note(entry, why):
    entries, notes = parse_index({"skills": [{"description": "d", **entry}]}, INDEX1, 1)
    assert entries == [] and len(notes) == 1 and why in notes[0]


@pytest.mark.parametrize(("change", "why"), [
    ({"digest": "sha256:abc"}, "digest"), ({"digest": "md5:" + "a" * 32}, "digest"),
    ({"type": "zip"}, "unknown type"), ({"url": "file:///etc/passwd"}, "not http"),
    ({"url": "javascript:alert(1)"}, "not http"), ({"description": ""}, "description"),
])
def test_v2_entries_that_break_the_rules_are_left_out(change, why):
    entry = {**V2["skills"][0], **change}
    entries, notes = parse_index({"$schema": SCHEMA_V2, "skills": [entry]}, INDEX2, 2)
    assert entries == [] and why in notes[0]


def test_a_name_listed_twice_keeps_the_first():
    doc = {"skills": [V1["skills"][1], {**V1["skills"][1], "description": "other"}]}
    entries, notes = parse_index(doc, INDEX1, 1)
    assert [e.description for e in entries] == ["Review code."] and "twice" in notes[0]


def test_index_urls_try_v2_then_v1_below_the_path_then_at_the_root():
    assert index_urls("https://example.com/docs") == [
        ("https://example.com/docs/.well-known/agent-skills/index.json", 2),
        ("https://example.com/.well-known/agent-skills/index.json", 2),
        ("https://example.com/docs/.well-known/skills/index.json", 1),
        ("https://example.com/.well-known/skills/index.json", 1)]
    assert index_urls("https://example.com") == [
        ("https://example.com/.well-known/agent-skills/index.json", 2),
        ("https://example.com/.well-known/skills/index.json", 1)]
