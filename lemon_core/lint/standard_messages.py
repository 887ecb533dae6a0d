"""What the Agent Skills standard wants, in lemon's words: the messages of ``lint --standard``.

:func:`~lemon_core.lint.standard.check_standard` returns skills-ref's own messages (the
differential test holds it to them); :func:`explain_standard` turns each into a message that
names the line, says what the standard wants and how to fix it, under a stable rule id. The
YAML errors come from ``strictyaml``, whose words describe its parser (it calls a flow list a
"JSONesque flow mapping"); they are told apart by the parser's exception and its position.

One reference message gives one lemon message, in the same order, so the verdict is the same.
"""

from __future__ import annotations

import re
from pathlib import Path

Issue = tuple[str, str]

_FIX = "or run `lemon skill lint --fix`"
_ALLOWED = "name, description, license, allowed-tools, metadata and compatibility"
#: (reference message pattern, rule id, lemon's message); groups are named.
_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"SKILL\.md frontmatter not properly closed with ---"), "standard_frontmatter",
     "the frontmatter is never closed; the standard wants a '---' line after it"),
    (re.compile(r"SKILL\.md frontmatter must be a YAML mapping"), "standard_frontmatter",
     ("the frontmatter must be 'key: value' lines (a YAML mapping), starting with name and "
     "description")),
    (re.compile(r"Unexpected fields in frontmatter: (?P<keys>.*)\. Only \[.*\] are allowed\."),
     "standard_fields",
     "keys the standard does not define: {keys}; it allows only " + _ALLOWED + ". Move other "
     "data under metadata (lemon's own keys such as tags or requires are lemon extensions "
     "that other agents reject)"),
    (re.compile(r"Missing required field in frontmatter: (?P<key>\w+)"), "standard_{key}",
     "{key} is missing; the standard requires it ({key}: …)"),
    (re.compile(r"Field '(?P<key>\w+)' must be a non-empty string"), "standard_{key}",
     "{key} must be non-empty text"),
    (re.compile(r"Field 'compatibility' must be a string"), "standard_compatibility",
     "compatibility must be text"),
    (re.compile(r"Skill name '(?P<name>.*)' exceeds 64 character limit \((?P<n>\d+) chars\)"),
     "standard_name", "name '{name}' has {n} characters; the standard allows at most 64"),
    (re.compile(r"Skill name '(?P<name>.*)' must be lowercase"), "standard_name",
     "name '{name}' must be lowercase"),
    (re.compile(r"Skill name cannot start or end with a hyphen"), "standard_name",
     "name must not start or end with a hyphen"),
    (re.compile(r"Skill name cannot contain consecutive hyphens"), "standard_name",
     "name must not contain two hyphens in a row"),
    (re.compile(r"Skill name '(?P<name>.*)' contains invalid characters\..*", re.DOTALL),
     "standard_name", "name '{name}' may hold only letters, digits and hyphens"),
    (re.compile(r"Directory name '' must match skill name '(?P<name>.*)'"), "standard_name",
     ("name '{name}' must equal the folder name, and the folder was given as '.' (whose name "
     "is ''); pass the folder by its name (lint --standard ../{name})")),
    (re.compile(r"Directory name '(?P<dir>.*)' must match skill name '(?P<name>.*)'"),
     "standard_name", "name '{name}' must equal the folder name '{dir}'; rename one of them"),
    (re.compile(r"Description exceeds 1024 character limit \((?P<n>\d+) chars\)"),
     "standard_description", ("description has {n} characters (surrounding whitespace "
     "included); the standard allows at most 1024")),
    (re.compile(r"Compatibility exceeds 500 character limit \((?P<n>\d+) chars\)"),
     "standard_compatibility", ("compatibility has {n} characters; the standard allows at "
     "most 500")),
]


def explain_standard(folder: Path, content: bytes | None = None) -> list[Issue]:
    """``lint --standard`` of ``folder``: one ``(rule id, message)`` per skills-ref message.

    ``content``, when given, stands for the bytes of its SKILL.md (``lint --fix --diff``).
    """
    from lemon_core.lint.standard import check_content, check_standard

    if content is None:
        issues = check_standard(folder)
        text = None
    else:
        text = content.decode("utf-8", "replace")
        issues = check_content(text, folder)
    out = []
    for code, message in issues:
        if code == "standard_frontmatter" and text is None:
            text = _skill_text(folder)
        out.append(explain(code, message, text))
    return out


def explain(code: str, message: str, text: str | None) -> Issue:
    """lemon's wording of the skills-ref message ``message`` (code ``code``); ``text`` is the
    SKILL.md's text when known, for where a frontmatter problem is."""
    if code == "standard_frontmatter" and message.startswith("SKILL.md must start with"):
        return _no_start(text or "")
    if code == "standard_frontmatter" and message.startswith("Invalid YAML in frontmatter: "):
        return _yaml(message, text)
    for pattern, rule, words in _RULES:
        match = pattern.fullmatch(message)
        if match:
            return rule.format(**match.groupdict()), words.format(**match.groupdict())
    return code, message


def _skill_text(folder: Path) -> str | None:
    from lemon_core.fsio.read import FileProblem, read_bytes

    for name in ("SKILL.md", "skill.md"):
        try:
            data = read_bytes(folder / name, 1024 * 1024)
        except (FileProblem, OSError):
            return None
        if data is not None:
            return data.decode("utf-8", "replace")
    return None


def _no_start(text: str) -> Issue:
    if text.startswith("\ufeff"):
        return "standard_bom", ("SKILL.md starts with a byte-order mark (U+FEFF); the standard "
                                f"wants '---' as the very first bytes: remove it, {_FIX}")
    rest = text.lstrip(" \t\r\n")
    if rest.startswith("+++"):
        return "standard_toml", ("TOML frontmatter (+++) is a lemon extension; the standard "
                                 "reads only YAML frontmatter between '---' lines")
    if rest.startswith("---"):
        lines = text[: len(text) - len(rest)].count("\n")
        return "standard_frontmatter", (f"{lines} blank line(s) before the opening '---'; the "
                                        "standard wants '---' on the first line: remove them")
    return "standard_frontmatter", ("SKILL.md has no frontmatter; the standard wants it to "
                                    "start with a '---' line, then name and description, then "
                                    "'---'")


def _yaml(message: str, text: str | None) -> Issue:
    detail = str(message).removeprefix("Invalid YAML in frontmatter: ")
    cause = getattr(message, "cause", None)  # a Said keeps the parser's exception
    if cause is None or text is None or getattr(cause, "problem_mark", None) is None:
        return "standard_yaml", f"the standard's YAML cannot read the frontmatter: {detail}"
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if text else []
    kind = type(cause).__name__
    mark = cause.problem_mark
    line = mark.line + 1  # the frontmatter starts on the file's first line, after '---'
    source = lines[mark.line] if mark.line < len(lines) else ""
    if kind == "FlowMappingDisallowed":
        where = cause.context_mark or mark
        line = where.line + 1
        source = lines[where.line] if where.line < len(lines) else ""
        snippet = _flow(source, where.column)
        if snippet.startswith("["):
            fix = f", {_FIX}" if snippet.endswith("]") and snippet != "[]" else ""
            return "standard_yaml_flow_list", (
                f"line {line}: flow list {snippet} is not allowed by the standard's YAML; "
                f"write one '- item' per line{fix}")
        return "standard_yaml_flow_mapping", (
            f"line {line}: flow mapping {snippet} is not allowed by the standard's YAML; write "
            "one 'key: value' per line, indented under its key")
    if kind == "DuplicateKeysDisallowed":
        key = re.search(r"Duplicate key '(.*)' found", str(cause.problem or ""))
        name = key.group(1) if key else source.split(":", 1)[0].strip()
        return "standard_yaml_duplicate_key", (
            f"line {line}: key '{name}' appears a second time; the standard's YAML forbids "
            "duplicate keys: keep one")
    if kind == "TagTokenDisallowed":
        tag = _token(source, mark.column)
        return "standard_yaml_tag", (
            f"line {line}: the YAML tag {tag} is not allowed by the standard's YAML (every value "
            "is text); remove it")
    if kind == "AnchorTokenDisallowed":
        where = cause.context_mark or mark
        anchor = _token(lines[where.line] if where.line < len(lines) else "", where.column)
        return "standard_yaml_anchor", (
            f"line {where.line + 1}: the YAML anchor or alias {anchor} is not allowed by the "
            "standard's YAML; write the value out where it is used")
    what = " ".join(part for part in (cause.context, cause.problem) if part)
    hint = (f"quote the value (key: \"…\") that holds ': ', {_FIX}" if "mapping values" in what
            else "fix the syntax")
    return "standard_yaml_syntax", (
        f"line {line}, column {mark.column + 1}: the frontmatter is not valid YAML ({what}); "
        f"{hint}")


def _flow(line: str, column: int) -> str:
    """The flow collection that starts at ``column`` of ``line``, shortened."""
    rest = line[column:]
    depth = 0
    for index, char in enumerate(rest):
        depth += char in "[{"
        depth -= char in "]}"
        if depth == 0:
            rest = rest[: index + 1]
            break
    return rest if len(rest) <= 60 else rest[:59] + "…"


def _token(line: str, column: int) -> str:
    match = re.match(r"\S+", line[column:])
    return match.group() if match else "?"


__all__ = ["explain", "explain_standard"]
