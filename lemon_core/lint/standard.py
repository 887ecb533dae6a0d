"""The open Agent Skills standard, exactly as its reference validator skills-ref 0.1.1 applies it.

:func:`validate_standard` returns the same list of messages, in the same order, as
``skills_ref.validator.validate``; :func:`check_standard` returns the same messages paired with a
stable code for ``lemon skill lint --standard``. The YAML is read with ``strictyaml`` (the
reference's dialect: every scalar a string; flow style, anchors, tags and duplicate keys rejected).

The reference's quirks are kept on purpose: a UTF-8 BOM fails the "must start with" check, a
lowercase ``skill.md`` is accepted, the frontmatter is split on the first two ``---`` anywhere,
names and directory names are NFKC-normalised, any Unicode lowercase letter or digit passes,
the description length is measured on the raw value and the directory-name check uses the path
as passed (so ``.`` has the name ``''``).

Where the reference crashes or hangs (a C1 or other control character, invalid UTF-8, a
``SKILL.md`` that is a directory or a FIFO, nesting too deep for its recursive reader), this module
returns one clear error instead. Every read is bounded: the file to :data:`MAX_FILE_BYTES`, the
frontmatter to :data:`MAX_FRONTMATTER_CHARS` characters and :data:`MAX_YAML_INDICATORS` YAML
indicators (strictyaml copies its whole document once per node, so its cost grows with the
square of the node count).
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from pathlib import Path
from typing import Any, Union

MAX_SKILL_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500
ALLOWED_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)

#: lemon's own bounds (the reference has none): larger inputs get a clear error.
MAX_FILE_BYTES = 1024 * 1024
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_YAML_INDICATORS = 512

# Characters strictyaml's reader rejects (it then crashes with AttributeError).
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# Anything that can start a YAML node in block style: a sequence entry, a mapping value,
# an explicit key. Counting them over-estimates the node count cheaply.
_NODE_INDICATOR = re.compile(
    r"(?:^|(?<=\s))-(?=\s|$)|:(?=\s|$)|(?:^|(?<=\s))\?(?=\s|$)", re.MULTILINE
)

PathLike = Union[str, "os.PathLike[str]"]
Issue = tuple[str, str]


class Problem(Exception):
    """A problem with a stable ``code``: raised by :func:`read_bounded` (``read_failed``,
    ``not_a_file``), and inside this module for an early exit (the reference then returns
    this single message)."""

    def __init__(self, code: str, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message if cause is None else Said(message, cause)


class Said(str):
    """A reference message that keeps the YAML parser's exception (``cause``), so that
    :mod:`lemon_core.lint.standard_messages` can word it without parsing again."""

    cause: BaseException

    def __new__(cls, message: str, cause: BaseException) -> Said:
        said = super().__new__(cls, message)
        said.cause = cause
        return said


def standard_target(path: PathLike) -> Path:
    """The folder the reference CLI validates for PATH: a file named ``skill.md`` (any case)
    stands for its parent, unresolved (so ``SKILL.md`` gives ``.``, whose name is ``''``)."""
    p = Path(path)
    try:
        if p.is_file() and p.name.lower() == "skill.md":
            return p.parent
    except (OSError, ValueError):
        pass
    return p


def validate_standard(path: PathLike) -> list[str]:
    """The messages ``skills_ref.validator.validate(path)`` returns (empty means valid)."""
    return [str(message) for _, message in check_standard(path)]


def check_standard(path: PathLike) -> list[Issue]:
    """Validate one skill folder as skills-ref does; ``(code, message)`` pairs, in its order.

    Codes: ``standard_path``, ``standard_missing_file``, ``standard_frontmatter``,
    ``standard_fields``, ``standard_name``, ``standard_description``,
    ``standard_compatibility``, and ``standard_unreadable`` for inputs the reference crashes
    on or lemon refuses to read (I/O errors, invalid UTF-8, over the size bounds).
    """
    skill_dir = Path(path)
    try:
        skill_md = _locate(skill_dir)
        metadata = _parse_frontmatter(_read_text(skill_md))
    except Problem as fail:
        return [(fail.code, fail.message)]
    return check_metadata(metadata, skill_dir)


def standard_frontmatter(content: str) -> tuple[dict[str, Any] | None, str | None]:
    """skills-ref's reading of the SKILL.md text ``content`` (decoded, newlines not yet
    normalised): ``(mapping, None)``, or ``(None, the message its parser gives)``."""
    try:
        return _parse_frontmatter(content.replace("\r\n", "\n").replace("\r", "\n")), None
    except Problem as fail:
        return None, fail.message


def check_content(content: str, skill_dir: Path) -> list[Issue]:
    """:func:`check_standard` of a folder whose SKILL.md would hold the text ``content``."""
    try:
        metadata = _parse_frontmatter(content.replace("\r\n", "\n").replace("\r", "\n"))
    except Problem as fail:
        return [(fail.code, fail.message)]
    return check_metadata(metadata, skill_dir)


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except (OSError, ValueError) as exc:
        raise Problem("standard_unreadable", f"Cannot access {p}: {_reason(exc)}") from None


def _locate(skill_dir: Path) -> Path:
    if not _exists(skill_dir):
        raise Problem("standard_path", f"Path does not exist: {skill_dir}")
    if not skill_dir.is_dir():
        raise Problem("standard_path", f"Not a directory: {skill_dir}")
    for name in ("SKILL.md", "skill.md"):
        candidate = skill_dir / name
        if _exists(candidate):
            return candidate
    raise Problem("standard_missing_file", "Missing required file: SKILL.md")


def read_bounded(path: Path, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of the regular file at ``path`` (so a caller can tell that it
    is larger), never blocking on a FIFO or a device. Raises :class:`Problem`."""
    from lemon_core.fsio.read import NotRegular, open_regular, read_up_to

    try:  # the safe reader: non-blocking, regular files only, bounded by what is read
        fd, _ = open_regular(path)
    except NotRegular:
        raise Problem("not_a_file", "not a regular file") from None
    except (OSError, ValueError) as exc:
        raise Problem("read_failed", _reason(exc)) from None
    try:
        return read_up_to(fd, limit + 1)
    except OSError as exc:
        raise Problem("read_failed", _reason(exc)) from None
    finally:
        os.close(fd)


def _read_text(skill_md: Path) -> str:
    """Read as ``Path.read_text(encoding='utf-8')`` does (universal newlines), but bounded
    and refusing what is not a regular file."""
    unreadable = "standard_unreadable"
    try:
        data = read_bounded(skill_md, MAX_FILE_BYTES)
    except Problem as exc:
        raise Problem(unreadable, f"Cannot read {skill_md.name}: {exc.message}") from None
    if len(data) > MAX_FILE_BYTES:
        raise Problem(unreadable, f"{skill_md.name} is larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise Problem(unreadable, f"{skill_md.name} is not valid UTF-8 ({where})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _parse_frontmatter(content: str) -> dict[str, Any]:
    """The frontmatter mapping as skills-ref's ``parse_frontmatter`` reads it.

    Raises :class:`Problem` with the reference's single message.
    """
    bad = "standard_frontmatter"
    if not content.startswith("---"):
        raise Problem(bad, "SKILL.md must start with YAML frontmatter (---)")
    parts = content.split("---", 2)
    if len(parts) < 3:
        raise Problem(bad, "SKILL.md frontmatter not properly closed with ---")
    metadata = _load_yaml(parts[1])
    if not isinstance(metadata, dict):
        raise Problem(bad, "SKILL.md frontmatter must be a YAML mapping")
    return metadata


def _load_yaml(text: str) -> Any:
    bad = "standard_frontmatter"
    if len(text) > MAX_FRONTMATTER_CHARS:
        raise Problem(
            "standard_unreadable",
            f"Frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters",
        )
    if len(_NODE_INDICATOR.findall(text)) > MAX_YAML_INDICATORS:
        raise Problem(
            "standard_unreadable", f"Frontmatter has more than {MAX_YAML_INDICATORS} YAML entries"
        )
    match = _NON_PRINTABLE.search(text)
    if match:
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        raise Problem(
            bad,
            f"Invalid YAML in frontmatter: special characters are not allowed "
            f"(U+{ord(match.group()):04X} at line {line}, column {column})",
        )
    import strictyaml  # lazy: only lint --standard needs it

    try:
        return strictyaml.load(text).data
    except strictyaml.YAMLError as exc:
        raise Problem(bad, f"Invalid YAML in frontmatter: {exc}", exc) from None
    except RecursionError:
        raise Problem(bad, "Invalid YAML in frontmatter: nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - the reference crashes here; lemon reports it
        raise Problem(
            bad, f"Invalid YAML in frontmatter: unsupported construct ({type(exc).__name__})"
        ) from None


def check_metadata(metadata: dict[str, Any], skill_dir: Path | None = None) -> list[Issue]:
    """skills-ref's ``validate_metadata``: every rule, in its order, with its messages."""
    issues: list[Issue] = []
    extra = sorted(set(metadata) - ALLOWED_FIELDS)
    if extra:
        fields = f"Unexpected fields in frontmatter: {', '.join(extra)}."
        issues.append(("standard_fields", f"{fields} Only {sorted(ALLOWED_FIELDS)} are allowed."))
    name_rule = functools.partial(_name_messages, skill_dir=skill_dir)
    for key, rule in (("name", name_rule), ("description", _description_messages)):
        if key not in metadata:
            issues.append((f"standard_{key}", f"Missing required field in frontmatter: {key}"))
        else:
            issues += [(f"standard_{key}", message) for message in rule(metadata[key])]
    if "compatibility" in metadata:
        messages = _compatibility_messages(metadata["compatibility"])
        issues += [("standard_compatibility", message) for message in messages]
    return issues


def _name_messages(raw: Any, skill_dir: Path | None) -> list[str]:
    if not raw or not isinstance(raw, str) or not raw.strip():
        return ["Field 'name' must be a non-empty string"]
    name = unicodedata.normalize("NFKC", raw.strip())
    out = []
    if len(name) > MAX_SKILL_NAME_LENGTH:
        out.append(
            f"Skill name '{name}' exceeds {MAX_SKILL_NAME_LENGTH} character limit "
            f"({len(name)} chars)"
        )
    if name != name.lower():
        out.append(f"Skill name '{name}' must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        out.append("Skill name cannot start or end with a hyphen")
    if "--" in name:
        out.append("Skill name cannot contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in name):
        out.append(
            f"Skill name '{name}' contains invalid characters. "
            "Only letters, digits, and hyphens are allowed."
        )
    if skill_dir is not None and unicodedata.normalize("NFKC", skill_dir.name) != name:
        out.append(f"Directory name '{skill_dir.name}' must match skill name '{name}'")
    return out


def _description_messages(raw: Any) -> list[str]:
    if not raw or not isinstance(raw, str) or not raw.strip():
        return ["Field 'description' must be a non-empty string"]
    if len(raw) > MAX_DESCRIPTION_LENGTH:
        return [
            f"Description exceeds {MAX_DESCRIPTION_LENGTH} character limit ({len(raw)} chars)"
        ]
    return []


def _compatibility_messages(raw: Any) -> list[str]:
    if not isinstance(raw, str):
        return ["Field 'compatibility' must be a string"]
    if len(raw) > MAX_COMPATIBILITY_LENGTH:
        return [
            f"Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit ({len(raw)} chars)"
        ]
    return []


__all__ = [
    "ALLOWED_FIELDS", "MAX_FILE_BYTES", "MAX_FRONTMATTER_CHARS", "MAX_YAML_INDICATORS",
    "Problem", "Said", "check_content", "check_metadata", "check_standard", "read_bounded",
    "standard_frontmatter", "standard_target", "validate_standard",
]  # fmt: skip
