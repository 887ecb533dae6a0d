"""Bundles written for blueprint tests: real folders under a fake agent dir."""

from __future__ import annotations

from pathlib import Path

from tests.install.support import skill_folder

TEAM = """version = 1
name = "team"
description = "The team's skills and servers."

[[skills]]
source = "./skills/alpha"

[[skills]]
source = "./skills/beta"

[[mcp.servers]]
name = "docs"
type = "stdio"
command = "echo"

[profiles.default]
scope = "project"

[profiles.small]
skills = ["./skills/alpha"]
servers = []
scope = "project"
"""


def write_bundle(agent: Path, bundle_id: str = "team", manifest: str = TEAM,
                 beta_body: str = "Use it.\n") -> Path:
    root = agent / "bundles" / bundle_id
    root.mkdir(parents=True, exist_ok=True)
    (root / "blueprint.toml").write_text(manifest, encoding="utf-8")
    skill_folder(root / "skills", "alpha")
    skill_folder(root / "skills", "beta", beta_body)
    return root
