"""The first-load verdict records (:mod:`lemon_core.audit.loaded`): sealed, bound to the
folder's real path, and a signature that any write to the folder changes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from lemon_core.audit.loaded import PREFIX, LoadedVerdicts, signature
from lemon_core.fsio.tree import scan_tree


def test_a_record_round_trips_and_a_planted_one_is_ignored(
        skill: Callable[..., Path], tmp_path: Path) -> None:
    folder = skill({"a.sh": "echo hi\n"})
    store = LoadedVerdicts(tmp_path / "cache")
    assert store.recall(str(folder)) is None
    sig = signature(scan_tree(folder))
    store.remember(str(folder), "block", ["code.pipe-to-shell"], "sha256:x", sig)
    kept = store.recall(str(folder))
    assert kept is not None and (kept.verdict, kept.rules, kept.signature) == (
        "block", ("code.pipe-to-shell",), sig)
    [path] = [p for p in store.folder.iterdir() if p.name.startswith(PREFIX)]
    # a record the project (or anyone without the user's key) wrote: never believed
    path.write_text(json.dumps({"format": 1, "folder": os.path.realpath(folder),
                                "verdict": "pass", "rules": [], "signature": sig}))
    assert store.recall(str(folder)) is None
    link = tmp_path / "link"
    link.symlink_to(folder)
    store.remember(str(link), "warn", [], None, sig)  # bound to the real path
    assert store.recall(str(folder)).verdict == "warn"  # type: ignore[union-attr]


def test_the_signature_sees_every_write(skill: Callable[..., Path]) -> None:
    folder = skill({"references/a.md": "one\n"})
    first = signature(scan_tree(folder))
    assert signature(scan_tree(folder)) == first  # stat data only: stable
    target = folder / "references" / "a.md"
    info = os.stat(target)
    target.write_text("two\n")  # same size
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))  # same modification time
    assert signature(scan_tree(folder)) != first  # the change time moved
    second = signature(scan_tree(folder))
    (folder / "new.md").write_text("x")
    assert signature(scan_tree(folder)) != second
