"""``lemon skill lint --fix``: rewrite what can be fixed safely in a SKILL.md, leave the rest.

What is fixed (each a code of ``LintResult.fixed``):

- ``fix_bom``: a UTF-8 byte-order mark at the start of the file is removed;
- ``fix_crlf``: CRLF line endings become LF (in the whole file; a lone CR is left alone);
- ``fix_colon_quoted``: a plain ``key: value`` whose value holds ``": "`` (invalid YAML that
  the loader repairs, :func:`~lemon_core.manifest.parse_full.repair_colon_values`) is written
  as one quoted line holding exactly the text the loader reads;
- ``fix_description_folded``: a ``description`` written over several lines (``|``, ``|-``,
  ``>`` block scalars, a plain or quoted scalar continued over lines) or holding line breaks
  is folded onto one line (runs of spaces, tabs and line breaks become one space) and written
  as a plain scalar when YAML reads it back unchanged, else single-quoted;
- ``fix_flow_list``: a flow list of scalars (``tags: [writing, release]``) that the
  Agent Skills standard's YAML rejects becomes a block list, one ``- item`` per line, each
  item's source text kept.

Every other byte (other keys, comments, key order, the body, the trailing newline) stays as
it is. A file that cannot be parsed (invalid UTF-8 or YAML, an unclosed frontmatter) is never
touched; TOML frontmatter gets only the BOM and CRLF fixes. The result is parsed again and
kept only when its frontmatter loads to the same data as the original, except the folded
description (which must equal the folded original); anything else refuses the whole file.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from pathlib import Path
from typing import Any

import attrs

from lemon_core.lint.issue import MAX_SKILL_MD_BYTES, LintIssue

#: Runs of whitespace that folding turns into one space (not NBSP or other Unicode spaces).
_FOLD = re.compile("[ \t\r\n\x85\u2028\u2029]+")
_LINE_BREAK = re.compile("[\r\n\x85\u2028\u2029]")
_KEY_LINE = re.compile(r"(?P<indent> *)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:")
_BLOCK_HEADER = re.compile(r"[|>][0-9+-]*[ \t]*")
_FLOW_TAIL = re.compile(r"[ \t]*(?:#.*)?")
_STR_TAG = "tag:yaml.org,2002:str"


class Refused(Exception):
    """The file is left alone: ``code`` and a message saying why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.issue = LintIssue(code, message)


@attrs.frozen
class FixOutcome:
    """What ``--fix`` did (or, without writing, would do) to one SKILL.md.

    ``fixes`` lists each fix; ``skipped`` says why the file was left alone (None when it was
    not); ``before``/``after`` are its bytes (``after`` is None when nothing changes).
    """

    path: Path
    fixes: tuple[LintIssue, ...] = attrs.field(default=(), converter=tuple)
    skipped: LintIssue | None = None
    before: bytes | None = None
    after: bytes | None = None
    written: bool = False

    def diff(self) -> str:
        """A unified diff from the file as it is to the file as fixed ('' when unchanged)."""
        if self.before is None or self.after is None:
            return ""
        old = self.before.decode("utf-8").splitlines(keepends=True)
        new = self.after.decode("utf-8").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


def fix_skill_md(path: Path, *, write: bool = True) -> FixOutcome:
    """Fix the SKILL.md at ``path``; with ``write`` false, only say what would change.

    Never raises for bad input: a symbolic link, an unreadable or oversized file, one that
    cannot be parsed or whose fix would change its data is left alone (``skipped``). The file
    is written atomically, keeping its permission bits, and only if it did not change while
    lemon was reading it.
    """
    from lemon_core.fsio.read import FileProblem, read_bytes

    try:
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return FixOutcome(path)  # no SKILL.md: lint reports it
        if stat.S_ISLNK(info.st_mode):
            raise Refused("fix_skipped", "SKILL.md is a symbolic link; --fix does not write "
                          "through links, fix the file it points to")
        before = read_bytes(path, MAX_SKILL_MD_BYTES)
        if before is None:
            return FixOutcome(path)  # no file: lint reports it
        after, fixes = fix_bytes(before)
    except Refused as refused:
        return FixOutcome(path, skipped=refused.issue)
    except FileProblem as exc:
        return FixOutcome(path, skipped=LintIssue("fix_skipped", f"not fixed: {exc.message}"))
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return FixOutcome(path, skipped=LintIssue("fix_skipped", f"not fixed: {reason}"))
    if after == before:
        return FixOutcome(path, before=before)
    outcome = FixOutcome(path, fixes, None, before, after)
    if not write:
        return outcome
    try:
        _write(path, before, after)
    except Refused as refused:
        return FixOutcome(path, fixes, refused.issue, before, after)
    except (OSError, FileProblem) as exc:
        reason = getattr(exc, "strerror", None) or getattr(exc, "message", None) or str(exc)
        issue = LintIssue("fix_skipped", f"could not write the fix: {reason}")
        return FixOutcome(path, fixes, issue, before, after)
    return attrs.evolve(outcome, written=True)


def _write(path: Path, before: bytes, after: bytes) -> None:
    from lemon_core.fsio.read import read_bytes
    from lemon_core.fsio.write import atomic_write_bytes

    mode = stat.S_IMODE(os.stat(path).st_mode)
    if read_bytes(path, MAX_SKILL_MD_BYTES) != before:
        raise Refused("fix_skipped", "SKILL.md changed while lemon was fixing it; nothing was "
                      "written, run the command again")
    atomic_write_bytes(path, after, mode=mode)


def fix_bytes(data: bytes) -> tuple[bytes, list[LintIssue]]:
    """The fixed content of the SKILL.md ``data`` and the fixes made. Raises :class:`Refused`."""
    from lemon_core.manifest import frontmatter as fm

    try:
        text = data.decode("utf-8")
        fm.check_text(text)
    except UnicodeDecodeError as exc:
        raise Refused("fix_skipped", f"not fixed: invalid UTF-8 at byte {exc.start}") from None
    except fm.FrontmatterError as exc:
        raise Refused("fix_skipped", f"not fixed: {exc.message}") from None
    fixes: list[LintIssue] = []
    if text.startswith("\ufeff"):
        text = text[1:]
        fixes.append(LintIssue("fix_bom", "removed the byte-order mark at the start of the "
                               "file (the standard requires the file to start with '---')"))
    if "\r\n" in text:
        count = text.count("\r\n")
        text = text.replace("\r\n", "\n")
        fixes.append(LintIssue("fix_crlf", f"turned {count} CRLF line ending(s) into LF"))
    split = _split(text)
    if split.format == "yaml" and split.raw.strip():
        start = _line_offset(text, split.raw_line)
        if text[start : start + len(split.raw)] != split.raw:
            raise Refused("fix_skipped", "not fixed: the frontmatter holds a carriage return "
                          "(CR) lemon cannot place; save the file with LF line endings")
        raw, more = fix_yaml(split.raw, split.raw_line)
        text = text[:start] + raw + text[start + len(split.raw) :]
        fixes += more
    elif split.format == "toml" and fixes:
        _same_toml(_split(data.decode("utf-8")).raw, split.raw, split.raw_line)
    if _split(text).body != split.body:  # pragma: no cover - a bug guard
        raise Refused("fix_skipped", "not fixed: the fix would change the body (a lemon bug)")
    return text.encode("utf-8"), fixes


def _split(text: str) -> Any:
    from lemon_core.manifest import frontmatter as fm

    try:
        return fm.split_frontmatter(text)
    except fm.FrontmatterError as exc:
        raise Refused("fix_skipped", f"not fixed: {exc.message}") from None


def _line_offset(text: str, line: int) -> int:
    """Where the 1-based ``line`` starts in ``text``."""
    offset = 0
    for _ in range(line - 1):
        offset = text.index("\n", offset) + 1
    return offset


def _same_toml(old: str, new: str, first_line: int) -> None:
    from lemon_core.manifest.frontmatter import FrontmatterError
    from lemon_core.manifest.parse_full import load_toml

    try:
        same = repr(load_toml(old, first_line=first_line)) == repr(
            load_toml(new, first_line=first_line))
    except FrontmatterError as exc:
        raise Refused("fix_skipped", f"not fixed: {exc.message}") from None
    if not same:
        raise Refused("fix_skipped", "not fixed: the TOML would read differently")


# -- YAML --------------------------------------------------------------------------------------


def fix_yaml(raw: str, first_line: int = 1) -> tuple[str, list[LintIssue]]:
    """Fix the YAML frontmatter text ``raw`` (LF line endings); ``first_line`` is the file line
    it starts on. Returns the new text and the fixes; raises :class:`Refused`."""
    data, repaired = _load(raw, first_line)
    fixes: list[LintIssue] = []
    text = raw
    if repaired:
        text, fixes = _quote_colon_values(raw, first_line)
        again, still = _load(text, first_line)
        if still or repr(again) != repr(data):
            raise Refused("fix_skipped", "not fixed: quoting the values with ': ' would change "
                          "what the loader reads")
    root = _compose(text)
    if root is None or type(root).__name__ != "MappingNode":
        return text, fixes
    edits: list[tuple[int, int, str, LintIssue]] = []
    folded = _fold_description(text, root, first_line, edits)
    for key_node, value_node in _block_pairs(root):
        _flow_list(text, key_node, value_node, first_line, edits)
    for start, end, new, _issue in sorted(edits, key=lambda edit: edit[0], reverse=True):
        text = text[:start] + new + text[end:]
    fixes += [edit[3] for edit in sorted(edits, key=lambda edit: edit[0])]
    if edits:
        result, still = _load(text, first_line)
        expected = dict(data)
        if folded is not None:
            expected["description"] = folded
        if still or repr(result) != repr(expected):
            raise Refused("fix_skipped", "not fixed: the rewritten frontmatter would not load "
                          "to the same data (please report it)")
    return text, fixes


def _load(text: str, first_line: int) -> tuple[Any, bool]:
    """lemon's reading of ``text`` and whether it needed the ': ' repair."""
    from lemon_core.manifest.frontmatter import FrontmatterError
    from lemon_core.manifest.parse_full import load_yaml

    try:
        data, notes = load_yaml(text, first_line=first_line)
    except FrontmatterError as exc:
        raise Refused("fix_skipped", f"not fixed: {exc.message}") from None
    if not isinstance(data, dict):
        raise Refused("fix_skipped", "not fixed: the frontmatter is not a mapping")
    return data, any(code == "yaml_repaired" for code, _ in notes)


def _compose(text: str) -> Any:
    """The node tree of ``text`` (pure-Python loader: its marks index characters)."""
    import yaml

    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise Refused("fix_skipped", f"not fixed: cannot place the fixes ({exc})") from None


def _block_pairs(node: Any) -> list[tuple[Any, Any]]:
    """Every (key, value) node pair of the block mappings in ``node``, outside flow style."""
    from yaml.nodes import MappingNode, SequenceNode

    out: list[tuple[Any, Any]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if getattr(current, "flow_style", False):
            continue
        if isinstance(current, MappingNode):
            out += current.value
            stack += [value for _, value in current.value]
        elif isinstance(current, SequenceNode):
            stack += current.value
    return sorted(out, key=lambda pair: pair[0].start_mark.index)


def _fold_description(
    text: str, root: Any, first_line: int, edits: list[tuple[int, int, str, LintIssue]]
) -> str | None:
    """Fold a multi-line top-level ``description``; returns the folded text when it did."""
    from yaml.nodes import ScalarNode

    pairs = [(k, v) for k, v in root.value
             if isinstance(k, ScalarNode) and k.value == "description"]
    if len(pairs) != 1:
        return None
    key, value = pairs[0]
    if not isinstance(value, ScalarNode) or value.tag != _STR_TAG:
        return None
    start, end = value.start_mark.index, value.end_mark.index
    end = start + len(text[start:end].rstrip())
    between = text[key.end_mark.index : start]
    source = text[key.start_mark.index : end]
    if "\n" not in source and not _LINE_BREAK.search(value.value):
        return None
    if "#" in between or text[start : start + 1] in ("&", "!", "*"):
        return None  # a comment, anchor or tag lemon would have to move: left alone
    if value.style in ("|", ">") and not _BLOCK_HEADER.fullmatch(
        text[start : text.find("\n", start)]
    ):
        return None  # a comment on the block header
    folded = _FOLD.sub(" ", value.value).strip()
    if not folded:
        return None
    lines = source.count("\n") + 1
    issue = LintIssue("fix_description_folded", f"line {first_line + key.start_mark.line}: "
                      f"description folded from {lines} line(s) onto one line")
    edits.append((key.end_mark.index, end, ": " + _scalar(folded, plain=True), issue))
    return folded


def _flow_list(
    text: str, key: Any, value: Any, first_line: int, edits: list[tuple[int, int, str, LintIssue]]
) -> None:
    """Turn ``key: [a, b]`` into a block list when every item is a one-line scalar."""
    from yaml.nodes import ScalarNode, SequenceNode

    if not (isinstance(value, SequenceNode) and value.flow_style and value.value):
        return
    if not isinstance(key, ScalarNode) or key.start_mark.line != value.start_mark.line:
        return
    items = [text[item.start_mark.index : item.end_mark.index] for item in value.value]
    if not all(isinstance(item, ScalarNode) for item in value.value) or any(
        "\n" in item or not item for item in items
    ):
        return
    start, end = key.end_mark.index, value.end_mark.index
    eol = text.find("\n", end)
    eol = len(text) if eol < 0 else eol
    between, tail = text[start : value.start_mark.index], text[end:eol]
    if not re.fullmatch(r"[ \t]*:[ \t]*", between) or not _FLOW_TAIL.fullmatch(tail):
        return
    if "\n" in text[value.start_mark.index : end]:
        return  # a flow list over several lines: left alone
    indent = " " * (key.start_mark.column + 2)
    new = ":" + tail.rstrip() + "".join(f"\n{indent}- {item}" for item in items)
    name = text[key.start_mark.index : key.end_mark.index]
    issue = LintIssue("fix_flow_list", f"line {first_line + key.start_mark.line}: {name} "
                      f"[{', '.join(items)}] written as a block list, one '- item' per line")
    edits.append((start, eol, new, issue))


def _quote_colon_values(raw: str, first_line: int) -> tuple[str, list[LintIssue]]:
    """Write each value the loader repairs (``key: a: b``) as one quoted line."""
    from yaml.nodes import ScalarNode

    from lemon_core.manifest.parse_full import repair_colon_values

    repaired = repair_colon_values(raw)
    if repaired is None:  # pragma: no cover - load_yaml repaired it, so this finds it
        raise Refused("fix_skipped", "not fixed: cannot find the values to quote")
    repaired_text, spots = repaired
    values: dict[int, str] = {}
    for key, value in _block_pairs(_compose(repaired_text)):
        if isinstance(key, ScalarNode) and isinstance(value, ScalarNode):
            values[key.start_mark.line] = value.value
    lines = raw.split("\n")
    out: list[str] = []
    fixes: list[LintIssue] = []
    done = 0
    for shift, (key, index) in enumerate(spots):
        match = _KEY_LINE.match(lines[index])
        if match is None or index + shift not in values:
            raise Refused("fix_skipped", "not fixed: cannot place the values to quote")
        indent = match["indent"]
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > len(indent)):
            end += 1
        while end > index + 1 and not lines[end - 1].strip():
            end -= 1
        out += lines[done:index]
        out.append(f"{indent}{key}: {_scalar(values[index + shift], plain=False)}")
        done = end
        fixes.append(LintIssue("fix_colon_quoted", f"line {first_line + index}: the value of "
                               f"'{key}' holds ': '; written quoted"))
    out += lines[done:]
    return "\n".join(out), fixes


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _scalar(value: str, *, plain: bool) -> str:
    """``value`` as a one-line YAML scalar: plain when allowed and YAML reads it back as the
    same text, else single-quoted, else (line breaks, control characters) double-quoted."""
    import json

    import yaml

    if plain and value == value.strip() and "#" not in value:
        try:
            if yaml.safe_load(f"k: {value}\n") == {"k": value}:
                return value
        except yaml.YAMLError:
            pass
    if value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


__all__ = ["FixOutcome", "Refused", "fix_bytes", "fix_skill_md", "fix_yaml"]
