"""A curator run's two reports: ``run.json`` (the machine one) and ``REPORT.md`` (for people),
in ``logs/curator/<run>/`` under the agent folder (global) or the project's ``.lemon/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def report_dir(ctx: Any, local: bool, run_id: str) -> Path:
    base = ctx.project_lemon_dir if local else ctx.agent_dir
    return base / "logs" / "curator" / run_id


def _cell(value: object) -> str:
    from lemon_core.text import escape

    return escape(value).replace("|", "\\|")


def render_markdown(report: dict[str, Any]) -> str:
    """REPORT.md: the same facts as run.json, for a quick read (names escaped)."""
    counts = report["counts"]
    lines = [f"# Skill curator run {report['run_id']}", "",
             f"- scope: {report['scope']}", f"- started: {report['started_at']}",
             f"- duration: {report['duration_seconds']} s",
             (f"- thresholds: stale after {report['stale_after_days']} days, archive after "
             f"{report['archive_after_days']} days"),
             (f"- transitions: {counts['stale']} stale, {counts['archived']} archived, "
             f"{counts['reactivated']} reactivated ({counts['skipped']} skipped: pinned or "
             "not agent-authored)"),
             f"- agent review needed: {'yes' if report['agent_review_needed'] else 'no'}", ""]
    lines += ["## Transitions", ""]
    if report["transitions"]:
        lines += ["| skill | from | to | why |", "|---|---|---|---|"]
        lines += [f"| {_cell(t['key'])} | {t['old']} | {t['new']} | {_cell(t['reason'])} |"
                  for t in report["transitions"]]
    else:
        lines.append("None.")
    lines += ["", "## Candidates", ""]
    if report["candidates"]:
        lines += ["| skill | candidate for | state | idle days |", "|---|---|---|---|"]
        lines += [f"| {_cell(c['key'])} | {c['kind']} | {c['lifecycle_state']} | "
                  f"{c['idle_days']} |" for c in report["candidates"]]
    else:
        lines.append("None.")
    if report["problems"]:
        lines += ["", "## Problems", ""] + [f"- {_cell(p)}" for p in report["problems"]]
    lines.append("")
    lines.append("Nothing was deleted. Archived skills are disabled in skills.json; "
                 "`skill_manage` action `restore` (or `lemon skill enable`) brings one back.")
    return "\n".join(lines) + "\n"


def write_report(ctx: Any, local: bool, run_id: str, report: dict[str, Any]) -> Path:
    """Write both reports; returns run.json's path."""
    from lemon_core.fsio import atomic_write_bytes, dump_json

    folder = report_dir(ctx, local, run_id)
    root = ctx.cwd if local else None
    atomic_write_bytes(folder / "REPORT.md", render_markdown(report).encode("utf-8"),
                       root=root)
    atomic_write_bytes(folder / "run.json", dump_json(report), root=root)
    return folder / "run.json"


__all__ = ["render_markdown", "report_dir", "write_report"]
