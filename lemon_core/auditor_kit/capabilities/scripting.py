"""The part Ruby, Perl and PHP share: a small abstract interpreter over a tree-sitter tree.

A language module (:mod:`.ruby`, :mod:`.perl`, :mod:`.php`) subclasses :class:`Reader` with
handlers for its node types; this module holds what is the same in the three: the grammar
loading, the frame of names, the budget, the facts and writes, and the *operations* a
language's calls map to (:meth:`Reader.network`, :meth:`Reader.execute`,
:meth:`Reader.command`, :meth:`Reader.decode`, :meth:`Reader.read_file`,
:meth:`Reader.write_file`, :meth:`Reader.delete`, :meth:`Reader.env`,
:meth:`Reader.dynamic_name`), each recording the same facts the Python and JavaScript
frontends record. Values are :class:`~.values.Value` records (constant folding as there);
a node no handler knows is evaluated child by child and yields an unknown value carrying the
taint of its parts, so data is followed through any construct the reader does not model.
Functions of the file run when called (at most :data:`MAX_DEPTH` deep); one no call reached
runs once with unknown arguments. Everything is bounded (:data:`MAX_STEPS` nodes evaluated,
:data:`MAX_NODES` nodes parsed, :data:`MAX_CHARS` characters). The budget is as large as the
largest tree, so padding a file does not hide what follows the padding; calls into the file's
functions share :data:`MAX_CALL_STEPS` of it (then a call yields an unknown value), so they
cannot spend what the rest of the file needs.
"""

from __future__ import annotations

import re
import warnings
import zlib
from typing import Any, ClassVar

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DECODE,
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    FETCHED,
    FILE,
    HIGH,
    MAX_EVIDENCE,
    MAX_VALUE,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    UNRESOLVED,
    Fact,
    FileFacts,
    Source,
    Write,
    clamp,
    merge_fact,
    merge_write,
)
from lemon_core.auditor_kit.capabilities.values import (
    HOLE,
    MAX_CONST,
    MAX_DECODED,
    UNKNOWN,
    Value,
    const,
    decode,
    read_env,
    readable,
    taint_of,
    unknown,
)

MAX_CHARS = 1_000_000
MAX_NODES = 400_000
MAX_STEPS = 400_000
MAX_CALL_STEPS = 100_000
MAX_DEPTH = 3
MAX_EVAL_DEPTH = 80
MIN_DECODED = 4
#: Items of a constant list unrolled (``map``, ``pack``), at most.
MAX_UNROLL = 4_096

_LANGUAGES: dict[str, Any] = {}


def language(name: str) -> Any:
    """The tree-sitter language ``ruby``, ``perl`` or ``php`` (its wheel imported on first
    use), or None when the grammar cannot be loaded."""
    if name not in _LANGUAGES:
        try:
            import tree_sitter

            if name == "ruby":
                import tree_sitter_ruby

                raw: Any = tree_sitter_ruby.language()
            elif name == "perl":
                import tree_sitter_perl

                raw = tree_sitter_perl.language()
            else:
                import tree_sitter_php

                raw = tree_sitter_php.language_php()
            with warnings.catch_warnings():
                # tree-sitter-perl hands over its language as an int, which tree-sitter
                # 0.25 still accepts with a DeprecationWarning
                warnings.simplefilter("ignore", DeprecationWarning)
                _LANGUAGES[name] = tree_sitter.Language(raw)
        except Exception:  # noqa: BLE001 - a missing or broken grammar leaves the line rules
            _LANGUAGES[name] = None
    return _LANGUAGES[name]


def parse(name: str, text: str) -> tuple[Any, str | None]:
    """``(root node, None)`` or ``(None, why)`` for the source ``text`` of language
    ``name``."""
    if len(text) > MAX_CHARS:
        return None, f"larger than {MAX_CHARS} characters"
    grammar = language(name)
    if grammar is None:
        return None, f"the {name} grammar (tree-sitter) could not be loaded"
    try:
        import tree_sitter

        tree = tree_sitter.Parser(grammar).parse(text.encode("utf-8", "surrogatepass"))
    except Exception as exc:  # noqa: BLE001 - a parser failure is an unparsed file
        return None, f"tree-sitter failed: {type(exc).__name__}"
    root = tree.root_node
    if _count_nodes(root, MAX_NODES) > MAX_NODES:
        return None, f"more than {MAX_NODES} syntax nodes"
    return root, None


def _count_nodes(root: Any, limit: int) -> int:
    count = 0
    cursor = root.walk()
    while True:
        count += 1
        if count > limit:
            return count
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return count


class Budget(Exception):
    """The step budget is spent: the facts found so far stand."""


@attrs.define
class Frame:
    names: dict[str, Value]
    parent: Frame | None = None
    returned: Value | None = None

    def lookup(self, name: str) -> Value | None:
        scope: Frame | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


def text_of(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def inflate_raw(data: Any) -> bytes | None:
    """``gzinflate``: raw deflate (no header), bounded."""
    raw = data.encode("latin-1", "replace") if isinstance(data, str) else data
    if not isinstance(raw, (bytes, bytearray)) or len(raw) > MAX_CONST:
        return None
    for wbits in (-15, 47):
        try:
            return zlib.decompressobj(wbits).decompress(bytes(raw), MAX_DECODED)
        except zlib.error:
            continue
    return None


#: Nodes whose value is their one child's.
_PASS_THROUGH = frozenset({"parenthesized_expression", "parenthesized_statements",
                           "expression_statement", "argument", "interpolation", "block_body",
                           "body_statement", "then", "else", "begin_block", "list_expression",
                           "block", "splat_argument", "hash_splat_argument", "pair"})


class Reader:
    """One file's (or one inline program's) analysis; subclasses add the node handlers
    (``handlers``: node type -> method name) and the call semantics of their language."""

    language = ""
    handlers: ClassVar[dict[str, str]] = {}

    def __init__(self, path: str, text: str, root: Any, *, line_offset: int = 0,
                 line: int | None = None, holes: frozenset[Source] = frozenset()) -> None:
        self.path = path
        self.root = root
        self.lines = text.splitlines()
        self.offset = line_offset
        self.fixed_line = line
        self.holes = holes
        self.facts: dict[tuple[str, int, str, str | None], Fact] = {}
        self.writes: dict[tuple[str, int], Write] = {}
        self.stdout: set[Source] = set()
        self.functions: dict[str, Any] = {}
        self.reached: set[str] = set()
        self.steps = 0
        self.depth = 0
        self.eval_depth = 0
        self.globals = Frame({})
        self.frame = self.globals
        self.out: set[Source] = set()
        #: Steps spent inside calls of the file's functions.
        self.call_steps = 0

    # -- results --------------------------------------------------------------------------

    def run(self) -> FileFacts:
        try:
            self.visit(self.root)
            pending = True
            while pending:  # functions no call reached run once with unknown arguments
                pending = False
                for name, _node in list(self.functions.items()):
                    if name not in self.reached:
                        self.reached.add(name)
                        self.invoke(name, [], once=True)
                        pending = True
        except (Budget, RecursionError):
            pass
        return FileFacts(path=self.path, language=self.language,
                         facts=tuple(self.facts.values()), writes=tuple(self.writes.values()),
                         stdout=frozenset(self.stdout))

    def line(self, node: Any) -> int:
        if self.fixed_line is not None:
            return self.fixed_line
        return int(node.start_point[0]) + 1 + self.offset

    def evidence(self, node: Any) -> str:
        index = int(node.start_point[0])
        if 0 <= index < len(self.lines):
            return clamp(self.lines[index].strip(), MAX_EVIDENCE)
        return ""

    def source(self, kind: str, label: str, node: Any, grade: str = "low") -> Source:
        return Source(kind, clamp(label, MAX_VALUE), self.path, self.line(node), grade)

    def fact(self, kind: str, node: Any, value: str | None,
             carries: frozenset[Source] = frozenset(), detail: str = "", hidden: bool = False,
             callee: str = "") -> None:
        merge_fact(self.facts, Fact(kind, self.path, self.line(node),
                                    None if value is None else clamp(value, MAX_VALUE),
                                    self.evidence(node), carries, detail, hidden, callee))

    # -- evaluation -----------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Budget

    def visit(self, node: Any) -> Value:
        """The value of ``node`` (its handler's, or the taint of its children's)."""
        if node is None:
            return UNKNOWN
        self.tick()
        handler = self.handlers.get(node.type)
        if handler is not None:
            self.eval_depth += 1
            try:
                if self.eval_depth > MAX_EVAL_DEPTH:
                    return UNKNOWN
                result: Value = getattr(self, handler)(node)
                return result
            finally:
                self.eval_depth -= 1
        return self.children(node)

    def children(self, node: Any) -> Value:
        parts = [self.visit(child) for child in node.named_children]
        if len(parts) == 1 and node.type in _PASS_THROUGH:
            return parts[0]
        return unknown(*parts) if parts else UNKNOWN

    def bind(self, name: str, value: Value) -> None:
        self.frame.names[name] = value

    def lookup(self, name: str) -> Value:
        found = self.frame.lookup(name)
        return found if found is not None else UNKNOWN

    def taint_name(self, name: str, taint: frozenset[Source]) -> None:
        """``name`` now also carries ``taint`` (``req.body = x``, ``$h{k} = x``)."""
        if not taint:
            return
        found = self.lookup(name)
        self.bind(name, attrs.evolve(found, taint=found.taint | taint))

    # -- functions of the file ------------------------------------------------------------

    def define(self, name: str, node: Any) -> None:
        self.functions[name] = node

    def invoke(self, name: str, args: list[Value], once: bool = False) -> Value:
        """Run the file's function ``name`` with ``args`` (``once``: the run of a function
        no call reached, which the budget of calls does not limit)."""
        node = self.functions.get(name)
        if node is None or self.depth >= MAX_DEPTH or (
                self.call_steps > MAX_CALL_STEPS and not once):
            return unknown(*args)
        before = self.steps
        self.reached.add(name)
        outer = self.frame
        self.frame = Frame({}, self.globals)
        self.depth += 1
        try:
            self.call_function(node, args)
            return self.frame.returned or UNKNOWN
        finally:
            self.depth -= 1
            self.frame = outer
            if self.depth == 0 and not once:
                self.call_steps += self.steps - before

    def call_function(self, node: Any, args: list[Value]) -> None:
        """Bind ``args`` to the parameters of the definition ``node`` and run its body."""
        raise NotImplementedError

    def returns(self, value: Value) -> None:
        current = self.frame.returned
        self.frame.returned = value if current is None else unknown(current, value)

    # -- operations -----------------------------------------------------------------------

    def revealed(self, value: Value, node: Any) -> frozenset[Source]:
        """The taint of code about to run; text folding built from character codes or
        fragments that disguise it counts as decoded data."""
        text = value.text()
        taint = value.taint | self.holes
        if value.hidden and value.known and text is not None and len(text) >= MIN_DECODED and (
                not any(s.kind == DECODED for s in value.taint)):
            return taint | {self.source(DECODED, "character codes", node)}
        return taint

    def execute(self, detail: str, code: Value, node: Any, callee: str,
                hidden: bool = False) -> Value:
        """``eval`` of code in the file's own language (``detail`` ``eval``), or code run
        some other way (``exec``)."""
        shown = code.const if code.known and isinstance(code.const, str) else None
        if shown is not None and not (code.hidden or code.built or code.taint or self.holes):
            return UNKNOWN  # a literal: the code is in the file for the line rules to read
        self.fact(DYNAMIC_EXEC, node, shown, self.revealed(code, node), detail,
                  hidden, callee)
        return unknown(code)

    def command(self, args: list[Value], node: Any, callee: str, hidden: bool = False,
                is_shell: bool | None = None) -> Value:
        """A program run by ``system``/``exec``/backticks/``popen``: one string through the
        shell, several words as an argument list; the shell frontend reads it."""
        if not args:
            return UNKNOWN
        taint = taint_of(*args) | self.holes
        line = self.line(node)
        if is_shell is None:
            is_shell = len(args) == 1
        if is_shell:
            shown = args[0].text() or HOLE
            result = shell.analyse(shown, self.path, line, holes=taint)
        else:
            words = [a.text() or HOLE for a in args]
            shown = " ".join(words)
            result = shell.analyse_words(words, self.path, line, holes=taint)
        evidence = self.evidence(node)
        for found in result.facts:
            merge_fact(self.facts, attrs.evolve(found, evidence=evidence or found.evidence,
                                                hidden=found.hidden or hidden, callee=callee))
        for written in result.writes:
            self.write(written.target, written.carries, node)
        self.fact(DYNAMIC_EXEC, node, shown, self.revealed(args[0], node) | taint,
                  "shell" if is_shell else "process", hidden, callee)
        return Value(taint=result.out | taint)

    def network(self, detail: str, destination: Value | None, data: list[Value], node: Any,
                callee: str, hidden: bool = False) -> Value:
        """Data ``data`` sent to ``destination`` (a URL, a host, a client object)."""
        target = None
        if destination is not None:
            target = destination.text() if destination.text() is not None else (
                destination.partial)
        carries = frozenset(s for s in taint_of(*data) | (
            destination.taint if destination is not None else frozenset()) | self.holes
            if s.kind != FETCHED)
        self.fact(NETWORK_EGRESS, node, target, carries, detail, hidden, callee)
        fetched = self.source(FETCHED, target or callee, node)
        return Value(inst=f"net:{detail}", partial=target, taint=frozenset({fetched}))

    def decode(self, encoding: str, data: Value, node: Any, kind: str | None = None) -> Value:
        """A decoder applied to ``data`` (``kind``: the :func:`~.values.decode` name; None
        when only the data's taint follows)."""
        source = self.source(DECODED, encoding, node)
        out: bytes | str | None = None
        if data.known and kind is not None:
            out = inflate_raw(data.const) if kind == "inflate" else decode(kind, data.const)
        shown = readable(out) if out is not None else None
        self.fact(DECODE, node, encoding if shown is None else f"{encoding}: {shown}",
                  data.taint, self.language)
        if out is None:
            return Value(taint=data.taint | {source}, hidden=True)
        if isinstance(out, bytes):
            try:
                out = out.decode("utf-8")
            except UnicodeDecodeError:
                pass  # binary (a compressed layer): kept as bytes for the next decoder
        return const(out, data, hidden=True, extra=(source,))

    def read_file(self, target: Value, node: Any, callee: str, hidden: bool = False) -> Value:
        """What reading the file ``target`` yields: a secret source for a credential store."""
        text = target.text()
        normal = vocab.normal_path(text) if text is not None else None
        sources: set[Source] = {s for s in target.taint if s.kind == SECRET}
        if normal is not None:
            found = vocab.secret_path(normal)
            if found is not None:
                sources.add(self.source(SECRET, normal, node, found[1]))
                self.fact(SECRET_READ, node, normal, frozenset(sources), found[0], hidden,
                          callee)
            elif normal and HOLE not in normal.rpartition("/")[2] and "://" not in normal:
                sources.add(self.source(FILE, normal, node))
        return Value(taint=frozenset(sources), hidden=target.hidden, inst="file")

    def write(self, target: str, carries: frozenset[Source], node: Any) -> None:
        normal = vocab.normal_path(target)
        merge_write(self.writes, Write(normal, carries, self.path, self.line(node)))
        found = vocab.persistence_path(normal) if HOLE not in normal else None
        if found is not None:
            self.fact(PERSISTENCE, node, normal, carries, found[1])

    def write_file(self, target: Value, data: list[Value], node: Any) -> None:
        text = target.text()
        if text is not None:
            self.write(text, taint_of(*data), node)

    def delete(self, target: Value, node: Any, callee: str, hidden: bool = False) -> None:
        """A deletion of ``target`` (a path, a glob, a list of paths)."""
        for item in target.items[:64] if target.items is not None else (target,):
            text = item.text()
            if text is None:
                continue
            head = _GLOB_TAIL.sub("", text) if "*" in text else text
            found = vocab.destructive_target(text, children=True) or (
                vocab.destructive_target(head or "/") if head != text else None)
            if found:
                self.fact(DESTRUCTION, node, found, frozenset(), callee, hidden, callee)

    def env(self, name: Value | None, node: Any, callee: str) -> Value:
        """One environment variable (``name`` None: the whole environment)."""
        if name is None:
            source = self.source(SECRET, "the whole environment", node, HIGH)
            self.fact(SECRET_READ, node, "the whole environment", frozenset({source}), "env",
                      False, callee)
            return Value(taint=frozenset({source}))
        text = name.text() if name.known else None
        return read_env(self, text, node, name.built or name.hidden, callee)

    def variable_name(self, name: Value, node: Any, what: str) -> str | None:
        """The name of a variable chosen at run time (``$$name``, ``${"…"}``): the folded
        text, or None (an ``unresolved`` fact only when the name is decoded or fetched
        data: a variable variable alone is ordinary code)."""
        text = name.text() if name.known else None
        if text is None and any(s.kind in (DECODED, FETCHED) for s in name.taint):
            self.fact(UNRESOLVED, node, what, name.taint, "variable", True)
        return text

    def dynamic_name(self, name: Value, node: Any, what: str, always: bool = False
                     ) -> str | None:
        """The name a call reaches through a value (``send(x)``, ``$f()``, ``&{"…"}``): the
        folded text, or None. One that does not fold is an ``unresolved`` fact when it is a
        string built at run time (``"sys#{x}"``), data from outside (decoded, fetched, the
        arguments, the input), or with ``always`` (``Kernel.send(x)``: a module's methods
        reached by a name nobody can read); a variable holding a callback or a method name
        of the program's own (``obj.send(attr)``, ``$callback()``) is ordinary code."""
        text = name.text() if name.known else None
        if text is None:
            if always or name.partial is not None or any(
                    s.kind in _OUTSIDE for s in name.taint | self.holes):
                self.fact(UNRESOLVED, node, what, name.taint | self.holes, "call", True)
            return None
        return text


#: The wildcard end of a glob (``/*``, ``/**/*``, ``/.*``): every entry under the folder.
_GLOB_TAIL = re.compile(r"(?:/(?:\*+|\.\*|\{[^/]*\}))+/?$")
#: Sources whose data, used as a name to call, is chosen from outside the program.
_OUTSIDE = frozenset({DECODED, FETCHED, "argv", "stdin"})


__all__ = ["MAX_CALL_STEPS", "MAX_CHARS", "MAX_NODES", "MAX_STEPS", "Budget", "Frame", "Reader", "inflate_raw",
           "language", "parse", "text_of"]
