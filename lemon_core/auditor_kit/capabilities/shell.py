"""Commands of a shell line as capabilities: a pipeline's data followed from stage to stage.

Used for command strings a Python script runs (``subprocess.run(["curl", …])``,
``os.system(f"…")``) and for the lines of markdown fences and shell scripts that run another
file of the skill (``python scripts/a.py | python scripts/b.py``). A line is split with
:mod:`shlex` into pipelines of simple commands; each stage's input (``carry``) is what the
stage before it printed. A stage that reads a credential (``cat ~/.aws/credentials``, ``gh auth
token``) adds a secret source, a decoder a decoded source, a download a fetched one; a network
client that sends its input or a file is a network fact carrying them; an interpreter reading
its input executes it; a script of the skill is an :class:`Invocation` whose output the judge
looks up. Words holding :data:`~.values.HOLE` (unknown parts of a string built in Python) carry
the taint of the value they came from.

Not a full shell grammar: variables assigned on the same line, command substitution and the
common redirections are followed; loops, functions and here-documents are not.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping

import attrs

from lemon_core.auditor_kit.capabilities import destruction, inline, vocab
from lemon_core.auditor_kit.capabilities.model import (
    CLOCK,
    DECODE,
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    FETCHED,
    FILE,
    HIGH,
    MAX_EVIDENCE,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    STDOUT,
    Fact,
    Source,
    Write,
    clamp,
)
from lemon_core.auditor_kit.capabilities.values import HOLE

MAX_TOKENS = 400
MAX_DEPTH = 4
SCRIPT_SUFFIX = re.compile(r"\.(?:py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|php|ps1)$", re.IGNORECASE)
_URL = re.compile(r"^(?:https?|ftp|wss?)://", re.IGNORECASE)
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)=(.*)$", re.DOTALL)
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")
_XARGS_VALUES = frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-s", "-a"})
_OPERATORS = frozenset({"|", "||", "&&", ";", "&", ";;", "|&", "(", ")"})
_REDIRECTS = frozenset({">", ">>", "<", ">|", "&>", "&>>", ">&", "<<<"})


@attrs.frozen
class Invocation:
    """A file of the skill run by a command: ``script`` as written, the words after it, what
    its input carries and, per argument position, what the file it names holds."""

    script: str
    argv: tuple[str, ...]
    stdin: frozenset[Source]
    argfiles: tuple[tuple[int, frozenset[Source]], ...]
    path: str
    line: int
    evidence: str


@attrs.frozen
class ShellResult:
    facts: tuple[Fact, ...] = ()
    writes: tuple[Write, ...] = ()
    invocations: tuple[Invocation, ...] = ()
    out: frozenset[Source] = frozenset()


_PUNCTUATION = ";&|()<>"
_LONGEST = ("&>>", "&&", "||", ";;", "|&", ">>", "&>", ">&", ">|", "<<<", "<<")


def _operators(run: str) -> list[str]:
    """A run of operator characters (``);``, ``)|``) as the operators it holds."""
    out = []
    i = 0
    while i < len(run):
        for op in _LONGEST:
            if run.startswith(op, i):
                out.append(op)
                i += len(op)
                break
        else:
            out.append(run[i])
            i += 1
    return out


def tokens(text: str) -> list[str] | None:
    """The words and operators of ``text`` (None when it does not split: unbalanced
    quotes)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    out: list[str] = []
    try:
        for token in lexer:
            if token and token[0] in _PUNCTUATION and not token.strip(_PUNCTUATION):
                out.extend(_operators(token))
            else:
                out.append(token)
            if len(out) > MAX_TOKENS:
                break
    except ValueError:
        return None
    return out


def file_source(word: str, path: str, line: int) -> Source | None:
    """What reading the file ``word`` yields: a secret source for a credential store, a
    symbolic file source for another path."""
    if not word or HOLE in word or word.startswith("-"):
        return None
    found = vocab.secret_path(word)
    if found is not None:
        return Source(SECRET, vocab.normal_path(word), path, line, found[1])
    if "/" in word or "." in word:
        return Source(FILE, vocab.normal_path(word), path, line)
    return None


class _Pipeline:
    def __init__(self, path: str, line: int, evidence: str, holes: frozenset[Source],
                 variables: dict[str, frozenset[Source]]) -> None:
        self.path = path
        self.line = line
        self.evidence = clamp(evidence, MAX_EVIDENCE)
        self.holes = holes
        self.variables = variables
        #: Known texts of shell variables (``for rc in a b``, ``X=/tmp/y``), for paths.
        self.values: dict[str, list[str]] = {}
        #: Bodies of here-documents, by the placeholder word that replaced them.
        self.heredocs: dict[str, str] = {}
        self.facts: list[Fact] = []
        self.writes: list[Write] = []
        self.invocations: list[Invocation] = []
        self.depth = 0
        #: The program text a stage reads on its input (a here-document, a here-string).
        self.stdin_code: str | None = None
        #: What the script tells about its variables and branches (:mod:`.destruction`):
        #: names assigned anywhere, ``set -u`` on, an orphan branch made.
        self.assigned: set[str] = set()
        self.strict = False
        self.orphan = False
        #: The folder whose search feeds the current loop or ``xargs`` (``find ~ … | while
        #: read d``): a deletion of a path chosen at run time there deletes what it lists.
        self.walking: str | None = None
        self.filtered = False
        #: The taint of the conditions (``if``, ``while``) the current line runs under.
        self.gates: list[frozenset[Source]] = []

    def fact(self, kind: str, value: str | None, carries: Iterable[Source] = (),
             detail: str = "", scope: str = "") -> None:
        if kind == DESTRUCTION and self.gates:
            carries = frozenset(carries).union(*self.gates)
        self.facts.append(Fact(kind, self.path, self.line, value, self.evidence,
                               frozenset(carries), detail, scope=scope))

    def destroys(self, words: list[str]) -> None:
        """The destruction facts of one simple command (wrappers still in front)."""
        assigned = self.assigned | set(self.variables)
        for found in destruction.command(words, values=self.values, assigned=assigned,
                                         strict=self.strict, orphan=self.orphan,
                                         walking=self.walking, filtered=self.filtered):
            self.fact(DESTRUCTION, found.target, (), found.detail, found.scope)
        if destruction.encrypts(words):
            self.fact(DESTRUCTION, "files, encrypted", (), "encrypt", "quiet")

    def expand(self, word: str) -> list[str]:
        """``word`` with its variables replaced by their known texts (one word per known
        value of a loop variable; the word itself when none is known)."""
        names = _VAR.findall(word) if "$" in word else []
        known = [n for n in names if n in self.values]
        if not known:
            return [word]
        pattern = re.compile(r"\$\{?" + re.escape(known[0]) + r"\}?")
        return [pattern.sub(value.replace("\\", "\\\\"), word)
                for value in self.values[known[0]][:8]]

    def word_taint(self, word: str, extra: Mapping[int, frozenset[Source]], index: int
                   ) -> frozenset[Source]:
        taint = extra.get(index, frozenset())
        body = self.heredocs.get(word)
        if body is not None:
            url = runs_download(body, self.path, self.line)
            if url is not None:
                taint = taint | {Source(FETCHED, url, self.path, self.line)}
        if HOLE in word:
            taint = taint | self.holes
        if "$" in word:
            for name in _VAR.findall(word):
                taint = taint | self.variables.get(name, frozenset())
        return taint

    def stage(self, words: list[str], extra: dict[int, frozenset[Source]],
              carry: frozenset[Source]) -> frozenset[Source]:
        """Run one simple command; returns what it prints (as sources)."""
        inputs: list[str] = []
        outputs: list[tuple[str, bool]] = []
        plain: list[str] = []
        self.stdin_code = None
        taints: dict[int, frozenset[Source]] = {}
        i = 0
        while i < len(words):
            word = words[i]
            if word in _REDIRECTS and i + 1 < len(words):
                target = words[i + 1]
                if word == "<":
                    inputs.append(target)
                elif word == "<<<":
                    carry = carry | self.word_taint(target, extra, i + 1)
                    self.stdin_code = self.heredocs.get(target, target)
                elif word in (">", ">>", ">|", "&>", "&>>") and not target.startswith("&"):
                    outputs.append((target, word.endswith(">>")))
                i += 2
                continue
            if word.isdigit() and i + 1 < len(words) and words[i + 1] in _REDIRECTS:
                i += 1
                continue
            taints[len(plain)] = self.word_taint(word, extra, i)
            plain.append(word)
            i += 1
        self.destroys(plain)
        # leading assignments (X=1 cmd) and wrappers (sudo, env, timeout 5)
        while plain and _ASSIGN.match(plain[0]) and len(plain) > 1:
            plain.pop(0)
            taints = {k - 1: v for k, v in taints.items() if k > 0}
        fed = False
        while plain and vocab.tool_name(plain[0]) in vocab.WRAPPERS and len(plain) > 1:
            xargs = vocab.tool_name(plain[0]) == "xargs"
            fed = fed or xargs
            plain.pop(0)
            taints = {k - 1: v for k, v in taints.items() if k > 0}
            while plain and (plain[0].startswith("-") or plain[0].isdigit()
                             or _ASSIGN.match(plain[0])) and len(plain) > 1:
                # xargs -I {} / -n 1: the option's value is not the command
                skip = 2 if xargs and plain[0] in _XARGS_VALUES and len(plain) > 2 else 1
                del plain[:skip]
                taints = {k - skip: v for k, v in taints.items() if k >= skip}
        if fed and len(plain) > 1:
            # xargs: what the stage reads becomes the command's arguments
            taints[1] = taints.get(1, frozenset()) | carry
            carry = frozenset()
        for target in inputs:
            source = file_source(target, self.path, self.line)
            if source is not None:
                carry = carry | {source}
                if source.kind == SECRET:
                    self.fact(SECRET_READ, source.label, (source,), "file")
        arg_taint = frozenset().union(*taints.values()) if taints else frozenset()
        out = self._command(plain, taints, carry, arg_taint)
        for target, append in outputs:
            for expanded in self.expand(target):
                self._write(expanded, out | (carry if not plain else frozenset()), append)
            out = frozenset()
        return out

    def _write(self, target: str, carries: frozenset[Source], append: bool) -> None:
        if HOLE in target:
            return
        found = vocab.persistence_path(target)
        if found is not None:
            self.fact(PERSISTENCE, vocab.normal_path(target), carries, found[1])
        found = vocab.destructive_target(target) if target.startswith("/dev/") else None
        if not append and found:  # a folder cannot be overwritten; a disk can
            self.fact(DESTRUCTION, f"the disk {found}", (), "overwrite")
        self.writes.append(Write(vocab.normal_path(target), carries, self.path, self.line))

    def _command(self, words: list[str], taints: dict[int, frozenset[Source]],
                 carry: frozenset[Source], arg_taint: frozenset[Source]) -> frozenset[Source]:
        if not words:
            return carry
        tool = vocab.tool_name(words[0])
        secret = vocab.secret_command(words)
        if secret is not None:
            source = Source(SECRET, secret, self.path, self.line, HIGH)
            self.fact(SECRET_READ, secret, (source,), "command")
            return frozenset({source})
        file_args = [w for w in words[1:] if not w.startswith("-")]
        positional = _positional(words)
        read_args = positional[:-1] if tool in ("cp", "rsync", "install") else positional
        files = frozenset(s for s in (file_source(w, self.path, self.line) for w in read_args)
                          if s is not None) if tool in vocab.READERS else frozenset()
        for source in files:
            if source.kind == SECRET:
                self.fact(SECRET_READ, source.label, (source,), "file")
        if tool in vocab.NETWORK_TOOLS or tool in vocab.DNS_TOOLS:
            return self._network(tool, words, taints, carry, arg_taint)
        if tool in vocab.DECODE_TOOLS and self._decodes(tool, words):
            decoded = Source(DECODED, tool, self.path, self.line)
            self.fact(DECODE, tool, carry | files, "shell")
            return carry | files | arg_taint | {decoded}
        if tool in ("rm", "dd", "mkfs", "wipefs", "shred") or tool.startswith("mkfs."):
            return frozenset()  # what they destroy: :meth:`destroys`
        if tool == "date":
            return frozenset({Source(CLOCK, "the date", self.path, self.line)})
        if tool == "crontab" and any(not w.startswith("-l") for w in words[1:]):
            self.fact(PERSISTENCE, "crontab", carry | arg_taint, "cron")
            return frozenset()
        if tool == "tee":
            for word in file_args:
                self._write(word, carry, "-a" in words)
            return carry
        if tool in ("cp", "mv", "install", "ln") and len(file_args) >= 2:
            moved = frozenset().union(*(frozenset({s}) for s in files
                                        if s.label != vocab.normal_path(file_args[-1])))
            self._write(file_args[-1], moved | arg_taint, False)
            return frozenset()
        script = self._script(tool, words)
        if script is not None:
            index = words.index(script)
            argv = tuple(words[index + 1:])
            argfiles = []
            for position, word in enumerate(argv):
                source = file_source(word, self.path, self.line)
                taint = taints.get(index + 1 + position, frozenset())
                found = (frozenset({source}) if source is not None else frozenset()) | taint
                if found:
                    argfiles.append((position, found))
            self.invocations.append(Invocation(script, argv, carry, tuple(argfiles), self.path,
                                               self.line, self.evidence))
            return frozenset({Source(STDOUT, script, self.path, self.line)})
        if tool in vocab.SHELLS and tool not in ("pwsh", "powershell") and (
                "-c" in words[1:-1] and self.depth < MAX_DEPTH):  # PowerShell: see inline
            code = words[words.index("-c") + 1]
            inner = tokens(code) if HOLE not in code else None
            if inner:
                self.depth += 1
                try:
                    return _sequence(inner, self, carry, self.depth)
                finally:
                    self.depth -= 1
        if tool in inline.INTERPRETERS:
            self._inline(tool, words, taints, carry)
        if tool in vocab.INTERPRETERS and tool not in vocab.WRAPPERS:
            code = self._inline_code(tool, words, taints)
            if code is not None:
                self.fact(DYNAMIC_EXEC, tool, code | carry, "interpreter")
                return frozenset()
            if not file_args or file_args == ["-"] or tool in ("eval", "iex", "source", ".",
                                                                "invoke-expression"):
                # "interpreter": fed by a pipe; "shell-eval": fed the output of a command
                self.fact(DYNAMIC_EXEC, tool, carry | arg_taint,
                          "shell-eval" if arg_taint else "interpreter")
                return frozenset()
        return carry | files | arg_taint

    def _inline(self, tool: str, words: list[str], taints: dict[int, frozenset[Source]],
                carry: frozenset[Source]) -> None:
        """The program text of ``perl -e``, ``ruby -e``, ``php -r`` or a here-document fed to
        one, read by that language's frontend (:mod:`.inline`)."""
        holes = frozenset().union(*taints.values()) if taints else frozenset()
        found = inline.run(tool, words, self.stdin_code, self.path, self.line, holes | carry)
        if found is not None:
            self.facts.extend(attrs.evolve(f, evidence=self.evidence) for f in found.facts)
            self.writes.extend(found.writes)

    @staticmethod
    def _decodes(tool: str, words: list[str]) -> bool:
        flags = set(words[1:])
        if tool in ("base64", "base32", "basenc"):
            return bool(flags & {"-d", "--decode", "-D", "-di", "-id"})
        if tool == "xxd":
            return bool(flags & {"-r", "-r -p", "-rp", "-pr"}) or "-r" in " ".join(words)
        if tool == "openssl":
            return "-d" in flags
        if tool == "tr":
            return any("n-za-m" in w.lower() for w in words[1:])
        return True

    def _inline_code(self, tool: str, words: list[str], taints: dict[int, frozenset[Source]]
                     ) -> frozenset[Source] | None:
        for index, word in enumerate(words[1:-1], start=1):
            if word in ("-c", "-e", "-Command", "-command", "--eval", "-EncodedCommand",
                        "-enc", "-ec"):
                return taints.get(index + 1, frozenset()) | (
                    frozenset({Source(DECODED, "PowerShell -EncodedCommand", self.path,
                                      self.line)}) if word.lower().startswith("-e")
                    and tool in ("pwsh", "powershell") else frozenset())
        return None

    @staticmethod
    def _script(tool: str, words: list[str]) -> str | None:
        """The skill file a command runs, as written, when it names one by a path."""
        if "/" in words[0] and SCRIPT_SUFFIX.search(words[0]):
            return words[0]
        if tool not in vocab.INTERPRETERS and tool not in ("uv", "node", "npx", "tsx", "deno",
                                                           "bun", "poetry", "pipenv"):
            return None
        for word in words[1:]:
            if word.startswith("-"):
                if word in ("-m", "-c", "-e"):
                    return None
                continue
            if word in ("run", "exec"):
                continue
            return word if SCRIPT_SUFFIX.search(word) else None
        return None

    def _network(self, tool: str, words: list[str], taints: dict[int, frozenset[Source]],
                 carry: frozenset[Source], arg_taint: frozenset[Source]) -> frozenset[Source]:
        positional = _positional(words)
        if tool in ("scp", "rsync", "sftp"):
            remote = [w for w in positional if _REMOTE.match(w)]
            if not remote or (positional and positional[-1] not in remote):
                # a local copy, or a download into the last argument: nothing is sent
                return frozenset({Source(FETCHED, remote[0], self.path, self.line)}
                                 if remote else ())
        destination = None
        for word in words[1:]:
            if _URL.match(word) or (HOLE not in word and "@" in word and ":" in word
                                    and tool in ("scp", "rsync", "sftp")):
                destination = word
                break
        if destination is None:
            hosts = [w for w in words[1:] if not w.startswith("-") and not w.isdigit()
                     and not w.startswith("@")]
            destination = hosts[0] if hosts else None
        sent = set(arg_taint)
        reads_stdin = tool in ("nc", "ncat", "netcat", "socat", "telnet", "ssh", "sendmail",
                               "mail", "mutt", "openssl", "http", "https", "httpie", "xh")
        previous = ""
        for word in words[1:]:
            data = None
            if word.startswith("@"):
                data = word[1:]
            elif "=@" in word:
                data = word.split("=@", 1)[1].split(";", 1)[0]
            elif previous in ("-T", "--upload-file", "--post-file", "--body-file", "-InFile"):
                data = word
            elif word.startswith(("--post-file=", "--body-file=")):
                data = word.split("=", 1)[1]
            if data == "-":
                reads_stdin = True
            elif data:
                source = file_source(data, self.path, self.line)
                if source is not None:
                    sent.add(source)
                    if source.kind == SECRET:
                        self.fact(SECRET_READ, source.label, (source,), "file")
            previous = word
        if tool in ("scp", "rsync", "sftp"):
            for word in positional[:-1]:
                source = file_source(word, self.path, self.line)
                if source is not None:
                    sent.add(source)
                    if source.kind == SECRET:
                        self.fact(SECRET_READ, source.label, (source,), "file")
        if reads_stdin:
            sent |= carry
        detail = "dns" if tool in vocab.DNS_TOOLS else "command"
        self.fact(NETWORK_EGRESS, destination, sent, detail)
        return frozenset({Source(FETCHED, destination or tool, self.path, self.line)})


#: Options whose value is not data sent (an identity file, an exclusion, a header name, an
#: output file, a port): the word after them is skipped.
_VALUE_OPTIONS = frozenset({
    "-i", "-o", "-p", "-P", "-F", "-J", "-l", "-c", "-e", "-E", "-S", "--exclude",
    "--include", "--exclude-from", "--include-from", "--rsh", "-O", "--output", "-A",
    "--user-agent", "-x", "--proxy", "-m", "--max-time", "--connect-timeout", "-X",
    "--request", "-w", "--write-out", "-b", "--cookie", "--cookie-jar", "-r", "--range",
    "--retry", "-u", "--user", "-K", "--config"})
_REMOTE = re.compile(r"^(?:[\w.-]+@)?[\w.-]+:(?!//)")


def _positional(words: list[str]) -> list[str]:
    """A command's arguments without its options and their values."""
    out: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word in _VALUE_OPTIONS:
            skip = True
            continue
        if word.startswith("-"):
            continue
        out.append(word)
    return out


def _split(items: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for item in items:
        if item in ("&&", "||", ";", "&", ";;"):
            out.append([])
        else:
            out[-1].append(item)
    return [part for part in out if part]


_INNER = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")


def _substitutions(items: list[str], run: _Pipeline, depth: int
                   ) -> tuple[list[str], dict[int, frozenset[Source]]]:
    """``$( … )`` and backquotes replaced by a hole carrying what the inner command prints."""
    out: list[str] = []
    extra: dict[int, frozenset[Source]] = {}
    i = 0
    while i < len(items):
        item = items[i]
        if (item.endswith("$") or item == "<") and i + 1 < len(items) and items[i + 1] == "(":
            level, j = 1, i + 2
            while j < len(items) and level:
                level += {"(": 1, ")": -1}.get(items[j], 0)
                j += 1
            inner = items[i + 2:j - 1]
            taint = (_sequence(inner, run, frozenset(), depth + 1) if depth < MAX_DEPTH
                     else frozenset())
            extra[len(out)] = taint
            out.append(HOLE if item == "<" else item[:-1] + HOLE)
            i = j
            continue
        if ("$(" in item or "`" in item) and depth < MAX_DEPTH:
            taint: frozenset[Source] = frozenset()
            for match in _INNER.finditer(item):
                inner_items = tokens(match.group(1) or match.group(2) or "")
                if inner_items:
                    taint = taint | _sequence(inner_items, run, frozenset(), depth + 1)
            if taint:
                extra[len(out)] = taint
                item = _INNER.sub(HOLE, item)
        out.append(item)
        i += 1
    return out, extra


def _sequence(items: list[str], run: _Pipeline, carry: frozenset[Source], depth: int
              ) -> frozenset[Source]:
    items = _groups(items, run, depth)
    items, extra = _substitutions(items, run, depth)
    last: frozenset[Source] = frozenset()
    for command in _split_with_offsets(items):
        start, words = command
        local = {k - start: v for k, v in extra.items() if start <= k < start + len(words)}
        while words and words[0] in _KEYWORDS:
            words = words[1:]
            local = {k - 1: v for k, v in local.items() if k > 0}
        if not words:
            continue
        if all(_ASSIGN.match(w) for w in words):
            for index, word in enumerate(words):
                name, value = _ASSIGN.match(word).groups()  # type: ignore[union-attr]
                taint = run.word_taint(value, local, index)
                url = runs_download(value, run.path, run.line) if len(value) > 8 else None
                if url is not None:
                    taint = taint | {Source(FETCHED, url, run.path, run.line)}
                run.variables[name] = taint
                if HOLE not in value and "$(" not in value:
                    run.values[name] = [value]
                last = taint
            continue
        if words[0] == "for" and len(words) >= 3 and words[2] == "in":
            run.values[words[1]] = [w for v in words[3:] for w in run.expand(v)][:8]
            continue
        stream = carry
        for stage in _stages(words, local):
            stage_words, stage_extra = stage
            stream = run.stage(stage_words, stage_extra, stream)
        last = stream
        carry = frozenset()
    return last


_KEYWORDS = frozenset({"do", "then", "else", "elif", "if", "while", "until", "!", "{", "}",
                       "done", "fi", "time"})


def _groups(items: list[str], run: _Pipeline, depth: int) -> list[str]:
    """``( a; b ) | c``: the group's commands run, and what they print feeds ``c``: the
    group is replaced by a hole carrying their output, read by ``cat``."""
    if "(" not in items or depth >= MAX_DEPTH:
        return items
    out: list[str] = []
    i = 0
    while i < len(items):
        if items[i] == "(" and (not out or out[-1] in ("&&", "||", ";", "|", "&")):
            level, j = 1, i + 1
            while j < len(items) and level:
                level += {"(": 1, ")": -1}.get(items[j], 0)
                j += 1
            inner = items[i + 1:j - 1]
            printed: frozenset[Source] = frozenset()
            for _, command in _split_with_offsets(inner):
                printed = printed | _sequence(command, run, frozenset(), depth + 1)
            word = f"LEMON_GROUP_{len(run.variables)}"
            run.variables[word] = printed
            out.extend(["cat", "<<<", "$" + word])
            i = j
            continue
        out.append(items[i])
        i += 1
    return out


def _split_with_offsets(items: list[str]) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    start = 0
    current: list[str] = []
    for index, item in enumerate(items):
        if item in ("&&", "||", ";", "&", ";;", "(", ")"):
            if current:
                out.append((start, current))
            current = []
            start = index + 1
        else:
            current.append(item)
    if current:
        out.append((start, current))
    return out


def _stages(words: list[str], extra: dict[int, frozenset[Source]]
            ) -> list[tuple[list[str], dict[int, frozenset[Source]]]]:
    out = []
    start = 0
    current: list[str] = []
    for index, word in enumerate(words + ["|"]):
        if word in ("|", "|&"):
            out.append((current, {k - start: v for k, v in extra.items()
                                  if start <= k < start + len(current)}))
            current = []
            start = index + 1
        else:
            current.append(word)
    return [stage for stage in out if stage[0]]


def analyse(text: str, path: str, line: int, *, stdin: frozenset[Source] = frozenset(),
            holes: frozenset[Source] = frozenset(),
            variables: dict[str, frozenset[Source]] | None = None) -> ShellResult:
    """The capabilities of the shell command ``text`` (one logical line) at ``path:line``;
    ``stdin`` is what its first stage reads, ``holes`` the taint of every unknown part."""
    items = tokens(text)
    if not items:
        return ShellResult()
    run = _Pipeline(path, line, text.strip(), holes, {} if variables is None else variables)
    out = _sequence(items, run, stdin, 0)
    return ShellResult(tuple(run.facts), tuple(run.writes), tuple(run.invocations), out)


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
MAX_SCRIPT_LINES = 5_000


_ASSIGNED = re.compile(r"(?:^|[\s;&|(])(?:(?:local|declare|typeset|readonly|export)\s+(?:-\w+\s+)*"
                       r"|for\s+|select\s+)?([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=|"
                       r"(?:^|[\s;&|(])(?:for|select)\s+([A-Za-z_]\w*)\s|"
                       r"\b(?:read|mapfile|readarray|getopts)\b([^;&|\n]*)", re.MULTILINE)
_STRICT = re.compile(r"\bset\s+(?:-\w*u\w*|-o\s+nounset)\b|\bset\s+-\w*\s+-\w*u")
_OPENERS = ("if ", "elif ", "while ", "until ")
#: A search of the home folder or the root feeding a loop or ``xargs``.
_WALK = re.compile(r"\b(?:find|fd|ls|locate)\s+(?:-\S+\s+)*[\"']?((?:~|\$\{?HOME\}?|/)[^\s\"']*)"
                   r"[\"']?(?=\s|$)|\bfor\s+\w+\s+in\s+[\"']?((?:~|\$\{?HOME\}?)[^\s\"']*)[\"']?/\*")
_FEEDS = re.compile(r"\|\s*(?:while\s+read|xargs)\b|-exec\b|\bfor\s")


def _prescan(run: _Pipeline, text: str) -> None:
    """What the whole script says about its variables (:mod:`.destruction` needs it before
    the line that uses them)."""
    for match in _ASSIGNED.finditer(text[:500_000]):
        if match.group(1) or match.group(2):
            run.assigned.add(match.group(1) or match.group(2))
        else:
            run.assigned.update(re.findall(r"(?<![-\w])([A-Za-z_]\w*)", match.group(3) or ""))
    run.strict = bool(_STRICT.search(text))
    run.orphan = "--orphan" in text


def _gate(run: _Pipeline, items: list[str], printed: frozenset[Source], line: str
          ) -> frozenset[Source]:
    """What decides a condition: fetched data it reads, or the clock compared with a fixed
    moment (a number of epoch seconds or a date)."""
    taint = set(printed)
    for word in items:
        for name in _VAR.findall(word) if "$" in word else ():
            taint |= run.variables.get(name, frozenset())
    moment = re.search(r"\b1[5-9]\d{8}\b|\b20\d\d-?[01]\d-?[0-3]\d\b", line)
    return frozenset(s for s in taint if s.kind == FETCHED or (s.kind == CLOCK and moment))


def analyse_script(text: str, path: str, *, only: re.Pattern[str] | None = None,
                   first_line: int = 1) -> ShellResult:
    """A whole shell script: lines joined across backslashes, here-documents read as the
    input of their command, variables, loops and groups followed from line to line. With
    ``only``, a line is read when the pattern finds something in it (assignments are always
    read, so the variables a read line uses are known). Destruction under an ``if`` or
    ``while`` whose condition reads fetched data or the clock carries that condition.
    ``first_line`` is the number of the text's first line in its file."""
    lines = text.split("\n")[:MAX_SCRIPT_LINES]
    run = _Pipeline(path, 1, "", frozenset(), {})
    _prescan(run, text)
    i = 0
    while i < len(lines):
        number = i + first_line
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        found = _HEREDOC.search(line) if "<<" in line and not line.lstrip().startswith("#") \
            else None
        if found is not None:
            tag = found.group(2)
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i].strip() != tag:
                body.append(lines[i])
                i += 1
            key = f"LEMON_HEREDOC_{len(run.heredocs)}"
            run.heredocs[key] = "\n".join(body)
            line = line[:found.start()] + "<<< " + key + line[found.end():]
            while line.count("$(") > line.count(")") and i + 1 < len(lines):
                i += 1
                line += " " + lines[i]
        i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        opens = stripped.startswith(_OPENERS)
        closes = len(run.gates) if re.search(r"(?:^|[;\s])(?:fi|done)\s*(?:[;|&>].*)?$",
                                             stripped) else 0
        if stripped.startswith(("fi", "done")) and run.gates and not opens:
            run.gates.pop()
            closes = 0
        if only is not None and not only.search(line) and not _ASSIGN.match(stripped) and not (
                opens or any(run.gates) or run.walking) and not _WALK.search(stripped):
            continue
        items = tokens(line)
        if not items:
            continue
        run.line = number
        run.evidence = clamp(stripped, MAX_EVIDENCE)
        before = len(run.facts)
        walk = _WALK.search(stripped) if any(
            w in stripped for w in ("find", "fd ", "ls ", "locate", "for ")) else None
        folder = vocab.normal_path(walk.group(1) or walk.group(2) or "~").rstrip("/") or "/" \
            if walk is not None else ""
        if walk is not None and _FEEDS.search(stripped) and vocab.destructive_target(folder):
            run.walking = folder
            run.filtered = bool(re.search(r"\s-(?:i?name|i?path|i?regex|size|mtime|newer)\s",
                                          stripped)) and not re.search(r"dirname|/\.\.", stripped)
        printed = _sequence(items, run, frozenset(), 0)
        if run.walking and (closes or re.search(r"(?:^|[;\s])done\b", stripped) or (
                walk is not None and "while" not in stripped and not stripped.endswith("do"))):
            run.walking = None
        guarded = stripped.startswith(("[", "test ")) and "&&" in stripped
        if opens or guarded:
            gate = _gate(run, items, printed, stripped)
            if gate:
                run.facts[before:] = [attrs.evolve(f, carries=f.carries | gate)
                                      if f.kind == DESTRUCTION else f
                                      for f in run.facts[before:]]
            if opens and not closes and not stripped.startswith("elif"):
                run.gates.append(gate)
            elif opens and stripped.startswith("elif") and run.gates:
                run.gates[-1] = run.gates[-1] | gate
    return ShellResult(tuple(run.facts), tuple(run.writes), tuple(run.invocations), frozenset())


def analyse_words(words: list[str], path: str, line: int, *,
                  stdin: frozenset[Source] = frozenset(),
                  holes: frozenset[Source] = frozenset()) -> ShellResult:
    """Like :func:`analyse` for an argument list (``subprocess.run([...])``): no shell
    splitting, every word as given."""
    if not words:
        return ShellResult()
    run = _Pipeline(path, line, " ".join(words), holes, {})
    extra = {i: holes for i, w in enumerate(words) if HOLE in w}
    out = run.stage(list(words), extra, stdin)
    return ShellResult(tuple(run.facts), tuple(run.writes), tuple(run.invocations), out)


_NETWORK_WORDS = ("curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod",
                  "downloadstring", "nc ", "fetch")
#: ``Exec=``, ``ExecStart=``: the key of a desktop entry or unit line before its command.
_KEY = re.compile(r"^\s*[A-Za-z][\w-]*=(?=\S)")
#: The schedule of a crontab line (five fields, or ``@daily``) before its command.
_CRON = re.compile(r"^\s*(?:@\w+\s+|(?:[\d*/,-]+\s+){5})")
_BACKTICKS = re.compile(r"`([^`\n]{4,2000})`")


def runs_download(text: str, path: str = "", line: int = 0) -> str | None:
    """The URL a shell command inside ``text`` (a line, or a span in backquotes) downloads
    and runs, or None: what a file written with ``text`` does when it runs or is followed."""
    lower = text.lower()
    if not any(word in lower for word in _NETWORK_WORDS):
        return None
    candidates = [m.group(1) for m in _BACKTICKS.finditer(text)]
    candidates += [_CRON.sub("", _KEY.sub("", piece)) for piece in text.split("\n")[:400]
                   if len(piece) <= 2000 and any(w in piece.lower() for w in _NETWORK_WORDS)]
    for candidate in candidates[:100]:
        for found in analyse(candidate, path, line).facts:
            if found.kind == DYNAMIC_EXEC:
                for source in found.carries:
                    if source.kind == FETCHED:
                        return source.label
    return None


__all__ = ["Invocation", "ShellResult", "analyse", "analyse_script", "analyse_words",
           "file_source", "runs_download", "tokens"]
