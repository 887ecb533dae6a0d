"""The prompt listing renderer: untrusted metadata made safe, budgets met gracefully."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lemon_core.search.prompt import CLOSE, OPEN, PromptItem, flatten, header, render
from lemon_core.search.prompt_tools import PRESETS, PromptTools


def test_flatten_removes_line_breaks_controls_bidi_and_invisibles() -> None:
    value = "line one\nline\u2028two\r\n\tend \u202eevil\u200b\x1b[2J\u2066x\u2069"
    assert flatten(value, 500) == "line one line two end evil[2Jx"


def test_flatten_clamps_at_a_word() -> None:
    assert flatten("alpha beta gamma delta", 12) == "alpha beta…"
    assert len(flatten("x" * 50, 10)) == 10


def test_render_escapes_xml_and_orders_by_key() -> None:
    listing = render([PromptItem("b", 'say "hi" & <go>'), PromptItem("a", "first", ready=False)])
    lines = listing.text.splitlines()
    assert lines[0] == OPEN and lines[-1] == CLOSE
    assert lines[2:4] == ['<skill key="a" unavailable="true">first</skill>',
                          '<skill key="b">say &quot;hi&quot; &amp; &lt;go&gt;</skill>']
    assert (listing.shown, listing.omitted) == (2, 0)


def test_empty_and_impossible_budgets() -> None:
    assert render([]).text == "" and render([]).needed == 0
    impossible = render([PromptItem("a", "x")], max_chars=5)
    assert impossible.text == "" and impossible.omitted == 1
    assert render([PromptItem("a", "x")], max_chars=impossible.needed).text
    assert not render([PromptItem("a", "x")], max_chars=impossible.needed - 1).text


_CALLED = __import__("re").compile(r"\b([A-Za-z_][A-Za-z0-9_.-]*)\(")


def test_the_header_names_exactly_the_tools_given() -> None:
    for tools in [*PRESETS.values(), PromptTools("search_skills", "open_skill", None),
                  PromptTools(None, None, "get_skill")]:
        assert set(_CALLED.findall(header(tools))) == set(tools.names()), tools
    assert "include_status" not in header(PRESETS["lazy"])  # no tool takes it there
    assert "read_skill with include_status" in header(PRESETS["lemon-serve"])


def test_the_count_of_skills_left_out_points_at_the_find_tool_or_at_none() -> None:
    items = [PromptItem(f"skill-{i:03d}", "word " * 20) for i in range(40)]
    counted = render(items, max_chars=1000, tools=PromptTools("search_skills", "x", None))
    assert "find them with search_skills.</more>" in counted.text
    assert "find_relevant" not in counted.text and "find_skills" not in counted.text
    blind = render(items, max_chars=1000, tools=PromptTools(None, "open_skill", None))
    assert "they cannot be searched.</more>" in blind.text


def test_budget_steps_shorter_descriptions_then_keys_then_a_count() -> None:
    items = [PromptItem(f"skill-{i:03d}", "word " * 120) for i in range(40)]
    full = render(items)
    assert full.omitted == 0 and "…" in full.text  # clamped at 500 characters anyway
    shorter = render(items, max_chars=len(full.text) // 2)
    assert shorter.shown == 40 and len(shorter.text) <= len(full.text) // 2
    keys_only = render(items, max_chars=40 * 40 + 400)
    assert keys_only.shown == 40 and '"></skill>' in keys_only.text or keys_only.omitted
    counted = render(items, max_chars=1000)
    assert len(counted.text) <= 1000 and counted.omitted == 40 - counted.shown > 0
    assert f'<more count="{counted.omitted}">' in counted.text


@given(st.lists(st.tuples(st.text(min_size=1, max_size=30), st.text(max_size=300)),
                max_size=20),
       st.one_of(st.none(), st.integers(min_value=0, max_value=3000)))
def test_never_breaks_the_block_and_meets_the_budget(pairs, budget) -> None:
    listing = render([PromptItem(k, d) for k, d in pairs], budget)
    text = listing.text
    if budget is not None:
        assert len(text) <= budget
    if pairs and not text:  # the budget was too small: the smallest that works is said
        assert listing.needed > (budget or 0)
        assert render([PromptItem(k, d) for k, d in pairs], listing.needed).text
    else:
        assert listing.needed == 0
    if text:
        assert text.count(OPEN) == 1 and text.count(CLOSE) == 1
        assert text.startswith(OPEN) and text.endswith(CLOSE)
        body = text[len(OPEN):-len(CLOSE)]
        assert "<available_skills" not in body and "</available_skills" not in body
        for line in text.splitlines()[2:-1]:
            assert line.startswith(("<skill key=", "<more count="))
            assert line.count("<") == 2 and line.count(">") == 2
