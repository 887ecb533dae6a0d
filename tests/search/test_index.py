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
        SearchDoc("in-body", "in-body", "Helps with things.", body="kafka " * 3),
        SearchDoc("in-description", "in-description", "Works with kafka."),
        SearchDoc("in-keywords", "in-keywords", "Helps with things.", keywords=("kafka",)),
        SearchDoc("kafka", "kafka", "Helps with things."),
        SearchDoc("other", "other", "Nothing."),
    ])
    assert keys(index.search("kafka")) == ["kafka", "in-keywords", "in-description", "in-body"]


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


@pytest.mark.parametrize("seed", range(5))
def test_dense_and_sparse_scoring_agree(seed: int, monkeypatch) -> None:
    rng = random.Random(seed)
    vocabulary = ["alpha", "beta", "kafka", "yaml", "docker", "lint", "deploy", "cloud"]
    docs = [SearchDoc(f"k{i:03d}-{rng.choice(vocabulary)}", f"k{i:03d}",
                      " ".join(rng.choices(vocabulary, k=5)), tuple(rng.sample(vocabulary, 2)),
                      (), " ".join(rng.choices(vocabulary, k=25))) for i in range(200)]
    index = SearchIndex.build(docs)
    allowed = (lambda key: not key.endswith("a"))
    for query in ("kafka yaml", "docker", "deploy cloud lint", "k007 beta"):
        results = []
        for share in (10**9, 0):  # always sparse, always dense
            monkeypatch.setattr(index_module, "DENSE_SHARE", share)
            results.append((index.search(query, 7), index.search(query, 7, allowed)))
        for sparse, dense in zip(*results):
            assert keys(sparse) == keys(dense)
            assert [s for _, s in sparse] == pytest.approx([s for _, s in dense])


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
