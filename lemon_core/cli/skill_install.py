"""``lemon skill install ID`` and ``lemon skill remove KEY``.

On a terminal, lemon asks before it fetches and again once it knows what it would install
(source, resolved commit, trust, files, audit findings); an audit warning is its own question,
and a blocked bundle is only installed with ``--override-block`` and a yes for exactly that
bundle. Without a terminal, ``--approve`` answers yes in advance (never to a block); without
either the command refuses with exit 1 before anything is fetched. Prompts, details and the
progress bar go to stderr, so ``--json`` output on stdout stays one document.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option, key_argument, quiet_option
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()
QUIET = quiet_option()
MAX_FILES_SHOWN = 20
MAX_FINDINGS_SHOWN = 20
DISCARD_EDITS = typer.Option(False, "--discard-edits", help="Replacing a skill whose files "
                             "changed since lemon installed it discards those edits without "
                             "asking (--approve alone refuses).")
SKILL = typer.Option([], "--skill", metavar="NAME", help="From a tree of several skills, "
                     "install this one (repeatable).")
AGENT = typer.Option([], "--agent", metavar="NAME", help="Also place the skill where this "
                     "agent reads skills, as a link to lemon's copy (repeatable): agents "
                     "(.agents/skills: Codex, Copilot, OpenCode, Gemini CLI, Cursor…), claude, "
                     "codex, omp, github (--local only).")
COPY = typer.Option(False, "--copy", help="With --agent: place a real copy instead of a link.")


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


class _Progress:
    """A rich progress bar on stderr, started on the first report, stopped before a prompt."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int | None, message: str) -> None:
        from rich.markup import escape as markup_escape

        from lemon_core.text import escape

        text = markup_escape(escape(message))
        if self.bar is None:
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(text, total=total)
        self.bar.update(self.task, completed=done, total=total, description=text)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _finding_line(finding: Any) -> str:
    where = finding.path or ""
    if where and finding.line:
        where = f"{where}:{finding.line}"
    return f"    [{finding.severity}] {finding.rule}: {finding.message}" + (
        f" ({where})" if where else "")


def _details(request: Any) -> list[str]:
    head = (f"{', '.join(request.keys) or request.identifier} from {request.source} "
            f"{request.canonical_id or request.identifier} (trust {request.trust})")
    lines = [head]
    if request.revision:
        lines.append(f"  revision: {request.revision}")
    for target in request.targets:
        lines.append(f"  into:     {target}")
    if request.files:
        shown = ", ".join(request.files[:MAX_FILES_SHOWN])
        more = len(request.files) - MAX_FILES_SHOWN
        lines.append(f"  files ({len(request.files)}): {shown}"
                     + (f", … and {more} more" if more > 0 else ""))
    if request.verdict:
        lines.append(f"  audit:    {request.verdict}")
    lines.extend(_finding_line(f) for f in request.findings[:MAX_FINDINGS_SHOWN])
    if len(request.findings) > MAX_FINDINGS_SHOWN:
        lines.append(f"    … and {len(request.findings) - MAX_FINDINGS_SHOWN} more findings")
    lines.extend(f"  note:     {note}" for note in request.notes)
    return lines


QUESTIONS = {
    "fetch": "Fetch it into a private staging folder to check it?",
    "install": "Install it?",
    "warn": "The audit WARNED about this skill. Install it anyway?",
    "override": "The audit BLOCKED this bundle. Override the block for exactly this bundle?",
    "discard": "Replace it and DISCARD these local edits?",
    "remove": "Remove it (its folder and its lockfile record)?",
}


#: ``lemon skill remove`` asks its own questions (the discard stage deletes, not replaces).
REMOVE_QUESTIONS = {**QUESTIONS, "discard": "Remove it and DISCARD these local edits?"}


def _asker(progress: _Progress | None, questions: dict[str, str] = QUESTIONS) -> Any:
    from lemon_core.cli.output import ask as ask_line
    from lemon_core.cli.output import say

    def ask(request: Any) -> bool:
        if progress is not None:
            progress.stop()
        if request.stage == "fetch":
            say(fetch_line(request), err=True)
        else:
            say(*_details(request), err=True)
        return ask_line(f"{questions[request.stage]} [y/N]").lower() in ("y", "yes")

    return ask


def fetch_line(request: Any) -> str:
    """The first question's subject: what would be fetched, and where its skills would go
    (each into a folder of its own name, known before the fetch only for named skills)."""
    head = (f"lemon would install {request.identifier} (source {request.source}, trust "
            f"{request.trust})")
    if request.targets:
        return f"{head} into {', '.join(request.targets)}."
    where = (f"{request.skills_dir.rstrip('/')}/" if request.skills_dir
             else f"the {request.scope} skills folder")
    return (f"{head}: each skill it holds into a folder of its name in {where} (every "
            f"folder is shown before anything is installed).")


def choice_line(number: int, candidate: str, description: str | None) -> str:
    """One skill of the picker: its name, its folder in the tree and a one-line description
    (clamped; :func:`~lemon_core.cli.output.say` escapes it)."""
    from lemon_core.cli.output import one_line

    name = candidate.rsplit("/", 1)[-1] or "(the root)"
    folder = f"{candidate}/" if candidate else "./"
    text = one_line(description, CHOICE_DESCRIPTION_WIDTH) if description else (
        "(no readable description)")
    return f"  {number}. {name} ({folder}): {text}"


CHOICE_DESCRIPTION_WIDTH = 70


def _chooser(progress: _Progress | None = None) -> Any:
    from lemon_core.cli.output import ask, say

    def choose(candidates: Sequence[str],
               descriptions: dict[str, str | None] | None = None) -> list[str]:
        if progress is not None:
            progress.stop()
        said = descriptions or {}
        say("The fetched tree holds several skills:", err=True)
        say(*(choice_line(i, c, said.get(c)) for i, c in enumerate(candidates, 1)), err=True)
        answer = ask("Install which? (numbers separated by spaces, or 'all'):")
        if answer.strip().lower() == "all":
            return list(candidates)
        picked = []
        for word in answer.replace(",", " ").split():
            if word.isdigit() and 1 <= int(word) <= len(candidates):
                picked.append(candidates[int(word) - 1])
        return picked

    return choose


def _finding_json(finding: Any) -> dict[str, Any]:
    return {"rule": finding.rule, "severity": finding.severity, "message": finding.message,
            "path": finding.path, "line": finding.line, "auditor": finding.auditor}


def result_json(item: Any) -> dict[str, Any]:
    """One installed skill as ``lemon skill install --json`` prints it."""
    return {"key": item.key, "path": item.path, "scope": item.scope, "source": item.source,
            "identifier": item.identifier, "revision": item.revision, "trust": item.trust,
            "bundle_hash": item.bundle_hash, "verdict": item.verdict,
            "findings": [_finding_json(f) for f in item.findings], "notes": list(item.notes),
            "replaced": item.replaced, "warnings": list(item.warnings),
            "targets": [{"agent": t.agent, "path": t.path, "mode": t.mode, "action": t.action,
                         "note": t.note} for t in item.targets],
            "targets_failed": [{"agent": f.agent, "path": f.path, "reason": f.reason,
                                "next": f.next_step} for f in item.target_failures]}


def failed_json(failed: Sequence[Any]) -> list[dict[str, Any]]:
    """The skills a multi-skill install did not install, as ``--json`` prints them."""
    return [{"key": f.key, "folder": f.folder, "reason": f.reason, "next": f.next_step}
            for f in failed]


def _say_failed(failed: Sequence[Any]) -> None:
    from lemon_core.cli.output import warn

    for item in failed:
        warn(f"{item.key} ({item.folder or 'the root'}) was not installed: {item.reason}; "
             f"{item.next_step}", label="failed")


def _say_targets(item: Any) -> None:
    from lemon_core.cli.output import say, warn

    for target in item.targets:
        verb = {"linked": "Linked", "copied": "Copied", "kept": "Already in"}[target.action]
        say(f"  {verb} {target.path} ({target.agent})")
        if target.note:
            warn(target.note, label="note")
    for failed in item.target_failures:
        warn(f"{item.key} was not placed in {failed.path} ({failed.agent}): {failed.reason}; "
             f"{failed.next_step}", label="failed")


@app.command("install", short_help="Install a skill (path, git URL, gh:, hermes:, registry).")
def install_command(
    identifier: str = typer.Argument(..., metavar="ID",
                                     help="What to install: a folder (/abs, ./rel, ~/…), a git "
                                          "URL (https://…, git@…, git+…), gh:OWNER/REPO "
                                          "or OWNER/REPO, "
                                          "hermes:COLLECTION/CATEGORY/SKILL or a registry "
                                          "ref NAMESPACE/CATEGORY/NAME."),
    local: bool = typer.Option(False, "--local", help="Install into the project "
                               "(.lemon/skill), not globally."),
    force: bool = typer.Option(False, "--force", help="Replace a copy lemon installed (never "
                               "a folder or file it did not)."),
    discard_edits: bool = DISCARD_EDITS,
    approve: bool = typer.Option(False, "--approve", help="Answer yes to every question in "
                                 "advance (never to an audit block)."),
    skill: list[str] = SKILL,
    all_skills: bool = typer.Option(False, "--all", help="From a tree of several skills, "
                                    "install every one."),
    override_block: bool = typer.Option(False, "--override-block", help="Ask to install a "
                                        "bundle the audit blocked (bound to its exact hash)."),
    list_only: bool = typer.Option(False, "--list", help="Only show the skills of the tree "
                                   "(folder, validity, audit verdict, description); install "
                                   "nothing."),
    agent: list[str] = AGENT,
    copy: bool = COPY,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Fetch, check, audit and install a skill; nothing changes unless everything succeeds."""
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.cli.report import bar_wanted, lines_wanted, plugins_for
    from lemon_core.install.failures import NoneInstalled
    from lemon_core.skills.installing import install

    interactive = _interactive()
    if list_only:
        used = [flag for flag, on in (("--skill", bool(skill)), ("--all", all_skills),
                                      ("--force", force), ("--override-block", override_block),
                                      ("--discard-edits", discard_edits),
                                      ("--agent", bool(agent)), ("--copy", copy)) if on]
        if used:
            raise typer.BadParameter(f"--list installs nothing; leave out {', '.join(used)}",
                                     param_hint="'--list'")
        from lemon_core.cli.skill_preview import show_preview

        show_preview(identifier, cwd=cwd, approve=approve, interactive=interactive,
                     as_json=as_json, progress=_Progress() if bar_wanted(as_json, quiet)
                     else None)
        return
    progress = _Progress() if bar_wanted(as_json, quiet) else None
    answer: Any = True if approve else (_asker(progress) if interactive else None)
    try:
        result = install(identifier, cwd=cwd, local=local, force=force, approve=answer,
                         skills=tuple(skill), all_skills=all_skills, progress=progress,
                         select=_chooser(progress) if interactive else None,
                         override=override_block,
                         discard_edits=discard_edits,
                         plugins=plugins_for(cwd, lines_wanted(as_json, quiet)),
                         agents=tuple(agent), copy=copy)
    except NoneInstalled as exc:  # a multi-skill install where every chosen skill failed
        if as_json:
            emit_json({"installed": [], "failed": failed_json(exc.failed)})
        else:
            _say_failed(exc.failed)
            warn(f"none of the {len(exc.failed)} chosen skills was installed", label="error")
        raise typer.Exit(1) from None
    finally:
        if progress is not None:
            progress.stop()
    if as_json:
        emit_json({"installed": [result_json(item) for item in result.all],
                   "failed": failed_json(result.failed)})
        if result.failed or any(item.target_failures for item in result.all):
            raise typer.Exit(1)
        return
    for item in result.all:
        verb = "Replaced" if item.replaced else "Installed"
        revision = f" at {item.revision}" if item.revision else ""
        say(f"{verb} {item.key} ({item.trust}, audit {item.verdict}) from {item.source}"
            f"{revision} into {item.path}")
        for finding in item.findings[:MAX_FINDINGS_SHOWN]:
            say(_finding_line(finding))
        for note in item.notes:
            warn(note, label="note")
        for text in item.warnings:
            warn(text)
        _say_targets(item)
    if result.failed:
        _say_failed(result.failed)
    if result.failed or any(item.target_failures for item in result.all):
        raise typer.Exit(1)


@app.command("remove", short_help="Remove an installed skill (folder and lockfile record).")
def remove_command(
    key: str = key_argument(),
    local: bool = typer.Option(False, "--local", help="Remove the project's copy."),
    global_: bool = typer.Option(False, "--global", help="Remove the global copy."),
    approve: bool = typer.Option(False, "--approve", help="Answer yes in advance (never to "
                                 "discarding local edits)."),
    discard_edits: bool = typer.Option(False, "--discard-edits", help="Remove a skill whose "
                                       "files changed since lemon installed it, discarding "
                                       "those edits (--approve alone refuses)."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Remove a skill lemon installed: the project's copy if there is one, else the global one
    (--local or --global to choose). A folder lemon did not install is never deleted; local
    edits are named and asked about (--discard-edits to discard them without asking)."""
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.skills.installing import remove

    if local and global_:
        raise typer.BadParameter("use --local or --global, not both", param_hint="'--global'")
    which = True if local else (False if global_ else None)
    answer: Any = True if approve else (_asker(None, REMOVE_QUESTIONS) if _interactive()
                                        else None)
    result = remove(key, cwd=cwd, local=which, approve=answer, discard_edits=discard_edits)
    if as_json:
        emit_json({"removed": {"key": result.key, "path": result.path, "scope": result.scope,
                               "had_record": result.record is not None,
                               "notes": list(result.notes),
                               "targets_removed": [{"agent": t.agent, "path": t.path,
                                                    "mode": t.mode}
                                                   for t in result.targets_removed],
                               "targets_left": [{"agent": t.agent, "path": t.path,
                                                 "reason": t.reason, "next": t.next_step}
                                                for t in result.targets_left]}})
        return
    say(f"Removed {result.key} ({result.scope}) from {result.path}")
    for placed in result.targets_removed:
        say(f"  Removed {placed.path} ({placed.agent})")
    for note in result.notes:
        warn(note, label="note")
    for left in result.targets_left:
        warn(f"{left.reason}; {left.next_step}", label="left")
