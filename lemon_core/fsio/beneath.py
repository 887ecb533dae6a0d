"""Reaching a path beneath a root without following a link on the way.

A cloned project is untrusted: ``.lemon``, ``.lemon/skill`` or ``.lemon/mcp.json`` may be a
symbolic link that someone planted to steer lemon's writes into ``~/.claude/skills`` or
another tool's configuration. Every path lemon writes, renames or deletes inside a project is
reached here, from the project root, one component at a time: each folder is opened with
``O_NOFOLLOW | O_DIRECTORY`` relative to the descriptor of the one before (``dir_fd``), and the
operation itself (mkdir, rename, unlink, remove a tree, replace a file) is made relative to the
descriptor of the last folder. A link anywhere on the way is refused with
:class:`~lemon_core.errors.PlantedLinkError` naming it; a folder swapped for a link after the
walk began is refused the same way, because nothing is looked up by path again.

The root itself is opened as it is (the working directory may lie below a linked folder of the
user's own); only what lies beneath it is checked. ``..``, ``.`` and empty components are
refused. Where the platform cannot open relative to a folder descriptor (Windows), each
component is checked with ``lstat`` before the operation is made by path.

The user's own files outside a project (lemon's agent folder, the home directory) are not
reached through here: a dotfile manager may link them, and a project cannot plant links there
(see :mod:`lemon_core.fsio.write` for the write-through rule).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from lemon_core.errors import LemonError, PlantedLinkError
from lemon_core.text import escape

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Whether folders can be walked by descriptor here (not on Windows).
HAVE_DIR_FD = bool(_NOFOLLOW) and os.open in os.supports_dir_fd and \
    os.rename in os.supports_dir_fd and os.mkdir in os.supports_dir_fd


class OutsideRootError(LemonError):
    """A path that is not beneath the root it must be reached from (``..``, another tree)."""


def parts_below(root: Path, path: Path) -> tuple[str, ...]:
    """The components of ``path`` below ``root``.

    :raises OutsideRootError: when ``path`` is not below ``root``, or a component is ``..``,
        ``.`` or empty.
    """
    try:
        relative = Path(path).relative_to(root) if Path(path).is_absolute() else Path(path)
    except ValueError:
        raise OutsideRootError(f"{escape(str(path))} is not inside {escape(str(root))}; lemon "
                               f"writes there only beneath that folder") from None
    parts = relative.parts
    for part in parts:
        if part in ("", ".", "..") or os.sep in part or (os.altsep and os.altsep in part):
            raise OutsideRootError(f"the path {escape(str(path))} holds a {part!r} component; "
                                   f"lemon reaches files beneath a folder only by plain names")
    return parts


def _refuse(root: Path, parts: tuple[str, ...], upto: int) -> PlantedLinkError:
    link = root.joinpath(*parts[:upto + 1])
    try:
        target = escape(os.readlink(link))
    except OSError:
        target = "somewhere else"
    return PlantedLinkError(
        f"refused: {escape(str(link))} is a symbolic link (to {target}), and lemon never "
        f"follows a link it did not make when it writes, renames or deletes inside "
        f"{escape(str(root))}; remove the link (or put a real folder or file in its place) and run the "
        f"command again", path=str(link))


def _open_root(root: Path, nofollow: bool) -> int:
    try:
        return os.open(root, (_DIR_FLAGS | _NOFOLLOW) if nofollow else _DIR_FLAGS)
    except OSError as exc:
        if nofollow and exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(root):
            raise PlantedLinkError(
                f"refused: {escape(str(root))} is now a symbolic link; lemon reads beneath it "
                f"only as the real folder it was", path=str(root)) from None
        raise


def _step(fd: int, root: Path, parts: tuple[str, ...], index: int, create: bool,
          mode: int) -> int:
    """Open ``parts[index]`` (a folder) below ``fd`` without following a link."""
    name = parts[index]
    for _ in range(2):
        try:
            return os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):  # another writer made it meanwhile
                os.mkdir(name, mode, dir_fd=fd)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            try:
                info = os.lstat(name, dir_fd=fd)
            except OSError:
                raise exc from None
            if stat.S_ISLNK(info.st_mode):
                raise _refuse(root, parts, index) from None
            raise NotADirectoryError(
                errno.ENOTDIR, f"{root.joinpath(*parts[:index + 1])} is a file, not a folder"
            ) from None
    return os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)


def _lstat_walk(root: Path, parts: tuple[str, ...], create: bool, mode: int) -> None:
    """The fallback without ``dir_fd``: check (and make) each folder by ``lstat``."""
    current = root
    for index, name in enumerate(parts):
        current = current / name
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(current, mode)
            info = os.lstat(current)
        if stat.S_ISLNK(info.st_mode):
            raise _refuse(root, parts, index)
        if not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, f"{current} is a file, not a folder")


def open_dir(root: Path, path: Path, *, create: bool = False, mode: int = 0o755,
             root_nofollow: bool = False) -> int:
    """A descriptor of the folder ``path`` (``root`` itself, or a folder beneath it), reached
    without following a link below ``root``; with ``create``, missing folders are made
    (``mode``); with ``root_nofollow``, ``root``'s own last component must not be a link
    either (a real path that was swapped since it was resolved). The caller closes it. Needs
    :data:`HAVE_DIR_FD`.

    :raises PlantedLinkError: a component below ``root`` is a symbolic link.
    :raises OutsideRootError: ``path`` is not beneath ``root``.
    :raises FileNotFoundError: a folder is missing (without ``create``).
    :raises NotADirectoryError: a component is a file.
    """
    parts = parts_below(root, path)
    fd = _open_root(root, root_nofollow)
    try:
        for index in range(len(parts)):
            step = _step(fd, root, parts, index, create, mode)
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def parent_of(root: Path, path: Path, *, create: bool = False) -> Iterator[int | None]:
    """The descriptor of ``path``'s folder reached beneath ``root`` (None where the platform has
    no ``dir_fd``: the folders were checked by ``lstat`` instead), for the block."""
    if not HAVE_DIR_FD:
        _lstat_walk(root, parts_below(root, Path(path).parent), create, 0o755)
        yield None
        return
    fd = open_dir(root, Path(path).parent, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def _name(fd: int | None, path: Path) -> str | Path:
    return path.name if fd is not None else path


def check(root: Path, path: Path, *, final: bool = True) -> None:
    """Refuse (:class:`PlantedLinkError`) a link on the way from ``root`` to ``path``; with
    ``final``, ``path`` itself must not be a link either. Missing parts are fine: whatever
    exists is checked. Nothing is changed."""
    parts = parts_below(root, path)
    if not parts:
        return
    try:
        with parent_of(root, path) as fd:
            if final:
                info = os.lstat(_name(fd, path), dir_fd=fd)
                if stat.S_ISLNK(info.st_mode):
                    raise _refuse(root, parts, len(parts) - 1)
    except (FileNotFoundError, NotADirectoryError):
        return


def is_link(root: Path, path: Path) -> bool:
    """Whether ``path`` itself is a link (its folders are reached beneath ``root``)."""
    try:
        with parent_of(root, path) as fd:
            return stat.S_ISLNK(os.lstat(_name(fd, path), dir_fd=fd).st_mode)
    except FileNotFoundError:
        return False


def lexists(root: Path, path: Path) -> bool:
    """Whether anything (a link too) is at ``path``, reached beneath ``root``."""
    try:
        with parent_of(root, path) as fd:
            os.lstat(_name(fd, path), dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def make_dirs(root: Path, path: Path, *, mode: int = 0o755) -> None:
    """Make the folder ``path`` and its missing parents beneath ``root``, never through a link."""
    if not HAVE_DIR_FD:
        _lstat_walk(root, parts_below(root, path), True, mode)
        return
    os.close(open_dir(root, path, create=True, mode=mode))


def rename(root: Path, source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` (both beneath ``root``); a link at ``source`` or
    ``target`` itself is renamed or replaced, never followed."""
    with parent_of(root, source) as src_fd, parent_of(root, target) as dst_fd:
        os.rename(_name(src_fd, source), _name(dst_fd, target), src_dir_fd=src_fd,
                  dst_dir_fd=dst_fd)
        if dst_fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(dst_fd)


def symlink(root: Path, path: Path, text: str) -> None:
    """Make the symbolic link ``path`` (beneath ``root``, missing folders made) holding
    ``text``; an existing ``path`` is an error (``FileExistsError``): make it under a fresh
    name, then :func:`rename` it over the old one."""
    with parent_of(root, path, create=True) as fd:
        os.symlink(text, _name(fd, path), dir_fd=fd)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(fd)


def _empty(fd: int) -> None:
    """Remove everything inside the open folder ``fd`` without following a link."""
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)  # a fetched folder may be read-only (0500)
    for entry in list(os.scandir(fd)):
        if entry.is_dir(follow_symlinks=False):
            _remove_dir(fd, entry.name)
        else:
            os.unlink(entry.name, dir_fd=fd)


def _remove_dir(parent: int, name: str) -> None:
    try:
        fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link or file: unlink it
            os.unlink(name, dir_fd=parent)
            return
        raise
    try:
        _empty(fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def remove_tree(root: Path, path: Path) -> None:
    """Remove ``path`` (a folder with everything in it, a file or a link) beneath ``root``;
    nothing is followed, a missing ``path`` is fine."""
    if not HAVE_DIR_FD:
        import shutil

        _lstat_walk(root, parts_below(root, Path(path).parent), False, 0o755)
        with contextlib.suppress(FileNotFoundError):
            if os.path.islink(path) or not os.path.isdir(path):
                os.unlink(path)
            else:
                shutil.rmtree(path)
        return
    try:
        with parent_of(root, path) as fd:
            assert fd is not None
            info = os.lstat(path.name, dir_fd=fd)
            if stat.S_ISDIR(info.st_mode):
                _remove_dir(fd, path.name)
            else:
                os.unlink(path.name, dir_fd=fd)
            with contextlib.suppress(OSError):
                os.fsync(fd)
    except FileNotFoundError:
        return


def write_bytes(root: Path, path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` (beneath ``root``) with ``data`` atomically: a private temporary file
    made in the folder's descriptor (``O_EXCL | O_NOFOLLOW``), fsync, rename over the name (a
    link at the name is replaced, not followed); missing folders are made."""
    with parent_of(root, path, create=True) as fd:
        tmp = f".{path.name}.{os.urandom(6).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        tmp_path: str | Path = tmp if fd is not None else path.parent / tmp
        handle = os.open(tmp_path, flags, 0o600, dir_fd=fd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view):]
                os.fsync(handle)
                if hasattr(os, "fchmod"):
                    os.fchmod(handle, mode)
            finally:
                os.close(handle)
            os.replace(tmp_path, _name(fd, path), src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_path, dir_fd=fd)
            raise
        if fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(fd)


__all__ = ["HAVE_DIR_FD", "OutsideRootError", "check", "is_link", "lexists", "make_dirs",
           "open_dir", "parent_of", "parts_below", "remove_tree", "rename", "symlink",
           "write_bytes"]
