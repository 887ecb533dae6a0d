"""The skills of a multi-skill install that were not installed, each with why and what next.

A multi-skill install (``--all``, several ``--skill``) is per skill: every chosen skill that
passes its checks installs, and each one that fails (its manifest, the safe-tree checks, an
audit block, a name already installed or occupied, a name shared with another skill of the
tree) becomes a :class:`Failure` here instead of stopping the others.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from lemon_core.errors import LemonError

_NOTHING = re.compile(r"[;,]? *(so )?nothing was (installed|changed)(, with or without --force)?")


class Blocked(LemonError):
    """The audit blocked the skill and no override for exactly this bundle was approved."""


@attrs.frozen
class Failure:
    """One chosen skill that was not installed: its key (its folder's name when the key could
    not be read), its folder in the fetched tree, why, and the next step."""

    key: str
    folder: str
    reason: str
    next_step: str


class NoneInstalled(LemonError):
    """Every skill a multi-skill install chose failed; ``failed`` says why, one by one."""

    def __init__(self, failed: Sequence[Failure]) -> None:
        self.failed = tuple(failed)
        lines = "; ".join(f"{f.key} ({f.reason}; {f.next_step})" for f in self.failed)
        super().__init__(f"none of the {len(self.failed)} chosen skills was installed: {lines}")


def next_step(exc: Exception, key: str) -> str:
    """What the user can do about ``exc`` for the skill ``key``."""
    from lemon_core.install.checks import UnsafeBundle
    from lemon_core.install.occupied import AlreadyInstalled, NotLemons

    if isinstance(exc, AlreadyInstalled):
        return f"run 'lemon skill update {key}', or install it again with --force"
    if isinstance(exc, NotLemons):
        return "move or rename what is there, then install it with --skill " + key
    if isinstance(exc, Blocked):
        return (f"read the findings; only --skill {key} --override-block installs it, after "
                f"asking")
    if isinstance(exc, UnsafeBundle):
        return "it cannot be installed as published; tell its author"
    return "fix its SKILL.md (lemon skill lint PATH lists every rule) or tell its author"


def failure(key: str, folder: str, exc: Exception) -> Failure:
    """The :class:`Failure` of ``exc`` (its message without the "nothing was installed" that
    no longer holds when other skills installed, and without its advice: the next step says
    what to do, in words a person can act on)."""
    said = exc.what if isinstance(exc, LemonError) else str(exc)
    reason = _NOTHING.sub("", said).strip().rstrip(";,")
    return Failure(key, folder, reason, next_step(exc, key))


def clash(key: str, folders: Sequence[str]) -> list[Failure]:
    """The skills of the tree sharing the name ``key``: none is installed."""
    listed = ", ".join(folders)
    return [Failure(key, folder, f"{len(folders)} skills of the tree are named {key!r} "
                    f"({listed})", f"install one with --skill FOLDER (e.g. --skill {folder})")
            for folder in folders]


__all__ = ["Blocked", "Failure", "NoneInstalled", "clash", "failure", "next_step"]
