"""awk programs as capabilities: gawk's network special files, commands it runs, what it reads.

An awk program (a ``.awk`` file, or the program word of ``awk '…'``/``gawk``/``mawk`` on a
shell line, routed by :mod:`.inline`) is split into tokens by hand (strings, regular
expressions, names, operators; there is no awk grammar on PyPI for the pinned tree-sitter).
String expressions are folded where constant: juxtaposition concatenates, and variables
assigned a constant keep it. Then:

- ``"/inet/tcp/lport/host/rport"`` (also ``/inet4``, ``/inet6``, ``/inet/udp``) is a socket:
  network egress to that host, carrying every secret the program reads (``ENVIRON["…"]``, a
  credential file read with ``getline <``);
- ``system(expr)``, ``expr | getline``, ``expr |& getline`` and ``print … | expr`` run a
  command: a constant one is read by :mod:`.shell`; one built at run time runs data, and when
  the program also reads a socket, that data is fetched (the classic awk reverse shell);
- ``print … | "sh"`` feeds an interpreter.

Bounded: :data:`MAX_CHARS` of program text, :data:`MAX_TOKENS` tokens.
"""

from __future__ import annotations

import re

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DYNAMIC_EXEC,
    ENV,
    FETCHED,
    MAX_EVIDENCE,
    NETWORK_EGRESS,
    SECRET,
    SECRET_READ,
    Fact,
    FileFacts,
    Source,
    Write,
    clamp,
)
from lemon_core.auditor_kit.capabilities.values import HOLE

MAX_CHARS = 200_000
MAX_TOKENS = 50_000
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\|&|\||[A-Za-z_]\w*|\d+(?:\.\d+)?|\n|[;{}()\[\],<>=!+*/%~?:$-]|#[^\n]*|\S')
_INET = re.compile(r"/inet[46]?/(tcp|udp)/([^/]*)/([^/]*)/([^/\s\"]*)")
_ESC = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "/": "/"}


def _string(token: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESC.get(m.group(1), m.group(1)), token[1:-1])


@attrs.frozen
class _Expr:
    text: str
    taint: frozenset[Source]
    constant: bool


class Program:
    def __init__(self, path: str, line: int, text: str, holes: frozenset[Source]) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.holes = holes
        self.tokens = [t for t in _TOKEN.findall(text[:MAX_CHARS])[:MAX_TOKENS]
                       if not t.startswith("#")]
        self.vars: dict[str, _Expr] = {}
        self.facts: list[Fact] = []
        self.writes: list[Write] = []
        self.secrets: set[Source] = set()
        self.sockets: list[str] = []
        self.runs: list[tuple[_Expr, str]] = []

    def line_of(self, index: int) -> int:
        return self.line + sum(1 for t in self.tokens[:index] if t == "\n")

    def evidence(self) -> str:
        return clamp(" ".join(self.text.split()), MAX_EVIDENCE)

    def fact(self, kind: str, value: str | None, carries: frozenset[Source], detail: str,
             hidden: bool = False, callee: str = "") -> None:
        self.facts.append(Fact(kind, self.path, self.line, value, self.evidence(),
                               carries | self.holes, detail, hidden, callee))

    def expr(self, start: int) -> tuple[_Expr, int]:
        """A concatenation of strings, names and ``ENVIRON["X"]`` from ``start`` to the
        first token that ends it."""
        parts: list[str] = []
        taint: frozenset[Source] = frozenset()
        constant = True
        i = start
        tokens = self.tokens
        while i < len(tokens):
            token = tokens[i]
            if token.startswith('"'):
                parts.append(_string(token))
            elif token == "ENVIRON" and i + 3 < len(tokens) and tokens[i + 1] == "[":
                name = _string(tokens[i + 2]) if tokens[i + 2].startswith('"') else ""
                grade = vocab.secret_env(name) if name else None
                if grade is not None:
                    source = Source(ENV, name, self.path, self.line_of(i), grade)
                    taint |= {source}
                    self.secrets.add(source)
                parts.append(HOLE)
                constant = False
                i += 4
                continue
            elif re.fullmatch(r"[A-Za-z_]\w*", token) and token not in _KEYWORDS and (
                    i + 1 >= len(tokens) or tokens[i + 1] != "("):
                known = self.vars.get(token)
                if known is not None:
                    parts.append(known.text)
                    taint |= known.taint
                    constant = constant and known.constant
                else:
                    parts.append(HOLE)
                    constant = False
            elif token == "$" and i + 1 < len(tokens):
                parts.append(HOLE)
                constant = False
                i += 2
                continue
            else:
                break
            i += 1
        return _Expr("".join(parts), taint, constant and bool(parts)), i

    def run(self) -> None:
        tokens = self.tokens
        for i, token in enumerate(tokens):
            if re.fullmatch(r"[A-Za-z_]\w*", token) and i + 2 < len(tokens) and (
                    tokens[i + 1] == "=" and tokens[i + 2] != "="):
                value, _ = self.expr(i + 2)
                self.vars[token] = value
            elif token.startswith('"'):
                self.special(_string(token))
            if token == "system" and i + 1 < len(tokens) and tokens[i + 1] == "(":
                value, _ = self.expr(i + 2)
                self.runs.append((value, "shell"))
            elif token == "ENVIRON":
                self.expr(i)  # a secret read, wherever it stands
            elif token in ("|", "|&") and i + 1 < len(tokens) and tokens[i + 1] == "getline":
                source_cmd = self.backwards(i)
                target = tokens[i + 2] if i + 2 < len(tokens) and re.fullmatch(
                    r"[A-Za-z_]\w*", tokens[i + 2]) else None
                if source_cmd is None:
                    continue
                if self.is_socket(source_cmd):
                    host = self.sockets[-1] if self.sockets else HOLE
                    out = frozenset({Source(FETCHED, host, self.path, self.line_of(i))})
                elif source_cmd.constant and HOLE not in source_cmd.text:
                    out = self.constant(source_cmd.text)
                else:
                    self.runs.append((source_cmd, "shell"))
                    out = source_cmd.taint
                if target is not None:
                    self.vars[target] = _Expr(HOLE, out, False)
            elif token in ("|", "|&") and i + 1 < len(tokens) and tokens[i + 1] != "getline":
                value, _ = self.expr(i + 1)
                if value.text and not self.is_socket(value):
                    self.runs.append((value, "pipe"))
            elif token == "<" and i > 0 and tokens[i - 1] in ("getline",) or (
                    token == "<" and i > 1 and tokens[i - 2] == "getline"):
                value, _ = self.expr(i + 1)
                source = shell.file_source(value.text, self.path, self.line_of(i))
                if source is not None and source.kind == SECRET:
                    self.secrets.add(source)
                    self.fact(SECRET_READ, source.label, frozenset({source}), "file")
        for value in list(self.vars.values()):
            self.special(value.text)
        if any(host != HOLE for host in self.sockets):
            self.sockets = [host for host in self.sockets if host != HOLE]
        fetched = frozenset(Source(FETCHED, host, self.path, self.line) for host in self.sockets)
        for host in dict.fromkeys(self.sockets):
            self.fact(NETWORK_EGRESS, host, frozenset(self.secrets), "socket")
        for value, how in self.runs:
            self.command(value, how, fetched)

    def constant(self, text: str) -> frozenset[Source]:
        """Run the constant command ``text`` through the shell reading; what it prints."""
        result = shell.analyse(text, self.path, self.line)
        self.facts.extend(attrs.evolve(f, evidence=self.evidence()) for f in result.facts)
        self.writes.extend(result.writes)
        return result.out

    def backwards(self, index: int) -> _Expr | None:
        start = index - 1
        while start > 0 and (self.tokens[start - 1].startswith('"') or re.fullmatch(
                r"[A-Za-z_]\w*", self.tokens[start - 1]) and self.tokens[start - 1] not in
                _KEYWORDS):
            start -= 1
        if start < 0:
            return None
        value, _ = self.expr(start)
        return value

    def is_socket(self, value: _Expr) -> bool:
        if re.search(r"/inet[46]?/", value.text):
            self.special(value.text)
            return True
        return False

    def special(self, text: str) -> None:
        match = _INET.search(text)
        if match is not None:
            host = match.group(3)
            self.sockets.append(host if host and host != "0" else HOLE)
        elif re.match(r"/inet[46]?/(?:tcp|udp)", text):
            self.sockets.append(HOLE)  # a fragment: the rest is built at run time

    def command(self, value: _Expr, how: str, fetched: frozenset[Source]) -> None:
        text = value.text
        if value.constant and HOLE not in text:
            if how == "pipe" and vocab.tool_name(text.split()[0] if text.split() else "") in (
                    vocab.INTERPRETERS):
                self.fact(DYNAMIC_EXEC, text, value.taint | fetched, "interpreter")
                return
            stdin = frozenset(self.secrets) if how == "pipe" else frozenset()
            result = shell.analyse(text, self.path, self.line, stdin=stdin)
            self.facts.extend(attrs.evolve(f, evidence=self.evidence()) for f in result.facts)
            self.writes.extend(result.writes)
            return
        if not value.taint and not fetched and value.text.replace(HOLE, "").strip() == "":
            # a command read from the input (``{ system($0) }``): runs the input
            self.fact(DYNAMIC_EXEC, text, self.holes, "interpreter")
            return
        self.fact(DYNAMIC_EXEC, text, value.taint | fetched, "shell-eval" if fetched else "shell")


_KEYWORDS = frozenset({"getline", "print", "printf", "if", "else", "while", "for", "do",
                       "in", "return", "next", "exit", "close", "system", "BEGIN", "END",
                       "function", "delete", "break", "continue", "ENVIRON"})


def analyse_inline(code: str, path: str, line: int, holes: frozenset[Source]) -> object:
    """The program of ``awk '…'`` on a shell line (:mod:`.inline`)."""
    from lemon_core.auditor_kit.capabilities.inline import InlineResult

    program = Program(path, line, code, holes)
    program.run()
    return InlineResult(tuple(program.facts), tuple(program.writes), frozenset())


def analyse(path: str, text: str) -> FileFacts:
    """The facts of an awk program file."""
    program = Program(path, 1, text, frozenset())
    program.run()
    return FileFacts(path=path, language="awk", facts=tuple(program.facts),
                     writes=tuple(program.writes))


TRIGGERS = ("/inet", "system", "getline", "| \"", "|\"", "environ")


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in TRIGGERS)


__all__ = ["MAX_CHARS", "MAX_TOKENS", "Program", "analyse", "analyse_inline", "triggered"]
