"""What a Python program destroys: the destruction knowledge of the interpreter.

:class:`Destruction` is mixed into :class:`~.python_calls.Calls`: deletions (``shutil.rmtree``,
``os.remove``, ``Path.unlink``) by scope (:mod:`.destruction`), SQL statements that drop a
schema or a database (wide when the connection comes from the environment), encryption calls
and walks over the user's files (for the ransomware combination), the clock, and the
conditions (``if``, ``while``) whose fetched data or clock decide whether a deletion runs.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from lemon_core.auditor_kit.capabilities import destruction, vocab
from lemon_core.auditor_kit.capabilities.model import (
    CLOCK,
    DESTRUCTION,
    FETCHED,
    MAX_EVIDENCE,
    QUIET,
    SCOPED,
    SECRET,
    SECRET_READ,
    WIDE,
    Fact,
    Source,
    clamp,
    merge_fact,
)
from lemon_core.auditor_kit.capabilities.values import HOLE, Value

#: Calls that read the clock.
CLOCK_CALLS = frozenset({"time.time", "time.time_ns", "time.localtime", "time.gmtime",
                         "datetime.datetime.now", "datetime.datetime.utcnow",
                         "datetime.datetime.today", "datetime.date.today", "arrow.now",
                         "arrow.utcnow", "pendulum.now", "pendulum.today"})
RECURSIVE = frozenset({"rmtree", "removedirs"})
_ENCRYPTORS = frozenset({"encrypt", "encrypt_file", "encryptFile", "encryptStream",
                         "encryptor", "encrypt_and_digest"})
_DATE = re.compile(r"^\d{4}-\d\d-\d\d")


class Destruction:
    """The destruction the interpreter knows (mixed into it)."""

    # provided by the interpreter
    gates: list[frozenset[Source]]
    lines: Any

    def fact(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - the interpreter's
        raise NotImplementedError

    def source(self, kind: str, label: str, node: ast.AST, grade: str = "low") -> Source:
        raise NotImplementedError  # pragma: no cover - the interpreter's

    def eval(self, node: ast.expr | None, frame: Any) -> Value:
        raise NotImplementedError  # pragma: no cover - the interpreter's

    def gate(self) -> frozenset[Source]:
        return frozenset().union(*self.gates) if self.gates else frozenset()

    def destroy(self, node: ast.AST, target: str, detail: str, scope: str) -> None:
        self.fact(DESTRUCTION, node, target, self.gate(), detail, scope=scope)

    def deletion(self, last: str, text: str | None, node: ast.AST) -> None:
        """A deletion of the path ``text`` (None: chosen at run time) by ``last``."""
        found = (vocab.destructive_target(text, children=True) if text is not None else None)
        if found:
            self.destroy(node, found, last, WIDE)
            return
        scope = destruction.path_scope(text) if text is not None else None
        if scope == SCOPED and last not in RECURSIVE:
            scope = QUIET
        if scope is not None and HOLE not in (text or HOLE):
            self.destroy(node, vocab.normal_path(text or ""), last, scope)

    def clock(self, node: ast.AST) -> Value:
        return Value(taint=frozenset({self.source(CLOCK, "the date", node)}))

    def sql_call(self, name: str, args: list[Value], node: ast.AST) -> None:
        if name not in destruction.SQL_METHODS or not args:
            return
        text = args[0].text()
        if text is None or len(text) > 20_000:
            return
        found = destruction.sql(text, self._db_from_env())
        if found is not None:
            self.destroy(node, found.target, "sql", found.scope)

    def _db_from_env(self) -> bool:
        cached = getattr(self, "_db_env", None)
        if cached is None:
            cached = destruction.server_from_env("\n".join(self.lines or ()))
            self._db_env = cached
        return cached

    def encryption(self, last: str, node: ast.AST) -> None:
        if last in _ENCRYPTORS:
            self.destroy(node, "files, encrypted", "encrypt", QUIET)

    def walk(self, text: str | None, node: ast.AST) -> None:
        """A listing of ``text``: a walk over the user's files when it is the home folder,
        one of its folders or the root."""
        if text is None:
            return
        base = text.split("*")[0].rstrip("/") or text
        if vocab.in_home(base) or vocab.destructive_target(base):
            self.fact(DESTRUCTION, node, f"the files under {vocab.normal_path(base)}",
                      frozenset(), "walk", scope=QUIET)

    def condition(self, test: ast.expr, frame: Any) -> frozenset[Source]:
        """What decides ``test``: fetched data, or the clock compared with a fixed moment."""
        self.eval(test, frame)
        found: set[Source] = set()
        for node in _flags(test):  # a fetched document's field tested for truth
            found |= {s for s in self.eval(node, frame).taint if s.kind == FETCHED}
        for node in ast.walk(test):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            taint = set()
            for operand in operands:
                taint |= self.eval(operand, frame).taint
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) and o.value
                   for o in operands):  # fetched text compared with a magic word
                found |= {s for s in taint if s.kind == FETCHED}
            if any(_moment(o) for o in operands):
                found |= {s for s in taint if s.kind == CLOCK}
        return frozenset(found)


def named_stores(frontend: Any) -> None:
    """A credential store's file name quoted in the program (:func:`.vocab.named_stores`):
    a read of it, whatever path the program builds around it at run time. ``frontend`` is
    the Python or JavaScript interpreter (``path``, ``offset``, ``lines``, ``facts``)."""
    lines = frontend.lines or ()
    for line, name, label, grade in vocab.named_stores("\n".join(lines)):
        number = line + frontend.offset
        source = Source(SECRET, name, frontend.path, number, grade)
        evidence = clamp(lines[line - 1].strip(), MAX_EVIDENCE) if line <= len(lines) else ""
        merge_fact(frontend.facts, Fact(SECRET_READ, frontend.path, number, name, evidence,
                                        frozenset({source}), label, callee="named"))


def _flags(test: ast.expr) -> list[ast.expr]:
    """The parts of ``test`` tested for truth that read a field (``cfg["wipe"]``,
    ``data.get("kill")``), not a status (``resp.ok``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _flags(test.operand)
    if isinstance(test, ast.BoolOp):
        return [part for value in test.values for part in _flags(value)]
    if isinstance(test, ast.Subscript) or (
            isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
            and test.func.attr == "get"):
        return [test]
    return []


def _moment(node: ast.expr) -> bool:
    """A fixed moment: epoch seconds, an ISO date, ``date(2026, 6, 1)``."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return 1_400_000_000 <= value <= 4_000_000_000 or (
                1_400_000_000_000 <= value <= 4_000_000_000_000)
        return isinstance(value, str) and bool(_DATE.match(value))
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
            node.func, "id", "")
        return name in ("date", "datetime", "fromisoformat", "strptime") and all(
            isinstance(a, ast.Constant) for a in node.args) and bool(node.args)
    return False


__all__ = ["CLOCK_CALLS", "RECURSIVE", "Destruction", "named_stores"]
