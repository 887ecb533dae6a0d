"""The prompt listing: every displayable skill as its key and a one-line description.

The block an agent harness puts into its system prompt, so the model knows which skills exist
and loads one (``read_skill``) only when it is needed::

    <available_skills>
    Load a skill with read_skill(key) when one clearly matches the task. ...
    <skill key="bun-file-io">Use this when working on file operations.</skill>
    <skill key="k8s-rollout" unavailable="true">Roll out a deployment.</skill>
    </available_skills>

Catalog data is untrusted: every key and description is flattened to one line (line breaks
and runs of space become one space), stripped of control, bidi and invisible characters,
clamped and XML-escaped, so no skill can close the block or forge an instruction line. The
order is by key and nothing in it varies between calls on the same catalog (the prompt
caches). With a character budget the listing degrades in steps: shorter descriptions first,
then keys alone, then as many skills as fit followed by a count of the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

OPEN = "<available_skills>"
CLOSE = "</available_skills>"
HEADER = ("Load a skill with read_skill(key) when one clearly matches the task; do not load "
          "skills speculatively. A skill marked unavailable=\"true\" lacks something it needs "
          "(read_skill with include_status shows what).")
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


def _more(count: int) -> str:
    return (f'<more count="{count}">{count} more skill{"s" if count != 1 else ""} not listed; '
            f"find them with find_relevant.</more>")


def _frame(lines: Sequence[str]) -> str:
    return "\n".join([OPEN, HEADER, *lines, CLOSE])


def render(items: Iterable[PromptItem], max_chars: int | None = None) -> PromptListing:
    """The listing of ``items`` (sorted by key here), within ``max_chars`` when given; the
    empty string when there is no item, or when not even the frame fits the budget."""
    ordered = sorted(items, key=lambda item: item.key)
    if not ordered:
        return PromptListing("", 0, 0)
    for limit in DESCRIPTION_STEPS:
        lines = [_line(item, limit) for item in ordered]
        text = _frame(lines)
        if max_chars is None or len(text) <= max_chars:
            return PromptListing(text, len(ordered), 0)
    assert max_chars is not None
    # keys alone do not fit: as many as fit, then a count of the rest
    used = len(_frame([]))
    shown: list[str] = []
    for index, line in enumerate(lines):
        rest = len(ordered) - index - 1
        tail = 1 + len(_more(rest)) if rest else 0
        if used + 1 + len(line) + tail > max_chars:
            break
        shown.append(line)
        used += 1 + len(line)
    omitted = len(ordered) - len(shown)
    text = _frame([*shown, _more(omitted)]) if omitted else _frame(shown)
    if len(text) > max_chars:
        return PromptListing("", 0, len(ordered))
    return PromptListing(text, len(shown), omitted)


__all__ = ["CLOSE", "HEADER", "OPEN", "PromptItem", "PromptListing", "flatten", "render",
           "xml_escape"]
