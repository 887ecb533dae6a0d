"""Perl as capability facts, over the tree-sitter grammar (``tree-sitter-perl``).

Strings (``"…$x…"``, ``q{}``/``qq{}``), the ``.`` operator, lists, ``chr``/``map``/``join``,
``pack('C*'|'H*')``, ``reverse``, ``tr`` rot13, ``MIME::Base64`` and ``Compress::Zlib`` fold;
``&{"…"}``, ``&$name``, ``$obj->$method``, ``->can("…")`` and ``$$name`` resolve their target
when it folds (an unresolved one is a fact of its own). Calls become the facts of
:mod:`.scripting`: string ``eval``, ``do FILE``, ``system``/``exec``/backticks/``qx``/
``open`` of a pipe (``"| sh"``, ``"-|"``), ``LWP``/``HTTP::Tiny``/``IO::Socket``/``Net::DNS``/
``Socket``, ``%ENV``, ``open`` for reading and writing, ``unlink``/``File::Path::rmtree``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from lemon_core.auditor_kit.capabilities import inline
from lemon_core.auditor_kit.capabilities.model import (
    DECODED,
    FileFacts,
    Source,
)
from lemon_core.auditor_kit.capabilities.perl_calls import PerlCalls
from lemon_core.auditor_kit.capabilities.scripting import (
    MAX_UNROLL,
    parse,
    text_of,
)
from lemon_core.auditor_kit.capabilities.values import (
    UNKNOWN,
    Value,
    concat,
    taint_of,
    unknown,
)

WORDS = ("eval", "system", "exec", "`", "qx", "open", "lwp", "http", "socket", "net::",
         "env", "base64", "pack", "chr", "reverse", "tr/", "y/", "zlib", "gunzip", "unlink",
         "rmtree", "remove_tree", "do ", "require", "->can", "&{", "&$", "$$", "curl", "wget",
         "gethostbyname", "syswrite", "send(", "mime::")

_ROT13 = ("A-Za-z", "N-ZA-Mn-za-m")
#: What a ``s///e`` replacement calls when it decodes (``chr(hex($1))``, ``pack("H2", $1)``).
_DECODING = re.compile(r"\b(?:chr|hex|oct|pack|decode\w*|ord)\s*\(?")


#: Operators whose result is a truth value.
_COMPARISONS = frozenset(('==', '!=', '===', '!==', '<', '>', '<=', '>=', '<=>', 'cmp', 'eq', 'ne', 'lt', 'gt', 'le', 'ge', '=~', '!~'))


class PerlReader(PerlCalls):
    language = "perl"
    handlers: ClassVar[dict[str, str]] = {
        "interpolated_string_literal": "string", "string_literal": "string",
        "string_content": "string", "command_string": "backticks",
        "number": "number", "scalar": "variable", "array": "variable", "hash": "variable",
        "hash_element_expression": "element", "array_element_expression": "element",
        "assignment_expression": "assignment", "binary_expression": "binary",
        "function_call_expression": "function_call",
        "ambiguous_function_call_expression": "function_call",
        "func1op_call_expression": "function_call", "func0op_call_expression": "function_call",
        "method_call_expression": "method_call", "eval_expression": "eval_",
        "map_grep_expression": "map_grep", "anonymous_array_expression": "items",
        "list_expression": "items", "subroutine_declaration_statement": "sub",
        "return_expression": "return_", "use_statement": "use", "for_statement": "for_",
        "comment": "nothing", "pod": "nothing", "autoquoted_bareword": "bareword",
        "bareword": "bareword", "require_expression": "require",
        "do_expression": "do_", "readline_expression": "readline",
        "match_regexp": "regexp",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modules: set[str] = set()

    def nothing(self, node: Any) -> Value:
        return UNKNOWN

    # -- literals and names ---------------------------------------------------------------

    def string(self, node: Any) -> Value:
        if node.type == "string_content" and not node.named_children:
            return Value(const=text_of(node))
        parts: list[Value] = []
        for child in node.named_children:
            if child.type == "string_content" and not child.named_children:
                parts.append(Value(const=text_of(child)))
            elif child.type == "string_content":
                parts.extend(self.content(child))
            elif child.type == "escape_sequence":
                parts.append(Value(const=_unescape(text_of(child))))
            else:
                parts.append(self.visit(child))
        if not parts:
            return Value(const="")
        return concat(parts) if len(parts) > 1 else parts[0]

    def content(self, node: Any) -> list[Value]:
        """A string's content with variables inside: the literal text between them kept."""
        parts: list[Value] = []
        position = node.start_byte
        raw = node.text
        for child in node.named_children:
            if child.start_byte > position:
                parts.append(Value(const=raw[position - node.start_byte:
                                             child.start_byte - node.start_byte].decode(
                                                 "utf-8", "replace")))
            if child.type == "escape_sequence":
                parts.append(Value(const=_unescape(text_of(child))))
            else:
                parts.append(self.visit(child))
            position = child.end_byte
        if node.end_byte > position:
            parts.append(Value(const=raw[position - node.start_byte:].decode("utf-8",
                                                                              "replace")))
        return parts

    def regexp(self, node: Any) -> Value:
        """A pattern: ``//`` (empty) is what ``split`` cuts every character with."""
        content = [c for c in node.named_children if c.type == "regexp_content"]
        return Value(const="", inst="regexp") if not content else Value(inst="regexp")

    def readline(self, node: Any) -> Value:
        handle = node.named_children[0] if node.named_children else None
        if handle is None:
            return UNKNOWN
        if handle.type == "filehandle" and handle.named_children:
            return unknown(self.lookup("$" + text_of(handle.named_children[0])))
        name = text_of(handle)
        if name == "STDIN":
            return Value(taint=frozenset({self.source("stdin", "STDIN", node)}))
        return unknown(self.lookup("*" + name) if handle.type == "filehandle" else
                       self.visit(handle))

    def backticks(self, node: Any) -> Value:
        return self.command([self.string(node)], node, "qx", is_shell=True)

    def number(self, node: Any) -> Value:
        text = text_of(node).replace("_", "")
        try:
            return Value(const=int(text, 16) if text.lower().startswith("0x") else int(text))
        except ValueError:
            return UNKNOWN

    def bareword(self, node: Any) -> Value:
        handle = self.frame.lookup("*" + text_of(node))
        if handle is not None:
            return handle
        return Value(const=text_of(node), ref=text_of(node))

    def variable(self, node: Any) -> Value:
        sigil = {"scalar": "$", "array": "@", "hash": "%"}[node.type]
        name_node = node.named_children[0] if node.named_children else None
        if name_node is None:
            return UNKNOWN
        if name_node.named_children:  # $$ref (a dereference), ${"name"} (a symbolic one)
            inner_node = name_node.named_children[0]
            inner = self.visit(inner_node)
            if inner_node.type != "block":
                return unknown(inner)
            target = self.variable_name(inner, node, f"{sigil}{{…}}")
            return self.lookup(sigil + target) if target else unknown(inner)
        name = text_of(name_node)
        if name == "ENV" and sigil == "%":
            return self.env(None, node, "%ENV")
        if name == "ARGV" and sigil == "@":
            return Value(taint=frozenset({self.source("argv", "@ARGV", node)}))
        return self.lookup(sigil + name)

    def element(self, node: Any) -> Value:
        children = node.named_children
        container = children[0] if children else None
        key = self.visit(children[1]) if len(children) > 1 else UNKNOWN
        if container is not None and container.type == "container_variable" and text_of(
                container).lstrip("$") == "ENV":
            return self.env(key, node, "$ENV{}")
        base = self.visit(container) if container is not None and (
            container.type != "container_variable") else self.lookup(
                ("%" if node.type == "hash_element_expression" else "@")
                + text_of(container).lstrip("$"))
        if base.items is not None and isinstance(key.const, int) and (
                -len(base.items) <= key.const < len(base.items)):
            return base.items[key.const]
        return unknown(base, key)

    def items(self, node: Any) -> Value:
        items: list[Value] = []
        for child in node.named_children[:MAX_UNROLL]:
            value = self.visit(child)
            items.extend(value.items if value.items is not None and child.type in (
                "array", "list_expression", "parenthesized_expression") else (value,))
        if len(items) == 1 and node.type == "list_expression":
            return items[0]
        return Value(items=tuple(items), taint=taint_of(*items),
                     hidden=any(i.hidden for i in items))

    # -- statements -----------------------------------------------------------------------

    def assignment(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = text_of(node.child_by_field_name("operator")) or "="
        value = self.visit(right)
        if operator == ".=":
            value = concat([self.visit(left), value])
        elif operator != "=":
            value = unknown(self.visit(left), value)
        self.assign(left, value)
        return value

    def assign(self, left: Any, value: Value) -> None:
        if left is None:
            return
        if left.type == "assignment_expression":  # (my $t = $x) =~ tr/…/…/
            self.assign(left.child_by_field_name("left"), value)
            return
        if left.type in ("variable_declaration", "parenthesized_expression", "list_expression"):
            targets = list(left.named_children)
            if len(targets) == 1 and targets[0].type != "list_expression":
                self.assign(targets[0], value)
                return
            flat: list[Any] = []
            for target in targets:
                flat.extend(target.named_children if target.type == "list_expression"
                            else (target,))
            for index, target in enumerate(flat):
                item = value.items[index] if value.items is not None and index < len(
                    value.items) else unknown(value)
                self.assign(target, item)
            return
        if left.type in ("scalar", "array", "hash") and left.named_children:
            sigil = {"scalar": "$", "array": "@", "hash": "%"}[left.type]
            name_node = left.named_children[0]
            if name_node.named_children:
                target = self.variable_name(self.visit(name_node.named_children[0]), left,
                                            f"{sigil}{{…}}")
                if target:
                    self.bind(sigil + target, value)
                return
            self.bind(sigil + text_of(name_node), value)
            return
        if left.type in ("hash_element_expression", "array_element_expression"):
            container = left.named_children[0] if left.named_children else None
            if container is not None:
                name = text_of(container).lstrip("$")
                sigil = "%" if left.type == "hash_element_expression" else "@"
                if container.type == "scalar":
                    self.taint_name(text_of(container), value.taint)
                else:
                    self.taint_name(sigil + name, value.taint)

    def binary(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = text_of(node.child_by_field_name("operator"))
        a = self.visit(left)
        if right is not None and right.type == "transliteration_expression":
            return self.transliterate(a, right, left, node)
        if right is not None and right.type == "substitution_regexp" and operator == "=~":
            return self.substitute(a, right, left, node)
        b = self.visit(right)
        if operator == ".":
            return concat([a, b])
        if operator in _COMPARISONS:
            return UNKNOWN  # a truth value: no data flows through a comparison
        if isinstance(a.const, int) and isinstance(b.const, int) and operator in (
                "-", "+", "^", "*") and abs(a.const) < 1 << 31 and abs(b.const) < 1 << 31:
            return Value(const={"-": a.const - b.const, "+": a.const + b.const,
                                "^": a.const ^ b.const, "*": a.const * b.const}[operator])
        return unknown(a, b)

    def transliterate(self, value: Value, node: Any, target: Any, whole: Any) -> Value:
        parts = [text_of(c) for c in node.named_children]
        if tuple(parts[:2]) == _ROT13:
            decoded = self.decode("rot13", value, whole, "rot13")
            self.assign(target.named_children[0] if target.type == "parenthesized_expression"
                        and target.named_children else target, decoded)
            return decoded
        return unknown(value)

    def substitute(self, value: Value, node: Any, target: Any, whole: Any) -> Value:
        """``$x =~ s/…/…/e``: the replacement is code run per match (``chr(hex($1))``
        decodes): the result is decoded data. Other substitutions keep the taint."""
        flags = "".join(text_of(c) for c in node.named_children
                        if c.type == "substitution_regexp_modifiers")
        replacement = self.children(node)
        code = "".join(text_of(c) for c in node.named_children if c.type == "replacement")
        if "e" not in flags or not _DECODING.search(code):
            result = unknown(value, replacement)
        else:
            result = Value(taint=value.taint | replacement.taint | {
                self.source(DECODED, "s///e substitution", whole)}, hidden=True)
        if "r" not in flags:
            self.assign(target, result)
        return result

    def sub(self, node: Any) -> Value:
        name = node.child_by_field_name("name") or (
            node.named_children[0] if node.named_children else None)
        if name is not None:
            self.define(text_of(name), node)
        return UNKNOWN

    def call_function(self, node: Any, args: list[Value]) -> None:
        self.bind("@_", Value(items=tuple(args), taint=taint_of(*args)))
        body = node.child_by_field_name("body") or node.named_children[-1]
        self.visit(body)

    def return_(self, node: Any) -> Value:
        value = self.children(node)
        self.returns(value)
        return value

    def use(self, node: Any) -> Value:
        for child in node.named_children:
            if child.type == "package":
                self.modules.add(text_of(child))
        return UNKNOWN

    def for_(self, node: Any) -> Value:
        variable = node.child_by_field_name("variable")
        listed = node.child_by_field_name("list")
        body = node.child_by_field_name("body")
        if variable is None or listed is None:
            return self.children(node)
        value = self.visit(listed)
        item = (value.items[0] if value.items is not None and len(value.items) == 1
                else value if value.known and value.items is None else unknown(value))
        self.assign(variable, item)
        self.visit(body)
        return UNKNOWN

    def map_grep(self, node: Any) -> Value:
        children = node.named_children
        if len(children) < 2:
            return self.children(node)
        listed = self.visit(children[-1])
        items = listed.items if listed.items is not None else None
        out = []
        if items is not None and len(items) <= MAX_UNROLL:
            for item in items:
                self.bind("$_", item)
                out.append(self.visit(children[0]))
            return Value(items=tuple(out), taint=taint_of(*out),
                         hidden=any(o.hidden for o in out))
        self.bind("$_", unknown(listed))
        return unknown(listed, self.visit(children[0]))

    def eval_(self, node: Any) -> Value:
        child = node.named_children[0] if node.named_children else None
        if child is None or child.type == "block":
            return self.visit(child)
        if child.type == "filename":  # do FILE
            return self.do_(node)
        return self.execute("eval", self.visit(child), node, "eval")

    def do_(self, node: Any) -> Value:
        child = node.named_children[0] if node.named_children else None
        if child is not None and child.type == "block":  # do { … }: a block, not a file
            return self.visit(child)
        value = self.children(node)
        if value.taint:
            self.execute("eval", value, node, "do")
        return unknown(value)

    def require(self, node: Any) -> Value:
        value = self.children(node)
        if value.taint or (value.text() or "").startswith(("http", "/tmp")):
            self.execute("eval", value, node, "require")
        return UNKNOWN

    # -- calls ----------------------------------------------------------------------------

    def function_call(self, node: Any) -> Value:
        function = node.child_by_field_name("function")
        if function is None and node.children:
            function = node.children[0]
        handle = None
        args: list[Value] = []
        for child in node.named_children:
            if child == function or child.type == "function":
                continue
            if child.type == "indirect_object":
                handle = child
                continue
            value = self.visit(child)
            args.extend(value.items if value.items is not None and child.type in (
                "list_expression",) else (value,))
        if function is not None and function.named_children:  # &{"name"}(…), &$code(…)
            inner = function.named_children[0]
            name_value = self.visit(inner.named_children[0] if inner.named_children else inner)
            target = self.symbolic(name_value, node, "&{…}")
            if target is None:
                return unknown(*args)
            return self.call(target.removeprefix("main::").removeprefix("CORE::"), args, node,
                             name_value.built or name_value.hidden, None)
        name = text_of(function).strip()
        return self.call(name, args, node, False, handle)

    def method_call(self, node: Any) -> Value:
        invocant = node.child_by_field_name("invocant")
        method = node.child_by_field_name("method")
        arguments = node.child_by_field_name("arguments")
        args: list[Value] = []
        for child in (arguments,) if arguments is not None else ():
            value = self.visit(child)
            args.extend(value.items if value.items is not None and child.type == (
                "list_expression") else (value,))
        receiver = self.visit(invocant)
        hidden = False
        if method is not None and method.named_children:  # $obj->$name(…)
            name_value = self.visit(method.named_children[0])
            if name_value.inst == "code" and name_value.ref:
                return self.call(name_value.ref, args, node, name_value.hidden, None)
            target = self.symbolic(name_value, node, "->$method")
            if target is None:
                return unknown(receiver, *args)
            name, hidden = target, name_value.built or name_value.hidden
        else:
            name = text_of(method)
        return self.on_receiver(name, receiver, args, node, hidden)


def _unescape(text: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "e": "\x1b", "a": "\a"}
    body = text[1:]
    if body[:1] == "x":
        try:
            return chr(int(body[1:].strip("{}"), 16))
        except ValueError:
            return body
    if body[:1].isdigit():
        try:
            return chr(int(body, 8))
        except ValueError:
            return body
    return simple.get(body, body)


def analyse(path: str, text: str, *, line_offset: int = 0) -> FileFacts:
    """The facts of the Perl source ``text`` of ``path``."""
    root, error = parse("perl", text)
    if root is None:
        return FileFacts(path=path, language="perl", parsed=False, error=error)
    return PerlReader(path, text, root, line_offset=line_offset).run()


def analyse_inline(code: str, path: str, line: int, holes: frozenset[Source]
                   ) -> inline.InlineResult:
    """``perl -e CODE`` on the shell line ``path:line``."""
    root, _ = parse("perl", code)
    if root is None:
        return inline.InlineResult()
    found = PerlReader(path, code, root, line=line, holes=holes).run()
    return inline.InlineResult(found.facts, found.writes, found.stdout)


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in WORDS)


__all__ = ["PerlReader", "analyse", "analyse_inline", "triggered"]
