"""The capability facts of every file of a bundle, each file parsed once.

- A Python file (``.py``, ``.pyw``, or a ``#!`` line naming python) is parsed with :mod:`ast`
  through the bundle's index and run through :mod:`.python`; one that does not parse is
  reported as such (``parsed=False``) and left to the line rules.
- A markdown file's fenced Python blocks are read the same way (a block that does not parse
  is an example, not a program: it is skipped quietly); its shell blocks, and the lines of
  shell scripts, are read by :mod:`.shell` where they run another file of the skill
  (``python scripts/a.py | curl …``), so the judge can follow data from one file to another,
  and where they destroy something or read a credential (the agent is told to run them).
  A fence in a warning context ("never run this", a security tutorial) is read with
  ``warned`` set: its findings warn at most.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import (
    build_files,
    ci_yaml,
    index,
    inline,
    languages,
    package_json,
    shell,
)
from lemon_core.auditor_kit.capabilities import python as python_facts
from lemon_core.auditor_kit.capabilities.markdown_blocks import (
    Block,
    fenced_blocks,
    shell_block,
    told,
)
from lemon_core.auditor_kit.capabilities.model import FileFacts
from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import indexed, register_words, word_lines
from lemon_core.auditor_kit.markdown import document
from lemon_core.auditor_kit.scripts import SCRIPT_SUFFIXES, file_kind

_PYTHON_SUFFIXES = (".py", ".pyw")
#: Openings of a fenced Python block, lower case (found in the shared word search).
_PYTHON_OPENERS = frozenset({"```py", "~~~py", "``` py", "~~~ py", "```{.py", "```ipython",
                             "```{py"})


def script_names(bundle: Any) -> frozenset[str]:
    """The file names of the bundle's scripts (what a command line would mention)."""
    names = set()
    for file in bundle.files:
        name = file.path.rpartition("/")[2]
        dot = name.rfind(".")
        if dot > 0 and name[dot:].lower() in SCRIPT_SUFFIXES:
            names.add(name)
    return frozenset(names)


def _mentions(names: frozenset[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    return re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))


def _mentioned(text: str, mention: re.Pattern[str]) -> bool:
    """Whether ``text`` names one of the scripts ``mention`` matches (substring tests: many
    times quicker than the pattern over a whole document)."""
    return any(name in text for name in mention.pattern.replace("\\", "").split("|"))


_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".dash", ".command", ".bats")


def _is_shell_script(lower: str, text: str) -> bool:
    """A shell script proper (not a Makefile or Dockerfile, whose lines are not shell)."""
    name = lower.rpartition("/")[2]
    if name.endswith(_SHELL_SUFFIXES):
        return True
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and any(s in first for s in ("sh", "bash", "zsh"))


def _python_file(bundle: Any, path: str, text: str, modules: Any, files: Any = None
                 ) -> FileFacts | None:
    if len(text) > index.MAX_PARSE_CHARS and not python_triggered(text):
        return None  # a large data module (icons, tables) with nothing to follow
    tree, error, line = index.python_tree(bundle, path, text)
    if tree is None:
        return FileFacts(path=path, language="python", parsed=False, error=error,
                         error_line=line)
    return python_facts.analyse(path, text, tree, modules=modules, files=files)


def module_finder(bundle: Any) -> Any:
    """``find(module) -> (path, text, tree) | None`` over the bundle's Python files, by
    dotted name (``analyzer.collector``, or ``collector`` from ``from . import collector``)."""
    table: dict[str, tuple[str, str]] = {}
    for file in bundle.files:
        if file.kind == "file" and file.text and file.path.endswith(_PYTHON_SUFFIXES):
            dotted = file.path.rsplit(".", 1)[0].replace("/", ".")
            dotted = dotted.removesuffix(".__init__")
            table[dotted] = (file.path, file.text)

    def find(module: str) -> Any:
        matches = [v for k, v in table.items() if k == module or k.endswith("." + module)]
        if len(matches) != 1:
            return None
        path, text = matches[0]
        tree, _, _ = index.python_tree(bundle, path, text)
        return None if tree is None else (path, text, tree)

    return find


#: Words without which a shell line neither reaches the network, runs fetched or decoded
#: text, reads a credential store nor installs something to run later (a script with none is
#: not read; in a script that has one, only the lines with one and assignments are).
SHELL_TRIGGERS = lazy_compile(
    r"curl|wget|\bnc\b|ncat|socat|telnet|/dev/tcp|/dev/udp|\bssh\b|scp|rsync|ftp|"
    r"base64|base32|basenc|xxd|openssl|uudecode|gunzip|zcat|\brev\b|\btr\b|"
    r"\beval\b|\bsource\b|\bexec\b|(?:^|[|;&(]\s*)\.\s|\|\s*(?:ba|z|da|k)?sh\b|"
    r"(?:sh|python\d?|node|perl|ruby|php|pwsh|powershell|osascript)\s+-(?:c|e|Command)\b|"
    r"\|\s*(?:python\d?|node|perl|ruby|php|pwsh)\b|"
    r"crontab|systemctl|launchctl|autostart|hooks|bashrc|zshrc|profile|>>|\btee\b|"
    r"\.ssh|\.aws|netrc|credential|gh auth|\bsecurity\b|gcloud|\baz\b|keychain|printenv|"
    r"CLAUDE|AGENTS|mcp|\.claude|\.codex|\.cursor|\brm\b|\bdd\b|mkfs|shred|wipefs|"
    # destruction (:mod:`.destruction`) and credential commands
    r"(?i:\bgit\s+push\b|\bpsql\b|\bmysql\b|mariadb|sqlcmd|\bdrop(?:db)?\s|truncate|kubectl|"
    r"\boc\s+delete|terraform|\btofu\b|pulumi|-delete\b|-exec\b|\bgpg\b|blkdiscard|"
    r"\baws\b|kwallet|secret-tool|\bop\s+(?:read|item)|\bvault\b|docker-credential|"
    r"\bbw\s+get|\bpass\s+show|Login Data|Cookies|logins\.json|key[34]\.db|wallet|"
    r"\.mozilla|Chrome|chromium|Brave|\bEdge\b|Opera|Vivaldi|Safari|\bArc\b|\.kube|"
    r"\.docker|\.azure|\.config/gh|git-credentials|npmrc|pypirc|\.env\b)")
#: Lower-case words of which Python code that reaches the network, runs code, hides a call,
#: decodes a payload or touches a credential store, a start-up file or an agent's
#: configuration holds at least one: a plain substring test of a whole file, many times
#: quicker than a pattern (``compile(`` counts when it is not ``re.compile(``).
_PYTHON_WORDS = (
    "requests", "urllib", "http.client", "httplib", "httpx", "aiohttp", "socket", "smtplib",
    "ftplib", "telnetlib", "paramiko", "websocket", "pycurl", "xmlrpc", "gethostbyname",
    "getaddrinfo", "dns.resolver", "subprocess", "popen", "spawn", "import pty", "pty.spawn",
    "pickle", "marshal", "dill", "runpy", "importlib", "__import__", "getattr(", "globals(",
    "builtins", "environ", "getenv", "rmtree", "unlink(", "os.remove", "rmdir", "keyring",
    "sqlite3", "shutil", "b64decode", "b32decode", "b16decode", "b85decode", "a85decode",
    "decodebytes", "a2b_", "unhexlify", "fromhex", "decompress", "codecs", "chr(", "ctypes",
    "system(", "'system'", '"system"', "expanduser", "home()", "'~", '"~', "$home", "bashrc",
    "zshrc", "crontab", "systemd", "autostart", "launchagents", ".git/hooks", "claude",
    "agents.md", "mcp.json", ".cursor", ".codex", ".ssh", ".aws", "netrc", "credential",
    "cookies", "login data", "keychain", "wallet", "gcloud", ".kube", "exec(", "eval(",
    "dotenv", "'.env", '".env', "/.env", "browser_cookie", "compile(", "drop schema",
    "drop database", "drop table", "truncate", "psycopg", "fernet", "encrypt", "login.keychain",
    "local state", "logins.json", "key4.db", "binarycookies", "kwallet", "keyrings", "exodus",
    "electrum", "metamask", ".bitcoin", "localappdata", "appdata")
#: The same for shell scripts (their lines are then filtered by :data:`SHELL_TRIGGERS`).
_SHELL_WORDS = (
    "curl", "wget", "nc ", "ncat", "socat", "telnet", "/dev/tcp", "/dev/udp", "ssh ", "scp ",
    "rsync", "ftp", "base64", "base32", "basenc", "xxd", "openssl", "uudecode", "gunzip",
    "zcat", "rev", "tr ", "eval", "source ", "exec ", "| sh", "|sh", "| bash", "|bash", "| zsh",
    "sh -c", "-c '", '-c "', "| python", "|python", " -e ", "php -r", "pwsh", "powershell",
    "osascript", "crontab", "systemctl", "launchctl", "autostart", "hooks", "bashrc", "zshrc",
    "profile", ">>", "tee ", ".aws", ".ssh", "netrc", "credential", "gh auth", "security ",
    "gcloud", "az ", "keychain", "printenv", "claude", "agents", "mcp", ".codex", ".cursor",
    "rm -", "dd ", "mkfs", "shred", "wipefs", ". /", '. "', "<(", "git push", "psql", "mysql",
    "mariadb", "sqlcmd", "drop ", "dropdb", "truncate", "kubectl", "oc delete", "terraform",
    "tofu ", "pulumi", "-delete", "-exec", "gpg ", "blkdiscard", "aws ", "kwallet",
    "secret-tool", "op read", "op item", "vault ", "docker-credential", "bw get", "pass show",
    "login data", "cookies", "logins.json", "key4.db", "key3.db", "wallet", ".mozilla",
    "chrome", "chromium", "brave", "edge", "opera", "vivaldi", "safari", ".kube", ".docker",
    ".azure", ".config/gh", "git-credentials", "npmrc", "pypirc", ".env")


_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
#: Words without which JavaScript or TypeScript neither loads a module by a computed name,
#: reaches the network, runs code, decodes, reads the environment or writes or deletes files
#: (a file with none is not parsed).
_JS_WORDS = ("require", "import(", "child_process", "process.env", "process[", "fetch",
             "http", "net", "dns", "axios", "websocket", "eval", "function(", "vm",
             "fromcharcode", "fromcodepoint", "atob", "buffer.from", "readfile", "writefile",
             "appendfile", "createwritestream", "createreadstream", "copyfile", "rmsync",
             "rmdir", "unlink", "fs.rm", "globalthis", "sendbeacon", "inflatesync",
             "gunzipsync", "fs/promises", "node:fs", "homedir", "'fs'", '"fs"')


def javascript_triggered(text: str) -> bool:
    """Whether JavaScript or TypeScript source holds a word that could matter."""
    lower = text.lower()
    return any(word in lower for word in _JS_WORDS)


_PYTHON_SET = frozenset(_PYTHON_WORDS)
_SHELL_SET = frozenset(_SHELL_WORDS)
# Searched in the same pass as every other auditor's trigger words (one search per text);
# words frequent in prose ("http", "sh") are left out of it, they would slow every search.
register_words(_PYTHON_SET | _PYTHON_OPENERS)


def python_triggered(text: str) -> bool:
    """Whether Python source ``text`` holds a word that could matter (:data:`_PYTHON_WORDS`)."""
    index, lower = indexed(text)
    found = word_lines(index, lower, _PYTHON_SET)
    if set(found) == {"compile("}:
        return lower.count("compile(") > lower.count(".compile(")
    return bool(found)


def shell_triggered(text: str) -> bool:
    """Whether a shell script holds a word that could matter (:data:`_SHELL_WORDS`; tested
    here, not in the shared search: these short words are everywhere in prose)."""
    lower = text.lower()
    return any(word in lower for word in _SHELL_WORDS) or inline.mentioned(lower)


_PYTHON_BLOCK = re.compile(
    r"^( {0,3})(`{3,}|~{3,})[ \t]*\{?\.?(?:python3?|py|ipython)\b[^\n]*\n(.*?)^ {0,3}\2[`~]*[ \t]*$",
    re.MULTILINE | re.IGNORECASE | re.DOTALL)


def _python_blocks(text: str) -> Iterator[tuple[int, str]]:
    """``(first line, source)`` of each fenced Python block, found without parsing the whole
    document (most documents have nothing the capability reading could use)."""
    for match in _PYTHON_BLOCK.finditer(text):
        first = text.count("\n", 0, match.start(3)) + 1
        yield first, match.group(3)


def _markdown(bundle: Any, path: str, text: str, mention: re.Pattern[str] | None
              ) -> Iterator[FileFacts]:
    if "```" not in text and "~~~" not in text:
        return
    if languages.has_fence(text):  # Ruby, Perl and PHP blocks
        yield from languages.fenced(bundle, path, text)
    if build_files.has_fence(text):  # PowerShell blocks
        yield from build_files.fenced(bundle, path, text)
    if word_lines(*indexed(text), _PYTHON_OPENERS):
        for first, source in _python_blocks(text):
            if not python_triggered(source):
                continue
            tree, _, _ = index.python_tree(bundle, (path, first), source)
            if tree is None:
                continue  # an example, not a program
            found = python_facts.analyse(path, source, tree, line_offset=first - 1)
            if found.facts or found.writes or found.stdout:
                yield attrs.evolve(found, warned=_warned(path, text, first))
    mentions = mention is not None and _mentioned(text, mention)
    if not mentions and not told(text):
        return
    for block in fenced_blocks(path, text, keep_warned=True):
        if block.language in ("shell", None):
            found_shell = shell_block(path, block, mention if mentions else None,
                                      SHELL_TRIGGERS)
            if found_shell is not None:
                yield found_shell


def _warned(path: str, text: str, first: int) -> bool:
    """Whether the fence opening before line ``first`` stands in a warning context."""
    doc = document(path, text)
    return first - 1 >= 1 and doc.line(first - 1).warned


def file_facts(bundle: Any) -> tuple[FileFacts, ...]:
    """Every file's facts (files with nothing to say left out, files that do not parse
    kept with ``parsed=False``); computed once per bundle."""
    return index.derived(bundle, "capabilities", "files", lambda: tuple(_collect(bundle)))


def _python_files_triggered(bundle: Any) -> bool:
    for file in bundle.files:
        if file.kind != "file" or not file.text:
            continue
        _, language = file_kind(file.path, file.text)
        if language == "python" and python_triggered(file.text):
            return True
    return False


def _collect(bundle: Any) -> Iterator[FileFacts]:
    mention = _mentions(script_names(bundle))
    read_python = _python_files_triggered(bundle)
    modules = module_finder(bundle) if read_python else None
    texts = {f.path: f.text for f in bundle.files if f.kind == "file" and f.text is not None}
    for file in bundle.files:
        if file.kind != "file" or not file.text:
            continue
        path, text = file.path, file.text
        kind, language = file_kind(path, text)
        lower = path.lower()
        if language == "python" and (lower.endswith(_PYTHON_SUFFIXES) or text.startswith("#!")):
            found_python = (_python_file(bundle, path, text, modules, texts.get)
                            if read_python else None)
            if found_python is not None:
                yield found_python
        elif kind == "markdown":
            yield from _markdown(bundle, path, text, mention)
        elif lower.endswith(_JS_SUFFIXES) and javascript_triggered(text):
            from lemon_core.auditor_kit.capabilities import javascript

            yield index.derived(bundle, "javascript", path,
                                lambda: javascript.analyse(path, text))  # noqa: B023
        elif lower.rpartition("/")[2] == "package.json":
            found_hooks = package_json.hook_facts(path, text)
            if found_hooks is not None:
                yield found_hooks
        elif (script_language := languages.language_of(path, text)) is not None:
            found_script = languages.file_facts(bundle, path, text, script_language)
            if found_script is not None:
                yield found_script
        elif (build_language := build_files.language_of(path, text)) is not None:
            found_build = build_files.file_facts(bundle, path, text, build_language)
            if found_build is not None:
                yield found_build
        elif ci_yaml.language_of(path, text):
            if len(text) <= ci_yaml.MAX_CHARS and ci_yaml.triggered(text):
                found_ci = index.derived(bundle, "ci-yaml", path,
                                         lambda: ci_yaml.analyse(path, text))  # noqa: B023
                if found_ci.facts or found_ci.writes:
                    yield found_ci
        elif language == "shell" and _is_shell_script(lower, text) and (
                shell_triggered(text) or (mention is not None and _mentioned(text, mention))):
            words = re.compile(f"{SHELL_TRIGGERS.pattern}|{inline.trigger_pattern()}" + (
                "" if mention is None else f"|{mention.pattern}"))
            result = shell.analyse_script(text, path, only=words)
            if result.facts or result.writes or result.invocations:
                yield FileFacts(path=path, language="shell", facts=result.facts,
                                writes=result.writes, invocations=result.invocations)


__all__ = ["Block", "fenced_blocks", "file_facts", "javascript_triggered", "script_names"]
