"""The first-load audit: a project's skill that lemon did not install is audited when an agent
first loads it through ``lemon skill serve`` (or the skills of ``lemon mcp serve``).

A skill that came with a cloned project (a folder in ``.lemon/skill`` or ``.agents/skills``
with no lockfile record) was never audited: lemon's install pipeline is what audits. So
:class:`FirstLoadAudit`, held by one server, runs the audit host
(:func:`lemon_core.audit.host.audit_folder`) on such a skill before its first load is served:

- Only project-scope skills without a lockfile record are audited; skills lemon installed
  were audited at install (their recorded verdict applies), and the user's own global
  folders are the user's.
- Nothing is audited at start-up or by ``find_skills``: only a load (``load_skill``, a
  ``skill://`` resource of the skill) asks, and it asks before anything is read for the agent.
- One audit per version: the auditors' findings are cached by bundle hash
  (:mod:`lemon_core.audit.cache`), so another process, or this one after a restart, reads the
  cache; within one server a folder whose stat signature is unchanged
  (:func:`lemon_core.audit.loaded.signature`) is not even read again. A changed file changes
  the signature and the bundle hash: the next load audits it again.
- A ``block`` verdict withholds the skill (:class:`~lemon_core.skills.agent.
  SkillUnavailableError`, state ``blocked``) with a one-line reason naming the rules and the
  command that shows the findings; ``warn`` and ``pass`` serve it.
- Each audit that ran (not one read from the cache) is said on the server's stderr, and every
  verdict is recorded for ``lemon skill list`` (:mod:`lemon_core.audit.loaded`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.models import SkillEntry
from lemon_core.text import escape

#: The ``load_audit`` states ``lemon skill list --json`` shows.
UNAUDITED = "unaudited"
CHANGED = "changed"


def applies(entry: SkillEntry, record: Any) -> bool:
    """Whether ``entry`` is audited on its first load: a project skill lemon did not
    install."""
    return entry.scope == "project" and record is None


def _stderr(message: str) -> None:
    print(f"lemon: {message}", file=sys.stderr, flush=True)


class FirstLoadAudit:
    """One server's first-load audits (see the module docstring). ``auditors`` defaults to the
    registered ones, loaded at the first audit; ``log`` gets one line per audit that ran."""

    def __init__(self, ctx: LemonContext, *, auditors: Sequence[Any] | None = None,
                 log: Callable[[str], None] = _stderr) -> None:
        self.ctx = ctx
        self._auditors = list(auditors) if auditors is not None else None
        self._log = log
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[str, Any]] = {}
        #: Keys withheld by their last audit (``find_skills`` leaves them out).
        self.blocked: set[str] = set()
        #: How many audits this object ran (the cache's answers not counted).
        self.runs = 0

    def check(self, entry: SkillEntry, record: Any) -> None:
        """Raise :class:`~lemon_core.skills.agent.SkillUnavailableError` when ``entry`` may not
        be served: a project skill lemon did not install whose audit blocks."""
        if not applies(entry, record):
            return
        report = self.report(entry.key, entry.dir)
        if not report.blocked:
            self.blocked.discard(entry.key)
            return
        from lemon_core.skills.agent import SkillUnavailableError

        self.blocked.add(entry.key)
        rules = ", ".join(report.rules[:3]) + (", …" if len(report.rules) > 3 else "")
        key = escape(entry.key)
        raise SkillUnavailableError(
            f"skill '{key}' came with this project (lemon did not install it) and its audit "
            f"blocked it on first load ({rules or 'blocked'}); it is not served: the user can "
            f"see why with 'lemon skill audit {key}'", key=entry.key, state="blocked")

    def report(self, key: str, folder: str) -> Any:
        """The audit report of ``folder``: this server's own when the folder is unchanged,
        else the audit host's (from the verdict cache when this version was audited)."""
        from lemon_core.audit.host import audit_folder
        from lemon_core.audit.loaded import LoadedVerdicts, signature
        from lemon_core.fsio.tree import scan_tree

        with self._lock:  # one audit of a folder at a time, whatever the client sends at once
            scan = scan_tree(folder)
            sig = signature(scan)
            kept = self._seen.get(folder)
            if kept is not None and kept[0] == sig:
                return kept[1]
            if self._auditors is None:
                from lemon_core.plugins import load_plugins

                self._auditors = load_plugins(self.ctx, needs=("lemon.auditors",)).auditors()
            report = audit_folder(Path(folder), self.ctx, key=key, scan=scan,
                                  auditors=self._auditors)
            if not report.cached:
                self.runs += 1
                self._log(f"audited skill '{escape(key)}' on its first load (it came with "
                          f"the project, not through lemon): {report.verdict}")
            self._seen[folder] = (sig, report)
            store = LoadedVerdicts.for_context(self.ctx)
            if store is not None:
                store.remember(folder, report.verdict, report.rules, report.bundle_hash, sig)
            return report


@attrs.frozen
class LoadAuditState:
    """What ``lemon skill list`` shows of a skill's first-load audit: ``state`` is
    ``unaudited`` (not loaded since it appeared), ``changed`` (changed since its audit: audited
    again at its next load), or the verdict (``pass``/``warn``/``block``) with its ``rules``."""

    state: str
    rules: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "rules": list(self.rules)}


def load_audit_states(ctx: LemonContext, items: Sequence[Any], locks: Any = None
                      ) -> dict[str, LoadAuditState]:
    """Key -> :class:`LoadAuditState` of every listed skill (``ListedSkill``) the first-load
    audit applies to. No bundle is read and no auditor runs: a recorded verdict is shown when
    the folder's stat signature still matches (a stat walk of that folder only)."""
    from lemon_core.audit.loaded import LoadedVerdicts, signature
    from lemon_core.fsio.tree import scan_tree
    from lemon_core.skills.skill_state import SkillState

    state = SkillState.read(ctx) if locks is None else locks
    wanted = [item for item in items if applies(item.entry, state.lock_record(item.entry))]
    if not wanted:
        return {}
    store = LoadedVerdicts.for_context(ctx)
    records = store.recall_many([item.entry.dir for item in wanted]) if store is not None \
        else [None] * len(wanted)
    shown = {}
    for item, record in zip(wanted, records):
        if record is None:
            shown[item.entry.key] = LoadAuditState(UNAUDITED)
        elif record.signature != signature(scan_tree(item.entry.dir)):
            shown[item.entry.key] = LoadAuditState(CHANGED)
        else:
            shown[item.entry.key] = LoadAuditState(record.verdict, record.rules)
    return shown


__all__ = ["CHANGED", "UNAUDITED", "FirstLoadAudit", "LoadAuditState", "applies",
           "load_audit_states"]
