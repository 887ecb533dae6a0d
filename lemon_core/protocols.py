"""The small protocols that plugin objects satisfy, and the records they exchange with the host.

A plugin registers *objects* through the registration hooks of :mod:`lemon_core.hookspecs`; the
host owns ordering (the ``order`` attribute), de-duplication (the ``name`` attribute) and error
reporting. Protocols may gain optional members, never lose or rename them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import attrs

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

TrustLevel = Literal["builtin", "official", "trusted", "community"]
AuditSeverity = Literal["warn", "block"]

#: ``progress(done, total, message)``; total is None when unknown.
ProgressCallback = Callable[[int, "int | None", str], None]


# -- skill sources ----------------------------------------------------------------------------


@attrs.frozen
class SourceRef:
    """A source identifier a source accepted: which source, the canonical id, the install name."""

    source: str
    identifier: str
    canonical_id: str | None
    name: str
    subpath: str | None = None
    revision: str | None = None


@attrs.frozen
class SearchHit:
    identifier: str
    name: str
    description: str = ""
    source: str = ""
    score: float = 0.0


@attrs.frozen
class FetchResult:
    """What a source may return from :meth:`SkillSource.fetch` (returning None is allowed):
    ``revision`` the exact thing fetched (a full commit id, a registry version), and
    ``notes`` for the user (LFS pointers found, submodules left out), already plain text.
    Optional ``upstream_hash``: what :meth:`SkillSource.upstream_hash` answers for exactly
    this content (the same algorithm, so an unchanged skill never looks outdated); without it
    the installer records ``revision``, else the skill's bundle hash."""

    revision: str | None = None
    notes: tuple[str, ...] = ()
    upstream_hash: str | None = None
    #: Optional: the git tree id of the fetched folder (``""``) and of each folder in it
    #: (``a/b``); the installer records the skill folder's as ``tree_id``, which ``outdated``
    #: compares with the same folder's tree upstream (a source may also offer
    #: ``upstream_trees(ref, folders, ctx)`` answering an object with ``commit`` and ``trees``).
    trees: Mapping[str, str] | None = None


@runtime_checkable
class SkillSource(Protocol):
    """Where skills are installed from (``local``, ``git``, ``gh``, ``hermes``, ``registry``).

    ``order`` is the router position: lower is tried first (builtin 0, ``git+`` 10, ``git@`` 20,
    ``gh:`` 30, ``hermes:`` 40, http(s) 50, paths 60, registry refs 70).
    """

    name: str
    order: int

    def parse(self, identifier: str) -> SourceRef | None:
        """The reference this source makes of ``identifier``, or None if it is not its kind."""

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        """The trust a skill from ``ref`` starts with."""

    def fetch(
        self, ref: SourceRef, dest: Path, ctx: LemonContext, progress: ProgressCallback | None
    ) -> FetchResult | None:
        """Place the tree named by ``ref`` at ``dest`` (a fresh, empty staging directory):
        one skill folder, or a folder of several that the installer lets the user pick from.
        Never run anything fetched. Optional member ``forms: tuple[str, ...]`` lists the
        identifier forms the source accepts, for the router's error message."""

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        """An identity of the upstream content (commit, blob sha, bundle hash), if knowable."""

    def search(self, query: str, ctx: LemonContext, limit: int) -> Sequence[SearchHit]:
        """Skills of this source matching ``query`` (may return an empty list)."""


# Optional members of a source, each a protocol of its own: the host asks ``isinstance(source,
# SourceForms)`` (present or not at run time, checked by a type checker when present).


@runtime_checkable
class SourceForms(Protocol):
    """A source that lists the identifier forms it accepts (``gh:<owner>/<repo>``…), for the
    router's message when no source accepts an identifier."""

    forms: Sequence[str]


@runtime_checkable
class BindingSource(Protocol):
    """A source whose references depend on where lemon runs (a relative path): after
    :meth:`SkillSource.parse` accepted an identifier, the host asks it to bind the reference
    to ``ctx``."""

    def bind(self, ref: SourceRef, ctx: LemonContext) -> SourceRef:
        """``ref`` made independent of the working directory."""


@runtime_checkable
class CatalogSource(Protocol):
    """A source with a catalog to browse (``lemon skill search --source NAME``): its skills
    as mappings (``id``, ``key``, ``name``, ``description``…), filtered by keyword."""

    def catalog(self, ctx: LemonContext, **filters: Any) -> Iterable[dict[str, Any]]:
        """The catalog's entries that match ``filters``."""


# -- MCP config importers ---------------------------------------------------------------------


if TYPE_CHECKING:
    from lemon_core.records import ImportOutcome, ImportRequest


@runtime_checkable
class McpImporter(Protocol):
    """Reads another tool's MCP configuration (``omp``, ``claude``, ``codex``, …).

    ``name`` is the provider id and ``order`` the provider order (omp 10, claude 20, codex 30,
    gemini 40, opencode 50, cursor 60, windsurf 70, vscode 80, root 90). The host
    (:func:`lemon_core.mcp.importing.import_servers`) calls :meth:`import_scope` once per
    scope, project before user, and only for the user scope when the user opted that provider
    in; an importer never reads a file of a scope it was not asked for. It owns ordering across
    providers, the first-valid-entry-claims-the-name rule, and turns an exception raised here
    into an error record (never a crash). :class:`lemon_core.mcp.importer_kit.files.FileImporter`
    implements all of this for file-based tools.

    Optional members, each a protocol of its own (:class:`UserOptIn`, :class:`UserPaths`;
    not part of this protocol's runtime check).
    """

    name: str
    order: int

    def import_scope(self, request: ImportRequest) -> ImportOutcome:
        """The scope's entries: valid servers in file then entry order, skipped entries with
        their reasons, and files that failed (read through ``request.read_text``, which
        bounds the size and never reads a guarded path)."""


@runtime_checkable
class UserOptIn(Protocol):
    """An importer with its own reason to read its user files without the user's opt-in
    (omp: always; Claude Code: ``CLAUDE_CONFIG_DIR`` is set)."""

    def user_opt_in(self, ctx: LemonContext) -> bool:
        """Whether the user files may be read."""


@runtime_checkable
class UserPaths(Protocol):
    """An importer that names every user-level file of its tool under ``home``; the host keeps
    project reads off these paths (``request.read_text``)."""

    def user_paths(self, ctx: LemonContext, home: Path) -> Sequence[Path]:
        """The tool's user files under ``home``."""


# -- auditors ---------------------------------------------------------------------------------


@attrs.frozen
class AuditFile:
    """One entry of a skill bundle handed to auditors, read once by the host.

    ``text`` is the file decoded as UTF-8 (or UTF-16 when it has a BOM or looks like it),
    None when it decodes as neither; ``encoding`` names the decoding used (``latin-1`` is the
    last resort, for pattern search only) and ``texts`` holds every decoding worth searching,
    ``text`` first. ``kind`` is ``file``, ``symlink``, ``fifo``, ``device``, ``socket`` or
    ``other`` (folders are not listed); ``mode`` the permission bits; ``nlink`` the link count;
    ``link_target`` the text of a link and ``link_inside`` whether it resolves inside the skill.
    ``truncated`` says the host read only the first part of a file over its read cap.
    ``archive`` is set on a member of an archive the host opened (``path`` is then
    ``<archive>!/<member>``): the archive's own path; ``members`` on an archive the host
    opened: how many members (nested ones included) it handed to the auditors, None when the
    file is not an archive or did not open (:mod:`lemon_core.audit.archives`).
    """

    path: str
    text: str | None
    size: int
    kind: str = "file"
    mode: int = 0o644
    nlink: int = 1
    link_target: str | None = None
    link_inside: bool | None = None
    encoding: str | None = None
    texts: tuple[str, ...] = ()
    truncated: bool = False
    archive: str | None = None
    members: int | None = None


@attrs.frozen
class AuditBundle:
    """A skill folder as the auditors see it: every entry, read once by the host.

    ``problems`` are the host's own findings about the tree (caps, unreadable files) as
    :class:`~lemon_core.fsio.tree.TreeProblem` records; ``manifest`` the parsed
    :class:`~lemon_core.models.SkillManifest` when SKILL.md parsed, else None, and then
    ``manifest_error`` why, in the words install refuses it with (``the frontmatter nests more
    than 64 levels deep; flatten it [frontmatter_too_deep]``; added after the first release).
    """

    key: str
    dir: Path
    files: tuple[AuditFile, ...]
    manifest: Any = None
    bundle_hash: str | None = None
    problems: tuple[Any, ...] = ()
    manifest_error: str | None = None
    #: What auditors derive from the files and share within this bundle only (parsed
    #: syntax trees, keyed by :mod:`lemon_core.auditor_kit.capabilities.index`): each file is
    #: parsed once per bundle, whichever auditor asks first, and nothing outlives the bundle.
    index: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)


@attrs.frozen
class Finding:
    """One thing an auditor flagged. ``rule`` is a stable id (``code.pipe-to-shell``).

    Optional fields (added after the first release; an auditor may leave them unset):
    ``family`` (``structure``, ``unicode``, ``instructions``, ``code``, ``manifest``),
    ``line`` (1-based, in ``path``) and ``excerpt`` (a short piece of the matched text; the
    host bounds and escapes it before anyone sees it). ``match`` is the older name of
    ``excerpt`` and is still honoured.
    """

    rule: str
    severity: AuditSeverity
    message: str
    path: str | None = None
    match: str | None = None
    auditor: str = ""
    family: str = ""
    line: int | None = None
    excerpt: str | None = None

    @property
    def summary(self) -> str:
        return f"[{self.severity}] {self.rule}: {self.message}"


@runtime_checkable
class Auditor(Protocol):
    """Inspects a skill bundle before it is activated. Every auditor runs; findings combine."""

    name: str

    #: Optional member (:class:`VersionedAuditor`): a version string of the auditor's rules.

    def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
        """Findings for ``bundle`` (none means nothing to report)."""


# -- commands plugins add to the CLI ------------------------------------------------------------


@attrs.frozen
class CliCommand:
    """A command a plugin adds to the ``lemon`` CLI (``lemon_register_commands``).

    ``group`` is the command group it joins (``skill``, ``mcp``, ``plugins``) or ``""`` for a
    top-level ``lemon NAME``; ``callback`` is a Typer command function (its parameters'
    defaults are ``typer.Argument`` / ``typer.Option``, its docstring the long help), called
    with the parsed arguments. ``short_help`` is its line in the group's help.
    """

    name: str
    callback: Callable[..., Any]
    group: str = "skill"
    short_help: str = ""

    @property
    def path(self) -> str:
        """How it is called after ``lemon``: ``"skill hermes"``."""
        return f"{self.group} {self.name}".strip()


class CommandKit(Protocol):
    """What lemon hands a command plugin (``lemon_register_commands(register, kit)``), so its
    commands behave as lemon's own without importing lemon's CLI: the context, the shared
    options, and output that escapes every name for the terminal."""

    def context(self, cwd: Path | None = None) -> LemonContext:
        """The context of this run (``cwd``: the ``--cwd`` option's value)."""
        ...

    def cwd_option(self) -> Any:
        """lemon's ``--cwd DIR`` option, as a parameter default."""
        ...

    def json_option(self) -> Any:
        """lemon's ``--json`` option, as a parameter default."""
        ...

    def say(self, *lines: object) -> None:
        """Print lines for a person (escaped)."""
        ...

    def emit_json(self, data: Any) -> None:
        """Print ``data`` as lemon's JSON output."""
        ...

    def table(self, rows: Sequence[Sequence[object]], headers: Sequence[str]) -> object:
        """A table of ``rows`` under ``headers`` (escaped), to :meth:`say`."""
        ...

    def one_line(self, text: str, limit: int = 80) -> str:
        """``text`` on one line, at most ``limit`` characters."""
        ...


@runtime_checkable
class VersionedAuditor(Protocol):
    """An auditor that versions its rules: a change of ``rules_version`` invalidates cached
    verdicts; an auditor without it (or with an empty one) is never cached."""

    rules_version: str


# -- observer events --------------------------------------------------------------------------


@attrs.frozen
class SkillLoadEvent:
    """A skill was loaded (``read_skill``, ``load_skill``, ``skill://``). Never holds the body.

    ``metadata`` holds ``agent_dir``, ``project_dir``, ``reader`` (``"agent"`` or ``"person"``)
    and ``file`` for a file view."""

    key: str
    found: bool
    view: str = "full"
    scope: str | None = None
    path: str | None = None
    tool_call_id: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class SkillWriteEvent:
    """A skill was written or a write was refused (install, update, remove, skill_manage)."""

    key: str
    action: str
    accepted: bool
    scope: str | None = None
    path: str | None = None
    reason: str | None = None
    tool_call_id: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


__all__ = [
    "AuditBundle",
    "AuditFile",
    "AuditSeverity",
    "Auditor",
    "BindingSource",
    "CatalogSource",
    "CliCommand",
    "CommandKit",
    "FetchResult",
    "Finding",
    "McpImporter",
    "ProgressCallback",
    "SearchHit",
    "SkillLoadEvent",
    "SkillSource",
    "SkillWriteEvent",
    "SourceForms",
    "SourceRef",
    "TrustLevel",
    "UserOptIn",
    "UserPaths",
    "VersionedAuditor",
]
