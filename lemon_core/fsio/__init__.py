"""The only way lemon touches disk.

- :mod:`lemon_core.fsio.read`: the bounded safe reader (non-blocking open, regular files only,
  bounded by what is read rather than by ``st_size``). Every file lemon reads, its own or another
  tool's, goes through it.
- :mod:`lemon_core.fsio.write`: atomic writes (private 0600 temporary file, fsync, rename),
  sibling ``.lock`` directories and compare-before-write updates.

The names most callers need are importable from here.
"""

from __future__ import annotations

from lemon_core.fsio.read import (
    MAX_FILE_BYTES,
    FileProblem,
    TooLarge,
    read_bytes,
    read_text,
)
from lemon_core.fsio.write import (
    LOCK_SUFFIX,
    Snapshot,
    atomic_write_bytes,
    atomic_write_json,
    dump_json,
    file_lock,
    lock_path,
    update_file,
)

__all__ = [
    "LOCK_SUFFIX",
    "MAX_FILE_BYTES",
    "FileProblem",
    "Snapshot",
    "TooLarge",
    "atomic_write_bytes",
    "atomic_write_json",
    "dump_json",
    "file_lock",
    "lock_path",
    "read_bytes",
    "read_text",
    "update_file",
]
