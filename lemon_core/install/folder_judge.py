"""Judge an installed skill by its own folder upstream, not by its repository's commit.

A git repository's commit moves for any change in it (a README, another skill). For every
record whose commit moved upstream and whose source can read trees (``upstream_trees``: the
git and gh sources), the repository is fetched once for all of its installed skills and
each skill's folder is compared on its own:

- a record with a ``tree_id`` (written at install): that folder's tree id upstream now;
- an older record without one: the folder is fetched at the new commit and its bundle hash
  compared with the recorded ``bundle_hash`` (one fetch per such skill, until ``update``
  records the tree id).

The answer per item is a :class:`Verdict`: ``changed`` True/False, or None when the folder
could not be judged (then the commit comparison stands).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.state.records import LockRecord


@attrs.frozen
class Verdict:
    """``changed``: the skill's folder differs upstream (None: not judged); ``tree``: its
    tree id upstream now (None: unknown or gone); ``error`` why it could not be judged."""

    changed: bool | None = None
    tree: str | None = None
    error: str | None = None


@attrs.frozen
class Ask:
    """One item to judge: its record, source and ref (``ref.subpath`` is the record's
    subdirectory, the folder in the repository)."""

    record: LockRecord
    source: Any
    ref: Any


def _group(ask: Ask) -> tuple[Any, ...]:
    return (ask.source.name, ask.ref.canonical_id or ask.ref.identifier, ask.ref.revision)


def _folder(record: LockRecord) -> str:
    return (record.subdirectory or "").strip("/")


def _bundle_at(ask: Ask, commit: str, ctx: LemonContext) -> str | None:
    """The bundle hash of the record's folder fetched at ``commit`` (an older record's
    fallback); None when the fetched folder is no safe bundle."""
    from lemon_core.fsio.tree import bundle_hash, scan_tree

    with tempfile.TemporaryDirectory(prefix="lemon-outdated-") as scratch:
        dest = Path(scratch) / "skill"
        dest.mkdir()
        ref = attrs.evolve(ask.ref, revision=commit, subpath=_folder(ask.record) or None)
        ask.source.fetch(ref, dest, ctx, None)
        scan = scan_tree(dest)
        if scan.problems or not scan.complete:
            return None
        return bundle_hash(dest, scan.entries)


def judge(asks: Sequence[Ask | None], ctx: LemonContext) -> tuple[list[Verdict], int]:
    """A verdict per item (None items are not judged) and the number of fetches made: one
    per repository (and ref), plus one per older record without a ``tree_id``."""
    verdicts = [Verdict() for _ in asks]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, ask in enumerate(asks):
        if ask is not None and callable(getattr(ask.source, "upstream_trees", None)):
            groups.setdefault(_group(ask), []).append(index)
    fetches = 0
    for indexes in groups.values():
        first = asks[indexes[0]]
        assert first is not None
        folders = [_folder(asks[i].record) for i in indexes]  # type: ignore[union-attr]
        try:
            fetches += 1
            upstream = first.source.upstream_trees(first.ref, folders, ctx)
        except Exception as exc:  # noqa: BLE001 - one unreachable repository, its skills
            for i in indexes:
                verdicts[i] = Verdict(error=str(exc) or type(exc).__name__)
            continue
        for i in indexes:
            ask = asks[i]
            assert ask is not None
            tree = upstream.trees.get(_folder(ask.record))
            if tree is None:  # the folder is gone upstream: that is a change
                verdicts[i] = Verdict(changed=True)
            elif ask.record.tree_id is not None:
                verdicts[i] = Verdict(changed=tree != ask.record.tree_id, tree=tree)
            else:
                try:
                    fetches += 1
                    bundle = _bundle_at(ask, upstream.commit, ctx)
                except Exception as exc:  # noqa: BLE001 - not judged: the commit stands
                    verdicts[i] = Verdict(error=str(exc) or type(exc).__name__)
                    continue
                verdicts[i] = Verdict(changed=bundle != ask.record.bundle_hash, tree=tree)
    return verdicts, fetches


__all__ = ["Ask", "Verdict", "judge"]
