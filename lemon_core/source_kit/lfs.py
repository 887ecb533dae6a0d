"""Git LFS pointer files: how they are recognised (constants only, no git imported, so a local
install's checks can use them)."""

from __future__ import annotations

LFS_MAGIC = b"version https://git-lfs.github.com/spec/"
#: Pointer files are small; git-lfs itself caps them at 1024 bytes.
LFS_MAX_POINTER = 1024
LFS_REFUSAL = ("lemon does not fetch Git LFS objects, and will not install their pointer "
               "files as if they were the content")

__all__ = ["LFS_MAGIC", "LFS_MAX_POINTER", "LFS_REFUSAL"]
