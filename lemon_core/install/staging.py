"""The private staging folder of one install, beside the skills it will become.

``.<name>.staging-<random>`` inside the scope's skills folder: the same filesystem as the
target (so activation is a rename), mode 0700 (``mkdtemp``), and hidden, so the catalog never
lists it. The source fetches into its empty ``tree`` subfolder. :func:`remove_tree` removes a
staging or backup folder without following any link inside it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from lemon_core.fsio.write import make_parent

TREE = "tree"


def make_staging(skills_dir: Path, name: str) -> Path:
    """A fresh staging folder (0700) holding an empty ``tree`` folder; returns the folder."""
    make_parent(skills_dir / name)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.staging-", dir=skills_dir))
    os.mkdir(staging / TREE, 0o700)
    return staging


def missing_folders(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    return missing


def remove_empty(folders: list[Path]) -> None:
    """Remove the ``folders`` (deepest first) that are empty; stop at the first that is not."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            return


def remove_tree(path: Path) -> None:
    """Remove ``path`` (a folder, a file or a link) if it exists; links are never followed."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_symlink() or not path.is_dir():
            path.unlink()
            return
        shutil.rmtree(path, onerror=_make_writable)


def _make_writable(func, failed, exc_info) -> None:  # type: ignore[no-untyped-def]
    """A fetched folder may be read-only (mode 0500): allow its owner to empty it, retry."""
    parent = os.path.dirname(failed)
    with contextlib.suppress(OSError):
        os.chmod(parent, 0o700)
        if os.path.isdir(failed) and not os.path.islink(failed):
            os.chmod(failed, 0o700)
    func(failed)


__all__ = ["TREE", "make_staging", "remove_tree"]
