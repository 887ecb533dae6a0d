"""The checks a staged skill folder passes before anyone is asked to install it.

:func:`check_tree` refuses what the safe scan found (links leaving the skill, hard links,
devices and FIFOs, the caps, unsafe or colliding names); :func:`check_manifest` validates
SKILL.md with :mod:`lemon_core.manifest` and decides the key (a skill's folder name must equal
its ``name``); :func:`hash_bundle` and :func:`rehash` give the bundle's identity now and check
it did not change since.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lemon_core.errors import LemonError
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
    """The key ``folder`` installs as (see :func:`check_manifest_lenient`)."""
    return check_manifest_lenient(folder, folder_name=folder_name, fallback=fallback)[0]


def check_manifest_lenient(folder: Path, *, folder_name: str | None, fallback: str
                           ) -> tuple[str, tuple[Diagnostic, ...]]:
    """The key ``folder`` installs as. A skill in a subfolder of the fetched tree
    (``folder_name``) must have that name when its SKILL.md names one; a skill at the root of
    the tree takes its SKILL.md's name, else ``fallback`` (the name the identifier gives).

    A SKILL.md whose only errors are rules stricter than the agents
    (:data:`~lemon_core.manifest.lenient.STRICTER_THAN_AGENTS`) passes: those errors are
    returned beside the key, for the install to warn about.

    :raises LemonError: the SKILL.md does not load (its first error), or names differ.
    """
    key = folder_name or fallback
    result, relaxed = load_for_install(folder / SKILL_FILE, key=key)
    if result.manifest is None:  # result.reason: the words the audit reports too
        reasons = "; ".join(f"{d.message} [{d.code}]" for d in result.errors[:3])
        raise LemonError(f"the SKILL.md of {key!r} is invalid: {reasons or result.reason}; "
                         f"nothing was installed")
    name = result.manifest.name
    if name is not None and folder_name is not None and name != folder_name:
        raise LemonError(f"the skill in folder {folder_name!r} is named {name!r}; a skill's "
                         f"folder must have its name, so it is not installed (rename one)")
    return check_key(name or key, new=True), relaxed


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


__all__ = ["UnsafeBundle", "check_lfs", "check_manifest", "check_manifest_lenient", "check_tree", "content_hash", "hash_bundle",
           "rehash"]
