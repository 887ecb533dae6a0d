"""auditor_kit.hosts and .lines."""

from __future__ import annotations

import pytest

from lemon_core.auditor_kit import LineIndex, excerpt, host_class, names_host, urls


@pytest.mark.parametrize(("url", "expected"), [
    ("https://sh.rustup.rs", "vendor"),
    ("https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh", "vendor"),
    ("https://astral.sh/uv/install.sh", "vendor"),
    ("https://raw.githubusercontent.com/someone/repo/main/install.sh", "unknown"),
    ("http://127.0.0.1:8080/x", "loopback"),
    ("http://[::1]/x", "loopback"),
    ("http://localhost/x", "loopback"),
    ("https://docs.python.org/3/", "docs"),
    ("https://api.example.com/v1", "docs"),
    ("https://api.openai.com/v1/chat", "api"),
    ("https://webhook.site/abc", "collector"),
    ("https://attacker.invalid/x", "unknown"),
    ("https://$HOST/x", "unknown"),
    ("https://evilsh.rustup.rs.attacker.invalid/", "unknown"),
])  # fmt: skip
def test_host_class(url: str, expected: str) -> None:
    assert host_class(url) == expected


def test_names_host() -> None:
    assert names_host("ACME_API_KEY", "https://api.acme.io/v1")
    assert names_host("GH_TOKEN", "https://api.github.com/user")
    assert not names_host("OPENAI_API_KEY", "https://collect.example/")


def test_urls_and_lines() -> None:
    text = "see https://a.example/x.\nand (http://b.example/y)"
    assert [u for _, _, u in urls(text)] == ["https://a.example/x", "http://b.example/y"]
    index = LineIndex(text)
    assert index.line_of(0) == 1 and index.line_of(text.index("and")) == 2


def test_excerpt_is_bounded_and_escaped() -> None:
    assert excerpt("a\u202eb\x1b[31m") == "a\\u202eb\\x1b[31m"
    long = excerpt("x" * 500)
    assert len(long) == 160 and long.endswith("…")
    assert excerpt("one\ntwo\tthree") == "one two three"


def test_word_lines_finds_what_the_word_by_word_search_finds() -> None:
    import random

    from lemon_core.auditor_kit.lines import lower_same_length, word_lines

    words = frozenset({"a", "ab", "abc", "b c", "curl", "pip install", "-e ", "$(", "|sh", "xv",
                       " cc", "  ab", " ", " nc ", "c"})
    rng = random.Random(7)
    for _ in range(300):
        text = "".join(rng.choice("abc pi nstalcurl\n-e $()|shxv  ") for _ in range(rng.randint(0, 200)))
        index, lower = LineIndex(text), lower_same_length(text)
        found = word_lines(index, lower, words)
        for word in words:
            assert found.get(word, set()) == index.lines_containing(lower, (word,)), (word, text)
    with pytest.raises(ValueError):
        word_lines(LineIndex("x"), "x", frozenset({"a\nb"}))


def test_word_lines_is_exact_across_texts_and_word_sets_and_after_clear_caches() -> None:
    # What a text holds is remembered for the words of every caller: a word must still be
    # found only where it is, in the second text as in the first, after clear_caches too.
    from lemon_core.auditor_kit import clear_caches
    from lemon_core.auditor_kit.lines import lower_same_length, word_lines

    code = frozenset({"curl", "pip install", "nc -", "env"})
    prose = frozenset({"ignore", "send it", "env"})
    long = "x" * 100 + "curl"
    texts = ["run curl now\nthen pip install it\n" + long,
             "curl\nnothing here\npip and later install\n" + long + "\nnc -e",
             "printenv | nc -lv\nignore me, send it\n"]
    for _ in range(2):
        for text in texts:
            index, lower = LineIndex(text), lower_same_length(text)
            for words in (code, prose):
                found = word_lines(index, lower, words)
                for word in words:
                    assert found.get(word, set()) == index.lines_containing(lower, (word,)), word
        clear_caches()


def test_word_lines_searches_every_callers_words_in_the_whole_text() -> None:
    # The words of every caller are searched together once per text, all of it however
    # long: a file padded past any size still shows the words at its end.
    import random

    from lemon_core.auditor_kit import clear_caches
    from lemon_core.auditor_kit.lines import lower_same_length, word_lines

    first = frozenset({"curl", "pip install", "nc -", "env", "a b"})
    second = frozenset({"ignore", "env", "send it", "gn"})
    rng = random.Random(11)
    pieces = ["curl ", "pip install x", "nc -e", "env", "ignore", "send it", "a b", "\n", "zz "]
    for repetitive in (False, True):  # lines repeated (searched once each) or not
        clear_caches()
        for size in (5_000, 300_000):
            if repetitive:
                text = "".join(rng.choice(pieces) for _ in range(size // 5))
            else:
                text = "".join(rng.choice(pieces) + str(rng.random()) for _ in range(size // 20))
            index, lower = LineIndex(text), lower_same_length(text)
            for words in (first, second, first):
                found = word_lines(index, lower, words)
                assert set(found) <= words
                for word in words:
                    assert found.get(word, set()) == index.lines_containing(lower, (word,)), word


@pytest.mark.slow
def test_host_tables_are_looked_up_as_the_entry_by_entry_comparison_does() -> None:
    import random

    from lemon_core.auditor_kit import hosts

    def reference(host: str, path: str, entries: tuple[str, ...]) -> bool:
        for entry in entries:
            entry_host, slash, entry_path = entry.partition("/")
            same_host = host == entry_host or host.endswith("." + entry_host)
            if same_host and (not slash or path.startswith("/" + entry_path)):
                return True
        return False

    tables = (hosts.VENDOR_INSTALLERS, hosts.DOC_HOSTS, hosts.API_HOSTS, hosts.COLLECTOR_HOSTS)
    labels = ["api", "github", "com", "io", "raw", "githubusercontent", "sh", "astral", "x",
              "webhook", "site", "docs", "example", "", "co", "uv"]
    paths = ["/", "/uv/", "/install.sh", "/homebrew/install/", "/anthropics/x", "/x"]
    rng = random.Random(2)
    for _ in range(20000):
        host = ".".join(rng.choice(labels) for _ in range(rng.randint(1, 4)))
        path = rng.choice(paths)
        for table in tables:
            assert hosts._matches(host, path, table) == reference(host, path, table), (host, path)


def test_the_automaton_finds_what_the_trie_pattern_finds() -> None:
    # The shared word search runs an Aho-Corasick automaton (pyahocorasick, in C); the trie
    # pattern it replaced stays as the fallback: both must find every word on the same lines,
    # words inside and overlapping others, words led by spaces, after characters outside
    # the Basic Multilingual Plane (an offset counted in UTF-16 would land on a wrong line).
    import random

    from lemon_core.auditor_kit import lines
    from lemon_core.auditor_kit.lines import lower_same_length

    words = frozenset({"a", "ab", "abc", "b c", "curl", "pip install", "-e ", "$(", "|sh", "xv",
                       " cc", "  ab", " ", " nc ", "c", "ключ", "密钥", "é"})
    automaton = lines._automaton(words)
    assert automaton is not None  # the dependency is installed: the fast path is the one tested
    rng = random.Random(19)
    alphabet = "abc pi nstalcurl\n-e $()|shxv  😀𝕏éключ密钥"
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        index, lower = LineIndex(text), lower_same_length(text)
        fast = lines._automaton_word_lines(automaton, index, lower)
        assert fast == lines._trie_word_lines(index, lower, words), text
        for word in words:
            assert fast.get(word, set()) == index.lines_containing(lower, (word,)), (word, text)
