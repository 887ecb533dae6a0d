"""The prompt listing: every displayable skill as its key and a one-line description.

The block an agent harness puts into its system prompt, so the model knows which skills exist
and loads one only when it is needed::

    <available_skills>
    Load a skill with load_skill(name) for its whole text, or with read_skill(key) ...
    <skill key="bun-file-io">Use this when working on file operations.</skill>
    <skill key="k8s-rollout" unavailable="true">Roll out a deployment.</skill>
    </available_skills>

Catalog data is untrusted: every key and description is flattened to one line (line breaks
and runs of space become one space), stripped of control, bidi and invisible characters,
clamped and XML-escaped, so no skill can close the block or forge an instruction line. The
order is by key and nothing in it varies between calls on the same catalog (the prompt
caches). With a character budget the listing degrades in steps: shorter descriptions first,
then keys alone, then as many skills as fit followed by a count of the rest.

The header names exactly the tools of the server the listing is written for
(:class:`~lemon_core.search.prompt_tools.PromptTools`; by default those of ``lemon skill
serve``: find_skills, load_skill and read_skill), under that harness' own names, and no other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

from lemon_core.search.prompt_tools import PromptTools

OPEN = "<available_skills>"
CLOSE = "</available_skills>"


def header(tools: PromptTools) -> str:
    """The instruction line: how to load a skill, how to find more, with ``tools``' names
    only."""
    if tools.load and tools.read:
        load = (f"Load a skill with {tools.load}(name) for its whole text, or with "
                f"{tools.read}(key) and a view (summary, section or file) for part of it, when "
                "one clearly matches the task")
    else:
        load = (f"Load a skill with {tools.load}(name)" if tools.load
                else f"Load a skill with {tools.read}(key)") + " when one clearly matches the task"
    text = load + "; do not load skills speculatively."
    if tools.find:
        text += f" Search the skills with {tools.find}(query)."
    text += ' A skill marked unavailable="true" lacks something it needs'
    text += f" ({tools.read} with include_status shows what)." if tools.read else "."
    if tools.write and tools.nudge:
        text += (f" When a task needed a non-obvious fix or steps you had to discover, and a "
                 f"later task would need them again, record the lesson with "
                 f"{tools.write}(action, key): patch the skill that owns the topic, else "
                 f"create a short one; never record secrets.")
    return text


DEFAULT_TOOLS = PromptTools()
HEADER = header(DEFAULT_TOOLS)
#: The longest description shown, and the shorter clamps tried to meet a budget.
DESCRIPTION_STEPS = (500, 200, 100, 50, 0)
MAX_KEY_CHARS = 128

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff0-\ufffb"
    "\U000e0000-\U000e007f\ud800-\udfff]")
_SPACE = re.compile(r"\s+")
_XML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


@attrs.frozen
class PromptItem:
    key: str
    description: str
    ready: bool = True


@attrs.frozen
class PromptListing:
    """The rendered block, how many skills it names, and how many it only counts."""

    text: str
    shown: int
    omitted: int
    #: When a budget left the text empty though there were skills: the fewest characters any
    #: listing of them needs (0 otherwise).
    needed: int = 0


def flatten(value: str, limit: int) -> str:
    """``value`` on one line, without invisible characters, at most ``limit`` characters (cut
    at a word where one is near, with an ellipsis)."""
    flat = _SPACE.sub(" ", _INVISIBLE.sub("", value)).strip()
    if len(flat) <= limit:
        return flat
    if limit <= 1:
        return "…"[:limit]
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def xml_escape(value: str) -> str:
    return value.translate(_XML)


def _line(item: PromptItem, limit: int) -> str:
    key = xml_escape(flatten(item.key, MAX_KEY_CHARS))
    marker = "" if item.ready else ' unavailable="true"'
    description = xml_escape(flatten(item.description, limit)) if limit else ""
    return f'<skill key="{key}"{marker}>{description}</skill>'


def _more(count: int, tools: PromptTools) -> str:
    find = f"find them with {tools.find}" if tools.find else "they cannot be searched"
    return (f'<more count="{count}">{count} more skill{"s" if count != 1 else ""} not listed; '
            f"{find}.</more>")


def _frame(lines: Sequence[str], tools: PromptTools) -> str:
    return "\n".join([OPEN, header(tools), *lines, CLOSE])


def render(items: Iterable[PromptItem], max_chars: int | None = None,
           tools: PromptTools = DEFAULT_TOOLS) -> PromptListing:
    """The listing of ``items`` (sorted by key here), within ``max_chars`` when given, naming
    ``tools``; the empty string when there is no item, or when not even the frame fits the
    budget (``needed`` then says the smallest budget that lists something)."""
    ordered = sorted(items, key=lambda item: item.key)
    if not ordered:
        return PromptListing("", 0, 0)
    for limit in DESCRIPTION_STEPS:
        lines = [_line(item, limit) for item in ordered]
        text = _frame(lines, tools)
        if max_chars is None or len(text) <= max_chars:
            return PromptListing(text, len(ordered), 0)
    assert max_chars is not None
    # keys alone do not fit: as many as fit, then a count of the rest
    used = len(_frame([], tools))
    shown: list[str] = []
    for index, line in enumerate(lines):
        rest = len(ordered) - index - 1
        tail = 1 + len(_more(rest, tools)) if rest else 0
        if used + 1 + len(line) + tail > max_chars:
            break
        shown.append(line)
        used += 1 + len(line)
    omitted = len(ordered) - len(shown)
    text = (_frame([*shown, _more(omitted, tools)], tools) if omitted
            else _frame(shown, tools))
    if len(text) > max_chars:
        # the fewest characters: a count of every skill, or every key alone (``lines``: the
        # last step's); listing some keys and counting the rest is always longer than the
        # count alone (a key's line is longer than the digits it saves)
        smallest = min(len(_frame([_more(len(ordered), tools)], tools)),
                       len(_frame(lines, tools)))
        return PromptListing("", 0, len(ordered), smallest)
    return PromptListing(text, len(shown), omitted)


__all__ = ["CLOSE", "DEFAULT_TOOLS", "HEADER", "OPEN", "PromptItem", "PromptListing",
           "PromptTools", "flatten", "header", "render", "xml_escape"]
