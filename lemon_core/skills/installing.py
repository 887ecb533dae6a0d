"""``skills.install`` and ``skills.remove``: the library calls behind ``lemon skill install`` and
``lemon skill remove``.

Both take the approval callback of :mod:`lemon_core.approval` (``approve=True``
approves in advance; the default approves nothing, so a call without one is refused with a
message saying so) and, once the change is on disk, make the catalogs of the ``workspace``
passed, if any, re-read on their next use (:func:`lemon_core.skills.calls.changed`: a command
that lists nothing afterwards rescans nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lemon_core.approval import Approve
from lemon_core.context import LemonContext
from lemon_core.install import pipeline, router
from lemon_core.install import preview as previewing
from lemon_core.install import remove as removing
from lemon_core.install.pipeline import InstallResult
from lemon_core.install.preview import Preview
from lemon_core.install.remove import RemoveResult
from lemon_core.install.select import Selector
from lemon_core.skills.calls import call_workspace, changed

if TYPE_CHECKING:
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import ProgressCallback
    from lemon_core.skills.workspace import Workspace


#: The plugin groups installing, updating and removing use (MCP importers are not).
NEEDS = ("lemon.sources", "lemon.auditors")


def _plugins(ctx: LemonContext, plugins: Plugins | None,
             workspace: Workspace | None = None) -> Plugins:
    if plugins is not None:
        return plugins
    if workspace is not None:
        return workspace.plugins(needs=NEEDS)
    from lemon_core.plugins import load_plugins

    return load_plugins(ctx, needs=NEEDS)


def install(identifier: str, ctx: LemonContext | None = None, *, local: bool = False,
            force: bool = False, approve: Approve = None, skills: Sequence[str] = (),
            all_skills: bool = False, progress: ProgressCallback | None = None,
            cwd: str | Path | None = None, select: Selector | None = None,
            override: bool = False, revision: str | None = None,
            expected_bundle_hash: str | Mapping[str, str] | None = None,
            plugins: Plugins | None = None, discard_edits: bool = False,
            agents: Sequence[str] = (), copy: bool = False,
            workspace: Workspace | None = None) -> InstallResult:
    """Install the skill ``identifier`` names (a path, a git URL, ``gh:``, ``hermes:``, a
    registry ref, the GitHub shorthand ``owner/repo``…) globally, or into the project with ``local``.

    ``skills`` names the skills to take from a tree of several (``all_skills`` takes them
    all; ``select(candidates)`` may pick instead); ``force`` replaces a copy lemon installed
    (never a folder or file it did not: that is refused), asking before it discards local
    edits unless ``discard_edits``;
    ``override`` asks (stage ``override``) to install a bundle the audit blocked, bound to its
    exact hash. Returns the first installed skill (``result.all`` lists every one).

    Several chosen skills install per skill: those that pass install, ``result.failed``
    lists the others with their reason and next step
    (:class:`~lemon_core.install.failures.NoneInstalled` when none did).

    ``agents`` (``agents``, ``claude``, ``codex``, ``omp``, ``github`` with ``local``) places
    each installed skill in those agents' skills folders too: a relative link to lemon's copy,
    or a copy with ``copy``. ``result.targets`` lists where it was placed and
    ``result.target_failures`` where it was not (a folder lemon did not place is never
    replaced); the skill is installed in lemon's root either way.
    """
    ctx = call_workspace(ctx, cwd, workspace)
    identifier = router.shorthand(identifier, ctx)  # owner/repo: gh:owner/repo, recorded so
    return pipeline.install(pipeline.InstallRequest(
        identifier, local=local, force=force, approve=approve, skills=tuple(skills),
        all_skills=all_skills, progress=progress, choose=select, revision=revision,
        expected_bundle_hash=expected_bundle_hash, override=override,
        refresh=changed(workspace), discard_edits=discard_edits, each=True,
        agents=tuple(agents), copy=copy), ctx, _plugins(ctx, plugins, workspace))


def preview(identifier: str, ctx: LemonContext | None = None, *, approve: Approve = None,
            progress: ProgressCallback | None = None, cwd: str | Path | None = None,
            plugins: Plugins | None = None, workspace: Workspace | None = None) -> Preview:
    """The skills of the tree ``identifier`` names (folder, description, validity under
    lemon's manifest rules, audit verdict), fetched into a private staging folder after the
    ``fetch`` approval an install asks for, and removed again: nothing is installed, no
    skills folder or lockfile is written (``lemon skill install ID --list``)."""
    ctx = call_workspace(ctx, cwd, workspace)
    return previewing.preview(identifier, ctx, plugins=_plugins(ctx, plugins, workspace),
                              approve=approve, progress=progress)


def remove(key: str, ctx: LemonContext | None = None, *, local: bool | None = None,
           approve: Approve = None, cwd: str | Path | None = None,
           plugins: Plugins | None = None, discard_edits: bool = False,
           workspace: Workspace | None = None) -> RemoveResult:
    """Remove the installed skill ``key`` (folder and lockfile record) after approval;
    ``local`` True/False picks the project or global copy, None the project's if any.

    Only what lemon installed is deleted: a folder no lockfile record names is refused; a
    skill whose files changed since the install is removed only when discarding the named
    edits is approved when asked (stage ``discard``) or with ``discard_edits``, never on
    ``approve=True`` alone."""
    ctx = call_workspace(ctx, cwd, workspace)
    return removing.remove(key, ctx, plugins=_plugins(ctx, plugins, workspace), local=local,
                           approve=approve, refresh=changed(workspace),
                           discard_edits=discard_edits)


__all__ = ["InstallResult", "Preview", "RemoveResult", "install", "preview", "remove"]
