"""The audit evaluation corpus (tests/fixtures/audit_eval) loads and its labels are consistent.

Only the corpus is checked here, never the auditors' verdicts: those are the benchmark's
figures (``benchmarks/bench_audit.py --eval dev|held``), not a test's.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections import Counter
from pathlib import Path

import pytest
import tomllib

from tests.audit import eval_corpus

CORPUS = eval_corpus.CORPUS
HALVES = ("dev", "held")
#: Hosts a malicious sample may name besides reserved ones: real public APIs a skill's honest
#: part talks to (public DNS resolvers included). Everything an attack reaches is under a
#: reserved name or address.
PUBLIC_HOSTS = {
    "api.coingecko.com", "gamma-api.polymarket.com", "api.wordpress.org", "rubygems.org",
    "github.com", "api.github.com", "example.com", "pypi.org", "www.w3.org", "www.apple.com",
    "purl.org", "img.shields.io", "www.googleapis.com", "1.1.1.1", "8.8.8.8", "9.9.9.9",
}
RESERVED_SUFFIXES = (".example", ".invalid", ".test", ".localhost")
DOC_NETS = [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24",
                                              "203.0.113.0/24")]
URL = re.compile(r"\b(?:https?|ftp)://([A-Za-z0-9.\-]+)")
IPV4 = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.])")


def _split_rule(pair: str, variant: str) -> str:
    even = hashlib.sha256(pair.encode("utf-8")).digest()[0] % 2 == 0
    return ("dev" if even else "held") if variant == "a" else ("held" if even else "dev")


@pytest.fixture(scope="module")
def labelled() -> dict[str, list[eval_corpus.Sample]]:
    return {half: eval_corpus.samples(half) for half in HALVES}


def test_every_label_has_every_field_with_a_known_value(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    for half in HALVES:
        raw = tomllib.loads((CORPUS / half / "labels.toml").read_text(encoding="utf-8"))
        for entry in raw["sample"]:
            assert set(entry) == set(eval_corpus.FIELDS), entry
            assert all(isinstance(v, str) and v.strip() for v in entry.values()), entry
        for s in labelled[half]:
            assert s.label in eval_corpus.LABELS, s
            assert s.variant in ("a", "b"), s
            if s.label == "malicious":
                assert s.category in eval_corpus.MALICIOUS_CATEGORIES, s
            else:
                assert s.category.startswith("benign-"), s


def test_every_labelled_folder_is_a_skill_and_every_skill_is_labelled(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    for half in HALVES:
        paths = [s.path for s in labelled[half]]
        assert len(paths) == len(set(paths)), Counter(paths).most_common(3)
        folders = {p.name for p in (CORPUS / half).iterdir()
                   if p.is_dir() and not p.name.startswith("_")}
        assert folders == set(paths)
        for path in paths:
            assert (CORPUS / half / path / "SKILL.md").is_file(), path
        recipes = CORPUS / half / "_generated"
        if recipes.is_dir():
            assert {p.stem for p in recipes.iterdir()} <= set(paths)
    assert not {s.path for s in labelled["dev"]} & {s.path for s in labelled["held"]}


def test_every_sample_sits_in_the_half_the_split_rule_gives(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    """Pairs of independent variants, assigned by the hash of the pair id: one in each half,
    the same label and the same kind of category in both."""
    pairs: dict[str, dict[str, eval_corpus.Sample]] = {}
    for half in HALVES:
        for s in labelled[half]:
            assert _split_rule(s.pair, s.variant) == half, (s.path, s.pair, s.variant, half)
            assert s.variant not in pairs.setdefault(s.pair, {}), s.pair
            pairs[s.pair][s.variant] = s
    for pair, variants in pairs.items():
        assert set(variants) == {"a", "b"}, pair
        assert variants["a"].label == variants["b"].label, pair
        if variants["a"].label == "malicious":
            assert variants["a"].category == variants["b"].category, pair


def test_the_corpus_is_as_large_and_as_varied_as_issue_19_asks(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    every = labelled["dev"] + labelled["held"]
    labels = Counter(s.label for s in every)
    assert labels["malicious"] >= 90 and labels["benign"] >= 50, labels
    for category in eval_corpus.MALICIOUS_CATEGORIES:
        these = [s for s in every if s.category == category]
        assert len(these) >= 4, category  # several samples, in each half
        assert len({s.language for s in these}) >= 2, category  # more than one language


def _frontmatter_name(text: str) -> str:
    assert text.startswith("---\n"), "SKILL.md opens with frontmatter"
    head = text.split("\n---\n", 1)[0]
    match = re.search(r"^name:\s*(.+?)\s*$", head, re.MULTILINE)
    assert match, "frontmatter has a name"
    return match.group(1).strip("'\"")


def test_names_match_folders_except_where_the_name_is_the_attack(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    for half in HALVES:
        for s in labelled[half]:
            name = _frontmatter_name((CORPUS / half / s.path / "SKILL.md").read_text("utf-8"))
            if s.category == "frontmatter-name-path":
                assert name != s.path, s.path
                assert any(part in name.lower() for part in ("/", "\\", "%2f", "%5c")), s.path
            else:
                assert name == s.path, s.path


def _host_is_inert(host: str) -> bool:
    host = host.lower().rstrip(".")
    if host in PUBLIC_HOSTS or host.endswith(RESERVED_SUFFIXES) or "." not in host:
        return True  # a single label ("localhost", "site") is no public host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global or any(address in net for net in DOC_NETS)


def test_malicious_samples_only_reach_reserved_hosts(
        labelled: dict[str, list[eval_corpus.Sample]]) -> None:
    """Every sample is inert: what an attack would reach is a reserved name or a documentation
    address, never a real host."""
    for half in HALVES:
        for s in labelled[half]:
            if s.label != "malicious":
                continue
            for file in (CORPUS / half / s.path).rglob("*"):
                if not file.is_file():
                    continue
                text = file.read_text(encoding="utf-8", errors="replace")
                for host in URL.findall(text):
                    assert _host_is_inert(host), (s.path, file.name, host)
                for ip in IPV4.findall(text):
                    if all(int(part) <= 255 for part in ip.split(".")):
                        assert _host_is_inert(ip), (s.path, file.name, ip)


def test_a_half_materialises_with_its_generated_files(tmp_path: Path) -> None:
    """Only ``dev`` is built here (the held half's generated files follow the same code)."""
    root = eval_corpus.materialise("dev", tmp_path / "dev")
    names = {p.name for p in root.iterdir()}
    assert names == {s.path for s in eval_corpus.samples("dev")}
    recipes = list((CORPUS / "dev" / "_generated").glob("*.toml"))
    assert recipes
    for recipe in recipes:
        for item in tomllib.loads(recipe.read_text(encoding="utf-8"))["file"]:
            data = (root / recipe.stem / item["path"]).read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")
            for key, value in item.get("text", {}).items():
                assert key.encode() + b"\x00" + value.encode("latin-1") in data


def test_a_folder_laid_out_like_a_half_loads(tmp_path: Path) -> None:
    half = tmp_path / "mine"
    (half / "hello").mkdir(parents=True)
    (half / "hello" / "SKILL.md").write_text("---\nname: hello\ndescription: d\n---\nHi.\n")
    (half / "labels.toml").write_text(
        '[[sample]]\npath = "hello"\npair = "x-01"\nvariant = "a"\nlabel = "benign"\n'
        'category = "benign-media"\nevasion = "-"\nlanguage = "en"\nsource = "-"\n')
    assert [s.path for s in eval_corpus.samples(half)] == ["hello"]
    assert (eval_corpus.materialise(half, tmp_path / "out") / "hello" / "SKILL.md").is_file()
