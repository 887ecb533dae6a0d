"""The table of words that name the same thing."""

from __future__ import annotations

from lemon_core.search.concepts import related
from lemon_core.search.tokens import words


def test_groups_work_both_ways_on_indexed_word_forms() -> None:
    kubernetes, = words("Kubernetes")  # "kubernete": the table holds the index's word forms
    assert related("k8s") == (kubernetes,) and "k8s" in related(kubernetes)
    assert related("cv") == ("resume",) and "cv" in related("resume")
    slides, = words("slides")
    assert "presentation" in related(slides)  # stemmed like the index's words


def test_ram_means_memory_but_memory_is_not_ram() -> None:
    assert related("ram") == ("memory",)
    assert "ram" not in related("memory")


def test_an_unknown_word_has_none() -> None:
    assert related("graph") == () and related("") == ()
