"""Go as capabilities: the tree-sitter grammar, constant folding, facts.

A ``.go`` file is parsed with ``tree-sitter-go`` (loaded on first use) and its function bodies
are read in source order with one table of variables per file. Folded: string literals
(interpreted and raw), ``+``, ``fmt.Sprintf`` of ``%s``/``%v``, ``strings.Join``,
``filepath.Join``/``path.Join``, ``os.UserHomeDir()`` (the home folder), ``string(…)`` and
``[]byte(…)``, ``base64``/``hex`` ``DecodeString`` of constants, and ``for _, x := range
[]string{…}`` (the loop variable takes each value). Sources: ``os.Getenv``/``LookupEnv`` named
like a secret, ``os.Environ()``, ``os.ReadFile``/``os.Open``/``ioutil.ReadFile`` of a credential
store, decoders, responses. Sinks: ``http.Get``/``Post``/``PostForm``, ``http.NewRequest`` then
``Do``, ``net.Dial``, ``net.Lookup*`` (DNS), ``exec.Command`` (handed to :mod:`.shell` word by
word), ``os.WriteFile`` (persistence), ``os.RemoveAll`` (destruction). Bounded by
:data:`MAX_CHARS` and :data:`MAX_NODES`.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    ENV,
    FETCHED,
    HIGH,
    MAX_EVIDENCE,
    MAX_VALUE,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    Fact,
    FileFacts,
    Source,
    Write,
    clamp,
    merge_fact,
    merge_write,
)
from lemon_core.auditor_kit.capabilities.values import HOLE, decode, readable

MAX_CHARS = 300_000
MAX_NODES = 150_000
MAX_ITEMS = 64

_LANGUAGE: list[Any] = []


def _language() -> Any:
    if not _LANGUAGE:
        try:
            import tree_sitter
            import tree_sitter_go

            _LANGUAGE.append(tree_sitter.Language(tree_sitter_go.language()))
        except Exception:  # noqa: BLE001 - no grammar: the line rules still read the file
            _LANGUAGE.append(None)
    return _LANGUAGE[0]


@attrs.frozen
class V:
    """A folded Go value: ``text`` (None unknown), the sources of its data, the values a
    loop variable or a slice literal holds, and ``obj`` (``request`` for an
    ``http.NewRequest``)."""

    text: str | None = None
    taint: frozenset[Source] = frozenset()
    items: tuple[V, ...] | None = None
    obj: str = ""

    def s(self) -> str:
        return HOLE if self.text is None else self.text

    def each(self) -> tuple[V, ...]:
        return self.items if self.items else (self,)


NONE = V()


def _all(*values: V) -> frozenset[Source]:
    out: frozenset[Source] = frozenset()
    for value in values:
        out |= value.taint
        for item in value.items or ():
            out |= item.taint
    return out


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|.)")


def _unquote(raw: str) -> str:
    if raw.startswith("`"):
        return raw[1:-1]

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "xu":
            return chr(int(code[1:], 16))
        if code[0] in "01234567" and len(code) == 3:
            return chr(int(code, 8))
        return {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}.get(code, code)

    return _ESCAPE.sub(one, raw[1:-1])


class Reader:
    def __init__(self, path: str, source: bytes) -> None:
        self.path = path
        self.source = source
        self.imports: dict[str, str] = {}
        self.vars: dict[str, V] = {}
        self.facts: dict[tuple[str, int, str, str | None], Fact] = {}
        self.writes: dict[tuple[str, int], Write] = {}
        self.visited = 0

    def line(self, node: Any) -> int:
        return int(node.start_point[0]) + 1

    def evidence(self, node: Any) -> str:
        start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        end = self.source.find(b"\n", node.start_byte)
        return clamp(self.source[start:end if end >= 0 else None].decode("utf-8", "replace")
                     .strip(), MAX_EVIDENCE)

    def fact(self, kind: str, node: Any, value: str | None, carries: frozenset[Source],
             detail: str) -> None:
        merge_fact(self.facts, Fact(kind, self.path, self.line(node),
                                    None if value is None else clamp(value, MAX_VALUE),
                                    self.evidence(node), carries, detail))

    # -- statements ------------------------------------------------------------------------

    def run(self, root: Any) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            self.visited += 1
            if self.visited > MAX_NODES:
                return
            kind = node.type
            if kind == "import_spec":
                path = node.child_by_field_name("path")
                name = node.child_by_field_name("name")
                module = _unquote(_text(path)) if path is not None else ""
                alias = _text(name) if name is not None else module.rpartition("/")[2]
                self.imports[alias] = module
                continue
            if kind in ("short_var_declaration", "assignment_statement"):
                self.assign(node.child_by_field_name("left"), node.child_by_field_name("right"))
            elif kind == "var_spec" or kind == "const_spec":
                names = list(node.children_by_field_name("name"))
                value = node.child_by_field_name("value")
                if value is not None:
                    values = [self.ev(c) for c in value.named_children]
                    for index, name in enumerate(names):
                        if index < len(values):
                            self.vars[_text(name)] = values[index]
            elif kind == "range_clause":
                left = node.child_by_field_name("left")
                right = self.ev(node.child_by_field_name("right"))
                if left is not None and left.named_children:
                    target = left.named_children[-1]
                    self.vars[_text(target)] = V(None, _all(right), right.items)
            elif kind in ("expression_statement", "go_statement", "defer_statement",
                          "return_statement"):
                for child in node.named_children:
                    self.ev(child)
            stack.extend(reversed(node.named_children))

    def assign(self, left: Any, right: Any) -> None:
        if left is None or right is None:
            return
        values = [self.ev(c) for c in right.named_children]
        targets = left.named_children
        for index, target in enumerate(targets):
            value = values[index] if index < len(values) else (values[0] if len(values) == 1
                                                              and index == 0 else NONE)
            if target.type == "identifier":
                if _text(target) != "_":
                    self.vars[_text(target)] = value
            else:  # files[k] = v, s.field = v: the container gains what is stored
                base = target
                while base.named_children and base.type != "identifier":
                    base = base.named_children[0]
                name = _text(base)
                old = self.vars.get(name, NONE)
                self.vars[name] = V(old.text, old.taint | _all(value), old.items, old.obj)

    # -- expressions -----------------------------------------------------------------------

    def ev(self, node: Any | None) -> V:
        if node is None:
            return NONE
        kind = node.type
        if kind in ("interpreted_string_literal", "raw_string_literal"):
            return V(_unquote(_text(node)))
        if kind == "int_literal":
            return V(_text(node))
        if kind == "identifier":
            return self.vars.get(_text(node), NONE)
        if kind == "binary_expression":
            left = self.ev(node.child_by_field_name("left"))
            right = self.ev(node.child_by_field_name("right"))
            operator = node.child_by_field_name("operator")
            if operator is not None and _text(operator) == "+":
                return V(left.s() + right.s(), _all(left, right))
            return V(None, _all(left, right))
        if kind == "parenthesized_expression" or kind == "unary_expression":
            values = [self.ev(c) for c in node.named_children]
            return values[-1] if values else NONE
        if kind == "composite_literal":
            body = node.child_by_field_name("body")
            items = tuple(self.ev(e.named_children[-1]) for e in (body.named_children if body
                                                                 is not None else [])
                          if e.named_children)[:MAX_ITEMS]
            return V(None, _all(*items), items)
        if kind == "call_expression":
            return self.call(node)
        if kind in ("selector_expression", "index_expression", "slice_expression",
                    "type_assertion_expression"):
            first = node.named_children[0] if node.named_children else None
            return V(None, self.ev(first).taint)
        return V(None, _all(*(self.ev(c) for c in node.named_children[:16])))

    def call(self, node: Any) -> V:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = [self.ev(c) for c in (arguments.named_children if arguments is not None else [])]
        taint = _all(*args)
        if function is None:
            return V(None, taint)
        if function.type == "identifier":
            name = _text(function)
            if name in ("string", "append") or name.startswith("[]"):
                return V(args[0].text if len(args) == 1 else None, taint,
                         args[0].items if len(args) == 1 else None)
            return V(None, taint)
        if function.type in ("slice_type", "array_type", "parenthesized_type"):
            return args[0] if args else NONE
        if function.type != "selector_expression":
            return V(None, taint)
        operand = function.child_by_field_name("operand")
        field = _text(function.child_by_field_name("field"))
        module = self.imports.get(_text(operand), "") if operand is not None and (
            operand.type == "identifier") else ""
        receiver = NONE if module else self.ev(operand)
        if not module and operand is not None and operand.type == "identifier" and taint and (
                field.startswith(("Write", "Add", "Set", "Append", "Encode", "Put", "Store"))):
            # buf.Write(b), q.Set("k", v): the receiver now holds what was given
            old = self.vars.get(_text(operand), NONE)
            self.vars[_text(operand)] = V(old.text, old.taint | taint, old.items, old.obj)
            receiver = self.vars[_text(operand)]
        qualified = f"{module}.{field}" if module else f"?.{field}"
        return self.known(node, qualified, field, receiver, args, taint | receiver.taint)

    def known(self, node: Any, name: str, field: str, receiver: V, args: list[V],
              taint: frozenset[Source]) -> V:
        first = args[0] if args else NONE
        line = self.line(node)
        if name in ("os.Getenv", "os.LookupEnv", "syscall.Getenv"):
            variable = first.text or ""
            if variable in ("HOME", "USERPROFILE"):
                return V("~")
            grade = vocab.secret_env(variable) if variable else None
            if grade is None:
                return V(None)
            return V(None, frozenset({Source(ENV, variable, self.path, line, grade)}))
        if name in ("os.Environ", "syscall.Environ"):
            source = Source(SECRET, "the whole environment", self.path, line, HIGH)
            self.fact(SECRET_READ, node, "the whole environment", frozenset({source}),
                      "command")
            return V(None, frozenset({source}))
        if name == "os.UserHomeDir":
            return V("~")
        if name in ("path/filepath.Join", "path.Join"):
            combos: list[tuple[str, frozenset[Source]]] = [("", frozenset())]
            for arg in args:
                combos = [((text + "/" if text else "") + item.s(), t | item.taint)
                          for text, t in combos for item in arg.each()][:MAX_ITEMS]
            if len(combos) == 1:
                return V(combos[0][0], combos[0][1])
            return V(None, taint, tuple(V(t, s) for t, s in combos))
        if name in ("fmt.Sprintf", "fmt.Sprint", "fmt.Sprintln") and first.text is not None:
            parts = iter(args[1:])
            text = re.sub(r"%[-+# 0-9.]*[svdqx]", lambda _: next(parts, NONE).s(), first.text) \
                if name == "fmt.Sprintf" else "".join(a.s() for a in args)
            return V(text, taint)
        if name == "strings.Join" and args:
            return V((args[1].s() if len(args) > 1 else "").join(i.s() for i in first.each()),
                     taint)
        if name in ("os.ReadFile", "io/ioutil.ReadFile", "os.Open", "os.OpenFile"):
            sources = set()
            for item in first.each():
                found = shell.file_source(item.s(), self.path, line)
                if found is not None:
                    sources.add(found)
                    if found.kind == SECRET:
                        self.fact(SECRET_READ, node, found.label, frozenset({found}), "file")
            return V(None, taint | frozenset(sources))
        if field == "DecodeString" and name.startswith(("encoding/base64", "encoding/hex",
                                                         "?.")):
            kind = "hex" if "hex" in name else "base64"
            source = Source(DECODED, kind, self.path, line)
            plain = decode(kind, first.text) if first.text and HOLE not in first.text else None
            return V(readable(plain) if plain is not None else None, taint | {source})
        if name in ("net/http.Get", "net/http.Head", "net/http.Post", "net/http.PostForm"):
            self.fact(NETWORK_EGRESS, node, first.s(), taint, "http")
            return V(None, frozenset({Source(FETCHED, first.s(), self.path, line)}))
        if name == "net/http.NewRequest" or name == "net/http.NewRequestWithContext":
            url = args[1] if name.endswith("NewRequest") and len(args) > 1 else (
                args[2] if len(args) > 2 else NONE)
            return V(url.s(), taint, obj="request")
        if field == "Do" and first.obj == "request":
            self.fact(NETWORK_EGRESS, node, first.text, first.taint, "http")
            return V(None, frozenset({Source(FETCHED, first.s(), self.path, line)}))
        if name in ("net.Dial", "net.DialTimeout", "crypto/tls.Dial"):
            address = args[1] if len(args) > 1 else NONE
            self.fact(NETWORK_EGRESS, node, address.s(), frozenset(), "socket")
            return V(None, frozenset({Source(FETCHED, address.s(), self.path, line)}),
                     obj="socket")
        if name.startswith("net.Lookup"):
            self.fact(NETWORK_EGRESS, node, first.s(), taint, "dns")
            return V(None, frozenset({Source(FETCHED, first.s(), self.path, line)}))
        if field in ("Write", "WriteString") and receiver.obj == "socket":
            return V(None, taint)
        if name in ("os/exec.Command", "os/exec.CommandContext"):
            words = args[1:] if name.endswith("Context") else args
            result = shell.analyse_words([w.s() for w in words], self.path, line,
                                         holes=_all(*words))
            for shell_fact in result.facts:
                merge_fact(self.facts, attrs.evolve(shell_fact, evidence=self.evidence(node)))
            data = _all(*words)
            if data:  # the judge decides whether the program runs its data (sh -c, python)
                self.fact(DYNAMIC_EXEC, node, " ".join(w.s() for w in words), data, "process")
            for write in result.writes:
                merge_write(self.writes, write)
            return V(None, result.out | taint)
        if name in ("os.WriteFile", "io/ioutil.WriteFile") and args:
            target = first.s()
            data = _all(*args[1:])
            if HOLE not in target:
                persisted = vocab.persistence_path(target)
                if persisted is not None:
                    self.fact(PERSISTENCE, node, vocab.normal_path(target), data, persisted[1])
                merge_write(self.writes, Write(vocab.normal_path(target), data, self.path, line))
            return NONE
        if name in ("os.RemoveAll", "os.Remove"):
            for item in first.each():
                label = vocab.destructive_target(item.s())
                if label and name == "os.RemoveAll":
                    self.fact(DESTRUCTION, node, label, frozenset(), "RemoveAll")
            return NONE
        if name in ("syscall.Exec", "plugin.Open"):
            self.fact(DYNAMIC_EXEC, node, first.text, taint, "exec")
        return V(None, taint, obj=receiver.obj if receiver.obj == "request" else "")


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def analyse(path: str, text: str) -> FileFacts:
    """The facts of a Go file."""
    if len(text) > MAX_CHARS:
        return FileFacts(path=path, language="go", parsed=False,
                         error=f"larger than {MAX_CHARS} characters")
    language = _language()
    if language is None:
        return FileFacts(path=path, language="go", parsed=False,
                         error="the Go grammar (tree-sitter-go) could not be loaded")
    import tree_sitter

    source = text.encode("utf-8", "surrogatepass")
    root = tree_sitter.Parser(language).parse(source).root_node
    reader = Reader(path, source)
    reader.run(root)
    return FileFacts(path=path, language="go", facts=tuple(reader.facts.values()),
                     writes=tuple(reader.writes.values()))


#: Lower-case words without which a Go file is not parsed.
TRIGGERS = ("net/http", "\"net\"", "os/exec", "getenv", "environ", "readfile", "os.open",
            "removeall", "writefile", "base64", "encoding/hex", "syscall", "plugin")


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in TRIGGERS)


__all__ = ["MAX_CHARS", "MAX_NODES", "TRIGGERS", "analyse", "triggered"]
