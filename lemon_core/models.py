"""The data model: frozen attrs classes, free of parsing and serialisation.

Conversion to and from files and JSON lives at the edges (``lemon_core.convert`` and the
parsers); these classes only hold validated data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

Severity = Literal["error", "warning"]
Scope = Literal["project", "global", "builtin"]
SkillState = Literal["disabled", "platform_incompatible", "blocked", "not_ready", "active"]
Transport = Literal["stdio", "http", "sse"]


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value)


def _as_dict(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


@attrs.frozen
class Diagnostic:
    """A problem found while loading something: which file, how bad, a stable code, and why."""

    path: str
    severity: Severity
    code: str
    message: str


# -- skills ------------------------------------------------------------------------------------


@attrs.frozen
class Verification:
    """How to check that a skill's prerequisites actually work (run only on request)."""

    command: str
    expect_exit: int = 0
    expect_output: str | None = None


@attrs.frozen
class Reference:
    """A supplementary file (``path``, relative to the skill folder) or ``url``."""

    path: str | None = None
    url: str | None = None
    description: str | None = None


@attrs.frozen
class SkillManifest:
    """A validated SKILL.md frontmatter (Skill Manifest v1 and v2).

    ``name`` is None when the frontmatter has none (the skill's key then stands in);
    ``required_environment_variables`` already includes the promoted ``requires.config``
    names; ``extra`` keeps every unknown top-level key as parsed.
    """

    name: str | None = None
    description: str = ""
    version: str | None = None
    author: str | None = None
    tags: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    keywords: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    platforms: tuple[str, ...] = attrs.field(default=("any",), converter=_tuple)
    requires_bins: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    requires_config: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    requires_tools: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    fallback_for_tools: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    required_environment_variables: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    #: Hermes declarations marked ``optional: true``: listed, never blocking readiness.
    optional_environment_variables: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    verification: Verification | None = None
    references: tuple[Reference, ...] = attrs.field(default=(), converter=_tuple)
    metadata: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    hide: bool = False
    extra: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    #: Which frontmatter the file had: "yaml", "toml" or "none".
    format: str = "none"

    @property
    def category(self) -> str | None:
        """``metadata.lemon.category`` when it is a string."""
        lemon = self.metadata.get("lemon") if isinstance(self.metadata, Mapping) else None
        category = lemon.get("category") if isinstance(lemon, Mapping) else None
        return category if isinstance(category, str) else None


@attrs.frozen
class SkillEntry:
    """One discovered skill: where it lives, what it declares, and what it shadows.

    Paths are absolute strings (``root`` the skills root, ``dir`` the skill folder, ``path``
    its SKILL.md): catalogs hold tens of thousands of entries, and ``pathlib.Path`` objects
    cost more to build than the rest of an entry. Wrap them in ``Path`` where needed.
    """

    key: str
    scope: Scope
    root: str
    dir: str
    path: str
    manifest: SkillManifest
    #: SKILL.md paths of lower-precedence skills with the same key.
    shadowed: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.manifest.name or self.key

    @property
    def description(self) -> str:
        return self.manifest.description

    @property
    def hidden(self) -> bool:
        return self.manifest.hide


@attrs.frozen
class SkillStatus:
    """A skill's readiness, computed from the current PATH, environment and settings."""

    key: str
    state: SkillState
    disabled: bool
    platform_ok: bool
    missing_bins: tuple[str, ...] = ()
    missing_config: tuple[str, ...] = ()
    missing_env_vars: tuple[str, ...] = ()
    missing_tools: tuple[str, ...] = ()
    verification: VerificationResult | None = None

    @property
    def ready(self) -> bool:
        return self.state == "active"


@attrs.frozen
class VerificationResult:
    exit_code: int | None
    passed: bool
    output: str = ""
    error: str | None = None


# -- MCP -----------------------------------------------------------------------------------------


@attrs.frozen
class ServerSource:
    """Where an MCP server entry came from: ``provider`` (lemon, env, omp, claude, …), scope
    (project, global, user, env) and file (None for the environment)."""

    provider: str
    scope: str
    file: str | None = None


@attrs.frozen
class McpServer:
    """One normalised MCP server entry, whatever file or tool it came from.

    ``name`` is None for legacy unnamed entries. ``enabled`` is the entry's own flag (an
    ``"enabled": false`` or ``"disabled": true`` in its file). ``extra`` keeps unknown fields.
    """

    name: str | None
    transport: Transport
    source: ServerSource
    command: str | None = None
    args: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_as_dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = attrs.field(factory=dict, converter=_as_dict)
    timeout_ms: int | None = None
    ready_timeout_ms: int | None = None
    allow_tools: tuple[str, ...] | None = None
    block_tools: tuple[str, ...] | None = None
    allow_resources: tuple[str, ...] | None = None
    block_resources: tuple[str, ...] | None = None
    allow_prompts: tuple[str, ...] | None = None
    block_prompts: tuple[str, ...] | None = None
    approval: Literal["always", "never"] | None = None
    tool_approvals: Mapping[str, str] = attrs.field(factory=dict, converter=_as_dict)
    enabled: bool = True
    extra: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    #: The ``oauth`` settings of a Streamable HTTP entry in lemon's own files (never imported
    #: from another tool); None when there are none.
    oauth: Mapping[str, Any] | None = None


__all__ = [
    "Diagnostic",
    "McpServer",
    "Reference",
    "Scope",
    "ServerSource",
    "Severity",
    "SkillEntry",
    "SkillManifest",
    "SkillState",
    "SkillStatus",
    "Transport",
    "Verification",
    "VerificationResult",
]
