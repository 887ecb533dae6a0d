"""The relevance index: field weights, IDF, name matches, ties, dense and sparse scoring."""

from __future__ import annotations

import random

import pytest

from lemon_core.search import index as index_module
from lemon_core.search.index import SearchDoc, SearchIndex


def keys(hits) -> list[str]:
    return [key for key, _ in hits]


def test_field_weights_name_and_keywords_above_description_above_body() -> None:
    index = SearchIndex.build([
        SearchDoc("in-body", "in-body", "Helps with things.", body="Mentions kafka once."),
        SearchDoc("in-description", "in-description", "Works with kafka."),
        SearchDoc("in-keywords", "in-keywords", "Helps with things.", keywords=("kafka",)),
        SearchDoc("kafka", "kafka", "Helps with things."),
        *(SearchDoc(f"other-{i}", f"other-{i}", "Nothing.") for i in range(5)),
    ])
    assert keys(index.search("kafka")) == ["kafka", "in-keywords", "in-description", "in-body"]


def test_a_word_in_most_skills_counts_only_where_it_names_or_describes_one() -> None:
    docs = [SearchDoc(f"s{i}", f"s{i}", "Plain helper.", body="uses docker a lot")
            for i in range(10)]
    docs.append(SearchDoc("docker-helper", "docker-helper", "Plain helper.", body="docker"))
    docs.append(SearchDoc("about-it", "about-it", "Runs docker images."))
    index = SearchIndex.build(docs)
    assert keys(index.search("docker")) == ["docker-helper", "about-it"]


def test_tags_count_like_keywords() -> None:
    index = SearchIndex.build([SearchDoc("a", "a", "x", tags=("terraform",)),
                               SearchDoc("b", "b", "y")])
    assert keys(index.search("terraform")) == ["a"]


def test_idf_a_word_everywhere_barely_counts() -> None:
    docs = [SearchDoc(f"s{i}", f"s{i}", "Use this skill for work.") for i in range(20)]
    docs.append(SearchDoc("helm", "helm", "Use this skill for helm charts."))
    index = SearchIndex.build(docs)
    [(first, top), *rest] = index.search("skill helm", limit=3)
    assert first == "helm" and all(score < top / 5 for _, score in rest)


def test_whole_name_and_runs_of_words_spelling_a_key() -> None:
    index = SearchIndex.build([
        SearchDoc("bun-file-io", "bun-file-io", "File reading."),
        SearchDoc("file-reader", "file-reader", "File reading and file io."),
    ])
    for query in ("bun file io", "BunFileIO", "bun_file_io"):
        assert keys(index.search(query))[0] == "bun-file-io", query
    assert keys(index.search("I want bun file io please"))[0] == "bun-file-io"


def test_coverage_more_distinct_words_win() -> None:
    index = SearchIndex.build([
        SearchDoc("both", "both", "Deploy docker images."),
        SearchDoc("one", "one", "Docker docker docker docker."),
    ])
    assert keys(index.search("deploy docker")) == ["both", "one"]


def test_ties_by_key_and_limit_and_allowed() -> None:
    index = SearchIndex.build([SearchDoc(k, k, "Formats yaml.") for k in ("c", "a", "b")])
    assert keys(index.search("yaml")) == ["a", "b", "c"]
    assert keys(index.search("yaml", limit=2)) == ["a", "b"]
    assert keys(index.search("yaml", allowed=lambda k: k != "a")) == ["b", "c"]
    assert index.search("yaml", limit=0) == [] and index.search("nothing") == []


def _reference_scores(index: SearchIndex, query: str) -> dict[int, float]:
    """The scores written out plainly: the sum over the query's words, scaled by coverage,
    plus the name bonus."""
    from lemon_core.search.tokens import query_words

    terms = query_words(query)
    total: dict[int, float] = {}
    matched: dict[int, int] = {}
    for term in terms:
        posting = index._posting(term)
        for doc_id, score in zip(*(posting or ((), ()))):
            total[doc_id] = total.get(doc_id, 0.0) + score
            matched[doc_id] = matched.get(doc_id, 0) + 1
    if len(terms) > 1:
        for doc_id, count in matched.items():
            total[doc_id] *= index_module.COVERAGE_FLOOR + (
                1 - index_module.COVERAGE_FLOOR) * count / len(terms)
    for doc_id, bonus in index._name_bonus(query).items():
        total[doc_id] = total.get(doc_id, 0.0) + bonus
    return total


@pytest.mark.parametrize("seed", range(5))
def test_fast_scoring_and_top_k_agree_with_the_plain_computation(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = ["alpha", "beta", "kafka", "yaml", "docker", "lint", "deploy", "cloud"]
    docs = [SearchDoc(f"k{i:03d}-{rng.choice(vocabulary)}", f"k{i:03d}",
                      " ".join(rng.choices(vocabulary, k=5)), tuple(rng.sample(vocabulary, 2)),
                      (), " ".join(rng.choices(vocabulary, k=25))) for i in range(200)]
    index = SearchIndex.build(docs)
    def allowed(key: str) -> bool:
        return not key.endswith("a")

    for query in ("kafka yaml", "docker", "deploy cloud lint", "k007 beta", "zzz kafka"):
        expected = _reference_scores(index, query)
        got = index.scores(query)
        assert set(got) == set(expected)
        assert all(got[d] == pytest.approx(expected[d]) for d in got)
        for limit, keep in ((7, None), (3, allowed), (500, allowed)):
            ranked = sorted(((index.keys[d], s) for d, s in got.items()
                             if s > 0 and (keep is None or keep(index.keys[d]))),
                            key=lambda item: (-item[1], item[0]))[:limit]
            assert index.search(query, limit, keep) == ranked


def test_many_ties_at_the_cut_are_ordered_by_key() -> None:
    docs = [SearchDoc(f"k{i:02d}", f"k{i:02d}", "alpha words here") for i in range(40)]
    docs.append(SearchDoc("z-best", "z-best", "alpha words here", keywords=("alpha",)))
    index = SearchIndex.build(reversed(docs))
    assert keys(index.search("alpha words", limit=3)) == ["z-best", "k00", "k01"]
    assert keys(index.search("alpha words", limit=3, allowed=lambda k: k > "k30")) == [
        "z-best", "k31", "k32"]


def test_round_trip_through_plain_data_and_bad_data() -> None:
    import json

    index = SearchIndex.build([SearchDoc("pdf-tools", "pdf-tools", "Merge PDF files.",
                                         body="Split pages too.")])
    data = json.loads(json.dumps(index.to_data()))
    again = SearchIndex.from_data(data)
    assert again is not None and again.search("merge pages") == index.search("merge pages")
    assert SearchIndex.from_data({"format": -1}) is None
    assert SearchIndex.from_data("nope") is None
    broken = {**data, "postings": {"merge": "!!not base64!!", "pdf": "AAAA"}}
    assert SearchIndex.from_data(broken).search("merge pdf") == []
    out_of_range = SearchIndex.build([SearchDoc(f"k{i}", f"k{i}", "merge") for i in range(5)])
    assert SearchIndex.from_data({**out_of_range.to_data(), "keys": ["k0"]}) is None  # names
    far = {**out_of_range.to_data(), "keys": ["k0"], "names": {}}
    assert SearchIndex.from_data(far).search("merge") == []


def test_a_chinese_request_finds_a_chinese_description() -> None:
    index = SearchIndex.build([
        SearchDoc("gaokao-science-tutor", "gaokao-science-tutor",
                  "模拟中国高三理科辅导老师，辅导数学、物理、化学。适用于高考备考。"),
        SearchDoc("weather", "weather", "天气预报和当前天气。"),
        SearchDoc("pdf-tools", "pdf-tools", "Merge PDF files."),
    ])
    assert keys(index.search("帮我辅导高考物理题"))[:1] == ["gaokao-science-tutor"]
    assert keys(index.search("明天天气怎么样"))[:1] == ["weather"]


def _typo_index() -> SearchIndex:
    return SearchIndex.build([
        SearchDoc("docker-writer", "docker-writer", "Generate an optimized Dockerfile."),
        SearchDoc("prisma-expert", "prisma-expert", "Prisma ORM schema and migrations."),
        SearchDoc("typescript-types", "typescript-types", "Advanced TypeScript generics."),
        SearchDoc("pdf-tools", "pdf-tools", "Merge PDF files."),
    ])


def test_a_misspelt_query_word_is_read_as_the_indexed_word_one_edit_away() -> None:
    index = _typo_index()
    assert keys(index.search("genrate a dockerfle"))[:1] == ["docker-writer"]  # added letters
    assert keys(index.search("prsima migration failing"))[:1] == ["prisma-expert"]  # swapped
    assert keys(index.search("typscript generics"))[:1] == ["typescript-types"]
    assert keys(index.search("dockerfule"))[:1] == ["docker-writer"]  # a changed letter


def test_a_correction_counts_less_and_never_touches_known_or_short_words() -> None:
    index = _typo_index()
    exact, = index.search("dockerfile")
    fixed, = index.search("dockerfle")
    assert fixed[0] == exact[0] and fixed[1] < exact[1]
    assert index.search("pdx") == []  # too short to guess at
    assert index.search("zzzzzzzz") == []  # nothing one edit away
    index.search("dockerfle")
    assert not any(term.startswith("~") for term in index.to_data()["postings"])


def test_a_query_word_also_matches_its_related_words_at_a_lower_weight() -> None:
    index = SearchIndex.build([
        SearchDoc("job-apply", "job-apply", "Tailor your resume and apply to jobs."),
        SearchDoc("k8s-ops", "k8s-ops", "Operate Kubernetes clusters."),
        SearchDoc("pdf-tools", "pdf-tools", "Merge PDF files."),
    ])
    assert keys(index.search("rewrite my cv")) == ["job-apply"]
    assert keys(index.search("kubernetes")) == ["k8s-ops"]
    assert keys(index.search("k8s")) == ["k8s-ops"]  # the name's own word, unchanged
    said, = index.search("resume")
    related_only, = index.search("cv")
    assert related_only[1] < said[1]
    assert not any(t.startswith("+") for t in index.to_data()["postings"])

