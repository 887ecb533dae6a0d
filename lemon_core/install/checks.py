"""The checks a staged skill folder passes before anyone is asked to install it.

:func:`check_tree` refuses what the safe scan found (links leaving the skill, hard links,
devices and FIFOs, the caps, unsafe or colliding names); :func:`judge_manifest` validates
SKILL.md with :mod:`lemon_core.manifest` and decides the key (the skill's ``name``, whatever
its folder upstream is called); :func:`hash_bundle` and :func:`rehash` give the bundle's
identity now and check it did not change since.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.read import FileProblem, read_bytes
from lemon_core.fsio.tree import TreeScan, bundle_hash, scan_tree
from lemon_core.install.targets import check_key
from lemon_core.manifest.lenient import load_for_install
from lemon_core.models import Diagnostic

SKILL_FILE = "SKILL.md"
MAX_SHOWN_PROBLEMS = 5


class UnsafeBundle(LemonError):
    """The staged folder is not a bundle lemon installs; ``problems`` says why."""

    def __init__(self, message: str, problems: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


def check_tree(folder: Path, label: str) -> TreeScan:
    """The scan of ``folder``; :raises UnsafeBundle: listing its first problems."""
    scan = scan_tree(folder)
    if scan.problems or not scan.complete:
        shown = "; ".join(f"{p.path}: {p.message} [{p.code}]"
                          for p in scan.problems[:MAX_SHOWN_PROBLEMS])
        more = len(scan.problems) - MAX_SHOWN_PROBLEMS
        extra = f" (and {more} more)" if more > 0 else ""
        raise UnsafeBundle(f"{label} is not installed: {shown}{extra}; nothing was changed",
                           scan.problems)
    return scan


def check_lfs(folder: Path, scan: TreeScan, label: str) -> None:
    """Refuse a skill holding Git LFS pointer files: lemon never installs a pointer as if it
    were the content (a checkout without ``git lfs pull`` has them).

    :raises UnsafeBundle: naming the first pointer files."""
    from lemon_core.source_kit.lfs import LFS_MAGIC, LFS_MAX_POINTER, LFS_REFUSAL

    found = []
    for entry in scan.entries:
        if entry.kind != "file" or entry.size > LFS_MAX_POINTER:
            continue
        try:
            head = read_bytes(folder / entry.path, LFS_MAX_POINTER, nofollow=True) or b""
        except FileProblem:
            continue  # the audit reads every file again and reports what it cannot
        if head.startswith(LFS_MAGIC):
            found.append(entry.path)
    if found:
        shown = ", ".join(found[:MAX_SHOWN_PROBLEMS]) + (
            " …" if len(found) > MAX_SHOWN_PROBLEMS else "")
        raise UnsafeBundle(f"{label} is not installed: {len(found)} file(s) are Git LFS "
                           f"pointers ({shown}): {LFS_REFUSAL}; install it from a checkout "
                           f"where `git lfs pull` has run")


def check_manifest(folder: Path, *, folder_name: str | None, fallback: str) -> str:
    """The key ``folder`` installs as (see :func:`judge_manifest`)."""
    return judge_manifest(folder, folder_name=folder_name, fallback=fallback).key


def check_manifest_lenient(folder: Path, *, folder_name: str | None, fallback: str
                           ) -> tuple[str, tuple[Diagnostic, ...]]:
    """The key ``folder`` installs as and the relaxed errors (see :func:`judge_manifest`)."""
    judged = judge_manifest(folder, folder_name=folder_name, fallback=fallback)
    return judged.key, judged.relaxed


@attrs.frozen
class ManifestJudgement:
    """How a staged skill's SKILL.md lets it install: its ``key``, the stricter-than-agents
    errors it is accepted despite (``relaxed``), and ``renamed``: True when its folder is
    named unlike its skill, so it installs under the skill's name."""

    key: str
    relaxed: tuple[Diagnostic, ...] = ()
    renamed: bool = False


def judge_manifest(folder: Path, *, folder_name: str | None, fallback: str
                   ) -> ManifestJudgement:
    """The key ``folder`` installs as: its SKILL.md's ``name``, else its folder's name
    (``folder_name``, for a skill in a subfolder of the fetched tree), else ``fallback`` (the
    name the identifier gives). A skill whose folder is named unlike it installs under its
    name, as agents load it and the ``skills`` CLI installs it (``renamed``); the name must
    pass the rules of a skill folder's name.

    A SKILL.md whose only errors are rules stricter than the agents
    (:data:`~lemon_core.manifest.lenient.STRICTER_THAN_AGENTS`) passes: those errors are
    returned as ``relaxed``, for the install to warn about.

    :raises LemonError: the SKILL.md does not load (its first error), or its name cannot be a
        folder's name.
    """
    key = folder_name or fallback
    result, relaxed = load_for_install(folder / SKILL_FILE, key=key)
    if result.manifest is None:  # result.reason: the words the audit reports too
        reasons = "; ".join(f"{d.message} [{d.code}]" for d in result.errors[:3])
        raise LemonError(f"the SKILL.md of {key!r} is invalid: {reasons or result.reason}; "
                         f"nothing was installed")
    name = result.manifest.name
    if name is None or folder_name is None or name == folder_name:
        return ManifestJudgement(check_key(name or key, new=True), relaxed)
    try:
        check_key(name, new=True)
    except UsageError as exc:  # the name comes from the file, not from the user
        why = str(exc).split(": it ", 1)[-1]
        raise LemonError(f"the skill in folder {folder_name!r} is named {name!r}, which "
                         f"cannot be a skill folder's name: it {why}; nothing was installed "
                         f"(tell its author)") from None
    return ManifestJudgement(name, relaxed, renamed=True)


def renamed_warning(key: str, upstream: str) -> str:
    """The warning of a skill installed under its name, its folder upstream named otherwise."""
    return (f"{key}: installed as {key} (its folder upstream is {upstream}); agents load it "
            f"by that name, and update, outdated and sync follow the upstream folder")


def content_hash(folder: Path) -> str:
    """``sha256:<hex>`` of the SKILL.md bytes."""
    try:
        data = read_bytes(folder / SKILL_FILE, 16 * 1024 * 1024, missing_ok=False) or b""
    except FileProblem as problem:
        raise LemonError(f"cannot read the SKILL.md of {folder.name}: {problem.message}"
                         ) from None
    return "sha256:" + hashlib.sha256(data).hexdigest()


def hash_bundle(folder: Path, scan: TreeScan) -> str:
    try:
        return bundle_hash(folder, scan.entries)
    except FileProblem as problem:
        raise LemonError(f"cannot hash {folder.name}: {problem.message}; nothing was "
                         f"installed") from None


def rehash(folder: Path, expected: str, key: str) -> dict[str, str]:
    """Refuse when the staged bundle is not exactly what was checked and approved; returns
    each path's hash (what the lockfile records as ``file_hashes``)."""
    scan = scan_tree(folder)
    digests: dict[str, str] = {}
    now = None
    if not scan.problems:
        try:
            now = bundle_hash(folder, scan.entries, digests=digests)
        except FileProblem:
            now = None
    if now != expected:
        raise LemonError(f"the staged files of {key!r} changed after they were checked; "
                         f"nothing was installed, run the command again")
    return digests


__all__ = ["ManifestJudgement", "UnsafeBundle", "check_lfs", "check_manifest",
           "check_manifest_lenient", "check_tree", "content_hash", "hash_bundle",
           "judge_manifest", "rehash", "renamed_warning"]
