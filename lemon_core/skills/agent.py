"""What agents call: ``find_relevant``, ``prompt_listing``, ``read_skill`` and ``skill://``.

::

    from lemon_core import skills
    hits = skills.find_relevant("I need to read and write files", max_results=3)
    block = skills.prompt_listing(max_chars=8000)    # for the system prompt
    text = skills.read_skill("bun-file-io").content  # when the model asks for it

Relevance and the listing leave out disabled, platform-incompatible and audit-blocked skills
and hidden ones (``hide: true``); a hidden skill stays loadable by name. What these return
for a model (descriptions, a skill's text in every view) is defanged
(:func:`lemon_core.text.defang`): a control, bidi, zero-width, tag or other invisible
character is shown as an escape, and a text that had any ends with a one-line note. Every
:func:`read_skill` (and :func:`resolve_skill_uri`), found or not, sends the
``lemon_skill_loaded`` observer event, which never carries the body.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import LemonError, NotFoundError, UsageError
from lemon_core.fsio.inside import read_inside_text
from lemon_core.fsio.read import FileProblem
from lemon_core.models import SkillEntry
from lemon_core.skills import api
from lemon_core.skills.views import Kept, SnapshotViews
from lemon_core.skills.workspace import Workspace, workspace_for
from lemon_core.text import defang

#: The largest SKILL.md or supporting file read_skill returns.
MAX_READ_BYTES = 4 * 1024 * 1024
#: States in which a skill is never suggested (relevance, listing) nor loaded.
_REFUSED_STATES = ("disabled", "blocked")


class UnknownSkillError(NotFoundError):
    """No loadable skill has that key; ``close_names`` holds up to three keys that are close
    (never a hidden or disabled one)."""

    def __init__(self, message: str, *, key: str, close_names: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.key = key
        self.close_names = close_names


class SkillUnavailableError(UnknownSkillError):
    """The skill exists but may not be loaded: it is disabled or its audit blocked it
    (``state``)."""

    def __init__(self, message: str, *, key: str, state: str) -> None:
        super().__init__(message, key=key)
        self.state = state


class SkillFileError(LemonError):
    """A file of the skill could not be read (missing, outside the skill, not text…)."""


@attrs.frozen
class RelevantSkill:
    key: str
    name: str
    description: str
    score: float


@attrs.frozen
class SkillRead:
    """One load of a skill. ``content`` is the view's text, defanged (hidden characters shown
    as escapes, with a note) and cut to ``max_chars`` when asked (``truncated``); ``size`` the
    UTF-8 size in bytes of the whole view as it is on disk, before either.
    ``source`` and ``trust_level`` come from the lockfile record when lemon installed the
    skill (``source`` is then ``<kind>:<id>``), else ``source`` is ``"<scope> folder"`` and
    ``trust_level`` None. ``status`` and ``manifest`` are plain data, present when asked."""

    key: str
    name: str
    view: str
    content: str
    path: str
    size: int
    source: str
    trust_level: str | None
    status: Mapping[str, Any] | None = None
    manifest: Mapping[str, Any] | None = None
    dir: str = ""
    scope: str = ""
    file: str | None = None
    section: str | None = None
    truncated: bool = False
    #: The skill's other files (relative paths, bounded), for the summary and for agents.
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self, recurse=False) | {"files": list(self.files)}


# -- relevance ----------------------------------------------------------------------------------


def find_relevant(query: str, ctx: LemonContext | None = None, *, max_results: int = 3,
                  cwd: str | Path | None = None, persistent: bool = False,
                  workspace: Workspace | None = None) -> list[RelevantSkill]:
    """The skills that best answer ``query``, best first (equal scores by key), at most
    ``max_results``; disabled, platform-incompatible, blocked and hidden skills never
    appear."""
    if max_results < 0:
        raise UsageError("max_results must be 0 or more")
    ws = workspace_for(ctx, cwd, workspace)
    # one identity check (coalesced: at most one per 50 ms)
    views = ws.current(persistent=persistent)
    suggestable = _suggestable(ws, views)
    hits = views.search.search(query, max_results, suggestable.__contains__)
    return [RelevantSkill(key, suggestable[key].name,
                          defang(suggestable[key].description, note=True), round(score, 4))
            for key, score in hits]


def _suggestable(workspace: Workspace, views: SnapshotViews) -> dict[str, SkillEntry]:
    """Key -> entry of every skill that may be suggested now: not hidden, disabled, blocked
    or for another platform (readiness does not matter, so no PATH lookup). Settings and
    lock files are read afresh; the set is recomputed only when they or the snapshot
    change."""
    from lemon_core.state.readiness import platform_ok
    from lemon_core.state.settings import is_disabled

    ctx = workspace.ctx
    state = workspace.state()
    inputs = (state.project_settings, state.global_settings, state.locks, ctx.platform)
    kept = views.suggestable
    if kept is not None and kept.inputs == inputs:
        return kept.value
    result = {}
    for entry in views.snapshot.entries:
        if entry.hidden or is_disabled(entry.key, state.project_settings,
                                       state.global_settings):
            continue
        record = state.lock_record(entry)
        if _field(record, "audit_status") == "block" or not platform_ok(entry, ctx):
            continue
        result[entry.key] = entry
    views.suggestable = Kept(inputs, result)
    return result


# -- the prompt listing -------------------------------------------------------------------------


def prompt_view(ctx: LemonContext | None = None, *, max_chars: int | None = None,
                cwd: str | Path | None = None, persistent: bool = False,
                tools: Any = None, workspace: Workspace | None = None) -> Any:
    """:func:`prompt_listing` with its counts (a
    :class:`~lemon_core.search.prompt.PromptListing`: ``text``, ``shown``, ``omitted`` and
    ``needed``, the smallest budget that lists something when ``max_chars`` left it
    empty)."""
    from lemon_core.search.prompt import PromptItem, render

    if max_chars is not None and max_chars < 0:
        raise UsageError("max_chars must be 0 or more")
    ws = workspace_for(ctx, cwd, workspace)
    listing = api.list_skills(persistent=persistent, workspace=ws)
    tools = _nudged(ws.ctx, tools)
    items = [PromptItem(item.entry.key, item.entry.description,
                        item.status.state == "active")
             for item in listing.skills
             if item.status.state in ("active", "not_ready") and not item.entry.hidden]
    return render(items, max_chars) if tools is None else render(items, max_chars, tools)


def _nudged(ctx: LemonContext, tools: Any) -> Any:
    """``tools`` without the learning nudge when ``[skills] learning_nudge = false``."""
    from lemon_core.search.prompt import DEFAULT_TOOLS

    chosen = DEFAULT_TOOLS if tools is None else tools
    if not getattr(chosen, "write", None) or not chosen.nudge:
        return tools
    from lemon_core.skills.manage_config import skills_config

    if skills_config(ctx).learning_nudge:
        return tools
    import attrs

    return attrs.evolve(chosen, nudge=False)


def prompt_listing(ctx: LemonContext | None = None, *, max_chars: int | None = None,
                   cwd: str | Path | None = None, tools: Any = None,
                   workspace: Workspace | None = None) -> str:
    """The ``<available_skills>`` block for a system prompt: every active or not-ready skill
    that is not hidden, by key, as its key and a one-line description (not-ready ones marked
    ``unavailable="true"``); the empty string when there is none. ``max_chars`` bounds its
    length: descriptions get shorter first, then only a count of the skills left out.
    ``tools`` (a :class:`~lemon_core.search.prompt_tools.PromptTools`, e.g.
    ``PRESETS["library"]`` for a harness calling this API) are the tool names the block tells
    the model to call; by default those ``lemon skill serve`` offers (find_skills, load_skill,
    read_skill)."""
    return prompt_view(ctx, max_chars=max_chars, cwd=cwd, tools=tools,
                       workspace=workspace).text


# -- read_skill ---------------------------------------------------------------------------------

#: Who reads a skill: an agent (its loads are counted in the usage sidecar) or a person.
READERS = ("agent", "person")

def _emit(workspace: Workspace, plugins: Any, key: str, found: bool, view: str,
          entry: SkillEntry | None, tool_call_id: str | None, file: str | None,
          reader: str) -> None:
    from lemon_core.protocols import SkillLoadEvent

    plugins = workspace.observers() if plugins is None else plugins
    if plugins is None:
        return
    metadata: dict[str, Any] = {"file": file} if file is not None else {}
    metadata["reader"] = reader
    # where the usage sidecars of this context are (observers.usage, a third party's observer)
    metadata["agent_dir"] = str(workspace.ctx.agent_dir)
    metadata["project_dir"] = str(workspace.ctx.cwd)
    plugins.notify_skill_loaded(SkillLoadEvent(
        key, found, view, entry.scope if entry else None, entry.path if entry else None,
        tool_call_id, metadata))


def _field(record: Any, name: str) -> Any:
    if record is None:
        return None
    if isinstance(record, Mapping):
        return record.get(name)
    return getattr(record, name, None)


def _provenance(record: Any, entry: SkillEntry) -> tuple[str, str | None]:
    if record is None:
        return f"{entry.scope} folder", None
    kind = _field(record, "source_kind") or "unknown"
    ident = _field(record, "source_id") or _field(record, "identifier")
    return (f"{kind}:{ident}" if ident else kind), _field(record, "trust_level")


def _close_names(key: str, snapshot: Any, state: Any) -> tuple[str, ...]:
    from lemon_core.state.settings import is_disabled

    keys = [entry.key for entry in snapshot.entries if not entry.hidden
            and not is_disabled(entry.key, state.project_settings, state.global_settings)]
    return tuple(difflib.get_close_matches(key, keys, n=3, cutoff=0.6))


def _unknown(key: str, ctx: LemonContext, snapshot: Any, state: Any) -> UnknownSkillError:
    close = _close_names(key, snapshot, state)
    hint = (f"did you mean {', '.join(repr(c) for c in close)}?" if close
            else "run 'lemon skill list' to see the keys")
    return UnknownSkillError(f"no skill with key {key!r} is discovered from {ctx.cwd}; {hint}",
                             key=key, close_names=close)


def _read_text(folder: str, relative: str, key: str) -> str:
    try:
        text = read_inside_text(folder, relative, MAX_READ_BYTES)
    except FileProblem as exc:
        raise SkillFileError(f"cannot read {relative!r} of skill {key!r}: {exc.message}") \
            from None
    if text is None:
        raise SkillFileError(f"skill {key!r} has no file {relative!r}; use the summary view "
                             f"to see its files")
    return text


def _pick_view(view: str, section: str | None, file: str | None) -> str:
    from lemon_core.search.views import VIEWS

    if view == "full" and section is not None and file is None:
        view = "section"
    elif view == "full" and file is not None and section is None:
        view = "file"
    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}; use one of {', '.join(VIEWS)}")
    if view == "section" and not section:
        raise UsageError("the section view needs a section (a heading of the skill)")
    if view == "file" and not file:
        raise UsageError("the file view needs a file (a path relative to the skill folder)")
    if section is not None and view != "section" or file is not None and view != "file":
        raise UsageError("pass a section only with the section view, a file only with the "
                         "file view")
    return view


def read_skill(key: str, ctx: LemonContext | None = None, *, view: str = "full",
               section: str | None = None, file: str | None = None,
               include_status: bool = False, include_manifest: bool = False,
               max_chars: int | None = None, tool_call_id: str | None = None,
               cwd: str | Path | None = None, persistent: bool = False,
               plugins: Any = None, check: Any = None, defanged: bool = True,
               reader: str = "agent", workspace: Workspace | None = None) -> SkillRead:
    """Load skill ``key`` in one view:

    - ``full`` (default): the whole SKILL.md;
    - ``summary``: name, description, the outline of its headings and its other files;
    - ``section``: the part under the heading ``section`` (case and punctuation ignored);
    - ``file``: the file ``file``, a path relative to the skill folder. Nothing whose real
      path (links resolved) leaves the skill folder is ever read.

    ``max_chars`` cuts the content (saying so); ``include_status`` / ``include_manifest`` add
    the readiness and the parsed manifest. ``plugins`` receives the ``lemon_skill_loaded``
    event (default: the workspace's plugins), whose ``metadata["reader"]`` is ``reader``:
    ``"agent"`` (default) or ``"person"`` for a person's read (``lemon skill read``), which is
    no agent's use: the usage sidecar counts only agents' loads. ``check``, when given, is called with the entry
    and its lockfile record (None when lemon did not install it) before anything is read, and
    may raise to withhold the skill (``lemon skill serve``'s first-load audit:
    :class:`lemon_core.skills.load_audit.FirstLoadAudit`). The content is defanged for a model
    (:func:`lemon_core.text.defang`, with its note); ``defanged=False`` returns it exact (for
    a person's terminal, which escapes it itself, or exact JSON). Raises :class:`UnknownSkillError` (with
    ``close_names``), :class:`SkillUnavailableError` (disabled or blocked), an
    ``InvalidSkillError`` (its SKILL.md failed to load), :class:`SkillFileError` or a
    ``UsageError`` for bad arguments.
    """
    view = _pick_view(view, section, file)
    if max_chars is not None and max_chars < 0:
        raise UsageError("max_chars must be 0 or more")
    ws = workspace_for(ctx, cwd, workspace)
    ctx = ws.ctx
    if reader not in READERS:
        raise UsageError(f"reader must be one of {', '.join(READERS)}")
    views = ws.current(persistent=persistent)
    snapshot = views.snapshot
    entry = snapshot.by_key().get(key)
    state = ws.state()
    status = None if entry is None else state.status(entry, ctx)  # this skill's alone
    if entry is None or status is None or status.state in _REFUSED_STATES:
        _emit(ws, plugins, key, False, view, None, tool_call_id, file, reader)
        if status is not None:
            what = (state.disabled_hint(key) if status.state == "disabled" else
                    "is blocked by its audit; see 'lemon skill inspect " + key + "'")
            raise SkillUnavailableError(f"skill {key!r} {what}", key=key, state=status.state)
        failed = views.failed_copy(key)
        if failed is not None:
            raise api.invalid_skill_error(failed)
        raise _unknown(key, ctx, snapshot, state)
    try:
        if check is not None:
            check(entry, state.lock_record(entry))
        read = _load(entry, status, state, view, section, file, include_status,
                     include_manifest, max_chars, defanged)
    except LemonError:
        _emit(ws, plugins, key, False, view, entry, tool_call_id, file, reader)
        raise
    _emit(ws, plugins, key, True, view, entry, tool_call_id, file, reader)
    return read


def _load(entry: SkillEntry, status: Any, state: Any, view: str, section: str | None,
          file: str | None, include_status: bool, include_manifest: bool,
          max_chars: int | None, defanged: bool = True) -> SkillRead:
    from lemon_core.catalog.serialize import manifest_view, status_view
    from lemon_core.fsio.listing import skill_files
    from lemon_core.search import views

    files = skill_files(entry.dir, limit=views.MAX_LISTED_FILES)
    if view == "file":
        assert file is not None
        content = _read_text(entry.dir, file, entry.key)
    else:
        text = _read_text(entry.dir, "SKILL.md", entry.key)
        if view == "summary":
            content = views.summary(entry.key, entry.name, entry.description, text, files)
        elif view == "section":
            assert section is not None
            content = views.section(text, section, key=entry.key)
        else:
            content = text
    size = len(content.encode("utf-8", "surrogatepass"))
    # what an agent reads: every hidden character shown as an escape, with defang's note
    content, truncated = views.clamp(defang(content, note=True) if defanged else content,
                                     max_chars)
    source, trust = _provenance(state.lock_record(entry), entry)
    return SkillRead(
        entry.key, entry.name, view, content, entry.path, size, source, trust,
        status=status_view(status) if include_status else None,
        manifest=manifest_view(entry.manifest) if include_manifest else None,
        dir=entry.dir, scope=state.scope_of(entry), file=file, section=section, truncated=truncated,
        files=files,
    )


def resolve_skill_uri(uri: str, ctx: LemonContext | None = None, *,
                      cwd: str | Path | None = None, max_chars: int | None = None,
                      tool_call_id: str | None = None, persistent: bool = False,
                      plugins: Any = None, workspace: Workspace | None = None) -> SkillRead:
    """Read ``skill://<key>`` (the SKILL.md) or ``skill://<key>/<relative path>`` (a file of
    the skill), read-only, as :func:`read_skill` does."""
    from lemon_core.search.uri import parse_skill_uri

    key, path = parse_skill_uri(uri)
    return read_skill(key, ctx, view="file" if path else "full", file=path,
                      max_chars=max_chars, tool_call_id=tool_call_id, cwd=cwd,
                      persistent=persistent, plugins=plugins, workspace=workspace)


__all__ = ["RelevantSkill", "SkillFileError", "SkillRead", "SkillUnavailableError",
           "UnknownSkillError", "find_relevant", "prompt_listing", "prompt_view",
           "read_skill", "resolve_skill_uri"]
