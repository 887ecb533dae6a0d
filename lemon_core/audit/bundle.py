"""Read a skill folder once, for every auditor: the :class:`~lemon_core.protocols.AuditBundle`.

The entries are those of :func:`lemon_core.fsio.tree.scan_tree` (links never followed, special
files never opened). Every regular file is opened once through the safe reader
(:func:`lemon_core.fsio.read.open_regular`, no link followed) and read up to the tree's per-file
cap; the bundle hash is computed from those same bytes, with exactly the algorithm of
:func:`lemon_core.fsio.tree.bundle_hash` (a test keeps the two equal), so the hash a report
carries is the hash of what the auditors saw. An archive is opened in memory and its members
handed over as files of their own (:mod:`lemon_core.audit.archives`; they are not hashed: the
archive's bytes are). Whatever could not be read is a :class:`ReadProblem` the host turns into
a finding: nothing is skipped silently.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import attrs

from lemon_core.audit import archives
from lemon_core.audit.decode import decode
from lemon_core.fsio.read import FileProblem, describe, open_regular, read_up_to
from lemon_core.fsio.tree import HASH_PREFIX, TreeLimits, TreeScan
from lemon_core.protocols import AuditBundle, AuditFile

SKILL_FILE = "SKILL.md"
#: How much of a file over the per-file cap is read and searched (it blocks anyway).
HEAD_OF_LARGE = 1024 * 1024


@attrs.frozen
class ReadProblem:
    """A file the host could not read whole: ``code`` is ``unreadable``, ``truncated`` or
    ``archive`` (part of an archive it opened could not be unpacked)."""

    path: str
    code: str
    message: str


@attrs.frozen
class ReadBundle:
    """The bundle for the auditors, the host's own read problems, and a fingerprint of the
    entries' metadata (kinds, modes, link counts, tree problems) that the hash leaves out."""

    bundle: AuditBundle
    problems: tuple[ReadProblem, ...]
    fingerprint: str


def _read(path: str, cap: int) -> tuple[bytes, os.stat_result]:
    fd, info = open_regular(path, nofollow=True)
    try:
        return read_up_to(fd, cap + 1, info.st_size), info
    finally:
        os.close(fd)


def _hash_update(digest: hashlib._Hash, kind: bytes, rel: str, data: bytes) -> None:
    name = rel.encode("utf-8", "surrogateescape")
    digest.update(kind + len(name).to_bytes(4, "big") + name + len(data).to_bytes(8, "big"))
    digest.update(data)


def _manifest(data: bytes | None, key: str) -> tuple[object, str | None]:
    """(the manifest, or None and why it does not load): read by the one manifest reader
    install uses, so the audit reports what install would refuse, in the same words."""
    if data is None:
        return None, None
    from lemon_core.manifest.lenient import parse_for_install

    # A rule only lemon enforces (a description spanning lines) is not a reason to block:
    # install accepts it with a warning (lemon_core.manifest.lenient).
    result, _ = parse_for_install(data, key=key, label=SKILL_FILE)  # never raises
    return result.manifest, result.reason


def read_bundle(root: Path, scan: TreeScan, limits: TreeLimits, key: str) -> ReadBundle:
    """Every entry of ``scan`` as an :class:`AuditFile`, each regular file read once."""
    files: list[AuditFile] = []
    problems: list[ReadProblem] = []
    hashed: list[tuple[bytes, bytes, str, bytes]] = []
    complete_hash = scan.complete
    budget = limits.max_total_bytes
    base = os.fspath(root)
    skill_bytes: bytes | None = None
    shape = hashlib.sha256()
    unpacked = archives.Budget()
    for entry in scan.entries:
        shape.update(f"{entry.path}\0{entry.kind}\0{entry.mode:o}\0{entry.nlink}\0"
                     f"{entry.link_target}\0{entry.inside}\n".encode("utf-8", "surrogateescape"))
        if entry.kind == "dir":
            continue
        common = {"path": entry.path, "size": entry.size, "kind": entry.kind, "mode": entry.mode,
                      "nlink": entry.nlink, "link_target": entry.link_target,
                      "link_inside": entry.inside}
        if entry.kind == "symlink":
            files.append(AuditFile(text=None, **common))  # type: ignore[arg-type]
            target = os.fsencode(entry.link_target or "")
            hashed.append((entry.path.encode("utf-8", "surrogateescape"), b"L", entry.path,
                           target))
            continue
        if entry.kind != "file":
            files.append(AuditFile(text=None, **common))  # type: ignore[arg-type]
            continue
        # A file over the cap already blocks (file_too_large): only its head is searched.
        large = entry.size > limits.max_file_bytes
        cap = max(0, min(limits.max_file_bytes, HEAD_OF_LARGE if large else budget, budget))
        try:
            data, info = _read(os.path.join(base, entry.path), cap)
        except FileProblem as exc:
            problems.append(ReadProblem(entry.path, "unreadable", exc.message))
            files.append(AuditFile(text=None, **common))  # type: ignore[arg-type]
            complete_hash = False
            continue
        except (OSError, ValueError) as exc:
            why = describe(exc) if isinstance(exc, OSError) else "the path holds a NUL"
            problems.append(ReadProblem(entry.path, "unreadable", f"cannot read it: {why}"))
            files.append(AuditFile(text=None, **common))  # type: ignore[arg-type]
            complete_hash = False
            continue
        truncated = len(data) > cap or large
        if truncated:
            data = data[:cap]
            complete_hash = False
            problems.append(ReadProblem(
                entry.path, "truncated",
                f"only the first {cap} bytes were read and audited (the file or the bundle "
                "is over lemon's size cap)"))
        budget -= len(data)
        decoded = decode(data)
        mode = stat.S_IMODE(info.st_mode)
        members = None
        if not truncated and archives.is_archive(data):
            expansion = archives.expand(entry.path, data, unpacked)
            if expansion.opened:
                files.extend(expansion.members)
                members = len(expansion.members)
                problems.extend(ReadProblem(p.path, "archive", p.message)
                                for p in expansion.problems)
        files.append(AuditFile(
            path=entry.path, text=decoded.text, size=len(data), kind="file", mode=mode,
            nlink=info.st_nlink, encoding=decoded.encoding, texts=decoded.texts,
            truncated=truncated, members=members))
        executable = bool(mode & 0o111)
        hashed.append((entry.path.encode("utf-8", "surrogateescape"),
                       b"X" if executable else b"F", entry.path, data))
        if entry.path == SKILL_FILE:
            skill_bytes = data
    digest = hashlib.sha256()
    for _, kind, rel, data in sorted(hashed, key=lambda item: item[0]):
        _hash_update(digest, kind, rel, data)
    for problem in scan.problems:
        shape.update(f"{problem.path}\0{problem.code}\n".encode("utf-8", "surrogateescape"))
    manifest, manifest_error = _manifest(skill_bytes, key)
    bundle = AuditBundle(
        key=key, dir=root, files=tuple(files), manifest=manifest,
        bundle_hash=HASH_PREFIX + digest.hexdigest() if complete_hash else None,
        problems=scan.problems, manifest_error=manifest_error)
    return ReadBundle(bundle, tuple(problems), shape.hexdigest())


__all__ = ["SKILL_FILE", "ReadBundle", "ReadProblem", "read_bundle"]
