"""Ruby as capability facts, over the tree-sitter grammar (``tree-sitter-ruby``).

Strings (with ``#{}`` interpolation), ``+``/``<<`` concatenation, arrays, symbols and
``Integer#chr``/``Array#pack``/``String#reverse``/``tr`` rot13/``Base64``/``unpack('m')``/
``Zlib`` fold; ``send``/``public_send``/``__send__``, ``method(:x).call`` and ``const_get``
resolve their target when it folds (an unresolved one is a fact of its own). Calls become the
facts of :mod:`.scripting`: ``eval``/``instance_eval``/``class_eval`` of a string,
``system``/``exec``/``spawn``/backticks/``%x``/``IO.popen``/``Open3``/``open("|…")``,
``Net::HTTP``/``open-uri``/Faraday/HTTParty/RestClient/``TCPSocket``/``Resolv``, ``ENV``,
``File``/``IO`` reads and writes, ``FileUtils.rm_rf`` and friends.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lemon_core.auditor_kit.capabilities import inline
from lemon_core.auditor_kit.capabilities.model import DYNAMIC_EXEC, FileFacts, Source
from lemon_core.auditor_kit.capabilities.ruby_calls import RubyCalls
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

SUFFIXES = (".rb", ".rake", ".gemspec", ".ru")
NAMES = ("rakefile", "gemfile", "guardfile", "vagrantfile", "podfile", "fastfile", "brewfile")
#: Lower-case words without which Ruby code does nothing this reader follows.
WORDS = ("eval", "system", "exec", "spawn", "popen", "open3", "`", "%x", "open(", "open ",
         "net::", "net/", "uri", "faraday", "httparty", "rest", "socket", "resolv", "excon",
         "http.", "env", "file", "io.", "dir", "fileutils", "base64", "unpack", "pack", "zlib",
         "chr", "reverse", "send", "const_get", "method(", "marshal", "load", "curl", "wget")

_VARIABLES = frozenset({"identifier", "instance_variable", "global_variable",
                        "class_variable"})


def _unescape(text: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "e": "\x1b", "s": " "}
    body = text[1:]
    if body[:1] == "x":
        try:
            return chr(int(body[1:], 16))
        except ValueError:
            return body
    if body[:1] == "u":
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


#: Operators whose result is a truth value.
_COMPARISONS = frozenset(('==', '!=', '===', '!==', '<', '>', '<=', '>=', '<=>', '=~', '!~'))


class RubyReader(RubyCalls):
    language = "ruby"
    handlers: ClassVar[dict[str, str]] = {
        "string": "string", "subshell": "subshell", "simple_symbol": "symbol",
        "delimited_symbol": "string", "hash_key_symbol": "symbol", "integer": "integer",
        "identifier": "identifier", "constant": "constant", "scope_resolution": "constant",
        "assignment": "assignment", "operator_assignment": "operator_assignment",
        "binary": "binary", "array": "array", "string_array": "array",
        "element_reference": "element", "call": "call", "method": "method",
        "singleton_method": "method", "return": "return_", "chained_string": "chained",
        "instance_variable": "identifier", "global_variable": "identifier",
        "class_variable": "identifier", "heredoc_beginning": "nothing",
        "comment": "nothing", "parenthesized_statements": "children",
        "hash": "hash", "pair": "hash",
    }

    # -- literals and names ---------------------------------------------------------------

    def nothing(self, node: Any) -> Value:
        return UNKNOWN

    def string(self, node: Any) -> Value:
        parts: list[Value] = []
        for child in node.named_children:
            if child.type == "string_content":
                parts.append(Value(const=text_of(child)))
            elif child.type == "escape_sequence":
                parts.append(Value(const=_unescape(text_of(child))))
            elif child.type == "interpolation":
                parts.append(self.children(child))
            else:
                parts.append(self.visit(child))
        if not parts:
            return Value(const="")
        return concat(parts) if len(parts) > 1 else parts[0]

    def chained(self, node: Any) -> Value:
        return concat([self.visit(c) for c in node.named_children])

    def subshell(self, node: Any) -> Value:
        text = self.string(node)
        return self.command([text], node, "`", is_shell=True)

    def symbol(self, node: Any) -> Value:
        return Value(const=text_of(node).lstrip(":").rstrip(":").strip("\"'"))

    def integer(self, node: Any) -> Value:
        try:
            return Value(const=int(text_of(node).replace("_", ""), 0))
        except ValueError:
            return UNKNOWN

    def identifier(self, node: Any) -> Value:
        name = text_of(node)
        found = self.frame.lookup(name)
        if found is not None:
            return found
        if name in self.functions:
            return self.invoke(name, [])
        if name in ("binding",):
            return Value(ref="Binding")
        return UNKNOWN

    def constant(self, node: Any) -> Value:
        name = text_of(node).lstrip(":")
        if name in ("ARGV",):
            return Value(taint=frozenset({self.source("argv", "ARGV", node)}))
        found = self.frame.lookup(name)
        return found if found is not None else Value(ref=name)

    def hash(self, node: Any) -> Value:
        """A hash or a ``key: value`` argument: its data, marked as options."""
        return Value(inst="hash", taint=self.children(node).taint)

    def array(self, node: Any) -> Value:
        if node.type == "string_array":
            items = tuple(Value(const=text_of(c)) for c in node.named_children)
        else:
            items = tuple(self.visit(c) for c in node.named_children[:MAX_UNROLL])
        return Value(items=items, taint=taint_of(*items))

    # -- statements -----------------------------------------------------------------------

    def assignment(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        value = self.visit(right)
        self.assign(left, value)
        return value

    def assign(self, left: Any, value: Value) -> None:
        if left is None:
            return
        if left.type in ("identifier", "instance_variable", "global_variable",
                         "class_variable", "constant"):
            self.bind(text_of(left), value)
        elif left.type in ("left_assignment_list", "destructured_left_assignment"):
            for index, part in enumerate(left.named_children):
                item = value.items[index] if value.items is not None and index < len(
                    value.items) else unknown(value)
                self.assign(part, item)
        else:  # req.body = x, h[:k] = x: the object now holds the data
            base = left
            while base is not None and base.type in ("call", "element_reference"):
                base = base.child_by_field_name("receiver") or (
                    base.named_children[0] if base.named_children else None)
            if base is not None and base.type in ("identifier", "instance_variable"):
                self.taint_name(text_of(base), value.taint)

    def operator_assignment(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        current, value = self.visit(left), self.visit(right)
        operator = text_of(node.child_by_field_name("operator"))
        result = concat([current, value]) if operator == "+=" and (
            isinstance(current.const, str) or current.partial is not None) else unknown(
                current, value)
        self.assign(left, result)
        return result

    def binary(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = text_of(node.child_by_field_name("operator"))
        a, b = self.visit(left), self.visit(right)
        if operator in ("+", "<<") and (isinstance(a.const, str) or a.partial is not None
                                        or isinstance(b.const, str)):
            joined = concat([a, b])
            if operator == "<<" and left is not None and left.type in _VARIABLES:
                self.bind(text_of(left), joined)
            return joined
        if operator == "<<" and a.items is not None:
            joined = Value(items=(*a.items, b), taint=a.taint | b.taint)
            if left is not None and left.type in _VARIABLES:
                self.bind(text_of(left), joined)
            return joined
        if operator == "<<" and not a.inst and left is not None and left.type in _VARIABLES:
            joined = unknown(a, b)  # a buffer or collection of unknown type gains the data
            self.bind(text_of(left), joined)
            return joined
        if operator == "<<" and (a.inst or "").startswith("net:"):
            return self.network(a.inst[4:], a, [b], node, "<<")  # type: ignore[index]
        if operator == "<<" and a.inst == "pipe":
            self.fact(DYNAMIC_EXEC, node, a.partial, self.revealed(b, node), "interpreter")
            return a
        if operator == "<<" and a.inst == "writer" and a.partial:
            self.write(a.partial, b.taint, node)
            return a
        if operator in _COMPARISONS:
            return UNKNOWN  # a truth value: no data flows through a comparison
        if isinstance(a.const, int) and isinstance(b.const, int) and operator in (
                "-", "+", "^", "*") and abs(a.const) < 1 << 31 and abs(b.const) < 1 << 31:
            return Value(const={"-": a.const - b.const, "+": a.const + b.const,
                                "^": a.const ^ b.const, "*": a.const * b.const}[operator])
        return unknown(a, b)

    def element(self, node: Any) -> Value:
        receiver = node.named_children[0] if node.named_children else None
        args = [self.visit(c) for c in node.named_children[1:]]
        if receiver is not None and text_of(receiver) == "ENV":
            return self.env(args[0] if args else None, node, "ENV[]")
        base = self.visit(receiver)
        if base.ref == "Dir" and args:
            return args[0]
        if base.items is not None and args and isinstance(args[0].const, int) and (
                -len(base.items) <= args[0].const < len(base.items)):
            return base.items[args[0].const]
        return unknown(base, *args)

    def method(self, node: Any) -> Value:
        name = node.child_by_field_name("name")
        if name is not None:
            self.define(text_of(name), node)
        return UNKNOWN

    def call_function(self, node: Any, args: list[Value]) -> None:
        params = node.child_by_field_name("parameters")
        for index, param in enumerate(params.named_children if params is not None else ()):
            ident = param if param.type == "identifier" else param.child_by_field_name("name")
            if ident is not None:
                self.bind(text_of(ident), args[index] if index < len(args) else UNKNOWN)
        last = UNKNOWN
        for child in node.named_children:
            if child.type not in ("identifier", "method_parameters", "constant"):
                last = self.visit(child)
        self.returns(last)

    def return_(self, node: Any) -> Value:
        value = self.children(node)
        self.returns(value)
        return value

    # -- calls ----------------------------------------------------------------------------

    def call(self, node: Any) -> Value:
        receiver_node = node.child_by_field_name("receiver")
        method_node = node.child_by_field_name("method")
        arguments = node.child_by_field_name("arguments")
        block = node.child_by_field_name("block")
        name = text_of(method_node) if method_node is not None else "call"
        receiver = self.visit(receiver_node) if receiver_node is not None else None
        if receiver_node is not None and text_of(receiver_node) == "ENV":
            receiver = Value(ref="ENV")
        args = [self.visit(a) for a in (arguments.named_children if arguments is not None
                                        else ()) if a.type != "block_argument"]
        block_ref = [a for a in (arguments.named_children if arguments is not None else ())
                     if a.type == "block_argument"]
        if block_ref and receiver is not None and receiver.items is not None and name in (
                "map", "collect"):
            mapped = text_of(block_ref[0]).lstrip("&:")
            result = Value(items=tuple(self.dispatch(mapped, item, [], node, False)
                                       for item in receiver.items[:MAX_UNROLL]),
                           taint=receiver.taint)
            result = Value(items=result.items, taint=taint_of(*result.items or ()),
                           hidden=any(i.hidden for i in result.items or ()))
        else:
            result = self.dispatch(name, receiver, args, node, False)
        if block is not None:
            self.run_block(block, result, receiver, name)
        return result

    def run_block(self, block: Any, result: Value, receiver: Value | None, name: str) -> None:
        params = block.child_by_field_name("parameters")
        item = result
        if name in ("each", "map", "each_with_index", "select", "collect", "each_line",
                    "each_pair", "filter_map", "each_key", "each_value") and (
                receiver is not None):
            # over a glob pattern (Dir.glob("~/.ssh/*").each): each item is a path it names;
            # over ENV: each item is a variable of the environment
            item = receiver if receiver.known and isinstance(receiver.const, str) else (
                unknown(receiver, result if receiver.ref == "ENV" else None))
        for param in params.named_children if params is not None else ():
            if param.type == "identifier":
                self.bind(text_of(param), item)
        body = block.child_by_field_name("body")
        self.visit(body if body is not None else None)


def analyse(path: str, text: str, *, line_offset: int = 0) -> FileFacts:
    """The facts of the Ruby source ``text`` of ``path``."""
    root, error = parse("ruby", text)
    if root is None:
        return FileFacts(path=path, language="ruby", parsed=False, error=error)
    return RubyReader(path, text, root, line_offset=line_offset).run()


def analyse_inline(code: str, path: str, line: int, holes: frozenset[Source]
                   ) -> inline.InlineResult:
    """``ruby -e CODE`` on the shell line ``path:line``."""
    root, _ = parse("ruby", code)
    if root is None:
        return inline.InlineResult()
    found = RubyReader(path, code, root, line=line, holes=holes).run()
    return inline.InlineResult(found.facts, found.writes, found.stdout)


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in WORDS)


__all__ = ["NAMES", "SUFFIXES", "RubyReader", "analyse", "analyse_inline", "triggered"]
