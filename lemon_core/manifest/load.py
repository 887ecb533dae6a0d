"""Load and validate a SKILL.md manifest (Skill Manifest v1 and v2): the public API.

::

    result = load_manifest(Path("skills/k8s/SKILL.md"), key="k8s")
    if result.manifest is None:        # the skill failed to load; result.errors say why
        ...
    for diagnostic in result.warnings: # loaded anyway
        ...

:func:`load_manifest` is on the discovery hot path: it reads only the head of the file
(:data:`~lemon_core.manifest.frontmatter.HEAD_BYTES`, more only while the frontmatter is
longer), never the body beyond it, and never raises for any file content or I/O error: every
failure is a :class:`~lemon_core.models.Diagnostic` naming the file, a stable code and what
to do. The rules, bounds and codes are documented in ``docs/reference/manifest.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.fsio.read import NotRegular, open_regular, read_up_to
from lemon_core.manifest.build_fast import build_manifest
from lemon_core.manifest.checks import Checker
from lemon_core.manifest.frontmatter import (
    HEAD_BYTES,
    Frontmatter,
    FrontmatterError,
    check_text,
    read_split,
)
from lemon_core.manifest.parse_full import load_toml, load_yaml
from lemon_core.models import Diagnostic, SkillManifest

#: ``read(n, end=-1)``: up to ``n`` bytes, fewer only at the end (``end``: see
#: :func:`~lemon_core.fsio.read.read_up_to`).
Reader = Callable[..., bytes]

#: Every diagnostic code these modules emit, with its severity.
DIAGNOSTIC_CODES: Mapping[str, str] = {
    "read_failed": "error",
    "not_a_file": "error",
    "invalid_utf8": "error",
    "binary_file": "error",
    "frontmatter_unclosed": "error",
    "frontmatter_too_large": "error",
    "frontmatter_too_deep": "error",
    "frontmatter_not_at_start": "warning",
    "yaml_invalid": "error",
    "yaml_repaired": "warning",
    "yaml_aliases_too_large": "error",
    "yaml_recursive_alias": "error",
    "duplicate_key": "warning",
    "toml_invalid": "error",
    "frontmatter_not_mapping": "error",
    "wrong_type": "error",
    "empty_value": "error",
    "too_long": "error",
    "long_description": "error",
    "too_many_items": "error",
    "multiline_value": "error",
    "unsafe_characters": "error",
    "unknown_platform": "error",
    "missing_field": "error",
    "unknown_key": "warning",
    "hide_not_boolean": "warning",
    "too_many_errors": "error",
    "too_many_warnings": "warning",
    "internal_error": "error",
}


def _tuple(value: Any) -> tuple[Any, ...]:
    """``tuple(value)`` (a function: attrs reading a builtin's signature costs a tokenizer
    start-up)."""
    return tuple(value)


@attrs.frozen
class ManifestResult:
    """What loading one SKILL.md produced: the manifest (None when the skill failed to load)
    and every error and warning, each naming the file, a stable code and what to do."""

    manifest: SkillManifest | None
    diagnostics: tuple[Diagnostic, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def ok(self) -> bool:
        """True when the skill loaded (there may still be warnings)."""
        return self.manifest is not None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    @property
    def reason(self) -> str | None:
        """Why the skill does not load, in the words every reader of a manifest uses (install
        refuses it, the audit reports it): the first error's ``message [code]``; None when it
        loaded."""
        if self.manifest is not None:
            return None
        first = next(iter(self.errors), None)
        return f"{first.message} [{first.code}]" if first is not None else "it does not load"


def load_manifest(path: Path | str, *, key: str,
                  adjust: Callable[[Any], Any] | None = None) -> ManifestResult:
    """Read the head of the SKILL.md at ``path`` and validate its frontmatter.

    ``adjust`` (rarely given: :mod:`~lemon_core.manifest.lenient`) maps the parsed frontmatter
    data before it is validated.

    ``key`` is the skill's lookup key (its folder name); it stands in for an absent ``name``
    (the manifest keeps ``name=None``). Never raises: an unreadable path, a directory, a FIFO
    or a device is an error diagnostic (``read_failed``, ``not_a_file``).
    """
    label = str(path)
    try:  # the safe reader's open: non-blocking, regular files only
        fd, info = open_regular(path)
    except NotRegular:
        return _failed(label, "not_a_file", "not a regular file; a SKILL.md must be a file")
    except OSError as exc:
        return _failed(label, "read_failed", f"cannot read the file: {_os_reason(exc)}")
    except ValueError:  # a NUL character in the path
        return _failed(label, "read_failed", "cannot read the file: invalid path")
    try:
        return _parse(lambda n, end=-1: read_up_to(fd, n, end), key, label, info.st_size,
                      adjust)
    except OSError as exc:
        return _failed(label, "read_failed", f"cannot read the file: {_os_reason(exc)}")
    finally:
        os.close(fd)


def parse_manifest(data: bytes, *, key: str, label: str,
                   adjust: Callable[[Any], Any] | None = None) -> ManifestResult:
    """Validate the SKILL.md content ``data``; ``label`` is the path diagnostics show.

    Exactly what :func:`load_manifest` does with a file's bytes (only the head is examined).
    Never raises for any ``data``.
    """
    view = memoryview(data)
    position = 0

    def read(size: int, end: int = -1) -> bytes:
        nonlocal position
        chunk = bytes(view[position : position + size])
        position += len(chunk)
        return chunk

    return _parse(read, key, label, adjust=adjust)


def validate_manifest_data(data: Any, *, label: str, fmt: str = "none") -> ManifestResult:
    """Validate already-parsed frontmatter ``data`` (a mapping, or None for none).

    For callers holding the frontmatter another way (an index, ``lemon skill lint``'s own
    parse); ``fmt`` is recorded as the manifest's ``format``.
    """
    check = Checker(label)
    try:
        manifest = build_manifest(data, check, fmt=fmt)
    except FrontmatterError as exc:  # free-form values nested too deep
        check.error(exc.code, exc.message)
        manifest = None
    return ManifestResult(manifest, check.diagnostics)


def load_frontmatter_data(frontmatter: Frontmatter, check: Checker) -> Any:
    """Parse a split frontmatter into data (None for none or empty); warnings go to ``check``.

    Raises :class:`FrontmatterError` when the frontmatter cannot be parsed.
    """
    return _frontmatter_data(
        frontmatter.format,
        frontmatter.raw,
        frontmatter.raw_line,
        frontmatter.leading_blank_lines,
        check,
    )


def _frontmatter_data(fmt: str, raw: str, raw_line: int, blank: int, check: Checker) -> Any:
    if blank:
        check.warn(
            "frontmatter_not_at_start",
            f"{blank} blank line(s) before the frontmatter; remove "
            "them, other tools require the file to start with the delimiter",
        )
    if fmt == "yaml":
        data, notes = load_yaml(raw, first_line=raw_line)
        for code, message in notes:
            check.warn(code, message)
        return data
    if fmt == "toml":
        return load_toml(raw, first_line=raw_line)
    return None


def _parse(read: Reader, key: str, label: str, size: int = -1,
           adjust: Callable[[Any], Any] | None = None) -> ManifestResult:
    """Read through ``read``, split, parse and validate; never raises. ``size`` is the size of
    the file when known (a first read that returns that much reached its end)."""
    try:
        return _parse_unguarded(read, label, size, adjust)
    except OSError as exc:
        return _failed(label, "read_failed", f"cannot read the file: {_os_reason(exc)}")
    except Exception as exc:  # noqa: BLE001 - a bug: one file must never break discovery
        return _failed(
            label,
            "internal_error",
            f"lemon failed on skill '{key}' ({type(exc).__name__}: {exc}); please report it",
        )


def _parse_unguarded(read: Reader, label: str, size: int,
                     adjust: Callable[[Any], Any] | None = None) -> ManifestResult:
    check = Checker(label)
    try:
        text, (fmt, raw, _, raw_line, blank) = read_split(read, read(HEAD_BYTES, size))
        check_text(text)
        data = _frontmatter_data(fmt, raw, raw_line, blank, check)
        if adjust is not None:
            data = adjust(data)
        manifest = build_manifest(data, check, fmt=fmt)
    except FrontmatterError as exc:
        check.error(exc.code, exc.message)
        manifest = None
    return ManifestResult(manifest, check.diagnostics)


def _failed(label: str, code: str, message: str) -> ManifestResult:
    return ManifestResult(None, (Diagnostic(label, "error", code, message),))


def _os_reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


__all__ = [
    "DIAGNOSTIC_CODES",
    "ManifestResult",
    "load_frontmatter_data",
    "load_manifest",
    "parse_manifest",
    "validate_manifest_data",
]
