"""``lemon skill lint``: check skills against lemon's contributor contract or the open standard.

:func:`lint_paths` takes skill folders, SKILL.md files and folders of skills and returns one
:class:`LintResult` per skill. Lemon's rules (``docs/reference/lint.md``): every manifest
diagnostic of :func:`~lemon_core.manifest.load.parse_manifest`, plus a SKILL.md must exist and
have a ``name``, a ``description``, a non-empty body and ``references[].path`` entries that
exist inside the skill folder; warnings flag where a skill deviates from the Agent Skills
standard that other agents enforce. With ``standard=True`` the results are exactly the messages
of the reference validator ``skills-ref`` (:mod:`lemon_core.lint.standard`).

Nothing here raises for bad input, and every read is bounded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from lemon_core.lint.issue import MAX_SKILL_MD_BYTES, LintIssue
from lemon_core.manifest.build_full import KNOWN_KEYS

#: The six top-level keys of the Agent Skills standard.
STANDARD_KEYS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)
_STANDARD_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@attrs.frozen
class LintResult:
    """The verdict on one skill folder (``path`` as given or joined, not resolved)."""

    path: str
    ok: bool
    errors: tuple[LintIssue, ...] = attrs.field(default=(), converter=tuple)
    warnings: tuple[LintIssue, ...] = attrs.field(default=(), converter=tuple)
    #: With ``fix``: what was fixed (or, with ``dry_run``, would be); None without ``fix``.
    fixed: tuple[LintIssue, ...] | None = attrs.field(
        default=None, converter=attrs.converters.optional(tuple)
    )
    #: With ``dry_run``: the unified diff of what would change ('' for nothing).
    diff: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"path", "ok", "errors": [{"code", "message"}], "warnings": [...]}``, plus
        ``"fixed": [...]`` with ``fix`` and ``"diff"`` with ``dry_run``."""
        return attrs.asdict(self, filter=lambda field, value: value is not None)


def lint_paths(
    paths: Sequence[Path | str],
    *,
    strict: bool = False,
    standard: bool = False,
    fix: bool = False,
    dry_run: bool = False,
    auditors: Sequence[Any] | None = None,
) -> list[LintResult]:
    """Lint every skill named by ``paths``, in order.

    A path may be a skill folder, a SKILL.md file (any case: its folder is linted) or a folder
    of skills, walked as discovery walks a checkout (no SKILL.md in it: every skill folder below
    it, through groups, in sorted path order; see :func:`_targets`).
    ``strict`` makes warnings fail a result; ``standard`` applies skills-ref's rules instead.
    ``fix`` first rewrites what :mod:`lemon_core.lint.fix` can fix safely in each SKILL.md
    (with ``dry_run``, nothing is written: the result carries the diff, and its issues are
    those the fixed file would have), then lints what remains.
    ``auditors`` (not with ``standard``): also audit each skill with them
    (:func:`lemon_core.audit.host.audit_folder`); a ``warn`` finding is a warning and a
    ``block`` finding an error, coded ``audit.<rule>``.
    """
    results: list[LintResult] = []
    for raw in paths:
        for folder in _targets(Path(raw)):
            if isinstance(folder, _Unresolved):  # told by the walk: nothing to read there
                results.append(folder.result(strict))
                continue
            if not fix:
                errors, warnings = _lint_one(folder, standard=standard)
                if auditors is not None and not standard:
                    _audit_issues(folder, auditors, errors, warnings)
                ok = not errors and not (strict and warnings)
                results.append(LintResult(str(folder), ok, errors, warnings))
                continue
            from lemon_core.lint.fix import fix_skill_md

            outcome = fix_skill_md(folder / "SKILL.md", write=not dry_run)
            pending = outcome.after if dry_run else None
            errors, warnings = _lint_one(folder, standard=standard, data=pending)
            warnings += [outcome.skipped] if outcome.skipped else []
            if auditors is not None and not standard:
                _audit_issues(folder, auditors, errors, warnings)
            ok = not errors and not (strict and warnings)
            results.append(LintResult(str(folder), ok, errors, warnings, outcome.fixes,
                                      outcome.diff() if dry_run else None))
    return results


def _audit_issues(folder: Path, auditors: Sequence[Any], errors: list[LintIssue],
                  warnings: list[LintIssue]) -> None:
    """The audit's findings as lint issues (their text is already escaped and bounded)."""
    from lemon_core.audit.host import audit_folder

    report = audit_folder(folder, auditors=auditors)
    for f in report.findings:
        if f.rule == "manifest.invalid":
            continue  # the manifest reader's own error, which lint already reports by its code
        where = f"{f.path}:{f.line}: " if f.path and f.line else f"{f.path}: " if f.path else ""
        issue = LintIssue(f"audit.{f.rule}", f"{where}{f.message}")
        (errors if f.severity == "block" else warnings).append(issue)


def results_to_json(results: Sequence[LintResult]) -> dict[str, Any]:
    """``{"results": [...]}``, the JSON contract of ``lemon skill lint --json``."""
    return {"results": [result.to_json() for result in results]}


Issues = tuple[list[LintIssue], list[LintIssue]]


@attrs.frozen
class _Unresolved:
    """A place below a linted folder that the walk reported and lint cannot read as a skill:
    a folder it cannot enter, a SKILL.md linked outside its folder, a key no agent can use…"""

    path: Path
    issue: LintIssue
    error: bool

    def result(self, strict: bool) -> LintResult:
        errors, warnings = ([self.issue], []) if self.error else ([], [self.issue])
        return LintResult(str(self.path), not errors and not (strict and warnings), errors,
                          warnings)


#: Walk diagnostics that are lint errors of the folder they name, without reading anything.
_WALK_ERRORS = frozenset({"invalid_key", "not_a_file", "skill_file_outside",
                          "unreadable_directory", "root_not_a_directory"})
#: Walk diagnostics after which lint reads the folder itself (it says what is wrong there).
_WALK_LINTED = frozenset({"misnamed_skill_file", "broken_symlink"})
#: Walk diagnostics about the whole set of skills, not about one place in the folder.
_WALK_IGNORED = frozenset({"lookalike_keys", "nested_skills"})


def _targets(path: Path) -> list[Path | _Unresolved]:
    """The skill folders ``path`` names, and what the walk reported below it.

    A SKILL.md (any case) names its folder; a folder holding one, or anything that is not a
    folder, is linted as given (so lint says what it is). Any other folder is walked as
    discovery walks checkouts (:func:`~lemon_core.catalog.walk.walk_checkout`: groups
    searched, the same bounds and rules, no link followed out of the folder): every skill
    folder found is linted, and each
    place the walk reported becomes a result of its own. A folder lint cannot list or enter is
    an ``unreadable_directory`` error, never "no SKILL.md"; a readable folder with no skill
    anywhere below it is linted as given (``missing_skill_md``).
    """
    try:
        if path.is_file() and path.name.lower() == "skill.md":
            return [path.parent]
        if not path.is_dir() or _skill_md(path, any_case=True) is not None:
            return [path]
    except (OSError, ValueError):
        return [path]
    from lemon_core.catalog.walk import walk_checkout

    walked = walk_checkout(path)
    targets: dict[Path, Path | _Unresolved] = {}
    for found in walked.found:
        targets[Path(found.dir)] = Path(found.dir)
    for diagnostic in walked.diagnostics:
        place = Path(diagnostic.path)
        code, issue = diagnostic.code, LintIssue(diagnostic.code, diagnostic.message)
        folder = place.parent if place.name.lower() == "skill.md" else place
        if code in _WALK_IGNORED or folder in targets:
            continue
        if code in _WALK_LINTED and folder != place:
            targets[folder] = folder
        else:
            targets[folder] = _Unresolved(folder, issue, code in _WALK_ERRORS)
    if not targets:
        return [path]
    return [targets[key] for key in sorted(targets)]


def _skill_md(folder: Path, *, any_case: bool = False) -> Path | None:
    for name in ("SKILL.md", "skill.md") if any_case else ("SKILL.md",):
        candidate = folder / name
        if os.path.lexists(candidate):
            return candidate
    return None


def _lint_one(folder: Path, *, standard: bool, data: bytes | None = None) -> Issues:
    """Lint ``folder``; ``data``, when given, stands for its SKILL.md's content."""
    try:
        if standard:
            from lemon_core.lint.standard_messages import explain_standard

            return [LintIssue(code, msg) for code, msg in explain_standard(folder, data)], []
        return _lint_lemon(folder, data)
    except Exception as exc:  # noqa: BLE001 - one skill must never break the run
        issue = LintIssue("internal_error", f"lemon failed on {folder} ({type(exc).__name__}: "
                          f"{exc}); please report it")
        return [issue], []


def _lint_lemon(folder: Path, pending: bytes | None = None) -> Issues:
    errors: list[LintIssue] = []
    warnings: list[LintIssue] = []
    try:
        exists, is_dir = folder.exists(), folder.is_dir()
    except (OSError, ValueError) as exc:
        return [LintIssue("read_failed", f"cannot access {folder}: {exc}")], []
    if not exists:
        return [LintIssue("path_missing", f"{folder} does not exist")], []
    if not is_dir:
        return [LintIssue("not_a_skill", f"{folder} is neither a skill folder nor a SKILL.md")], []
    skill_md = _skill_md(folder)
    if skill_md is None:
        lower = _skill_md(folder, any_case=True)
        hint = " (found skill.md: rename it to SKILL.md)" if lower else ""
        return [LintIssue("missing_skill_md", f"no SKILL.md in {folder}{hint}")], []
    data = _read(skill_md, errors) if pending is None else pending
    if data is not None:
        _check_content(folder, skill_md, data, errors, warnings)
    from lemon_core.fsio.names import skill_key_problem

    unportable = skill_key_problem(_folder_name(folder))
    if unportable is not None:  # lemon's install refuses it as a key; listing still finds it
        warnings.append(LintIssue("folder_name_not_portable", f"the folder name "
                                  f"'{_short(_folder_name(folder))}' {unportable}; "
                                  "'lemon skill install' refuses it as a skill name "
                                  "(rename the folder)"))
    return errors, warnings


def _read(skill_md: Path, errors: list[LintIssue]) -> bytes | None:
    """Up to :data:`MAX_SKILL_MD_BYTES` of a regular file; None (with an error) otherwise."""
    from lemon_core.lint.standard import Problem, read_bounded

    try:
        data = read_bounded(skill_md, MAX_SKILL_MD_BYTES)
    except Problem as exc:
        errors.append(LintIssue(exc.code, f"cannot read {skill_md.name}: {exc.message}"))
        return None
    if len(data) > MAX_SKILL_MD_BYTES:
        errors.append(LintIssue("file_too_large", f"{skill_md.name} is larger than "
                                f"{MAX_SKILL_MD_BYTES // 1024} KiB; move long content into "
                                "files next to it"))
        cut = MAX_SKILL_MD_BYTES
        while cut > MAX_SKILL_MD_BYTES - 3 and data[cut] & 0xC0 == 0x80:
            cut -= 1  # keep whole UTF-8 characters
        data = data[:cut]
    return data


def _check_content(
    folder: Path, skill_md: Path, data: bytes, errors: list[LintIssue], warnings: list[LintIssue]
) -> None:
    from lemon_core.manifest.load import parse_manifest

    result = parse_manifest(data, key=_folder_name(folder), label=str(skill_md))
    for diagnostic in result.diagnostics:
        issue = LintIssue(diagnostic.code, diagnostic.message)
        (errors if diagnostic.severity == "error" else warnings).append(issue)
    parsed = _parse_whole(data, str(skill_md), errors)
    if parsed is None:
        return
    fmt, frontmatter, body = parsed
    frontmatter = {} if frontmatter is None else frontmatter
    if isinstance(frontmatter, Mapping):  # else parse_manifest reported frontmatter_not_mapping
        # present but empty or of the wrong type: the manifest rules have reported it already
        if frontmatter.get("name") is None:
            errors.append(LintIssue("missing_name", "name is missing; add name: <folder name>"))
        if frontmatter.get("description") is None:
            errors.append(LintIssue("missing_description", "description is missing; add "
                                    "description: what the skill does and when to use it"))
        _references(folder, frontmatter.get("references"), errors)
    if not body.strip():
        errors.append(LintIssue("empty_body", "the body after the frontmatter is empty; "
                                "write the instructions the agent should follow"))
    if isinstance(frontmatter, Mapping):
        warnings.extend(_standard_warnings(folder, fmt, frontmatter, data))


def _parse_whole(data: bytes, label: str, errors: list[LintIssue]) -> tuple[str, Any, str] | None:
    """(format, frontmatter data, body) of the whole file; None when it cannot be parsed
    (the error is added unless parse_manifest already reported the same code)."""
    from lemon_core.manifest import frontmatter as fm
    from lemon_core.manifest.checks import Checker
    from lemon_core.manifest.load import load_frontmatter_data

    try:
        split = fm.split_frontmatter(fm.decode_skill_text(data))
        return split.format, load_frontmatter_data(split, Checker(label)), split.body
    except fm.FrontmatterError as exc:
        if all(issue.code != exc.code for issue in errors):
            errors.append(LintIssue(exc.code, exc.message))
        return None


def _references(folder: Path, value: Any, errors: list[LintIssue]) -> None:
    """Every ``references[].path`` must stay inside the skill folder and exist."""
    if not isinstance(value, list):
        return
    root = os.path.realpath(folder)
    for index, entry in enumerate(value):
        path = entry.get("path") if isinstance(entry, Mapping) else entry
        if not isinstance(path, str) or not path.strip():
            continue  # absent, a url, or rejected by the manifest rules
        issue = _reference_issue(root, path, f"references[{index}].path '{_short(path)}'")
        errors.extend([issue] if issue else [])


def _reference_issue(root: str, path: str, where: str) -> LintIssue | None:
    parts = re.split(r"[/\\]", path)
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path) or os.path.isabs(path):
        return LintIssue("reference_escapes", f"{where} is absolute; use a path relative to the "
                         "skill folder")
    if ".." in parts:
        return LintIssue("reference_escapes", f"{where} leaves the skill folder (..); keep "
                         "referenced files inside it")
    try:
        target = os.path.realpath(os.path.join(root, path))
        inside = os.path.commonpath([root, target]) == root
        exists = os.path.exists(target)
    except (OSError, ValueError):
        return LintIssue("reference_missing", f"{where} cannot be resolved")
    if not inside:
        return LintIssue("reference_escapes", f"{where} leads outside the skill folder through "
                         "a symbolic link; copy the file into the skill")
    if not exists:
        return LintIssue("reference_missing", f"{where} does not exist in the skill folder")
    return None


def _standard_warnings(
    folder: Path, fmt: str, frontmatter: Mapping[Any, Any], data: bytes
) -> list[LintIssue]:
    """Where the skill deviates from the Agent Skills standard that other agents enforce."""
    out: list[LintIssue] = []
    theirs: Mapping[Any, Any] | None = None  # the frontmatter as skills-ref reads it
    if fmt == "toml":
        out.append(LintIssue("standard_toml", "TOML frontmatter (+++) is a lemon extension; "
                             "agents that follow the Agent Skills standard read YAML (---) only"))
    elif fmt == "yaml":
        from lemon_core.lint.standard import standard_frontmatter

        text = data.decode("utf-8")
        theirs, problem = standard_frontmatter(text)
        if problem and (text.startswith("\ufeff") or not problem.startswith("SKILL.md must")):
            from lemon_core.lint.standard_messages import explain

            rule, words = explain("standard_frontmatter", problem, text)
            out.append(LintIssue("standard_yaml", f"agents that follow the Agent Skills "
                                 f"standard reject this file ({rule}): {words}"))
    name = frontmatter.get("name")
    if isinstance(name, str) and name.strip():
        name = name.strip()
        if name != _folder_name(folder):
            out.append(LintIssue("name_mismatch", f"name '{_short(name)}' differs from the folder "
                                 f"name '{_short(_folder_name(folder))}'; the standard requires "
                                 "them to match"))
        if len(name) > 64 or not _STANDARD_NAME.fullmatch(name):
            out.append(LintIssue("name_not_standard", f"name '{_short(name)}' is not a standard "
                                 "name: at most 64 of a-z, 0-9 and single inner hyphens"))
    description = (theirs or frontmatter).get("description")
    if isinstance(description, str) and len(description) > 1024 >= len(description.strip()):
        out.append(LintIssue("description_too_long_for_standard", f"description is "
                             f"{len(description)} characters with its surrounding whitespace; "
                             "the standard allows 1024"))
    extra = sorted(str(key) for key in frontmatter
                   if key not in STANDARD_KEYS and key not in KNOWN_KEYS)
    if extra:
        shown = ", ".join(_short(key, 40) for key in extra[:8]) + (", …" * (len(extra) > 8))
        out.append(LintIssue("nonstandard_keys", f"keys neither lemon nor the Agent Skills "
                             f"standard defines ({shown}); lemon keeps and ignores them, agents "
                             "that enforce the standard reject the skill (move client-specific "
                             "data under metadata)"))
    return out


def _folder_name(folder: Path) -> str:
    return Path(os.path.abspath(folder)).name


def _short(text: str, limit: int = 80) -> str:
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["MAX_SKILL_MD_BYTES", "STANDARD_KEYS", "LintIssue", "LintResult", "lint_paths",
           "results_to_json"]
