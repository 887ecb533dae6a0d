"""The ``capabilities`` family's rules: id -> (severity, why). Published in
docs/audit-policy.md."""

from __future__ import annotations

from collections.abc import Mapping

#: Bump on any change of the interpreter, a vocabulary, the judge or a severity (it keys the
#: verdict cache).
RULES_VERSION = "capabilities-4"

BLOCK, WARN = "block", "warn"

RULES: Mapping[str, tuple[str, str]] = {
    "capabilities.secret-exfiltration": (BLOCK, (
        "a credential (a key file, a cloud, browser or keychain store, a CLI token, the whole "
        "environment, a well-known credential variable) reaches a network destination, in one "
        "file or from one file of the skill to another")),
    "capabilities.secret-and-network": (BLOCK, (
        "reads a browser's, keychain's, wallet's or agent's credential store and sends data out "
        "of the machine: no honest skill needs both")),
    "capabilities.secret-to-host": (WARN, (
        "a credential the skill reads (an API key variable, its own .env) is sent to a host its "
        "name does not name (may be its documented API; check where it goes)")),
    "capabilities.secret-read": (WARN, (
        "reads a credential store (SSH or cloud keys, .netrc, .git-credentials, a CLI token); "
        "no flow to the network was seen")),
    "capabilities.exec-decoded": (BLOCK, (
        "decoded data (base16/32/64/85, hex, zlib/gzip/bz2/lzma, rot13, character codes, "
        "reversed text) is run as code or as a command: hidden behaviour")),
    "capabilities.exec-fetched": (BLOCK, (
        "data fetched from the network is run as code or a command, or deserialised: remote "
        "code execution")),
    "capabilities.hidden-call": (BLOCK, (
        "a program, network or environment call is reached through a name assembled at run "
        "time (string fragments, character codes, a decoder): code that disguises what it "
        "calls")),
    "capabilities.unresolved": (WARN, (
        "code that hides its own target: a module or attribute chosen at run time that "
        "constant folding cannot resolve")),
    "capabilities.dynamic-exec": (WARN, ("runs code built at run time (exec/eval of a value that "
                                        "is not a literal)")),
    "capabilities.agent-config": (BLOCK, (
        "writes an agent's configuration or instructions in the user's home (~/.claude, "
        "~/.codex, ~/.mcp.json…), or writes decoded, fetched or secret data into one")),
    "capabilities.project-agent-config": (WARN, (
        "writes a project's agent instructions or settings (CLAUDE.md, AGENTS.md, .mcp.json, "
        ".claude/settings.json)")),
    "capabilities.persistence": (WARN, (
        "writes a shell start-up file, cron, a systemd unit, an autostart entry or a git hook: "
        "something that runs again later")),
    "capabilities.persistence-payload": (BLOCK, (
        "decoded or downloaded data is installed to run again later (a start-up file, cron, "
        "a service, a git hook)")),
    "capabilities.destruction": (BLOCK, ("deletes or overwrites a home folder, the root file "
                                        "system or a disk")),
    "capabilities.network-send": (WARN, (
        "a script sends data from the machine (files, command output, arguments) to a host "
        "that is not a well-known service")),
    "capabilities.unparsed": (WARN, (
        "a Python file that does not parse as Python 3 (Python 2, a syntax error, a template), "
        "or a JavaScript, TypeScript or PowerShell file the tree-sitter grammar could not read "
        "(no grammar, too large): only the line rules read it")),
}

__all__ = ["BLOCK", "RULES", "RULES_VERSION", "WARN"]
