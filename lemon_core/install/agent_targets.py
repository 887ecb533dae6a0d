"""Placing an installed skill in the agent roots the user named (``--agent``), and taking it out.

The skill is stored once, in lemon's own root of the scope (``.lemon/skill/<key>`` or
``<agent dir>/skill/<key>``); each agent root gets a relative symbolic link
``<agent root>/<key> -> …/<key>``, or a real copy (``copy`` mode, and wherever a link cannot be
made, with a note). The link is made under a hidden temporary name and renamed into place; a
copy is copied into a hidden temporary folder and renamed into place.

lemon places and replaces only what it placed: a link whose real path is the skill's folder in
lemon's root, or a copy the lockfile records whose bundle is exactly the recorded one. Anything
else at the target (the user's own skill folder, a foreign link, a file, a copy the user edited)
is never replaced or deleted, with or without ``--force``: it is reported as a
:class:`TargetFailure` with its reason and next step, and the skill stays installed in lemon's
root. Messages carry paths as they are (the CLI escapes what it prints; JSON stays exact).
In a project, the agent root and every folder on the way are reached beneath the project
root without following a link (:mod:`lemon_core.fsio.beneath`): a ``.claude -> elsewhere`` link
planted in a cloned project is refused (:func:`guard`, before anything is fetched), naming it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.catalog.agent_roots import agent_root, check_agent
from lemon_core.errors import LemonError, PlantedLinkError
from lemon_core.fsio import beneath
from lemon_core.install.activate import Activation
from lemon_core.install.moves import delete, exists, move
from lemon_core.state.records import AgentTarget, LockRecord

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.install.targets import Scope


@attrs.frozen
class Placed:
    """A target that holds the skill now. ``action``: ``linked``, ``copied`` (placed now) or
    ``kept`` (it was already there, as lemon placed it)."""

    agent: str
    path: str
    mode: str
    action: str
    note: str | None = None


@attrs.frozen
class TargetFailure:
    """A target lemon did not place (or left, on removal): why, and what the user can do."""

    agent: str
    path: str
    reason: str
    next_step: str


@attrs.frozen
class Outcome:
    """What placing one skill did: the targets that hold it, those that failed, and the
    targets its record keeps (every one asked for, so ``sync`` can place a failed one later)."""

    placed: tuple[Placed, ...] = ()
    failed: tuple[TargetFailure, ...] = ()
    recorded: tuple[AgentTarget, ...] = ()


def requested(agents: Sequence[str], *, copy: bool, local: bool) -> tuple[AgentTarget, ...]:
    """The targets ``--agent`` names (each once, in order), checked for the scope.

    :raises UsageError: an unknown agent, or a project-only one without ``local``.
    """
    mode = "copy" if copy else "link"
    seen: dict[str, AgentTarget] = {}
    for name in agents:
        seen.setdefault(check_agent(name, local=local), AgentTarget(name, mode))
    return tuple(seen.values())


def wanted(previous: Sequence[AgentTarget], asked: Sequence[AgentTarget]
           ) -> tuple[AgentTarget, ...]:
    """The targets a (re)install keeps in step: those recorded before, then those asked for
    now (an agent asked for again takes the mode asked for now)."""
    out = {t.agent: t for t in previous}
    for target in asked:
        out[target.agent] = target
    return tuple(out.values())


def target_path(ctx: LemonContext, scope: Scope, agent: str, key: str) -> Path:
    return agent_root(ctx, agent, local=scope.local) / key


def guard(ctx: LemonContext, scope: Scope, targets: Sequence[AgentTarget]) -> None:
    """Refuse (:class:`~lemon_core.errors.PlantedLinkError`, naming the link) a project agent
    root reached through a symbolic link (``.claude -> ~/elsewhere``), before anything is
    fetched; the global roots are the user's own (a dotfile link there is followed)."""
    if scope.root is None:
        return
    for target in targets:
        beneath.check(scope.root, agent_root(ctx, target.agent, local=True))


def _same_place(path: Path, folder: Path) -> bool:
    try:
        return os.path.realpath(path) == os.path.realpath(folder)
    except (OSError, ValueError):
        return False


def ours(path: Path, folder: Path, target: AgentTarget | None, record: LockRecord | None,
         root: Path | None) -> str | None:
    """What lemon placed at ``path``: ``link`` (a link whose real path is ``folder``),
    ``copy`` (a folder the ``record`` names as this target's copy, whose bundle is the
    recorded one), ``None`` when nothing is there; ``foreign`` for anything else."""
    if not exists(path, root):
        return None
    if os.path.islink(path):
        return "link" if _same_place(path, folder) else "foreign"
    if (target is not None and target.mode == "copy" and record is not None
            and record.bundle_hash is not None and os.path.isdir(path)):
        from lemon_core.install.outdated import installed_bundle

        if installed_bundle(path)[0] == record.bundle_hash:
            return "copy"
    return "foreign"


def what_is_there(path: Path) -> str:
    """A short description of what is at ``path`` (which exists), for a target message."""
    if os.path.islink(path):
        try:
            return f"a symbolic link (to {os.readlink(path)})"
        except OSError:
            return "a symbolic link"
    if os.path.isdir(path):
        return "a skill folder" if os.path.lexists(path / "SKILL.md") else "a folder"
    return "a file"


def _temporary(path: Path, what: str) -> Path:
    return path.parent / f".{path.name}.lemon-{what}-{os.urandom(4).hex()}"


def settle(ctx: LemonContext, scope: Scope, key: str,
           targets: Sequence[AgentTarget]) -> list[str]:
    """Settle what a write killed while placing ``key`` left in the agent roots of
    ``targets``; call it holding the skill's lock (no live write of ``key`` can own them).

    A hidden ``.<key>.lemon-new-…`` (a link or copy made, never renamed into place) is
    deleted. A ``.<key>.lemon-old-…`` (what lemon had placed there, set aside) is renamed back
    when nothing is at the target and it is the only one; otherwise it is left, with a note.
    Returns one note for each entry settled or left."""
    notes: list[str] = []
    for target in targets:
        try:
            path = target_path(ctx, scope, target.agent, key)
            if scope.root is not None:
                beneath.check(scope.root, path.parent)
            names = sorted(os.listdir(path.parent))
        except (OSError, LemonError):
            continue
        fresh = [n for n in names if n.startswith(f".{key}.lemon-new-")]
        old = [n for n in names if n.startswith(f".{key}.lemon-old-")]
        for name in fresh:
            with contextlib.suppress(OSError, LemonError):
                delete(path.parent / name, scope.root)
                notes.append(f"removed {path.parent / name}, left in {target.agent}'s skills "
                             f"folder by an interrupted install")
        if len(old) == 1 and not exists(path, scope.root):
            with contextlib.suppress(OSError, LemonError):
                move(path.parent / old[0], path, scope.root)
                notes.append(f"put back {path}, set aside by an interrupted install")
                continue
        for name in old:
            notes.append(f"{path.parent / name} was set aside by an interrupted install and "
                         f"{path} is there too: keep the one you want and delete the other")
    return notes


class Placement(Activation):
    """The targets placed so far in one install; undone (:meth:`rollback`) or kept
    (:meth:`commit`) as :class:`~lemon_core.install.activate.Activation` does for lemon's own
    folder."""

    def _mkdirs(self, folder: Path) -> None:
        if self.root is not None:
            beneath.make_dirs(self.root, folder)
        else:
            os.makedirs(folder, exist_ok=True)

    def put(self, folder: Path, path: Path, mode: str) -> str | None:
        """Place ``folder`` at ``path`` as a link (``mode`` ``link``) or a copy; what is at
        ``path`` (lemon's own, checked by the caller) is set aside until :meth:`commit`.
        Returns a note when a link could not be made and a copy was placed instead."""
        self._mkdirs(path.parent)
        fresh = _temporary(path, "new")
        note = None
        if mode == "link":
            text = os.path.relpath(os.path.realpath(folder), os.path.realpath(path.parent))
            try:
                make_link(text, fresh, self.root)
            except (PlantedLinkError, FileExistsError):
                raise
            except OSError as exc:
                note = (f"a link could not be made in {path.parent} "
                        f"({exc.strerror or type(exc).__name__}); a copy was placed instead")
                mode = "copy"
        if mode == "copy":
            from lemon_core.fsio.copy import copy_tree

            try:
                copy_tree(folder, fresh)
                os.chmod(fresh, 0o755)
            except BaseException:
                with contextlib.suppress(Exception):
                    delete(fresh, self.root)
                raise
        backup = None
        try:
            if exists(path, self.root):
                backup = _temporary(path, "old")
                move(path, backup, self.root)
            move(fresh, path, self.root)
        except BaseException:
            if backup is not None:
                with contextlib.suppress(Exception):
                    move(backup, path, self.root)
            with contextlib.suppress(Exception):
                delete(fresh, self.root)
            raise
        self.done.append((path, backup))
        return note


def make_link(text: str, path: Path, root: Path | None) -> None:
    """Make the link ``path`` holding ``text``; in a project, beneath ``root`` without
    following a link (module-level, so a test can make it fail as a filesystem without links
    would)."""
    if root is not None:
        beneath.symlink(root, path, text)
    else:
        os.symlink(text, path)


def _sync_hint(scope: Scope) -> str:
    return "lemon skill sync" + (" --local" if scope.local else "")


def place(ctx: LemonContext, scope: Scope, key: str, targets: Sequence[AgentTarget],
          record: LockRecord | None, placement: Placement) -> Outcome:
    """Place the skill ``key`` (in ``scope``'s root) in each of ``targets``. ``record`` is the
    skill's record before this change (what says which copies lemon placed). A target that
    cannot be placed is a failure of its own; the others are placed."""
    folder = scope.target(key)
    recorded = {t.agent: t for t in (record.targets if record is not None else ())}
    placed: list[Placed] = []
    failed: list[TargetFailure] = []
    kept: list[AgentTarget] = []
    for target in targets:
        where = target.agent
        try:
            path = target_path(ctx, scope, target.agent, key)
            where = str(path)
            if scope.root is not None:
                beneath.check(scope.root, path.parent)
            if _same_place(path.parent, folder.parent):  # lemon's root is this agent's root
                placed.append(Placed(target.agent, where, target.mode, "kept"))
                kept.append(target)
                continue
            found = ours(path, folder, recorded.get(target.agent), record, scope.root)
            if found == "foreign":
                failed.append(TargetFailure(
                    target.agent, where, f"{where} holds {what_is_there(path)} that "
                    f"lemon did not place, and lemon never replaces or deletes it",
                    f"move or rename it, then run '{_sync_hint(scope)}' to place "
                    f"{key} there"))
                kept.append(target)
                continue
            if found == "link" and target.mode == "link":
                placed.append(Placed(target.agent, where, "link", "kept"))
                kept.append(target)
                continue
            note = placement.put(folder, path, target.mode)
            mode = "copy" if note is not None else target.mode
            placed.append(Placed(target.agent, where, mode,
                                 "copied" if mode == "copy" else "linked", note))
            kept.append(AgentTarget(target.agent, mode))
        except PlantedLinkError as exc:
            failed.append(TargetFailure(target.agent, where, str(exc),
                                        "remove the link, then run "
                                        f"'{_sync_hint(scope)}'"))
            kept.append(target)
        except (OSError, LemonError) as exc:
            why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
            failed.append(TargetFailure(target.agent, where, f"cannot place it: {why}",
                                        f"fix that, then run '{_sync_hint(scope)}'"))
            kept.append(target)
    return Outcome(tuple(placed), tuple(failed), tuple(kept))


def missing(ctx: LemonContext, scope: Scope, record: LockRecord) -> tuple[AgentTarget, ...]:
    """The recorded targets of ``record`` where nothing is (``sync`` places them again)."""
    out = []
    for target in record.targets:
        try:
            path = target_path(ctx, scope, target.agent, record.key)
            if not exists(path, scope.root):
                out.append(target)
        except (OSError, LemonError):
            continue
    return tuple(out)


def take_out(ctx: LemonContext, scope: Scope, record: LockRecord
             ) -> tuple[tuple[Placed, ...], tuple[TargetFailure, ...]]:
    """Remove the targets of ``record`` that are still what lemon placed (a link to the
    skill's folder in lemon's root, a copy of exactly the recorded bundle); a target replaced
    by the user is left where it is and reported."""
    folder = scope.target(record.key)
    removed: list[Placed] = []
    left: list[TargetFailure] = []
    for target in record.targets:
        where = target.agent
        try:
            path = target_path(ctx, scope, target.agent, record.key)
            where = str(path)
            if scope.root is not None:
                beneath.check(scope.root, path.parent)
            found = ours(path, folder, target, record, scope.root)
            if found is None:
                continue
            if found == "foreign":
                left.append(TargetFailure(
                    target.agent, where, f"{where} now holds {what_is_there(path)} "
                    f"that lemon did not place; it was left as it is",
                    "delete it by hand if you mean to"))
                continue
            delete(path, scope.root)
            removed.append(Placed(target.agent, where, found, "removed"))
        except (OSError, LemonError) as exc:
            why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
            left.append(TargetFailure(target.agent, where, f"cannot remove it: {why}",
                                      "remove it by hand"))
    return tuple(removed), tuple(left)


__all__ = ["Outcome", "Placed", "Placement", "TargetFailure", "guard", "make_link", "missing",
           "ours", "place", "requested", "settle", "take_out", "target_path", "wanted"]
