"""The steps of an audited write, as one object a caller may replace.

:class:`Steps` holds the default of every step that reads, asks, or changes something on disk.
A test (or a benchmark timing each step) passes a subclass that overrides one method, so a
crash can be made at any step without patching a module; the transaction itself decides the
order, the locks and the rollback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from lemon_core.approval import Consent, WriteApproval
from lemon_core.install.activate import Activation
from lemon_core.install.agent_targets import Outcome, Placement
from lemon_core.install.targets import Scope
from lemon_core.protocols import SkillWriteEvent
from lemon_core.state.records import AgentTarget, LockRecord

if TYPE_CHECKING:
    from lemon_core.audit.host import AuditReport
    from lemon_core.context import LemonContext
    from lemon_core.fsio.tree import TreeScan
    from lemon_core.install.transaction.models import Bundle
    from lemon_core.plugin_registry import Plugins


class Steps:
    """The default steps (every method may be overridden by a subclass)."""

    def sweep(self, scope: Scope, records: Mapping[str, LockRecord]) -> list[str]:
        """Settle what killed writes left in ``scope``'s skills folder (staging folders and
        backups whose process is gone); one note each."""
        from lemon_core.install import backups, staging

        return [*staging.sweep_stale(scope.skills_dir),
                *backups.sweep(scope.skills_dir, records, scope.root)]

    def stage(self, scope: Scope, name: str) -> Path:
        """A fresh private staging folder beside the skills (see
        :mod:`~lemon_core.install.staging`)."""
        from lemon_core.install import staging

        return staging.make_staging(scope.skills_dir, name, scope.root)

    def check(self, folder: Path, label: str) -> TreeScan:
        """The safe-tree checks: no link leaving the skill, no device, no LFS pointer…"""
        from lemon_core.install import checks

        scan = checks.check_tree(folder, label)
        checks.check_lfs(folder, scan, label)
        return scan

    def audit(self, folder: Path, ctx: LemonContext, key: str, scan: TreeScan,
              plugins: Plugins) -> AuditReport:
        from lemon_core.install import gate

        return gate.audit(folder, ctx, key=key, scan=scan, auditors=plugins.auditors())

    def ask(self, consent: Consent, request: WriteApproval) -> None:
        """Return when ``request`` is approved; raise ``ApprovalRefused`` otherwise."""
        consent.require(request)

    def lock(self, scope: Scope, key: str) -> AbstractContextManager[None]:
        """The skill's lock (``.<key>.lock`` beside its folder)."""
        from lemon_core.fsio.write import file_lock

        return file_lock(scope.skills_dir / f".{key}", root=scope.root)

    def rehash(self, folder: Path, expected: str, key: str) -> dict[str, str]:
        """Refuse a staged bundle changed since it was checked; each path's hash."""
        from lemon_core.install import checks

        return checks.rehash(folder, expected, key)

    def activate(self, activation: Activation, bundle: Bundle) -> None:
        activation.activate(bundle.folder, bundle.target)

    def place(self, ctx: LemonContext, scope: Scope, key: str,
              wanted: tuple[AgentTarget, ...], previous: LockRecord | None,
              placement: Placement) -> Outcome:
        """Place the skill in the agent roots ``wanted`` (``--agent``, and its record's)."""
        from lemon_core.install import agent_targets

        return agent_targets.place(ctx, scope, key, wanted, previous, placement)

    def set_aside(self, scope: Scope, target: Path, aside: Path) -> None:
        """Move an installed skill aside before its removal (to ``aside``,
        ``.<name>.removing-…``)."""
        from lemon_core.install.moves import move

        move(target, aside, scope.root)

    def record(self, scope: Scope, changes: Mapping[str, LockRecord | None]
               ) -> dict[str, LockRecord | None]:
        """Write ``changes`` (None deletes a record) to the scope's lockfile; returns the
        records they replaced (what a rollback writes back)."""
        from lemon_core.state.lockfile import write_records

        return write_records(scope.lockfile, dict(changes), root=scope.root)

    def refresh(self, refresh: Callable[[], None] | None) -> None:
        if refresh is not None:
            refresh()

    def notify(self, plugins: Plugins, event: SkillWriteEvent) -> None:
        plugins.notify_skill_written(event)


#: The steps every write takes unless its caller passes others.
STEPS = Steps()


def each_lock(steps: Steps, scope: Scope, keys: list[str]) -> Iterator[
        AbstractContextManager[None]]:
    """The locks of ``keys``, in a fixed order (two writes never wait on each other)."""
    for key in sorted(set(keys)):
        yield steps.lock(scope, key)


__all__ = ["STEPS", "Steps", "each_lock"]
