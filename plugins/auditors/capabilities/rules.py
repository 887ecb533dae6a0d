"""The ``capabilities`` family's rules: id -> (severity, why). Published in
docs/audit-policy.md."""

from __future__ import annotations

from collections.abc import Mapping

#: Bump on any change of the interpreter, a vocabulary, the judge or a severity (it keys the
#: verdict cache).
RULES_VERSION = "capabilities-8"

BLOCK, WARN = "block", "warn"

#: Printed before the rule table in docs/audit-policy.md.
POLICY = (
    "Languages read (parsed, not matched by line): Python (`ast`); shell scripts and the shell "
    "lines that run the skill's own files; JavaScript and TypeScript, Ruby, Perl, PHP, "
    "PowerShell and Go (tree-sitter grammars), in files, in their fenced markdown blocks "
    "(Go: files only), and as the program text of `perl -e`, `ruby -e`, `php -r`, "
    "`pwsh -c`/`-EncodedCommand`, `awk` or a here-document fed to one from a shell line; "
    "Makefiles (variables expanded into their recipes), Dockerfiles (`RUN` steps, `ARG`/`ENV`, "
    "BuildKit secrets), awk programs and CI workflow YAML (GitHub Actions `run:` and GitLab "
    "`script:` steps read as shell, `${{ secrets.X }}`, `toJSON(secrets)` and the `env:` "
    "entries set from them as credentials); `package.json` install hooks (with `node -e`). How "
    "they are read: "
    "[audit.md](audit.md#capabilities-what-the-code-can-do-and-where-its-data-goes).")

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
    "capabilities.destruction": (BLOCK, (
        "destroys what no skill may: deletes the home folder, the root file system or a system "
        "folder (also through a path built from an empty or unset variable, \"$DIR/\"*), "
        "overwrites or formats a disk, force-pushes or mirrors over every ref of a remote or "
        "deletes every tag, drops a schema or database on a server the environment names "
        "(behind a guard in the same script: a confirmation prompt, a refusal for production, "
        "a local-host check or a required --yes, this warns and names the guard), "
        "deletes every namespace of a cluster")),
    "capabilities.destruction-gated": (BLOCK, (
        "a deletion or teardown runs when data fetched from the network or the clock compared "
        "with a fixed moment says so: a remote switch or a time bomb")),
    "capabilities.ransomware": (BLOCK, (
        "encrypts files while walking the user's folders, and the skill sends data out: the "
        "files held for a key sent away")),
    "capabilities.destruction-scoped": (WARN, (
        "a destructive operation a cleanup skill may need (terraform destroy -auto-approve, "
        "one namespace, a local database's table or schema, a folder of the home that holds "
        "the user's data); the finding names what would be deleted")),
    "capabilities.network-send": (WARN, (
        "a script sends data from the machine (files, command output, arguments) to a host "
        "that is not a well-known service")),
    "capabilities.unparsed": (WARN, (
        "a Python file that does not parse as Python 3 (Python 2, a syntax error, a template), "
        "or a JavaScript, TypeScript, Ruby, Perl, PHP, PowerShell or Go file the tree-sitter "
        "grammar could not read (no grammar, too large): only the line rules read it")),
}

__all__ = ["BLOCK", "POLICY", "RULES", "RULES_VERSION", "WARN"]
