"""Auditing a skill in memory with the capabilities auditor alone."""

from __future__ import annotations

from lemon_plugins.auditors.capabilities import CapabilitiesAuditor

from lemon_core.protocols import Finding
from tests.plugins.auditors.bundles import bundle_of, worst_by_rule

HEAD = "---\nname: demo\ndescription: Demo.\n---\n# Demo\n\n"


def audit(files: dict[str, str]) -> list[Finding]:
    return list(CapabilitiesAuditor().audit(bundle_of(files)))


def rules(files: dict[str, str]) -> dict[str, str]:
    return worst_by_rule(audit(files))


def worst(files: dict[str, str]) -> str:
    found = {f.severity for f in audit(files)}
    return "block" if "block" in found else "warn" if "warn" in found else "pass"


def py(body: str) -> dict[str, str]:
    return {"SKILL.md": HEAD + "Run `python scripts/tool.py`.\n", "scripts/tool.py": body}


def sh(body: str) -> dict[str, str]:
    return {"SKILL.md": HEAD + "Run `bash scripts/tool.sh`.\n",
            "scripts/tool.sh": "#!/usr/bin/env bash\n" + body}


def js(body: str) -> dict[str, str]:
    return {"SKILL.md": HEAD + "Run `node scripts/tool.js`.\n", "scripts/tool.js": body}


def md(body: str) -> dict[str, str]:
    return {"SKILL.md": HEAD + body}
