"""``lemon skill install ID --list``: the skills of a tree, shown and not installed.

The fetch is asked about as an install's is (``--approve`` in advance, a question on a
terminal, refused otherwise); the table (KEY, FOLDER, VALID, AUDIT, DESCRIPTION) goes to
stdout with every cell escaped; below it, why a skill is not valid, the findings that block
one, each install warning (a folder named unlike its skill, a rule stricter than the agents)
and each nested skill's parent; ``--json`` prints the rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DESCRIPTION_WIDTH = 60


def _asker(progress: Any) -> Any:
    from lemon_core.cli.output import ask as ask_line
    from lemon_core.cli.output import say

    def ask(request: Any) -> bool:
        if progress is not None:
            progress.stop()
        say(f"lemon would fetch {request.identifier} (source {request.source}, trust "
            f"{request.trust}) into a private staging folder to list its skills; nothing is "
            f"installed.", err=True)
        return ask_line("Fetch it? [y/N]").lower() in ("y", "yes")

    return ask


def _finding_json(finding: Any) -> dict[str, Any]:
    return {"rule": finding.rule, "severity": finding.severity, "message": finding.message,
            "path": finding.path, "line": finding.line, "auditor": finding.auditor}


def preview_json(found: Any) -> dict[str, Any]:
    """The preview as ``--list --json`` prints it."""
    return {"identifier": found.identifier, "source": found.source,
            "canonical_id": found.canonical_id, "trust": found.trust,
            "revision": found.revision,
            "skills": [{"key": r.key, "folder": r.folder, "description": r.description,
                        "valid": r.valid, "reason": r.reason, "verdict": r.verdict,
                        "findings": [_finding_json(f) for f in r.findings],
                        "warnings": list(r.warnings), "inside": r.inside}
                       for r in found.rows],
            "notes": list(found.notes)}


def show_preview(identifier: str, *, cwd: Path | None, approve: bool, interactive: bool,
                 as_json: bool, progress: Any) -> None:
    from lemon_core.cli.output import emit_json, one_line, say, table, warn
    from lemon_core.install.gate import blocking_findings
    from lemon_core.skills.installing import preview

    answer: Any = True if approve else (_asker(progress) if interactive else None)
    try:
        found = preview(identifier, cwd=cwd, approve=answer, progress=progress)
    finally:
        if progress is not None:
            progress.stop()
    if as_json:
        emit_json(preview_json(found))
        return
    revision = f" at {found.revision}" if found.revision else ""
    count = sum(1 for r in found.rows if r.inside is None)
    nested = len(found.rows) - count
    inner = f" and {nested} nested in another" if nested else ""
    say(f"{found.canonical_id or found.identifier} ({found.source}, trust {found.trust})"
        f"{revision}: {count} skill{'' if count == 1 else 's'}{inner}, nothing installed")
    if found.rows:
        say(table([(r.key, (r.folder or ".") + (f" (in {r.inside})" if r.inside else ""),
                    "yes" if r.valid else "no", r.verdict,
                    one_line(r.description or "", DESCRIPTION_WIDTH)) for r in found.rows],
                  ["KEY", "FOLDER", "VALID", "AUDIT", "DESCRIPTION"]))
    for row in found.rows:
        if row.inside is not None:
            say(f"  {row.key}: inside {row.inside} (installed with it as its files; "
                f"--skill {row.key} installs it on its own)")
        if not row.valid:
            say(f"  {row.key}: {row.reason}")
        elif row.verdict == "block":
            say(f"  {row.key}: blocked by the security audit: {blocking_findings(row)}")
        for text in row.warnings:
            say(f"  {text}")
    for note in found.notes:
        warn(note, label="note")
    if found.rows:
        say(f"Install with: lemon skill install {found.identifier} --skill NAME (or --all)")


__all__ = ["preview_json", "show_preview"]
