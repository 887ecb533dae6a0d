"""The small checks manifest validation is built from: safe text, bounded string lists, type
names for messages, and conversion of free-form values to JSON-compatible data.

Every check reports through a :class:`Checker`, which collects
:class:`~lemon_core.models.Diagnostic` objects for one file and remembers whether any was an
error. Checks return the accepted value, or None when the value is absent or was rejected.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from lemon_core.manifest.frontmatter import FrontmatterError
from lemon_core.manifest.parse_full import MAX_DEPTH
from lemon_core.models import Diagnostic, Severity
from lemon_core.text import SURROGATE, identifier_reason, unsafe_reason

#: Diagnostics of each severity kept for one file.
MAX_DIAGNOSTICS = 50
#: Items a list field may hold, and UTF-8 bytes per item.
MAX_LIST_ITEMS = 32
MAX_ITEM_BYTES = 128

#: Whitespace stripped around ``name`` and ``description`` (other control characters are not
#: whitespace here: they are rejected).
STRIP = " \t\r\n"


class Checker:
    """Collects the diagnostics of one file (``label`` is the path they name).

    At most :data:`MAX_DIAGNOSTICS` errors and as many warnings are kept; the rest are
    counted and summed up by one ``too_many_errors`` / ``too_many_warnings`` diagnostic.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._kept: list[Diagnostic] = []
        self._counts: dict[Severity, int] = {"error": 0, "warning": 0}

    @property
    def errors(self) -> int:
        """How many errors were reported (kept or not)."""
        return self._counts["error"]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The kept diagnostics in report order, then the summaries of the dropped ones."""
        if not self._kept:  # nothing reported (a dropped one implies kept ones)
            return ()
        notes = [
            Diagnostic(self.label, severity, f"too_many_{severity}s", f"{count - MAX_DIAGNOSTICS} "
                       f"more {severity}s are not shown; fix the ones above first")
            for severity, count in self._counts.items()
            if count > MAX_DIAGNOSTICS
        ]  # fmt: skip
        return (*self._kept, *notes)

    def report(self, severity: Severity, code: str, message: str) -> None:
        self._counts[severity] += 1
        if self._counts[severity] <= MAX_DIAGNOSTICS:
            self._kept.append(Diagnostic(self.label, severity, code, message))

    def error(self, code: str, message: str) -> None:
        self.report("error", code, message)

    def warn(self, code: str, message: str) -> None:
        self.report("warning", code, message)


def describe(value: Any) -> str:
    """A short, safe name of a value's type for messages ("a number (1.1)", "a list")."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        shown = str(value)
        return f"a number ({shown})" if len(shown) <= 24 else "a number"
    if isinstance(value, (datetime.date, datetime.time)):
        return f"a date ({value.isoformat()})"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a value of another type"


def wrong_type(check: Checker, field: str, value: Any, wanted: str) -> None:
    """Report ``field`` holding ``value`` where ``wanted`` was expected, with a remedy."""
    hint = ""
    if wanted == "text" and isinstance(value, (bool, int, float, datetime.date, datetime.time)):
        hint = f'; quote the value ({field.rsplit(".", 1)[-1]}: "...") so it stays text'
    check.error("wrong_type", f"{field} must be {wanted}, not {describe(value)}{hint}")


def safe_text(
    check: Checker, value: Any, field: str, *, max_bytes: int, max_chars: int | None = None,
    identifier: bool = False, chars_code: str = "too_long", chars_why: str = "",
) -> str | None:
    """Check a single-line text field (``name``, ``description``); surrounding whitespace is
    stripped first. None when absent (YAML null counts as absent) or rejected. ``identifier``
    (the ``name``) also rejects invisible characters (:func:`~lemon_core.text.identifier_reason`);
    a description keeps them (emoji sequences join with U+200D). The byte cap is checked
    before the character limit; a value over only ``max_chars`` gets the code ``chars_code``
    (the description's ``long_description``: a limit some agents enforce, not a safety cap),
    its message followed by ``chars_why``."""
    if value is None:
        return None
    if not isinstance(value, str):
        wrong_type(check, field, value, "text")
        return None
    value = value.strip(STRIP)
    if not value:
        check.error("empty_value", f"{field} is empty; give it a value or remove the line")
        return None
    problem = identifier_reason(value) if identifier else unsafe_reason(value)
    if problem:
        code, reason = problem
        extra = "; use one line or a folded block scalar (>)" if code == "multiline_value" else ""
        check.error(code, f"{field} {reason}{extra}")
        return None
    size = _utf8_len(value)
    if size > max_bytes:
        check.error("too_long", f"{field} is {size} bytes of UTF-8; at most {max_bytes}")
        return None
    if max_chars is not None and len(value) > max_chars:
        check.error(chars_code, f"{field} has {len(value)} characters; at most "
                                f"{max_chars}{chars_why}")
        return None
    return value


def plain_text(value: Any, max_chars: int, max_bytes: int) -> str | None:
    """``value`` stripped, when it is text that :func:`safe_text` accepts without a word (at
    most ``max_chars`` characters and ``max_bytes`` UTF-8 bytes), recognised in a few C calls;
    None for anything else, which :func:`safe_text` must then decide."""
    if type(value) is not str:
        return None
    value = value.strip(STRIP)
    if (
        value
        and value.isprintable()
        and len(value) <= max_chars
        and (value.isascii() or _utf8_len(value) <= max_bytes)
    ):
        return value
    return None


def list_item(check: Checker, value: Any, field: str) -> str | None:
    """Check one item of a list field: non-empty safe text of at most 128 bytes."""
    if not isinstance(value, str):
        wrong_type(check, field, value, "text")
        return None
    if not value.strip(STRIP):
        check.error("empty_value", f"{field} is empty; remove it or give it a value")
        return None
    problem = unsafe_reason(value)
    if problem:
        check.error(problem[0], f"{field} {problem[1]}")
        return None
    size = _utf8_len(value)
    if size > MAX_ITEM_BYTES:
        check.error("too_long", f"{field} is {size} bytes of UTF-8; at most {MAX_ITEM_BYTES}")
        return None
    return value


def string_list(check: Checker, value: Any, field: str) -> tuple[str, ...] | None:
    """Check a list field of at most 32 safe strings; None when absent or rejected."""
    if plain_list(value):  # the common case, checked in one pass
        return tuple(dict.fromkeys(value))
    items = bounded_list(check, value, field, "a list of strings")
    if items is None:
        return None
    before = check.errors
    checked = [list_item(check, item, f"{field}[{index}]") for index, item in enumerate(items)]
    return None if check.errors > before else tuple(dedupe(checked))  # type: ignore[arg-type]


def plain_list(value: Any) -> bool:
    """True for a list of at most 32 short, printable, non-blank ASCII strings: a list that
    passes every list rule, recognised in one pass without reporting."""
    if type(value) is not list or len(value) > MAX_LIST_ITEMS:
        return False
    for item in value:
        if not (
            type(item) is str
            and len(item) <= MAX_ITEM_BYTES
            and item.isascii()
            and item.isprintable()
            and item.strip(" ")
        ):
            return False
    return True


def bounded_list(check: Checker, value: Any, field: str, wanted: str) -> list[Any] | None:
    """``value`` as a list of at most 32 items; None when absent or rejected."""
    if value is None:
        return None
    if not isinstance(value, list):
        wrong_type(check, field, value, f"{wanted} (e.g. {field.rsplit('.', 1)[-1]}: [a, b])")
        return None
    if len(value) > MAX_LIST_ITEMS:
        check.error(
            "too_many_items", f"{field} has {len(value)} items; at most {MAX_LIST_ITEMS} allowed"
        )
        return None
    return value


def dedupe(items: list[str] | tuple[str, ...]) -> list[str]:
    """The items without repeats, in first-seen order."""
    return list(dict.fromkeys(items))


def json_value(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-compatible data: dates and times become ISO strings, non-finite floats
    and any other non-JSON value become ``str``; mapping keys become strings.

    Raises :class:`FrontmatterError` ``frontmatter_too_deep`` past ``MAX_DEPTH`` levels.
    """
    kind = type(value)
    if kind is str:
        return value if value.isascii() or not SURROGATE.search(value) else _scrub(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is dict or kind is list or kind is tuple or isinstance(value, Mapping):
        if depth >= MAX_DEPTH:
            raise FrontmatterError(
                "frontmatter_too_deep",
                f"the frontmatter nests more than {MAX_DEPTH} levels deep; flatten it",
            )
        if kind is list or kind is tuple:
            return [json_value(item, depth + 1) for item in value]
        return {json_key(key): json_value(item, depth + 1) for key, item in value.items()}
    return _json_other(value, depth)


def _json_other(value: Any, depth: int) -> Any:
    """The rarer values: floats, dates and times, subclasses; anything else as text."""
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (list, tuple)):
        return json_value(list(value), depth)
    return json_value(str(value), depth)


def json_key(key: Any) -> str:
    """A mapping key as a JSON object key (``true``, ``null``, ISO dates, numbers as text)."""
    if type(key) is str:
        return key if key.isascii() or not SURROGATE.search(key) else _scrub(key)
    if isinstance(key, bool) or key is None:
        return "null" if key is None else str(key).lower()
    if isinstance(key, (datetime.date, datetime.time)):
        return key.isoformat()
    return str(key)


def _scrub(value: str) -> str:
    """Replace lone surrogates with U+FFFD so the value can be written as UTF-8."""
    return SURROGATE.sub("\ufffd", value)


def _utf8_len(value: str) -> int:
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


__all__ = [
    "MAX_DIAGNOSTICS",
    "MAX_ITEM_BYTES",
    "MAX_LIST_ITEMS",
    "Checker",
    "bounded_list",
    "dedupe",
    "describe",
    "json_key",
    "json_value",
    "list_item",
    "plain_list",
    "plain_text",
    "safe_text",
    "string_list",
    "wrong_type",
]
