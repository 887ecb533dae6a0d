"""The ``code`` family's rules: id -> (severity, why). Published in docs/audit-policy.md."""

from __future__ import annotations

from collections.abc import Mapping

#: Bump on any change of a pattern, a list or a severity (it keys the verdict cache).
RULES_VERSION = "code-10"

BLOCK, WARN = "block", "warn"

RULES: Mapping[str, tuple[str, str]] = {
    "code.pipe-to-shell": (BLOCK, ("a script downloaded from a host that is not a well-known "
                                  "vendor installer is run as it arrives: remote code execution")),
    "code.download-exec": (BLOCK, ("code fetched at run time is executed (eval/exec of a "
                                  "download, a downloaded file made executable and run)")),
    "code.unvetted-installer": (WARN, ("an install script from a documentation or code-hosting "
                                      "site (not a known vendor installer) is piped to a shell")),
    "code.reverse-shell": (BLOCK, ("a shell wired to a network connection gives a remote party "
                                  "control of the machine")),
    "code.exfiltration": (BLOCK, ("environment variables, credential files, SSH keys or agent "
                                 "context are sent to a network destination")),
    "code.secret-to-host": (WARN, ("a named credential is sent to a host its name does not "
                                  "name (may be a documented API; check where it goes)")),
    "code.collector-host": (BLOCK, ("data is sent to a service known for catching requests, "
                                   "pasting or tunnelling (webhook.site, ngrok, pastebin…)")),
    "code.dns-exfiltration": (BLOCK, ("a DNS lookup of a name built from data leaks that data "
                                     "through the resolver")),
    "code.image-exfiltration": (BLOCK, ("a markdown/HTML image URL carries data or a "
                                       "placeholder for it: rendering it sends the data out "
                                       "(a placeholder for where the image lives, such as "
                                       "{owner} or {username}, is not data)")),
    "code.obfuscated-exec": (BLOCK, ("a payload is decoded (base64, hex, char codes…) and "
                                    "executed: hidden behaviour")),
    "code.encoded-payload": (BLOCK, "an encoded blob decodes to a dangerous command"),
    "code.obfuscated-command": (BLOCK, ("a dangerous command is disguised (split strings, $IFS, "
                                       "quotes or backslashes inside words, variables)")),
    "code.destructive": (BLOCK, ("deletes or overwrites a home folder, the root file system or "
                                "a disk")),
    "code.privilege-escalation": (BLOCK, ("grants password-less sudo, sets the setuid bit or "
                                         "edits sudoers/passwd")),
    "code.privilege-change": (WARN, ("changes capabilities or group membership (setcap, "
                                    "usermod -aG sudo/docker)")),
    "code.ssh-backdoor": (BLOCK, "adds a key to authorized_keys: a standing way in"),
    "code.authorized-keys": (WARN, ("writes an authorized_keys file with a key of unclear "
                                   "origin")),
    "code.persistence": (WARN, ("installs something that runs again later (cron, shell rc "
                               "files, systemd/launchd units, git hooks)")),
    "code.agent-config": (WARN, ("writes an agent's configuration or instruction files "
                                "(~/.claude/settings.json, AGENTS.md, CLAUDE.md, .mcp.json…)")),
    "code.agent-autonomy": (WARN, "turns off an agent's permission prompts or sandbox"),
    "code.typosquat": (BLOCK, ("installs or declares a package whose name imitates a popular "
                              "PyPI or npm package (an edit or two away, other separators, a "
                              "python-/-py/node-/-js affix) without being one: a known "
                              "supply-chain attack. A declared dependency warns; it blocks when "
                              "the skill's code imports the real package or the file names an "
                              "unknown index; an install command blocks")),
    "code.dependency-source": (BLOCK, ("a popular package comes from an unknown host: a "
                                      "dependency given as a URL there, an index or default "
                                      "registry there that serves the skill's popular "
                                      "dependencies, or a registry credential handed to it")),
    "code.remote-package": (WARN, ("installs a package straight from a URL, or points at a "
                                  "package index on a host that is not a well-known one "
                                  "(--extra-index-url, -i, [[tool.uv.index]], registry=)")),
    "code.unpinned-install": (WARN, "a script installs a package without pinning its version"),
}

#: How the rules reason, printed before the table in docs/audit-policy.md.
POLICY = (
    "Dependencies are read as data: `requirements*.txt`, `pyproject.toml` (dependencies, "
    "optional dependencies, dependency groups, build-system requires, `[[tool.uv.index]]`, "
    "Poetry sources), `package.json` (every kind of dependency), `.npmrc` (`registry`) and "
    "`Gemfile` (`source`). A name that imitates one of the 3,000 most-downloaded PyPI or npm "
    "packages (a Damerau-Levenshtein edit for 5 to 9 characters, two from 10, the first letter "
    "kept; other separators; a `python-`/`-py`/`node-`/`-js` affix) and is not itself among the "
    "12,000 PyPI and 8,000 npm names lemon ships (from public download rankings: "
    "hugovk/top-pypi-packages, wooorm/npm-high-impact; `scripts/popular_packages.py`) warns; "
    "it blocks when the skill's code imports the real package, when the file also names an "
    "unknown index, or in an install command. A package index on a host outside a short known "
    "list warns; it blocks when it serves the skill's popular dependencies (an unscoped index "
    "or registry) or gets a registry credential, and so does a popular package given as a URL "
    "on an unknown host. What an honest skill does does not block: a placeholder for where an image "
    "lives (`{owner}`, `{username}`) is not data; a `.env` read for the API key whose name "
    "names the host it is sent to (`OPENROUTER_API_KEY` to openrouter.ai) is that API used "
    "(the destination is read from the call's following lines and the script's URL "
    "constants); an installer from a well-known vendor domain is not an unknown host; a vendor CLI's "
    "credential (`gh auth token`, `gcloud auth print-access-token`, `npm token`) sent only to "
    "that vendor's own hosts (api.github.com, *.googleapis.com, registry.npmjs.org) is its API "
    "used. A "
    "fenced example under a heading or lead that warns in any of twenty languages (\"Nunca "
    "ejecutes esto\", \"攻撃の例\", \"Правило обнаружения\") has its exfiltration, reverse-shell, "
    "download-exec, pipe-to-shell and obfuscated-exec blocks lowered to warnings that quote the "
    "lead; a skill's own scripts are never excused.")

__all__ = ["BLOCK", "POLICY", "RULES", "RULES_VERSION", "WARN"]
