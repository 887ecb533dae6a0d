"""JavaScript and TypeScript as capability facts: a small abstract interpreter over the
tree-sitter grammars (``tree-sitter-javascript``, ``tree-sitter-typescript``).

The program runs once, in order, like :mod:`.python`: names hold :class:`~.values.Value`
records; ``const``/``let``/``var`` bindings, string concatenation, template literals of
constants, ``String.fromCharCode``, ``Buffer.from(x, 'base64'|'hex')``, ``atob``,
``.split('').reverse().join('')`` and ``require('child' + '_process')`` fold. Module objects
come from ``require``, ``import`` and dynamic ``import()``; calls of ``fs``, ``child_process``,
``http(s)``, ``net``, ``dns``, ``fetch``, ``axios``, ``eval``/``new Function``/``vm`` become
facts; a callback passed to a call runs with what that call yields (a response, a command's
output). A function of the file runs when called (at most :data:`MAX_DEPTH` deep); one no call
reached runs once with unknown arguments.

The grammars are imported on first use; a file they cannot read (no grammar, larger than
:data:`MAX_CHARS`, more than :data:`MAX_NODES` nodes) is reported unparsed and left to the line
rules. Everything is bounded: :data:`MAX_STEPS` nodes evaluated, :data:`MAX_EVAL_DEPTH` nested
expressions, :data:`~.values.MAX_CONST` characters a constant.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import destruction, shell, vocab
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
    MAX_FACTS,
    MAX_VALUE,
    NETWORK_EGRESS,
    PERSISTENCE,
    QUIET,
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
from lemon_core.auditor_kit.capabilities.python_destruction import named_stores
from lemon_core.auditor_kit.capabilities.values import (
    HOLE,
    UNKNOWN,
    Value,
    concat,
    const,
    decode,
    join,
    read_env,
    readable,
    taint_of,
    unknown,
)

MAX_CHARS = 1_000_000
MAX_NODES = 400_000
MAX_STEPS = 60_000
MAX_DEPTH = 3
MAX_EVAL_DEPTH = 80
MIN_DECODED = 4
#: Items of a constant array a loop or ``map`` is unrolled over, at most.
MAX_UNROLL = 512
SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")

_LANGUAGES: dict[str, Any] = {}


def _language(kind: str) -> Any:
    """The tree-sitter language ``javascript``, ``typescript`` or ``tsx`` (imported on first
    use), or None when its grammar cannot be loaded."""
    if kind not in _LANGUAGES:
        try:
            import tree_sitter

            if kind == "javascript":
                import tree_sitter_javascript as grammar

                raw = grammar.language()
            else:
                import tree_sitter_typescript as grammar_ts

                raw = (grammar_ts.language_tsx() if kind == "tsx"
                       else grammar_ts.language_typescript())
            _LANGUAGES[kind] = tree_sitter.Language(raw)
        except Exception:  # noqa: BLE001 - a missing or broken grammar falls back to line rules
            _LANGUAGES[kind] = None
    return _LANGUAGES[kind]


def grammar_for(path: str) -> str:
    lower = path.lower()
    if lower.endswith(".tsx"):
        return "tsx"
    if lower.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


def parse(text: str, path: str) -> tuple[Any, str | None]:
    """``(root node, None)`` or ``(None, why)``."""
    if len(text) > MAX_CHARS:
        return None, f"larger than {MAX_CHARS} characters"
    language = _language(grammar_for(path))
    if language is None:
        return None, f"the {grammar_for(path)} grammar (tree-sitter) could not be loaded"
    try:
        import tree_sitter

        tree = tree_sitter.Parser(language).parse(text.encode("utf-8", "surrogatepass"))
    except Exception as exc:  # noqa: BLE001 - a parser failure is an unparsed file, never a crash
        return None, f"tree-sitter failed: {type(exc).__name__}"
    return tree.root_node, None


class _Budget(Exception):
    pass


@attrs.define
class _Frame:
    names: dict[str, Value]
    parent: _Frame | None = None
    returned: Value | None = None


_FS_READS = frozenset({"readFile", "readFileSync", "createReadStream", "readdir",
                       "readdirSync", "open", "openSync"})
_FS_WRITES = frozenset({"writeFile", "writeFileSync", "appendFile", "appendFileSync",
                        "createWriteStream", "copyFile", "copyFileSync", "cp", "cpSync",
                        "symlink", "symlinkSync", "rename", "renameSync"})
_FS_DELETES = frozenset({"rm", "rmSync", "rmdir", "rmdirSync", "unlink", "unlinkSync"})
_CHILD = frozenset({"exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync",
                    "fork"})
_SHELL_CALLS = frozenset({"exec", "execSync"})
_HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request"})
_VM = frozenset({"runInThisContext", "runInNewContext", "runInContext", "compileFunction",
                 "Script"})
_SENDS = frozenset({"write", "end", "send"})
#: Names of sinks that may be handed to a call as its callback (``.then(eval)``).
_SINK_REFS = frozenset({"eval", "Function", "globalThis.eval", "window.eval"})
_ENCODINGS = {"base64": "base64", "base64url": "base64", "hex": "hex"}


#: A fixed moment in a condition: epoch seconds or milliseconds, an ISO date.
_MOMENT = re.compile(r"^1[4-9]\d{8}(?:\d{3})?$|^['\"`]?20\d\d-[01]\d-[0-3]\d|new Date\(\s*['\"`]?20\d\d")


def _module(name: str) -> str:
    return name.removeprefix("node:").removesuffix("/promises")


class Interpreter:
    """One file's analysis (see the module docstring)."""

    def __init__(self, path: str, text: str, root: Any, *, line_offset: int = 0) -> None:
        self.path = path
        self.root = root
        self._db_env: bool | None = None
        #: What decides the conditions around the current statement (fetched data, the clock).
        self.gates: list[frozenset[Source]] = []
        self.lines = text.splitlines()
        self.offset = line_offset
        self.facts: dict[tuple[str, int, str, str | None], Fact] = {}
        self.writes: dict[tuple[str, int], Write] = {}
        self.stdout: set[Source] = set()
        self.invocations: list[shell.Invocation] = []
        self.functions: dict[str, Any] = {}
        self.reached: set[int] = set()
        self.steps = 0
        self.depth = 0
        self.eval_depth = 0
        self.globals = _Frame({})

    # -- results --------------------------------------------------------------------------

    def run(self) -> FileFacts:
        try:
            self.block(self.root, self.globals)
            pending = True
            while pending:  # functions no call reached, and those defined inside them
                pending = False
                for key, node in list(self.functions.items()):
                    if key not in self.reached:
                        self.reached.add(key)
                        self.invoke(node, [], self.globals)
                        pending = True
        except (_Budget, RecursionError):
            pass
        named_stores(self)
        return FileFacts(path=self.path, language="javascript", facts=tuple(self.facts.values()),
                         writes=tuple(self.writes.values()), stdout=frozenset(self.stdout),
                         invocations=tuple(self.invocations[:MAX_FACTS]))

    def line(self, node: Any) -> int:
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
             callee: str = "", scope: str = "") -> None:
        merge_fact(self.facts, Fact(kind, self.path, self.line(node),
                                    None if value is None else clamp(value, MAX_VALUE),
                                    self.evidence(node), carries, detail, hidden, callee,
                                    scope))

    def gate(self) -> frozenset[Source]:
        return frozenset().union(*self.gates) if self.gates else frozenset()

    def condition(self, node: Any, frame: _Frame) -> frozenset[Source]:
        """What decides a condition: fetched text compared with a word or a fetched
        document's field tested, or the clock compared with a fixed moment."""
        if not any(s.kind in (FETCHED, CLOCK) for s in self.eval(node, frame).taint):
            return frozenset()  # nothing fetched nor the clock: no second look
        found: set[Source] = set()
        inner = node
        while inner.type in ("parenthesized_expression", "unary_expression") and (
                inner.named_children):
            inner = inner.named_children[-1]
        field = inner.child_by_field_name("property") if inner.type == "member_expression" \
            else None
        if inner.type == "subscript_expression" or (field is not None and field.text.decode(
                "utf-8", "replace") not in ("ok", "status", "statusCode", "statusText", "length",
                                            "headers", "size", "bodyUsed", "redirected")):
            found |= {s for s in self.eval(inner, frame).taint if s.kind == FETCHED}
        stack = [node]
        while stack:
            part = stack.pop()
            stack.extend(part.named_children[:8])
            if part.type != "binary_expression":
                continue
            sides = [part.child_by_field_name("left"), part.child_by_field_name("right")]
            taint: set[Source] = set()
            for side in sides:
                if side is not None:
                    taint |= self.eval(side, frame).taint
            texts = [s.text.decode("utf-8", "replace") for s in sides if s is not None]
            if any(s is not None and s.type in ("string", "template_string") for s in sides):
                found |= {s for s in taint if s.kind == FETCHED}
            if any(_MOMENT.search(t) for t in texts):
                found |= {s for s in taint if s.kind == CLOCK}
        return frozenset(found)

    def destroys(self, ref: str, module: str, last: str, args: list[Value], node: Any) -> None:
        """An SQL statement that drops a schema or database, an encryption (for the
        ransomware combination): :mod:`.destruction`."""
        text = args[0].text() if args and last in destruction.SQL_METHODS else None
        if text is not None and len(text) <= 20_000:
            if self._db_env is None:
                self._db_env = destruction.server_from_env("\n".join(self.lines))
            found = destruction.sql(text, self._db_env)
            if found is not None:
                self.fact(DESTRUCTION, node, found.target, frozenset(), "sql",
                          scope=found.scope)
        if (module == "crypto" and last in ("createCipheriv", "createCipher", "publicEncrypt")
                or ref.endswith("subtle.encrypt")):
            self.fact(DESTRUCTION, node, "files, encrypted", frozenset(), "encrypt",
                      scope=QUIET)

    def write(self, target: str, carries: frozenset[Source], node: Any) -> None:
        normal = vocab.normal_path(target)
        merge_write(self.writes, Write(normal, carries, self.path, self.line(node)))
        persistence = vocab.persistence_path(normal) if HOLE not in normal else None
        if persistence is not None:
            self.fact(PERSISTENCE, node, normal, carries, persistence[1])

    # -- statements -----------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget

    def block(self, node: Any, frame: _Frame) -> None:
        for child in node.named_children:
            self.statement(child, frame)

    def statement(self, node: Any, frame: _Frame) -> None:
        self.tick()
        kind = node.type
        if kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type == "variable_declarator":
                    value_node = declarator.child_by_field_name("value")
                    value = self.eval(value_node, frame) if value_node is not None else UNKNOWN
                    self.bind(declarator.child_by_field_name("name"), value, frame, declare=True)
        elif kind == "function_declaration" or kind == "generator_function_declaration":
            name = node.child_by_field_name("name")
            self.functions[node.id] = node
            if name is not None:
                frame.names[name.text.decode("utf-8", "replace")] = Value(ref=f"fn:{node.id}")
        elif kind in ("if_statement", "while_statement") and node.child_by_field_name(
                "condition") is not None:
            gate = self.condition(node.child_by_field_name("condition"), frame)
            self.gates.append(gate)
            try:
                for child in node.named_children[1:]:
                    self.statement(child, frame)
            finally:
                self.gates.pop()
        elif kind == "import_statement":
            self.import_statement(node, frame)
        elif kind == "return_statement":
            value = self.eval(node.named_children[0], frame) if node.named_children else UNKNOWN
            frame.returned = join(frame.returned, value) if frame.returned else value
        elif kind in ("for_in_statement",):
            right = self.eval(node.child_by_field_name("right"), frame)
            left = node.child_by_field_name("left")
            body = node.child_by_field_name("body")
            operator = node.child_by_field_name("operator")
            of_items = (right.items if operator is not None and operator.type == "of"
                        and right.items is not None and len(right.items) <= MAX_UNROLL
                        else None)
            for item in of_items if of_items is not None else (unknown(right),):
                # a loop over a short constant array is unrolled; any other runs once
                if left is not None:
                    self.bind(left, item, frame, declare=True)
                if body is not None:
                    self.statement(body, frame)
        elif kind == "expression_statement":
            for child in node.named_children:
                self.eval(child, frame)
        elif kind in ("class_declaration", "comment", "empty_statement", "debugger_statement",
                      "interface_declaration", "type_alias_declaration", "enum_declaration"):
            if kind == "class_declaration":
                body = node.child_by_field_name("body")
                for member in body.named_children if body is not None else ():
                    if member.type == "method_definition":
                        self.functions[member.id] = member
        elif kind.endswith(("statement", "_block", "clause", "program", "declaration")) or (
                kind in ("export_statement", "else_clause", "finally_clause", "switch_body",
                         "switch_case", "switch_default")):
            for child in node.named_children:
                if child.type.endswith(("statement", "_block", "declaration", "clause",
                                        "switch_body", "switch_case", "switch_default")) or (
                        child.type == "function_declaration"):
                    self.statement(child, frame)
                else:
                    self.eval(child, frame)
        else:
            self.eval(node, frame)

    def import_statement(self, node: Any, frame: _Frame) -> None:
        source = node.child_by_field_name("source")
        module = _module(self.eval(source, frame).text() or "") if source is not None else ""
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    frame.names[_name(part)] = Value(ref=module)
                elif part.type == "namespace_import":
                    for ident in part.named_children:
                        frame.names[_name(ident)] = Value(ref=module)
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias") or name
                        if name is not None and alias is not None:
                            frame.names[_name(alias)] = Value(ref=f"{module}.{_name(name)}")

    def bind(self, target: Any, value: Value, frame: _Frame, declare: bool = False) -> None:
        if target is None:
            return
        if target.type in ("identifier", "shorthand_property_identifier_pattern"):
            name = _name(target)
            if declare:
                frame.names[name] = value
                return
            scope: _Frame | None = frame
            while scope is not None and name not in scope.names:
                scope = scope.parent
            (scope or self.globals).names[name] = value
        elif target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    self.bind(part, self.member(value, _name(part), part), frame, declare)
                elif part.type == "pair_pattern":
                    key = part.child_by_field_name("key")
                    self.bind(part.child_by_field_name("value"),
                              self.member(value, _name(key) if key is not None else "", part),
                              frame, declare)
                elif part.type == "object_assignment_pattern":
                    self.bind(part.child_by_field_name("left"), unknown(value), frame, declare)
                else:
                    self.bind(part.named_children[-1] if part.named_children else None,
                              unknown(value), frame, declare)
        elif target.type == "array_pattern":
            for index, part in enumerate(target.named_children):
                item = (value.items[index] if value.items is not None
                        and index < len(value.items) else unknown(value))
                self.bind(part, item, frame, declare)
        elif target.type in ("assignment_pattern", "rest_pattern", "required_parameter",
                             "optional_parameter"):
            inner = target.child_by_field_name("left") or target.child_by_field_name(
                "pattern") or (target.named_children[0] if target.named_children else None)
            self.bind(inner, value, frame, declare)

    def lookup(self, name: str, frame: _Frame) -> Value | None:
        scope: _Frame | None = frame
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    # -- expressions ----------------------------------------------------------------------

    def eval(self, node: Any, frame: _Frame) -> Value:
        if node is None:
            return UNKNOWN
        self.tick()
        self.eval_depth += 1
        try:
            if self.eval_depth > MAX_EVAL_DEPTH:
                return UNKNOWN
            return self._eval(node, frame)
        finally:
            self.eval_depth -= 1

    def _eval(self, node: Any, frame: _Frame) -> Value:
        kind = node.type
        if kind == "string":
            return Value(const=_string(node))
        if kind == "template_string":
            parts = []
            for child in node.named_children:
                if child.type == "template_substitution":
                    inner = child.named_children
                    parts.append(self.eval(inner[0], frame) if inner else UNKNOWN)
                else:
                    parts.append(Value(const=_string_piece(child)))
            return concat(parts) if parts else Value(const="")
        if kind == "number":
            try:
                return Value(const=int(node.text.decode(), 0))
            except ValueError:
                return UNKNOWN
        if kind == "identifier":
            name = _name(node)
            found = self.lookup(name, frame)
            if found is not None:
                return found
            return Value(ref=name)
        if kind in ("parenthesized_expression", "await_expression", "as_expression",
                    "non_null_expression", "satisfies_expression", "type_assertion"):
            inner = [c for c in node.named_children if not c.type.endswith("type")
                     and c.type not in ("type_identifier", "predefined_type", "type_arguments")]
            return self.eval(inner[0], frame) if inner else UNKNOWN
        if kind == "binary_expression":
            left = self.eval(node.child_by_field_name("left"), frame)
            right = self.eval(node.child_by_field_name("right"), frame)
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "+":
                return self.plus(left, right)
            if operator is not None and left.known and right.known and isinstance(
                    left.const, int) and isinstance(right.const, int) and not isinstance(
                    left.const, bool):
                number = _arith(operator.type, left.const, right.const)
                if number is not None:
                    return Value(const=number)
            return unknown(left, right)
        if kind in ("assignment_expression", "augmented_assignment_expression"):
            left_node = node.child_by_field_name("left")
            right = self.eval(node.child_by_field_name("right"), frame)
            if kind == "augmented_assignment_expression":
                old = self.eval(left_node, frame)
                operator = node.child_by_field_name("operator")
                right = self.plus(old, right) if operator is not None and (
                    operator.type == "+=") else unknown(old, right)
            if left_node is not None and left_node.type in ("identifier", "object_pattern",
                                                            "array_pattern"):
                self.bind(left_node, right, frame)
            elif left_node is not None and left_node.type in ("member_expression",
                                                              "subscript_expression"):
                owner = left_node.child_by_field_name("object")
                if owner is not None and owner.type == "identifier" and right.taint:
                    old_owner = self.lookup(_name(owner), frame)
                    if old_owner is not None:
                        self.bind(owner, attrs.evolve(old_owner, taint=old_owner.taint
                                                      | right.taint), frame)
            return right
        if kind == "member_expression":
            base = self.eval(node.child_by_field_name("object"), frame)
            prop = node.child_by_field_name("property")
            return self.member(base, _name(prop) if prop is not None else "", node)
        if kind == "subscript_expression":
            base = self.eval(node.child_by_field_name("object"), frame)
            key = self.eval(node.child_by_field_name("index"), frame)
            if key.known and isinstance(key.const, str):
                found = self.member(base, key.const, node)
                if key.built or key.hidden:
                    found = attrs.evolve(found, hidden=True)
                return found
            if base.items is not None and key.known and isinstance(key.const, int) and (
                    0 <= key.const < len(base.items)):
                return base.items[key.const]
            if base.ref in ("process.env",):
                return self.env(None, node)
            if base.ref in ("globalThis", "global", "window", "self", "require"):
                self.fact(UNRESOLVED, node, f"{base.ref}[…]", key.taint, "import", True)
                return unknown(key, hidden=True)
            return unknown(base, key)
        if kind == "call_expression":
            return self.call(node, frame, new=False)
        if kind == "new_expression":
            return self.call(node, frame, new=True)
        if kind in ("arrow_function", "function_expression", "function", "generator_function"):
            self.functions.setdefault(node.id, node)
            return Value(ref=f"fn:{node.id}")
        if kind == "array":
            items = tuple(self.eval(c, frame) for c in node.named_children[:4096])
            consts = tuple(i.const for i in items) if all(i.known for i in items) else None
            return Value(const=consts if consts is not None else Value().const, items=items,
                         taint=taint_of(*items), hidden=any(i.hidden for i in items))
        if kind == "object":
            values: list[Value] = []
            table: dict[str, Any] = {}
            for pair in node.named_children:
                if pair.type == "pair":
                    key_node = pair.child_by_field_name("key")
                    value = self.materialise(self.eval(pair.child_by_field_name("value"), frame),
                                             pair)
                    if key_node is not None and value.known:
                        table[_key(key_node)] = value.const
                    values.append(value)
                else:
                    values.append(self.materialise(self.eval(pair, frame), pair))
            return Value(const=table, taint=taint_of(*values)) if len(table) == len(values) \
                else Value(taint=taint_of(*values))
        if kind in ("spread_element", "shorthand_property_identifier"):
            if kind == "shorthand_property_identifier":
                return self.lookup(_name(node), frame) or UNKNOWN
            return self.materialise(self.eval(node.named_children[0], frame)
                                    if node.named_children else UNKNOWN, node)
        if kind == "ternary_expression":
            self.eval(node.child_by_field_name("condition"), frame)
            return join(self.eval(node.child_by_field_name("consequence"), frame),
                        self.eval(node.child_by_field_name("alternative"), frame))
        parts = [self.eval(c, frame) for c in node.named_children]
        return unknown(*parts)

    def plus(self, left: Value, right: Value) -> Value:
        if isinstance(left.const, int) and isinstance(right.const, int) and left.known and (
                right.known) and not isinstance(left.const, bool):
            return Value(const=left.const + right.const)
        if left.ref is not None or right.ref is not None:
            return unknown(left, right)
        return concat([left, right])

    def member(self, base: Value, prop: str, node: Any) -> Value:
        if base.ref == "process.env":
            return self.env(prop, node, base.hidden)
        if base.ref is not None and not base.ref.startswith("fn:"):
            return Value(ref=f"{base.ref}.{prop}", hidden=base.hidden, taint=base.taint,
                         items=(base,) if base.inst else None, inst=base.inst)
        if base.known and isinstance(base.const, dict) and prop in base.const:
            return Value(const=base.const[prop], taint=base.taint)
        if base.known and isinstance(base.const, str) and prop == "length":
            return Value(const=len(base.const))
        return Value(ref="." + prop, items=(base,), taint=base.taint, hidden=base.hidden,
                     inst=base.inst)

    def env(self, name: str | None, node: Any, hidden: bool = False) -> Value:
        return read_env(self, name, node, hidden, "process.env")

    def materialise(self, value: Value, node: Any) -> Value:
        """``process.env`` used as data (``JSON.stringify(process.env)``, ``{...process.env}``)
        is the whole environment."""
        if value.ref == "process.env":
            return Value(taint=frozenset({self.source(SECRET, "the whole environment", node,
                                                      HIGH)}), hidden=value.hidden)
        return value

    # -- calls ----------------------------------------------------------------------------

    def call(self, node: Any, frame: _Frame, *, new: bool) -> Value:
        callee_node = node.child_by_field_name("constructor" if new else "function")
        func = self.eval(callee_node, frame)
        args_node = node.child_by_field_name("arguments")
        arg_nodes = list(args_node.named_children) if args_node is not None else []
        if args_node is not None and args_node.type == "template_string":
            arg_nodes = [args_node]
        args: list[Value] = []
        for arg in arg_nodes:
            value = self.materialise(self.eval(arg, frame), arg)
            if arg.type == "spread_element" and value.items is not None and len(
                    value.items) <= MAX_UNROLL:
                args.extend(value.items)  # f(...[99, 117]): the items are the arguments
            else:
                args.append(value)
        ref = func.ref or ""
        receiver = func.items[0] if func.items else None
        if ref.startswith("fn:"):
            target = self.functions.get(int(ref[3:]))
            self.reached.add(int(ref[3:]))
            return self.invoke(target, args, frame) if target is not None else unknown(*args)
        result = self.known(ref, func, receiver, args, node)
        if result is None:
            result = unknown(receiver, *args)
        # a callback runs with what the call yields (a response, a command's output, an event)
        callbacks = [v for v in args if (v.ref or "").startswith("fn:")]
        if ref.rpartition(".")[2] == "map" and receiver is not None and (
                receiver.items is not None):
            callbacks = []  # mapped item by item (:meth:`method`)
        for value in callbacks:
            key = int(value.ref[3:])  # type: ignore[index]
            target = self.functions.get(key)
            if target is not None:
                self.reached.add(key)
                given = unknown(result, receiver)
                self.invoke(target, [given, given], frame)
        given_data = unknown(result, receiver)
        for value in args if given_data.taint else ():  # ``.then(eval)``: a sink as callback
            if value.ref in _SINK_REFS or (value.ref or "").startswith("vm.runIn"):
                self.known(value.ref or "", value, None, [given_data], node)
        if ref.rpartition(".")[2] in ("on", "once", "then", "catch", "finally",
                                      "pipe") and receiver is not None:
            return receiver if ref.rpartition(".")[2] != "then" else unknown(receiver, result)
        return result

    def invoke(self, node: Any, args: list[Value], frame: _Frame) -> Value:
        if node is None or self.depth >= MAX_DEPTH:
            return unknown(*args)
        self.depth += 1
        try:
            local = _Frame({}, parent=frame if node.type != "function_declaration" else
                           self.globals)
            params = node.child_by_field_name("parameters") or node.child_by_field_name(
                "parameter")
            if params is not None:
                plist = [params] if params.type == "identifier" else [
                    p for p in params.named_children if p.type != "comment"]
                for index, param in enumerate(plist):
                    self.bind(param, args[index] if index < len(args) else UNKNOWN, local,
                              declare=True)
            body = node.child_by_field_name("body")
            if body is None:
                return UNKNOWN
            if body.type == "statement_block":
                self.block(body, local)
                return local.returned or UNKNOWN
            return self.eval(body, local)
        finally:
            self.depth -= 1

    def known(self, ref: str, func: Value, receiver: Value | None, args: list[Value],
              node: Any) -> Value | None:
        first = args[0] if args else None
        module, _, last = ref.rpartition(".")
        module = _module(module)
        hidden = func.hidden
        self.destroys(ref, module, last, args, node)
        if ref in ("Date.now", "Date", "performance.now", "Date.parse"):
            return Value(taint=frozenset({self.source(CLOCK, "the date", node)}))
        if ref in ("require", "import") or node.child_by_field_name("function") is not None and (
                node.child_by_field_name("function").type == "import"):
            return self.require(first, node, hidden)
        if ref == "Function" or (ref in ("eval", "globalThis.eval", "global.eval",
                                         "window.eval")) or (
                module == "vm" and last in _VM):
            code = args[-1] if ref == "Function" and args else first
            if code is None:
                return UNKNOWN
            if code.known and not code.hidden and not code.taint and not hidden:
                return UNKNOWN
            detail = "eval" if last == "eval" else "exec"
            self.fact(DYNAMIC_EXEC, node, code.text(), self.revealed(code, node), detail, hidden,
                      ref if ref != "Function" else "new Function")
            return unknown(code)
        if ref == "String.fromCharCode" or ref == "String.fromCodePoint":
            codes = [a.const for a in args]
            if all(isinstance(c, int) and 0 <= c < 0x110000 for c in codes):
                text = "".join(chr(c) for c in codes)
                extra = (self.source(DECODED, "character codes", node),) if len(
                    text) >= MIN_DECODED else ()
                return const(text, *args, hidden=True, extra=extra)
            return unknown(*args, hidden=True)
        if ref in ("atob", "Buffer.from", "window.atob") and first is not None:
            encoding = "base64" if "atob" in ref else (
                args[1].const if len(args) > 1 and args[1].known else "")
            if encoding in _ENCODINGS:
                return self.decode_call(_ENCODINGS[encoding], first, node)
            return first if ref == "Buffer.from" else unknown(first)
        if module == "zlib" and last in ("inflateSync", "gunzipSync", "unzipSync",
                                         "inflateRawSync", "brotliDecompressSync"):
            return self.decode_call("zlib", first or UNKNOWN, node)
        if module == "os" and last == "homedir":
            return Value(const="~")
        if module == "os" and last == "tmpdir":
            return Value(const="/tmp")
        if module == "path" and last in ("join", "resolve", "normalize") and args:
            pieces = [a.text() for a in args]
            joined = "/".join(p if p is not None else HOLE for p in pieces).replace("//", "/")
            if all(p is not None and HOLE not in p for p in pieces):
                return const(joined, *args)
            return Value(partial=joined, taint=taint_of(*args), hidden=any(a.hidden for a in args))
        if module == "fs" or module == "fs.promises" or ref.startswith("fs."):
            return self.fs_call(last, args, node, hidden, ref)
        if module == "child_process" and last in _CHILD:
            return self.child(last, args, node, hidden, ref)
        if module == "console" or ref in ("process.stdout.write",):
            self.stdout.update(taint_of(*args))
            return UNKNOWN
        if ref == "JSON.parse" and first is not None and first.known and isinstance(
                first.const, str):
            return unknown(first)
        network = self.network_kind(ref, module, last)
        if network is not None:
            return self.network(network, ref, args, receiver, node, hidden)
        if last in _SENDS and receiver is not None and (receiver.inst or "").startswith("net:"):
            carries = frozenset(s for s in taint_of(*args) | receiver.taint if s.kind != FETCHED)
            self.fact(NETWORK_EGRESS, node, receiver.text(), carries,
                      receiver.inst[4:], hidden, ref)  # type: ignore[index]
            return receiver
        if receiver is not None:
            return self.method(last, receiver, args, node)
        return None

    def require(self, name: Value | None, node: Any, hidden: bool) -> Value:
        if name is not None and name.known and isinstance(name.const, str):
            return Value(ref=_module(name.const), hidden=hidden or name.built or name.hidden)
        self.fact(UNRESOLVED, node, "require(…)", taint_of(name), "import", True)
        return unknown(name, hidden=True)

    def decode_call(self, encoding: str, data: Value, node: Any) -> Value:
        source = self.source(DECODED, encoding, node)
        out = decode(encoding, data.const) if data.known else None
        shown = readable(out) if out is not None else None
        self.fact(DECODE, node, encoding if shown is None else f"{encoding}: {shown}",
                  data.taint, "javascript")
        if out is None:
            return Value(taint=data.taint | {source}, hidden=True)
        text = readable(out)
        return const(text, data, hidden=True, extra=(source,))

    def method(self, name: str, receiver: Value, args: list[Value], node: Any) -> Value | None:
        text = receiver.const if receiver.known else None
        first = args[0] if args else None
        if name == "toString" and receiver.known:
            return receiver
        if name == "split" and isinstance(text, str) and first is not None and first.known and (
                first.const == "") and len(text) <= 4096:
            return Value(items=tuple(Value(const=c) for c in text), taint=receiver.taint,
                             hidden=receiver.hidden)
        if name == "reverse" and receiver.items is not None:
            return Value(items=tuple(reversed(receiver.items)), taint=receiver.taint,
                         hidden=True, inst="reversed")
        if name == "join" and receiver.items is not None:
            separator = first.const if first is not None and first.known else ","
            if all(i.known and isinstance(i.const, str) for i in receiver.items) and isinstance(
                    separator, str):
                joined = separator.join(i.const for i in receiver.items)
                label = "reversed text" if receiver.inst == "reversed" else "character codes"
                extra = (self.source(DECODED, label, node),) if (
                    receiver.hidden and len(joined) >= MIN_DECODED) else ()
                return const(joined, receiver, *receiver.items, hidden=receiver.hidden,
                             extra=extra)
            return unknown(receiver, *receiver.items)
        if name == "concat" and isinstance(text, str):
            return concat([receiver, *args])
        if name in ("toLowerCase", "toUpperCase", "trim") and isinstance(text, str):
            return const(getattr(str, {"toLowerCase": "lower", "toUpperCase": "upper",
                                       "trim": "strip"}[name])(text), receiver)
        if name == "replace" and isinstance(text, str) and len(args) == 2 and all(
                a.known and isinstance(a.const, str) for a in args):
            return const(text.replace(args[0].const, args[1].const, 1), receiver)
        if name == "map" and receiver.items is not None and first is not None and (
                len(receiver.items) <= MAX_UNROLL):
            return self.map_items(receiver, first, node)
        return None

    def revealed(self, value: Value, node: Any) -> frozenset[Source]:
        """The taint of code about to run, with text that folding built from character codes
        (``s += String.fromCharCode(c)`` in a loop) counted as decoded data."""
        text = value.text()
        if value.hidden and value.known and text is not None and len(text) >= MIN_DECODED and (
                not any(s.kind == DECODED for s in value.taint)):
            return value.taint | {self.source(DECODED, "character codes", node)}
        return value.taint

    def map_items(self, receiver: Value, mapper: Value, node: Any) -> Value:
        """``[99, 117].map(c => String.fromCharCode(c))``: the mapper applied to each known
        item (a function of the file, or a known callable such as ``String.fromCharCode``)."""
        ref = mapper.ref or ""
        target = self.functions.get(int(ref[3:])) if ref.startswith("fn:") else None
        if target is not None:
            self.reached.add(int(ref[3:]))
        out = []
        for item in receiver.items or ():
            if target is not None:
                out.append(self.invoke(target, [item], self.globals))
            else:
                out.append(self.known(ref, mapper, None, [item], node) or unknown(item))
        return Value(items=tuple(out), taint=taint_of(*out), hidden=any(o.hidden for o in out))

    def fs_call(self, last: str, args: list[Value], node: Any, hidden: bool, ref: str
                ) -> Value:
        first = args[0] if args else UNKNOWN
        target = first.text()
        normal = vocab.normal_path(target) if target is not None else None
        if last.startswith(("readdir", "opendir", "glob")) and normal is not None and (
                vocab.in_home(normal) or vocab.destructive_target(normal)):
            self.fact(DESTRUCTION, node, f"the files under {normal}", frozenset(), "walk",
                      scope=QUIET)
        if last in _FS_READS:
            sources: set[Source] = {s for s in first.taint if s.kind == SECRET}
            if normal is not None:
                found = vocab.secret_path(normal)
                if found is not None:
                    sources.add(self.source(SECRET, normal, node, found[1]))
                    self.fact(SECRET_READ, node, normal, frozenset(sources), found[0], hidden,
                              ref)
                elif normal and HOLE not in normal.rpartition("/")[2]:
                    sources.add(self.source(FILE, normal, node))
            return Value(taint=frozenset(sources), hidden=first.hidden)
        if last in _FS_WRITES:
            if last.startswith(("copyFile", "cp", "rename", "symlink")) and len(args) >= 2:
                read = self.fs_call("readFile", [first], node, hidden, ref)
                destination = args[1].text()
                if destination is not None:
                    self.write(destination, read.taint, node)
                return UNKNOWN
            if normal is not None:
                self.write(normal, taint_of(*args[1:]), node)
            return Value(inst="file", partial=normal) if last == "createWriteStream" else UNKNOWN
        if last in _FS_DELETES and target is not None:
            found = vocab.destructive_target(target, children=True)
            scope = destruction.path_scope(target) if not found and HOLE not in target else None
            if found or scope:
                self.fact(DESTRUCTION, node, found or normal, self.gate(), last, hidden, ref,
                          scope=QUIET if scope else "")
            return UNKNOWN
        return unknown(*args)

    def child(self, last: str, args: list[Value], node: Any, hidden: bool, ref: str) -> Value:
        first = args[0] if args else UNKNOWN
        options = args[1] if len(args) > 1 and args[1].items is None else None
        is_shell = last in _SHELL_CALLS or (options is not None and isinstance(
            options.const, dict) and bool(options.const.get("shell"))) if options else (
            last in _SHELL_CALLS)
        line = self.line(node)
        if not is_shell and len(args) > 1 and args[1].items is not None:
            words = [first.text() or HOLE] + [i.text() if i.text() is not None else HOLE
                                              for i in args[1].items]
            result = shell.analyse_words(words, self.path, line,
                                         holes=first.taint | args[1].taint)
            shown = " ".join(words)
        else:
            shown = first.text() or HOLE
            result = (shell.analyse(shown, self.path, line, holes=first.taint) if is_shell
                      else shell.analyse_words([shown], self.path, line, holes=first.taint))
        evidence = self.evidence(node)
        for found in result.facts:
            merged = attrs.evolve(found, evidence=evidence or found.evidence,
                                  hidden=found.hidden or hidden, callee=ref,
                                  carries=found.carries | self.gate()
                                  if found.kind == DESTRUCTION else found.carries)
            key = (merged.kind, merged.line, merged.detail, merged.value)
            if key not in self.facts and len(self.facts) < MAX_FACTS:
                self.facts[key] = merged
        for written in result.writes:
            self.write(written.target, written.carries, node)
        self.invocations.extend(result.invocations)
        self.fact(DYNAMIC_EXEC, node, shown, self.revealed(first, node),
                  "shell" if is_shell else "process", hidden, ref)
        return Value(taint=result.out | first.taint)

    @staticmethod
    def network_kind(ref: str, module: str, last: str) -> str | None:
        if ref in ("fetch", "globalThis.fetch", "window.fetch", "navigator.sendBeacon",
                   "axios", "got", "WebSocket", "EventSource", "undici.request",
                   "undici.fetch", "node-fetch", "needle", "superagent", "request"):
            return "http"
        if module in ("http", "https", "http2") and last in ("request", "get", "connect"):
            return "http"
        if module in ("axios", "got", "superagent", "needle", "ky", "undici") and (
                last in _HTTP_VERBS or last == "fetch"):
            return "http"
        if module in ("net", "tls") and last in ("connect", "createConnection", "Socket"):
            return "socket"
        if module == "dgram" and last == "createSocket":
            return "socket"
        if module in ("dns", "dns.promises") and (last.startswith("resolve") or last == "lookup"):
            return "dns"
        return None

    def network(self, detail: str, ref: str, args: list[Value], receiver: Value | None,
                node: Any, hidden: bool) -> Value:
        destination = None
        for candidate in args[:2]:
            text = candidate.text()
            if text is not None and (text.startswith(("http", "ws", "ftp")) or "." in text):
                destination = text
                break
            if candidate.known and isinstance(candidate.const, dict):
                host = candidate.const.get("hostname") or candidate.const.get("host") or (
                    candidate.const.get("url"))
                if isinstance(host, str):
                    destination = host if "://" in host else "https://" + host + str(
                        candidate.const.get("path") or "")
                    break
        carries = frozenset(s for s in taint_of(*args) if s.kind != FETCHED)
        self.fact(NETWORK_EGRESS, node, destination, carries, detail, hidden, ref)
        fetched = self.source(FETCHED, destination or ref, node)
        return Value(inst=f"net:{detail}", const=destination if destination and HOLE not in (
            destination) else Value().const, taint=frozenset({fetched}))


def _arith(operator: str, a: int, b: int) -> int | None:
    if abs(a) > 1 << 53 or abs(b) > 1 << 53:
        return None
    if operator == "-":
        return a - b
    if operator == "*":
        return a * b
    if operator == "^":
        return a ^ b
    if operator == "&":
        return a & b
    if operator == "|":
        return a | b
    if operator == "%" and b:
        return a % b
    return None


def _name(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _key(node: Any) -> str:
    if node.type == "string":
        return _string(node)
    return _name(node)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}


def _unescape(text: str) -> str:
    body = text[1:]
    if body[:1] == "x" and len(body) == 3:
        return chr(int(body[1:], 16))
    if body[:1] == "u":
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except ValueError:
            return body
    return _ESCAPES.get(body, body)


def _string_piece(node: Any) -> str:
    if node.type == "escape_sequence":
        return _unescape(_name(node))
    return _name(node)


def _string(node: Any) -> str:
    return "".join(_string_piece(c) for c in node.named_children)


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


def analyse(path: str, text: str, *, line_offset: int = 0) -> FileFacts:
    """The facts of the JavaScript or TypeScript source ``text`` of ``path``."""
    root, error = parse(text, path)
    if root is None:
        return FileFacts(path=path, language="javascript", parsed=False, error=error)
    if _count_nodes(root, MAX_NODES) > MAX_NODES:
        return FileFacts(path=path, language="javascript", parsed=False,
                         error=f"more than {MAX_NODES} syntax nodes")
    return Interpreter(path, text, root, line_offset=line_offset).run()


__all__ = ["MAX_CHARS", "MAX_NODES", "MAX_STEPS", "SUFFIXES", "Interpreter", "analyse",
           "grammar_for", "parse"]
