"""The typed request and result of one audited write (:func:`~lemon_core.install.transaction.commit`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from lemon_core.approval import Approve, Consent
from lemon_core.install.agent_targets import Placed, TargetFailure
from lemon_core.install.failures import Failure
from lemon_core.install.targets import Scope
from lemon_core.protocols import Finding, ProgressCallback
from lemon_core.state.records import AgentTarget, AuditOverride, LockRecord

if TYPE_CHECKING:
    from lemon_core.audit.host import AuditReport
    from lemon_core.fsio.tree import TreeScan
    from lemon_core.models import Diagnostic


def _consent(approve: Approve | Consent) -> Consent:
    return Consent.of(approve)


@attrs.frozen
class Origin:
    """Where the bundles of a write come from: shown in every approval, kept in each record.

    ``source`` is the source's name (``local``, ``git``, …); ``source_kind`` and ``source_id``
    are what the record keeps (``source_kind`` defaults to ``source``, ``source_id`` to the
    identifier). ``revision`` is the commit fetched, ``subpath`` the subdirectory of the
    repository the bundles' folders are relative to, ``trees`` the tree id of each folder."""

    identifier: str
    source: str
    trust: str
    source_kind: str | None = None
    source_id: str | None = None
    canonical_id: str | None = None
    requested_ref: str | None = None
    revision: str | None = None
    upstream_hash: str | None = None
    subpath: str | None = None
    trees: Mapping[str, str] = attrs.field(factory=dict)
    notes: tuple[str, ...] = ()
    #: ``sync``: a skill with a record keeps its recorded identity (identifier, source id,
    #: requested ref, subdirectory), whichever identifier of its repository staged it.
    keep_identity: bool = False


@attrs.frozen
class StagedBundle:
    """One skill folder written into the staging area (fetched, or made by lemon itself):
    ``folder``; ``subdir`` its folder in the staged tree (``""``: the tree itself); ``name``
    the name to fall back on when its SKILL.md names none; ``origin`` its own origin when one
    write stages skills of several sources (a blueprint), else the staging's."""

    folder: Path
    subdir: str = ""
    name: str = ""
    origin: Origin | None = None


@attrs.frozen
class Staging:
    """What the content put into the staging area: its skills, and where they come from."""

    bundles: tuple[StagedBundle, ...]
    origin: Origin


class Content(Protocol):
    """What a write puts into its staging area: a fetch (install, update, sync), the files of
    a skill lemon writes itself (``skill_manage``, drafts), the skills of a blueprint."""

    @property
    def name(self) -> str:
        """A short name for the staging folder (the skill's, or the repository's)."""
        ...

    def stage(self, tree: Path) -> Staging:
        """Write the skill folder(s) into the empty folder ``tree``; say what they are."""
        ...


@attrs.frozen
class WriteRequest:
    """One audited write to ``scope``'s skills: the ``content`` to stage and install
    (install, update, sync, ``skill_manage``…) or the ``removals`` (keys) to delete.

    ``consent`` answers the approvals (``approve=True``, a callback, or None are accepted);
    ``action`` names the write in the events observers get. ``replace``: a recorded skill may
    be replaced (``force``); ``each``: several skills are written per skill (a failure is
    listed, the others go on); ``override``: ask to install a blocked bundle, bound to its
    exact hash; ``discard_edits``: a person's edits may be discarded without asking;
    ``expected``: the bundle hash each skill must have (one for all, or per key: ``sync``);
    ``agents``: the agent roots each skill is placed in too; ``names``: the names a refused
    write's events carry (default: the keys); ``refresh``: called once the change is on disk
    (the catalog re-reads); ``progress``: told as each of several skills is checked;
    ``call_id``: the tool call that asked for the write (``skill_manage``), in every event."""

    scope: Scope
    action: str
    consent: Consent = attrs.field(default=Consent(), converter=_consent)
    content: Content | None = None
    removals: tuple[str, ...] = ()
    replace: bool = False
    each: bool = False
    override: bool = False
    discard_edits: bool = False
    expected: str | Mapping[str, str] | None = None
    agents: tuple[AgentTarget, ...] = ()
    names: tuple[str, ...] = ()
    refresh: Callable[[], None] | None = None
    progress: ProgressCallback | None = None
    call_id: str | None = None


@attrs.frozen
class Bundle:
    """One staged skill, checked and audited, waiting for activation."""

    key: str
    folder: Path
    subdir: str
    target: Path
    scan: TreeScan
    bundle_hash: str
    content_hash: str
    report: AuditReport
    override: AuditOverride | None = None
    #: The manifest errors of rules stricter than the agents it was accepted despite.
    relaxed: tuple[Diagnostic, ...] = ()
    #: Its folder in the staged tree when that folder is named unlike the skill.
    renamed_from: str | None = None
    #: Its own origin (a write of several sources); None: the staging's.
    origin: Origin | None = None


@attrs.frozen
class Written:
    """One skill the write installed (or, for a removal, deleted): where, what it replaced,
    its audit, the agent roots that hold it now and those that failed."""

    key: str
    path: str
    bundle_hash: str = ""
    verdict: str = ""
    #: The source it came from (its origin's name; "" for a removal).
    source: str = ""
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    replaced: bool = False
    placed: tuple[Placed, ...] = ()
    target_failures: tuple[TargetFailure, ...] = ()
    #: A removal: the record it deleted.
    record: LockRecord | None = None


@attrs.frozen
class WriteResult:
    """What one committed write did: the skills written, in order, the chosen ones that failed
    (``each``), where they came from, and the notes of what it settled on the way."""

    scope: Scope
    written: tuple[Written, ...]
    origin: Origin | None = None
    failed: tuple[Failure, ...] = ()
    notes: tuple[str, ...] = ()


__all__ = ["Bundle", "Content", "Origin", "StagedBundle", "Staging", "WriteRequest",
           "WriteResult", "Written"]
