"""Downloading one Hermes skill's files, one GET each, into a staging folder: names checked,
sizes capped before any GET, bytes checked against their git blob ids, links written last."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core.errors import LemonError
from lemon_core.text import unsafe_reason

from .layout import Settings, raw_url

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback

def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()  # git's object id


def download(conf: Settings, ctx: LemonContext, commit: str, prefix: str,
              files: list[dict[str, Any]], dest: Path,
              progress: ProgressCallback | None) -> tuple[str, ...]:
    """Download the skill's blobs into ``dest``: folders first, files, links last; every name
    checked, every size capped before the GET, every body checked against its blob id."""
    from lemon_core.fsio.tree import DEFAULT_LIMITS as LIMITS
    from lemon_core.source_kit.web import WebError, get

    notes: list[str] = []
    plan: list[tuple[str, dict[str, Any]]] = []
    total = 0
    for item in sorted(files, key=lambda e: e["path"]):
        rel = item["path"][len(prefix):]
        parts = rel.split("/")
        if _unsafe_path(parts):
            raise LemonError(f"hermes: refused the file name {rel!r} in {prefix[:-1]}")
        if len(parts) > LIMITS.max_depth:
            raise LemonError(f"hermes: {rel!r} nests deeper than {LIMITS.max_depth} levels")
        if item.get("mode") == "160000" or item.get("type") == "commit":
            notes.append(f"left out the submodule {rel} (submodules are not fetched)")
            continue
        size = item.get("size")
        if not isinstance(size, int) or size < 0 or size > LIMITS.max_file_bytes:
            raise LemonError(f"hermes: {rel!r} is {size} bytes; a skill file may hold at most "
                             f"{LIMITS.max_file_bytes}")
        total += size
        plan.append((rel, item))
    if len(plan) > LIMITS.max_entries or total > LIMITS.max_total_bytes:
        raise LemonError(f"hermes: {prefix[:-1]} holds {len(plan)} files, {total} bytes; more "
                         "than a skill may hold")
    dest.mkdir(parents=True, exist_ok=True)
    links = []
    for done, (rel, item) in enumerate(plan, 1):
        try:
            data = get(raw_url(conf, commit, item["path"]), ctx=ctx,
                       max_bytes=max(item["size"], 1)).body
        except WebError as exc:
            raise LemonError(f"hermes: {exc}") from None
        if git_blob_sha(data) != item["sha"]:
            raise LemonError(f"hermes: {rel!r} does not match the repository listing (blob "
                             f"{item['sha']}); try again")
        target = dest.joinpath(*rel.split("/"))
        _make_parents(dest, rel)
        if item.get("mode") == "120000":
            links.append((target, data.decode("utf-8", "surrogateescape")))
        else:
            _write_new(target, data, 0o755 if item.get("mode") == "100755" else 0o644)
        if progress is not None:
            progress(done, len(plan), rel)
    for target, link in links:  # after every file, so no file is ever written through a link
        os.symlink(link, target)
    return tuple(notes)


def _unsafe_path(parts: list[str]) -> bool:
    return any(p in ("", ".", "..", ".git") or "\\" in p or unsafe_reason(p) is not None
               for p in parts)


def _make_parents(dest: Path, rel: str) -> None:
    current = dest
    for part in rel.split("/")[:-1]:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            if not current.is_dir() or current.is_symlink():
                raise LemonError(f"hermes: {rel!r} lies below a file of the same skill") from None


def _write_new(target: Path, data: bytes, mode: int) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
