"""How a pattern hit on a line becomes a finding, given where the line sits.

The policy auditors share (docs/audit-policy.md states it for people):

- a script line, a data/config line, a fenced block, an HTML comment (hidden from the reader)
  and a command in inline code on a prose line an agent is told to run: the rule's severity;
- plain prose, tables, quotes, headings, frontmatter and script comments: a mention, one step
  lower (``block`` becomes ``warn``, ``warn`` is dropped) — unless the line tells someone to
  run it (``run``, ``execute``, ``paste``…), which is an instruction like any fence;
- anything in a warning context ("never run this", a table of dangerous commands, a section
  about attacks): dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import excerpt
from lemon_core.auditor_kit.markdown import Line, in_code_span
from lemon_core.protocols import Finding

_IMPERATIVE = lazy_compile(
    r"\b(?:run|execute|exec|paste|type|enter|invoke|launch|call|install|first|always|must|"
    r"then|now|immediately|automatically|silently|quietly)\b",
    re.IGNORECASE,
)
_LOWER = {"block": "warn", "warn": None}
FULL_CONTEXTS = frozenset({"code", "data", "fence", "comment"})


def weigh(severity: str, line: Line, offset: int | None = None) -> str | None:
    """The severity a hit of ``severity`` at ``offset`` (in ``line.text``) counts for, or
    None when it does not count (see the module docstring)."""
    if line.warned:
        return None
    if line.context in FULL_CONTEXTS:
        return severity
    if line.context == "script-comment":
        return _LOWER[severity]
    if offset is not None and in_code_span(line.text, offset):
        return severity
    if _IMPERATIVE.search(line.text):
        return severity
    return _LOWER[severity]


def finding(rules: Mapping[str, tuple[str, str]], rule: str, severity: str, message: str,
            path: str, line: Line, start: int = 0, end: int | None = None, *,
            family: str, auditor: str) -> Finding:
    """A :class:`~lemon_core.protocols.Finding` of ``rule`` on ``line``, with the excerpt
    ``line.text[start:end]`` (the whole line when not given) bounded and escaped."""
    del rules  # the table documents the rule; the severity was weighed by the caller
    return Finding(rule=rule, severity=severity, message=message,  # type: ignore[arg-type]
                   path=path, auditor=auditor, family=family, line=line.number,
                   excerpt=excerpt(line.text, start, end))


def unique(findings: Iterable[Finding]) -> Iterator[Finding]:
    """``findings`` without repeats of one rule on one line of one file."""
    seen: set[tuple[str, str | None, int | None]] = set()
    for item in findings:
        key = (item.rule, item.path, item.line)
        if key not in seen:
            seen.add(key)
            yield item


def texts_of(file: object) -> list[str]:
    """Every decoding of a bundle file worth searching (``text`` first), without repeats."""
    out: list[str] = []
    text = getattr(file, "text", None)
    if text:
        out.append(text)
    for other in getattr(file, "texts", ()) or ():
        if other and other not in out:
            out.append(other)
    return out


__all__ = ["FULL_CONTEXTS", "finding", "texts_of", "unique", "weigh"]
