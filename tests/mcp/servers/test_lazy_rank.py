from lemon_core.mcp.servers.lazy_rank import LazyIndex, terms_of


def _index(*pairs: tuple[str, str]) -> LazyIndex:
    return LazyIndex([n for n, _ in pairs], [d for _, d in pairs])


def _names(index: LazyIndex, query: str | None, limit: int | None = 10) -> list[str]:
    return [index.names[i] for i in index.search(query, limit)]


def test_readme_example() -> None:
    index = _index(("nix-flakes", "Write and debug Nix flakes, inputs, and lockfiles."),
                   ("python-testing", "Run pytest suites and fix failing tests."))
    assert _names(index, "flake lockfile") == ["nix-flakes"]


def test_case_and_hyphens_ignored() -> None:
    index = _index(("nix-flakes", "x"), ("other", "About NixFlakes."))
    assert set(_names(index, "NIXFLAKES")) == {"nix-flakes", "other"}
    assert set(_names(index, "nix-flakes")) == {"nix-flakes", "other"}


def test_rare_terms_weigh_more_than_common_ones() -> None:
    common = [(f"skill-{i}", "use this tool") for i in range(20)]
    index = _index(*common, ("rare-one", "use this tool for kubernetes"))
    assert _names(index, "tool kubernetes")[0] == "rare-one"


def test_a_term_in_the_name_counts_double() -> None:
    index = _index(("alpha", "mentions docker"), ("docker", "something else entirely"))
    assert _names(index, "docker")[0] == "docker"


def test_empty_query_returns_every_skill_by_name() -> None:
    index = _index(*[(f"s{i:02}", "d") for i in range(30, 0, -1)])
    assert _names(index, "", None) == [f"s{i:02}" for i in range(1, 31)]
    assert _names(index, None, None) == _names(index, "   ", None)


def test_at_most_ten_and_ties_by_name() -> None:
    index = _index(*[(f"k{i:02}", "same words here") for i in range(15, 0, -1)])
    assert _names(index, "words") == [f"k{i:02}" for i in range(1, 11)]


def test_no_match_is_empty() -> None:
    assert _names(_index(("a", "b")), "zzz") == []


def test_terms_are_distinct_and_normalised() -> None:
    assert terms_of("Foo foo F-O-O bar") == ["foo", "bar"]
