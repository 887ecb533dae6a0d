"""Python source as capability facts: a small abstract interpreter over :mod:`ast`.

The module body runs once, in order; names hold :class:`~.values.Value` records (constants
folded where they can be, the sources their data carries, the module or callable they refer
to). Branches and loops of unknown length are run once with *weak* updates (a name keeps what
either path gave it); a loop over a short constant sequence is unrolled, so ``for c in
[99, 117, …]: s += chr(c)`` folds. A call to a function of the file is followed into its body
with the arguments' values (at most :data:`MAX_DEPTH` deep; once per distinct argument
shape); a function no call reached is read once with unknown arguments.

What folds: string concatenation, f-strings, ``%`` and ``.format`` of constants,
``''.join``, ``chr``/``ord``, ``bytes([...])``, ``bytes.fromhex``, ``[::-1]``, ``codecs``
(rot13, hex, base64, zlib), the ``base64``/``binascii``/``zlib``/``gzip``/``bz2``/``lzma``
decoders (output bounded), ``str.replace``/``lower``/``upper``…, ``getattr(module, name)``,
``__import__``/``importlib.import_module``, ``os.path.join``/``expanduser``, ``pathlib``
paths. Everything is bounded: :data:`MAX_STEPS` nodes per file, :data:`MAX_EVAL_DEPTH`
nested expressions, :data:`~.values.MAX_CONST` characters a constant.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    ARGV,
    DECODED,
    FETCHED,
    HIGH,
    MAX_EVIDENCE,
    MAX_FACTS,
    MAX_VALUE,
    PERSISTENCE,
    SECRET,
    STDIN,
    Fact,
    FileFacts,
    Source,
    Write,
    clamp,
    merge_fact,
    merge_write,
)
from lemon_core.auditor_kit.capabilities.python_calls import (
    COPIERS,
    MAX_UNROLL,
    MIN_DECODED,
    PATH_TYPES,
    Calls,
    frozen,
    items_of,
)
from lemon_core.auditor_kit.capabilities.python_destruction import named_stores
from lemon_core.auditor_kit.capabilities.values import (
    HOLE,
    MAX_CONST,
    UNKNOWN,
    Value,
    concat,
    const,
    format_percent,
    join,
    read_env,
    taint_of,
    unknown,
)

MAX_STEPS = 60_000
#: Other modules of the skill one file's analysis follows calls into.
MAX_MODULES = 8
MAX_DEPTH = 3
MAX_EVAL_DEPTH = 80
#: A loop over known items is unrolled while items x nodes of its body stays under this.
MAX_UNROLLED_NODES = 6_000

_BUILTINS = frozenset({"open", "exec", "eval", "compile", "__import__", "getattr", "chr", "ord",
                       "bytes", "bytearray", "print", "input", "str", "dict", "list", "tuple",
                       "repr", "format", "reversed", "map", "vars", "globals", "locals",
                       "breakpoint", "sorted", "set", "frozenset", "iter", "next", "len",
                       "memoryview", "int", "hex", "zip", "enumerate", "filter"})
_MUTATORS = frozenset({"append", "extend", "write", "writestr", "add", "update", "insert",
                       "writelines", "appendleft", "put"})


#: module name -> (path, text, tree) of a Python file of the skill, or None.
Modules = Callable[[str], "tuple[str, str, ast.Module] | None"]
#: path of a file of the skill (relative to its root) -> its text, or None.
Files = Callable[[str], "str | None"]


class _Budget(Exception):
    """The file's step budget ran out."""


class _Return(Exception):
    pass


@attrs.define
class _Frame:
    names: dict[str, Value]
    parent: _Frame | None = None
    returned: Value | None = None
    yielded: Value | None = None
    function: str = ""


class Interpreter(Calls):
    """One file's analysis (see the module docstring); :meth:`run` returns its facts."""

    def __init__(self, path: str, tree: ast.Module, *, line_offset: int = 0,
                 lines: Sequence[str] | None = None, modules: Modules | None = None,
                 files: Files | None = None) -> None:
        self.path = path
        #: The text of another file of the skill by its path (configuration it reads).
        self.files = files
        #: Finds another Python file of the skill by module name (``from . import x``).
        self.modules = modules
        self.children: dict[str, Interpreter | None] = {}
        self.tree = tree
        self.offset = line_offset
        self.lines = lines
        self.facts: dict[tuple[str, int, str, str | None], Fact] = {}
        self.writes: dict[tuple[str, int], Write] = {}
        self.stdout: set[Source] = set()
        self.invocations: list[shell.Invocation] = []
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, str] = {}
        self.steps = 0
        self.depth = 0
        self.eval_depth = 0
        self.weak = 0
        self.stack: list[str] = []
        self.memo: dict[tuple[Any, ...], Value] = {}
        self.reached: set[str] = set()
        self.globals = _Frame({})
        self.current: ast.AST = tree
        #: What decides the conditions around the current statement (fetched data, the clock).
        self.gates: list[frozenset[Source]] = []

    # -- results --------------------------------------------------------------------------

    def run(self) -> FileFacts:
        self._collect(self.tree.body, "")
        try:
            self.block(self.tree.body, self.globals)
            for name, node in list(self.functions.items()):
                if name not in self.reached:
                    self._standalone(name, node)
        except (_Budget, RecursionError):
            pass
        named_stores(self)
        facts = dict(self.facts)
        writes = dict(self.writes)
        for child in self.children.values():
            if child is not None:
                for key, fact in child.facts.items():
                    if len(facts) < MAX_FACTS * 2:
                        facts.setdefault((child.path, *key), fact)  # type: ignore[arg-type]
                writes.update({(child.path, *k): w for k, w in child.writes.items()})  # type: ignore[misc]
                self.stdout.update(child.stdout)
        return FileFacts(path=self.path, language="python", facts=tuple(facts.values()),
                         writes=tuple(writes.values()), stdout=frozenset(self.stdout),
                         invocations=tuple(self.invocations[:MAX_FACTS]))

    def foreign(self, ref: str) -> tuple[Interpreter, str] | None:
        """The interpreter of the skill's module that defines ``ref`` (``rel:collector.run``,
        ``pkg.collector.run``) and the function's name there, its top level run once."""
        if self.modules is None:
            return None
        name = ref.removeprefix("rel:")
        module, _, function = name.rpartition(".")
        if not module or not function:
            return None
        found = self.modules(module)
        if found is None or found[0] == self.path:
            return None
        path = found[0]
        if path not in self.children:
            if len(self.children) >= MAX_MODULES:
                return None
            child = Interpreter(path, found[2], lines=found[1].splitlines(), files=self.files)
            child._collect(found[2].body, "")
            try:
                child.block(found[2].body, child.globals)
            except (_Budget, RecursionError):
                pass
            self.children[path] = child
        child_found = self.children[path]
        if child_found is None or function not in child_found.functions:
            return None
        return child_found, function

    def _line(self, node: ast.AST) -> int:
        return int(getattr(node, "lineno", 1)) + self.offset

    def _evidence(self, node: ast.AST) -> str:
        if self.lines is not None:
            index = int(getattr(node, "lineno", 1)) - 1
            if 0 <= index < len(self.lines):
                return clamp(self.lines[index].strip(), MAX_EVIDENCE)
        return ""

    def fact(self, kind: str, node: ast.AST, value: str | None,
             carries: frozenset[Source] = frozenset(), detail: str = "", hidden: bool = False,
             callee: str = "", scope: str = "") -> None:
        merge_fact(self.facts, Fact(kind, self.path, self._line(node),
                                    None if value is None else clamp(value, MAX_VALUE),
                                    self._evidence(node), carries, detail, hidden, callee,
                                    scope))

    def write(self, target: str, carries: frozenset[Source], node: ast.AST,
              content: Sequence[Value] = ()) -> None:
        line = self._line(node)
        normal = vocab.normal_path(target)
        carries = carries | self._content(content, node)
        merge_write(self.writes, Write(normal, carries, self.path, line))
        persistence = vocab.persistence_path(normal) if HOLE not in normal else None
        if persistence is not None:
            self.fact(PERSISTENCE, node, normal, carries, persistence[1])

    def _content(self, content: Sequence[Value], node: ast.AST) -> frozenset[Source]:
        """What written text does: a file written earlier that it names (a launcher pointing
        at a script) brings that file's sources; a command in it that downloads and runs
        something is a fetched source."""
        texts = []
        for value in content:
            text = value.text()
            if text:
                texts.append(text)
            texts.extend(value.frags)
        found: set[Source] = set()
        for text in texts[:16]:
            for write in list(self.writes.values())[:200]:
                if HOLE not in write.target and len(write.target) > 3 and (
                        write.target in text) and write.carries:
                    found |= write.carries
            url = shell.runs_download(text[:200_000], self.path, self._line(node))
            if url is not None:
                found.add(self.source(FETCHED, url, node))
        return frozenset(found)

    def source(self, kind: str, label: str, node: ast.AST, grade: str = "low") -> Source:
        return Source(kind, clamp(label, MAX_VALUE), self.path, self._line(node), grade)

    # -- statements -----------------------------------------------------------------------

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget

    def _collect(self, body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[prefix + node.name] = node
            elif isinstance(node, ast.ClassDef) and not prefix:
                self.classes[node.name] = node.name
                self._collect(node.body, node.name + ".")

    def block(self, body: Sequence[ast.stmt], frame: _Frame) -> None:
        for node in body:
            self.statement(node, frame)

    def statement(self, node: ast.stmt, frame: _Frame) -> None:
        self._tick()
        self.current = node
        if isinstance(node, ast.Expr):
            self.eval(node.value, frame)
        elif isinstance(node, ast.Assign):
            value = self.eval(node.value, frame)
            for target in node.targets:
                self.bind(target, value, frame)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.eval(node.value, frame), frame)
        elif isinstance(node, ast.AugAssign):
            old = self.eval(_load(node.target), frame)
            self.bind(node.target, self.binop(node.op, old, self.eval(node.value, frame)), frame)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._for(node, frame)
        elif isinstance(node, (ast.While, ast.If)):
            self.gates.append(self.condition(node.test, frame))
            try:
                self._weakly(node.body, frame)
                self._weakly(node.orelse, frame)
            finally:
                self.gates.pop()
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.eval(item.context_expr, frame)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value, frame)
            self.block(node.body, frame)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._weakly(node.body, frame)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                self._weakly(handler.body, frame)
            self._weakly(node.orelse, frame)  # type: ignore[attr-defined]
            self.block(node.finalbody, frame)  # type: ignore[attr-defined]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qual = (frame.function.split(".")[0] + "." if "." in frame.function else "")
            name = node.name if frame is self.globals or not qual else qual + node.name
            if name not in self.functions:
                self.functions[name] = node
            self._assign(node.name, Value(ref="local:" + name), frame)
        elif isinstance(node, ast.ClassDef):
            self._assign(node.name, Value(ref="class:" + node.name), frame)
        elif isinstance(node, ast.Return):
            value = self.eval(node.value, frame) if node.value is not None else UNKNOWN
            frame.returned = join(frame.returned, value) if frame.returned else value
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._assign(alias.asname, Value(ref=alias.name), frame)
                else:
                    top = alias.name.split(".")[0]
                    self._assign(top, Value(ref=top), frame)
        elif isinstance(node, ast.ImportFrom):
            module = ("rel:" if node.level else "") + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    ref = f"{module}.{alias.name}" if node.module else f"{module}{alias.name}"
                    self._assign(alias.asname or alias.name, Value(ref=ref), frame)
        elif isinstance(node, ast.Match):
            self.eval(node.subject, frame)
            for case in node.cases:
                self._weakly(case.body, frame)
        elif isinstance(node, (ast.Raise, ast.Assert, ast.Delete)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child, frame)

    def _weakly(self, body: Sequence[ast.stmt], frame: _Frame) -> None:
        self.weak += 1
        try:
            self.block(body, frame)
        finally:
            self.weak -= 1

    def _for(self, node: ast.For | ast.AsyncFor, frame: _Frame) -> None:
        iterable = self.eval(node.iter, frame)
        items = items_of(iterable)
        if items is not None and len(items) * _size(node.body) <= MAX_UNROLLED_NODES:
            for item in items:
                self.bind(node.target, item, frame)
                self.block(node.body, frame)
        else:
            self.weak += 1
            try:
                self.bind(node.target, self.element(iterable), frame)
                self.block(node.body, frame)
            finally:
                self.weak -= 1
        self._weakly(node.orelse, frame)

    def element(self, iterable: Value) -> Value:
        """What iterating over ``iterable`` yields (without knowing which item)."""
        materialised = self.materialise(iterable)
        if iterable.inst == "generator" and iterable.items:
            return iterable.items[0]
        if iterable.file is not None:
            return unknown(materialised)
        if iterable.inst == "listing":
            return Value(inst="pathlib.Path", taint=materialised.taint, hidden=iterable.hidden,
                         partial=iterable.partial)
        if iterable.items:
            out = iterable.items[0]
            for item in iterable.items[1:64]:
                out = join(out, item)
            return out
        return Value(taint=materialised.taint, hidden=iterable.hidden)

    def _assign(self, name: str, value: Value, frame: _Frame) -> None:
        if self.weak and name in frame.names:
            value = join(frame.names[name], value)
        frame.names[name] = value

    def bind(self, target: ast.expr, value: Value, frame: _Frame) -> None:
        if isinstance(target, ast.Name):
            self._assign(target.id, value, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if value.items is not None else None
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.bind(element.value, unknown(value), frame)
                elif items is not None and index < len(items):
                    self.bind(element, items[index], frame)
                else:
                    self.bind(element, unknown(value), frame)
        elif isinstance(target, ast.Attribute):
            owner = target.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                slot = self._self_slot(frame) + target.attr
                self._assign(slot, value, self.globals)
            else:
                self._grow(owner, value, frame)
        elif isinstance(target, ast.Subscript):
            self.eval(target.slice, frame)
            self._grow(target.value, value, frame)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, value, frame)

    def _grow(self, owner: ast.expr, value: Value, frame: _Frame) -> None:
        """``owner[k] = value`` / ``owner.x = value``: the container now carries the value's
        sources too."""
        if isinstance(owner, ast.Name) and value.taint:
            old = self._lookup(owner.id, frame)
            if old is not None:
                target = frame if owner.id in frame.names else self.globals
                target.names[owner.id] = attrs.evolve(old, taint=old.taint | value.taint)

    def _self_slot(self, frame: _Frame) -> str:
        owner = frame.function.split(".")[0] if "." in frame.function else ""
        return f"self:{owner}."

    def _lookup(self, name: str, frame: _Frame) -> Value | None:
        current: _Frame | None = frame
        while current is not None:
            found = current.names.get(name)
            if found is not None:
                return found
            current = current.parent
        found = self.globals.names.get(name)
        if found is not None:
            return found
        return None

    # -- functions ------------------------------------------------------------------------

    def _standalone(self, name: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.reached.add(name)
        frame = _Frame({}, self.globals, function=name)
        owner = name.split(".")[0] if "." in name else None
        for index, arg in enumerate([*node.args.posonlyargs, *node.args.args,
                                     *node.args.kwonlyargs]):
            if index == 0 and owner is not None and arg.arg in ("self", "cls"):
                frame.names[arg.arg] = Value(inst="local:" + owner)
            else:
                frame.names[arg.arg] = UNKNOWN
        self.stack.append(name)
        try:
            self.block(node.body, frame)
        finally:
            self.stack.pop()

    def invoke(self, name: str, args: list[Value], kwargs: dict[str, Value],
               receiver: Value | None) -> Value:
        node = self.functions.get(name)
        if node is None:
            return unknown(*args, *kwargs.values())
        if name in self.stack or self.depth >= MAX_DEPTH:
            return unknown(*args, *kwargs.values())
        key = (name, _shape(receiver), tuple(_shape(a) for a in args),
               tuple(sorted((k, _shape(v)) for k, v in kwargs.items())))
        if key in self.memo:
            return self.memo[key]
        self.reached.add(name)
        frame = _Frame({}, self.globals, function=name)
        params = [*node.args.posonlyargs, *node.args.args]
        given = ([receiver] if receiver is not None else []) + list(args)
        for index, arg in enumerate(params):
            frame.names[arg.arg] = given[index] if index < len(given) else kwargs.get(
                arg.arg, UNKNOWN)
        for arg in node.args.kwonlyargs:
            frame.names[arg.arg] = kwargs.get(arg.arg, UNKNOWN)
        if node.args.vararg is not None:
            frame.names[node.args.vararg.arg] = Value(items=tuple(given[len(params):]),
                                                      taint=taint_of(*given[len(params):]))
        if node.args.kwarg is not None:
            frame.names[node.args.kwarg.arg] = unknown(*kwargs.values())
        self.stack.append(name)
        self.depth += 1
        weak, self.weak = self.weak, 0
        try:
            self.block(node.body, frame)
        finally:
            self.weak = weak
            self.depth -= 1
            self.stack.pop()
        result = frame.returned or UNKNOWN
        if frame.yielded is not None:
            result = Value(inst="generator", items=(frame.yielded,), taint=frame.yielded.taint)
        self.memo[key] = result
        return result

    # -- expressions ----------------------------------------------------------------------

    def eval(self, node: ast.expr | None, frame: _Frame) -> Value:
        if node is None:
            return UNKNOWN
        self._tick()
        if self.eval_depth > MAX_EVAL_DEPTH:
            return UNKNOWN
        self.eval_depth += 1
        try:
            return self._eval(node, frame)
        finally:
            self.eval_depth -= 1

    def _eval(self, node: ast.expr, frame: _Frame) -> Value:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, (str, bytes)) and len(value) > MAX_CONST:
                return UNKNOWN
            return Value(const=value)
        if isinstance(node, ast.Name):
            found = self._lookup(node.id, frame)
            if found is not None:
                return found
            if node.id in _BUILTINS:
                return Value(ref=node.id)
            if node.id == "__file__":
                return Value(const=self.path)
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    parts.append(self.materialise(self.eval(part.value, frame)))
                else:
                    parts.append(self.eval(part, frame))
            return concat(parts)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.eval(node.value, frame), node.attr, node)
        if isinstance(node, ast.Call):
            return self.call(node, frame)
        if isinstance(node, ast.BinOp):
            return self._binop_chain(node, frame)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.eval(node.value, frame), node.slice, frame, node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = tuple(self.materialise(self.eval(e, frame)) for e in node.elts[:MAX_UNROLL])
            if any(isinstance(e, ast.Starred) for e in node.elts) or len(node.elts) > MAX_UNROLL:
                return unknown(*items)
            consts = tuple(i.const for i in items) if all(i.known for i in items) else None
            return Value(const=consts if consts is not None else Value().const, items=items,
                         taint=taint_of(*items), hidden=any(i.hidden for i in items))
        if isinstance(node, ast.Dict):
            values = [self.materialise(self.eval(v, frame)) for v in node.values]
            keys = [self.eval(k, frame) for k in node.keys if k is not None]
            return Value(taint=taint_of(*values, *keys), items=tuple(values))
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self._comprehension(node, frame)
        if isinstance(node, ast.DictComp):
            inner = _Frame({}, frame, function=frame.function)
            for generator in node.generators:
                self.bind(generator.target, self.element(self.eval(generator.iter, inner)),
                          inner)
            return unknown(self.eval(node.key, inner), self.eval(node.value, inner))
        if isinstance(node, ast.BoolOp):
            values = [self.eval(v, frame) for v in node.values]
            out = values[0]
            for value in values[1:]:
                out = join(out, value)
            return out
        if isinstance(node, ast.IfExp):
            self.eval(node.test, frame)
            return join(self.eval(node.body, frame), self.eval(node.orelse, frame))
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, frame)
            if isinstance(node.op, ast.USub) and operand.known and isinstance(
                    operand.const, int) and not isinstance(operand.const, bool):
                return Value(const=-operand.const)
            return unknown(operand)
        if isinstance(node, ast.Compare):
            self.eval(node.left, frame)
            for item in node.comparators:
                self.eval(item, frame)
            return UNKNOWN
        if isinstance(node, (ast.Await, ast.Starred)):
            return self.eval(node.value, frame)
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            value = self.eval(node.value, frame) if node.value is not None else UNKNOWN
            if isinstance(node, ast.YieldFrom):
                value = self.element(value)
            frame.yielded = join(frame.yielded, value) if frame.yielded else value
            return UNKNOWN
        if isinstance(node, ast.NamedExpr):
            value = self.eval(node.value, frame)
            self.bind(node.target, value, frame)
            return value
        if isinstance(node, ast.Lambda):
            return Value(ref="lambda")
        return UNKNOWN

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp,
                       frame: _Frame) -> Value:
        inner = _Frame({}, frame, function=frame.function)
        if len(node.generators) == 1 and not node.generators[0].ifs:
            generator = node.generators[0]
            items = items_of(self.eval(generator.iter, frame))
            if items is not None and len(items) <= MAX_UNROLL:
                out = []
                for item in items:
                    self.bind(generator.target, item, inner)
                    out.append(self.eval(node.elt, inner))
                consts = tuple(i.const for i in out) if all(i.known for i in out) else None
                return Value(const=consts if consts is not None else Value().const,
                             items=tuple(out), taint=taint_of(*out),
                             hidden=any(i.hidden for i in out))
        sources: list[Value] = []
        for generator in node.generators:
            iterable = self.eval(generator.iter, inner)
            sources.append(iterable)
            self.bind(generator.target, self.element(iterable), inner)
            for condition in generator.ifs:
                self.eval(condition, inner)
        element = self.eval(node.elt, inner)
        return Value(taint=taint_of(element, *(self.materialise(s) for s in sources)),
                     hidden=element.hidden)

    def _binop_chain(self, node: ast.BinOp, frame: _Frame) -> Value:
        # A long chain of ``+`` is a left spine: walk it without recursion.
        if isinstance(node.op, ast.Add):
            operands: list[ast.expr] = []
            current: ast.expr = node
            while isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
                operands.append(current.right)
                current = current.left
                if len(operands) > 20_000:
                    return UNKNOWN
            operands.append(current)
            operands.reverse()
            values = [self.materialise(self.eval(o, frame)) for o in operands]
            out = values[0]
            for value in values[1:]:
                out = self.binop(ast.Add(), out, value)
            return out
        return self.binop(node.op, self.materialise(self.eval(node.left, frame)),
                          self.materialise(self.eval(node.right, frame)))

    def binop(self, op: ast.operator, left: Value, right: Value) -> Value:
        if isinstance(op, ast.Add):
            texts = (str, bytes, bytearray)
            if (left.known and isinstance(left.const, texts)) or left.partial is not None or (
                    right.known and isinstance(right.const, texts)) or right.partial is not None:
                if left.inst in PATH_TYPES or right.inst in PATH_TYPES:
                    return unknown(left, right)
                out = concat([left, right])
                return out
            if left.items is not None and right.items is not None:
                items = left.items + right.items
                if len(items) <= MAX_UNROLL:
                    consts = tuple(i.const for i in items) if all(i.known for i in items) else None
                    return Value(const=consts if consts is not None else Value().const,
                                 items=items, taint=taint_of(*items))
        if isinstance(op, ast.Div) and (left.inst in PATH_TYPES):
            text = left.text()
            other = right.text()
            joined = f"{text or HOLE}/{other or HOLE}"
            return Value(inst=left.inst, const=joined if text and other else Value().const,
                         partial=None if text and other else joined,
                         taint=left.taint | right.taint, hidden=left.hidden or right.hidden)
        if isinstance(op, ast.Mod) and left.known and isinstance(left.const, str):
            out = format_percent(left.const, right)
            if out is not None:
                return (const(out, left, right, built=True) if HOLE not in out
                        else Value(partial=out, taint=taint_of(left, right), built=True))
        if isinstance(op, ast.Mult) and left.known and right.known and isinstance(
                left.const, (str, bytes)) and isinstance(right.const, int) and (
                    len(left.const) * max(right.const, 0) <= MAX_CONST):
            return const(left.const * right.const, left, right, built=True)
        if left.known and right.known and isinstance(left.const, int) and isinstance(
                right.const, int) and not isinstance(left.const, bool):
            try:
                number = _arith(op, left.const, right.const)
            except (ZeroDivisionError, OverflowError, ValueError):
                number = None
            if number is not None:
                return Value(const=number, taint=taint_of(left, right))
        return unknown(left, right)

    def attribute(self, base: Value, attr: str, node: ast.AST) -> Value:
        if base.ref is not None and not base.ref.startswith((".", "local:", "lambda")):
            if base.ref.startswith("class:"):
                return Value(ref=f"local:{base.ref[6:]}.{attr}", hidden=base.hidden)
            qual = f"{base.ref}.{attr}"
            if qual == "sys.argv":
                return Value(ref=qual, taint=frozenset({self.source(ARGV, "argv", node)}))
            if qual in ("sys.stdin", "sys.stdin.buffer"):
                return Value(ref=qual, taint=frozenset({self.source(STDIN, "stdin", node)}))
            if base.taint or base.inst:
                return Value(ref=qual, hidden=base.hidden, taint=base.taint, items=(base,))
            return Value(ref=qual, hidden=base.hidden)
        if base.inst in PATH_TYPES and attr in ("parent", "name", "stem"):
            text = base.text()
            if text is not None and HOLE not in text:
                folder, _, name = text.rstrip("/").rpartition("/")
                value = {"parent": folder or ".", "name": name,
                         "stem": name.rsplit(".", 1)[0] if "." in name[1:] else name}[attr]
                return Value(inst=base.inst if attr == "parent" else None, const=value,
                             taint=base.taint)
        if base.inst is not None and base.inst.startswith("local:"):
            slot = f"self:{base.inst[6:]}.{attr}"
            found = self.globals.names.get(slot)
            if found is not None:
                return found
            return Value(ref=f"{base.inst}.{attr}", items=(base,), taint=base.taint)
        if base.inst is not None:
            return Value(ref=f"{base.inst}.{attr}", items=(base,), taint=base.taint,
                         hidden=base.hidden)
        return Value(ref="." + attr, items=(base,), taint=base.taint, hidden=base.hidden)

    def subscript(self, base: Value, index: ast.expr, frame: _Frame, node: ast.AST) -> Value:
        if base.ref == "os.environ":
            key = self.eval(index, frame)
            return self.env(key, node, base.hidden)
        if isinstance(index, ast.Slice):
            lower = self.eval(index.lower, frame)
            upper = self.eval(index.upper, frame)
            step = self.eval(index.step, frame)
            if base.known and isinstance(base.const, (str, bytes, tuple)):
                bounds = [v.const if v.known else None for v in (lower, upper, step)]
                if all(b is None or isinstance(b, int) for b in bounds) and (
                        (index.lower is None or lower.known) and (index.upper is None or upper.known)
                        and (index.step is None or step.known)):
                    piece = base.const[slice(*bounds)]
                    reversed_text = bounds[2] is not None and bounds[2] < 0
                    extra = ()
                    if reversed_text and isinstance(piece, (str, bytes)) and len(piece) >= MIN_DECODED:
                        extra = (self.source(DECODED, "reversed text", node),)
                    if isinstance(piece, tuple):
                        return Value(const=piece, taint=base.taint)
                    return const(piece, base, hidden=base.hidden or reversed_text, extra=extra)
            return unknown(base)
        key = self.eval(index, frame)
        if base.known and isinstance(base.const, dict) and key.known and isinstance(
                key.const, (str, int)):
            if key.const in base.const:
                return Value(const=frozen(base.const[key.const]), taint=base.taint)
            return unknown(base)
        if base.items is not None and key.known and isinstance(key.const, int) and not isinstance(
                key.const, bool):
            try:
                return base.items[key.const]
            except IndexError:
                return unknown(base)
        if base.known and key.known and isinstance(base.const, (str, bytes)) and isinstance(
                key.const, int):
            try:
                return const(base.const[key.const], base)
            except IndexError:
                return unknown(base)
        return unknown(base)

    def env(self, key: Value, node: ast.AST, hidden: bool = False) -> Value:
        name = key.const if key.known and isinstance(key.const, str) else None
        return read_env(self, name, node, hidden, "os.environ")

    def materialise(self, value: Value) -> Value:
        """``os.environ`` used as data (``dict(os.environ)``, ``json.dumps(os.environ)``) is
        the whole environment."""
        if value.ref == "os.environ":
            return Value(taint=frozenset({self.source(SECRET, "the whole environment",
                                                      self.current, HIGH)}), hidden=value.hidden)
        return value

    # -- calls ----------------------------------------------------------------------------

    def call(self, node: ast.Call, frame: _Frame) -> Value:
        func = self.eval(node.func, frame)
        args = [self.materialise(self.eval(a, frame)) for a in node.args]
        kwargs: dict[str, Value] = {}
        for keyword in node.keywords:
            value = self.materialise(self.eval(keyword.value, frame))
            name = keyword.arg or "**"
            kwargs[name] = join(kwargs[name], value) if name in kwargs else value
        ref = func.ref or ""
        receiver = func.items[0] if func.items else None
        if ref.startswith("local:"):
            target = ref[6:]
            if target in self.functions:
                owner_receiver = receiver if receiver is not None and receiver.inst else None
                return self.invoke(target, args, kwargs, owner_receiver)
            if target in self.classes:
                instance = Value(inst="local:" + target, taint=taint_of(*args, *kwargs.values()))
                if target + ".__init__" in self.functions:
                    self.invoke(target + ".__init__", args, kwargs, instance)
                return instance
            method = target.rpartition(".")[2]
            if method in self.classes:
                return Value(inst="local:" + method)
            return unknown(*args, *kwargs.values())
        if ref.startswith("class:"):
            name = ref[6:]
            instance = Value(inst="local:" + name, taint=taint_of(*args, *kwargs.values()))
            if name + ".__init__" in self.functions:
                self.invoke(name + ".__init__", args, kwargs, instance)
            return instance
        if ref and self.modules is not None and not ref.startswith((".", "local:", "class:")):
            target = self.foreign(ref)
            if target is not None:
                child, function = target
                try:
                    return child.invoke(function, args, kwargs, None)
                except (_Budget, RecursionError):
                    return unknown(*args, *kwargs.values())
        found = self.known_call(ref, func, receiver, args, kwargs, node)
        self._mutate(node, ref, receiver, args, frame)
        if found is not None:
            return found
        return unknown(receiver, *args, *kwargs.values())

    def _mutate(self, node: ast.Call, ref: str, receiver: Value | None, args: list[Value],
                frame: _Frame) -> None:
        """``buf.append(x)``, ``zf.write(path)``, ``shutil.copy(src, dst)``: the variable
        mutated (and the buffer a zip or tar object writes into) now carries the data."""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        names: list[str] = []
        added: frozenset[Source] = frozenset()
        if ref in COPIERS and len(node.args) >= 2 and isinstance(node.args[1], ast.Name):
            names.append(node.args[1].id)
            added = self.open(args[0], Value(const="rb"), node).taint
        elif method in _MUTATORS and isinstance(node.func, ast.Attribute):
            added = taint_of(*args)
            if receiver is not None and receiver.inst is not None and receiver.inst.startswith(
                    ("zipfile", "tarfile")) and args and method in ("write", "add"):
                added = added | self.open(args[0], Value(const="rb"), node).taint
            if isinstance(node.func.value, ast.Name):
                names.append(node.func.value.id)
            if receiver is not None and receiver.file is not None and receiver.file[0].startswith(
                    "var:"):
                names.append(receiver.file[0][4:])
        if not added:
            return
        for name in names:
            old = self._lookup(name, frame)
            if old is None:
                continue
            target = frame
            while target is not None and name not in target.names:
                target = target.parent
            (target or self.globals).names[name] = attrs.evolve(old, taint=old.taint | added)

def _arith(op: ast.operator, a: int, b: int) -> int | None:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b if abs(a) < 1 << 64 and abs(b) < 1 << 64 else None
    if isinstance(op, ast.BitXor):
        return a ^ b
    if isinstance(op, ast.BitAnd):
        return a & b
    if isinstance(op, ast.BitOr):
        return a | b
    if isinstance(op, ast.FloorDiv):
        return a // b
    if isinstance(op, ast.Mod):
        return a % b
    if isinstance(op, ast.LShift):
        return a << b if b < 64 else None
    if isinstance(op, ast.RShift):
        return a >> b
    return None




def _size(body: Sequence[ast.stmt]) -> int:
    """Nodes in ``body`` (counted up to :data:`MAX_UNROLLED_NODES`)."""
    count = 0
    for statement in body:
        for _ in ast.walk(statement):
            count += 1
            if count > MAX_UNROLLED_NODES:
                return count
    return count


def _shape(value: Value | None, depth: int = 0) -> Any:
    if value is None:
        return None
    constant = value.const if value.known and isinstance(
        value.const, (str, bytes, int, float, bool, type(None))) else None
    items = (tuple(_shape(i, depth + 1) for i in value.items[:32])
             if value.items is not None and depth < 2 else None)
    return (constant, value.partial, value.taint, value.ref, value.inst, value.file, value.hidden,
            items)


def _load(target: ast.expr) -> ast.expr:
    """An assignment target as an expression to read."""
    if isinstance(target, ast.Name):
        return ast.Name(id=target.id, ctx=ast.Load(), lineno=getattr(target, "lineno", 1),
                        col_offset=0)
    return target


def parse(text: str) -> tuple[ast.Module | None, str | None, int | None]:
    """``(tree, None, None)`` or ``(None, why, line)`` when ``text`` is not Python 3."""
    try:
        return ast.parse(text), None, None
    except SyntaxError as exc:
        return None, f"{exc.msg}", exc.lineno
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return None, type(exc).__name__, None


def analyse(path: str, text: str, tree: ast.Module | None = None, *, line_offset: int = 0,
            modules: Modules | None = None, files: Files | None = None) -> FileFacts:
    """The facts of the Python source ``text`` of ``path`` (``tree`` when already parsed)."""
    if tree is None:
        tree, error, line = parse(text)
        if tree is None:
            return FileFacts(path=path, language="python", parsed=False, error=error,
                             error_line=line)
    lines = text.splitlines()
    return Interpreter(path, tree, line_offset=line_offset, lines=lines, modules=modules,
                       files=files).run()


def facts_of(items: Sequence[FileFacts]) -> Iterator[Fact]:
    for item in items:
        yield from item.facts


__all__ = ["MAX_STEPS", "Interpreter", "analyse", "facts_of", "parse"]
