"""PHP as capability facts, over the tree-sitter grammar (``tree-sitter-php``).

Strings (``"…$x…{$y}"``), the ``.`` operator, arrays, ``chr``/``implode``/``array_map``,
``base64_decode``, ``hex2bin``, ``pack('H*')``, ``gzinflate``/``gzuncompress``/``gzdecode``,
``str_rot13``, ``strrev`` and ``convert_uudecode`` fold; variable functions (``$f()``),
``call_user_func``, variable variables (``$$name``) resolve their target when it folds (an
unresolved one is a fact of its own). Calls become the facts of :mod:`.scripting`: ``eval``,
``assert`` of a string, ``create_function``, ``preg_replace`` with ``/e``, ``include`` of
fetched or tainted paths, ``system``/``exec``/``shell_exec``/``passthru``/``popen``/
``proc_open``/backticks, ``curl_*``/``file_get_contents`` of a URL/``fsockopen``/
``stream_socket_client``/``mail``, ``getenv``/``$_ENV``/``$_SERVER``, file reads and writes,
``unlink``/``rmdir``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from lemon_core.auditor_kit.capabilities import inline
from lemon_core.auditor_kit.capabilities.model import DECODED, FileFacts, Source
from lemon_core.auditor_kit.capabilities.php_calls import PhpCalls
from lemon_core.auditor_kit.capabilities.scripting import (
    MAX_UNROLL,
    parse,
    text_of,
)
from lemon_core.auditor_kit.capabilities.values import (
    UNKNOWN,
    Value,
    concat,
    const,
    taint_of,
    unknown,
)

WORDS = ("eval", "assert", "create_function", "preg_replace", "system", "exec", "passthru",
         "popen", "proc_open", "`", "curl", "file_get_contents", "fopen", "fsockopen",
         "stream_socket", "socket_", "mail(", "getenv", "$_env", "$_server", "base64",
         "hex2bin", "pack(", "gzinflate", "gzuncompress", "gzdecode", "rot13", "strrev",
         "chr(", "call_user_func", "$$", "include", "require", "unlink", "rmdir",
         "file_put_contents", "fwrite", "dns_get_record", "gethostbyname", "guzzle", "http")

_NET_CLASSES = frozenset({"GuzzleHttp\\Client", "SoapClient", "HttpClient",
                          "Symfony\\Component\\HttpClient\\HttpClient"})


#: Operators whose result is a truth value.
_COMPARISONS = frozenset(('==', '!=', '===', '!==', '<', '>', '<=', '>=', '||', '&&', 'and', 'or', 'xor', 'instanceof', '<=>'))


class PhpReader(PhpCalls):
    language = "php"
    handlers: ClassVar[dict[str, str]] = {
        "encapsed_string": "string", "string": "string", "heredoc": "string",
        "nowdoc": "string", "shell_command_expression": "backticks",
        "integer": "integer", "variable_name": "variable",
        "dynamic_variable_name": "dynamic_variable", "subscript_expression": "subscript",
        "assignment_expression": "assignment",
        "augmented_assignment_expression": "augmented", "binary_expression": "binary",
        "function_call_expression": "function_call", "member_call_expression": "member_call",
        "scoped_call_expression": "scoped_call", "object_creation_expression": "new",
        "array_creation_expression": "array", "function_definition": "define_function",
        "method_declaration": "define_function", "return_statement": "return_",
        "include_expression": "include", "include_once_expression": "include",
        "require_expression": "include", "require_once_expression": "include",
        "echo_statement": "echo", "text": "nothing", "comment": "nothing",
        "name": "name", "qualified_name": "name",
        "namespace_use_declaration": "use",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: ``use GuzzleHttp\Client;``: short class name -> qualified name.
        self.aliases: dict[str, str] = {}

    def use(self, node: Any) -> Value:
        for clause in node.named_children:
            names = [c for c in clause.named_children if c.type in ("qualified_name", "name")]
            if names:
                full = text_of(names[0]).lstrip("\\")
                alias = text_of(names[-1]) if len(names) > 1 else full.rpartition("\\")[2]
                self.aliases[alias] = full
        return UNKNOWN

    def nothing(self, node: Any) -> Value:
        return UNKNOWN

    def name(self, node: Any) -> Value:
        return Value(ref=text_of(node))

    # -- literals and names ---------------------------------------------------------------

    def string(self, node: Any) -> Value:
        parts: list[Value] = []
        for child in node.named_children:
            if child.type in ("string_content", "string_value", "heredoc_body", "nowdoc_body"):
                if child.named_children:
                    parts.append(self.string(child))
                else:
                    parts.append(Value(const=text_of(child)))
            elif child.type == "escape_sequence":
                parts.append(Value(const=_unescape(text_of(child))))
            elif child.type in ("heredoc_start", "heredoc_end", "nowdoc_start"):
                continue
            else:
                parts.append(self.visit(child))
        if not parts:
            return Value(const="")
        return concat(parts) if len(parts) > 1 else parts[0]

    def backticks(self, node: Any) -> Value:
        return self.command([self.string(node)], node, "`", is_shell=True)

    def integer(self, node: Any) -> Value:
        try:
            return Value(const=int(text_of(node).replace("_", ""), 0))
        except ValueError:
            return UNKNOWN

    def variable(self, node: Any) -> Value:
        name = text_of(node).lstrip("$")
        if name in ("_ENV", "_SERVER") and node.parent is not None and (
                node.parent.type != "subscript_expression"):
            return self.env(None, node, f"${name}")
        if name in ("_GET", "_POST", "_REQUEST", "_COOKIE"):
            return Value(taint=frozenset({self.source("argv", f"${name}", node)}))
        if name == "argv":
            return Value(taint=frozenset({self.source("argv", "$argv", node)}))
        return self.lookup("$" + name)

    def dynamic_variable(self, node: Any) -> Value:
        inner = node.named_children[0] if node.named_children else None
        target = self.variable_name(self.visit(inner), node, "$${…}")
        return self.lookup("$" + target) if target else UNKNOWN

    def subscript(self, node: Any) -> Value:
        children = node.named_children
        base_node = children[0] if children else None
        key = self.visit(children[1]) if len(children) > 1 else UNKNOWN
        if base_node is not None and text_of(base_node) in ("$_ENV", "$_SERVER"):
            return self.env(key, node, text_of(base_node) + "[]")
        base = self.visit(base_node)
        if base.items is not None and isinstance(key.const, int) and (
                0 <= key.const < len(base.items)):
            return base.items[key.const]
        return unknown(base, key)

    def array(self, node: Any) -> Value:
        items = []
        pairs = []
        for element in node.named_children[:MAX_UNROLL]:
            values = [self.visit(c) for c in element.named_children]
            items.append(values[-1] if values else UNKNOWN)
            if len(values) == 2 and isinstance(values[0].const, str):
                pairs.append((values[0].const, values[1].text() or ""))
        if pairs:  # the known keys of an options array (``['base_uri' => …]``)
            return Value(const=tuple(pairs), items=tuple(items), taint=taint_of(*items))
        return Value(items=tuple(items), taint=taint_of(*items))

    # -- statements -----------------------------------------------------------------------

    def assignment(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        value = self.visit(right)
        self.assign(left, value)
        return value

    def assign(self, left: Any, value: Value) -> None:
        if left is None:
            return
        if left.type == "variable_name":
            self.bind("$" + text_of(left).lstrip("$"), value)
        elif left.type == "dynamic_variable_name":
            inner = left.named_children[0] if left.named_children else None
            target = self.variable_name(self.visit(inner), left, "$${…}")
            if target:
                self.bind("$" + target, value)
        else:
            base = left
            while base is not None and base.type in ("subscript_expression",
                                                     "member_access_expression"):
                base = base.named_children[0] if base.named_children else None
            if base is not None and base.type == "variable_name":
                self.taint_name("$" + text_of(base).lstrip("$"), value.taint)

    def augmented(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = text_of(node.child_by_field_name("operator"))
        current, value = self.visit(left), self.visit(right)
        result = concat([current, value]) if operator == ".=" else unknown(current, value)
        self.assign(left, result)
        return result

    def binary(self, node: Any) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = text_of(node.child_by_field_name("operator"))
        a, b = self.visit(left), self.visit(right)
        if operator == ".":
            return concat([a, b])
        if operator in _COMPARISONS:
            return UNKNOWN  # a truth value: no data flows through a comparison
        if isinstance(a.const, int) and isinstance(b.const, int) and operator in (
                "-", "+", "^", "*") and abs(a.const) < 1 << 31 and abs(b.const) < 1 << 31:
            return Value(const={"-": a.const - b.const, "+": a.const + b.const,
                                "^": a.const ^ b.const, "*": a.const * b.const}[operator])
        return unknown(a, b)

    def define_function(self, node: Any) -> Value:
        name = node.child_by_field_name("name")
        if name is not None:
            self.define(text_of(name), node)
        return UNKNOWN

    def call_function(self, node: Any, args: list[Value]) -> None:
        params = node.child_by_field_name("parameters")
        for index, param in enumerate(params.named_children if params is not None else ()):
            ident = param.child_by_field_name("name")
            if ident is not None:
                self.bind("$" + text_of(ident).lstrip("$"),
                          args[index] if index < len(args) else UNKNOWN)
        self.visit(node.child_by_field_name("body"))

    def return_(self, node: Any) -> Value:
        value = self.children(node)
        self.returns(value)
        return value

    def include(self, node: Any) -> Value:
        value = self.visit(node.named_children[0]) if node.named_children else UNKNOWN
        text = value.text() or ""
        if text.startswith("data:") and "base64" in text.partition(",")[0]:
            value = attrs.evolve(value, taint=value.taint | {
                self.source(DECODED, "a data: URL", node)})
        if value.taint or text.startswith(("http://", "https://", "ftp://", "data:", "php://")):
            if text.startswith(("http://", "https://", "ftp://")):
                value = self.network("http", value, [], node, "include")
            self.execute("eval", value, node, node.type.split("_")[0])
        return UNKNOWN

    def echo(self, node: Any) -> Value:
        value = self.children(node)
        self.stdout.update(value.taint)
        return UNKNOWN

    # -- calls ----------------------------------------------------------------------------

    def arguments(self, node: Any) -> list[Value]:
        found = node.child_by_field_name("arguments")
        return [self.visit(a) for a in (found.named_children if found is not None else ())]

    def function_call(self, node: Any) -> Value:
        function = node.child_by_field_name("function")
        args = self.arguments(node)
        if function is not None and function.type in ("name", "qualified_name"):
            name = text_of(function).lstrip("\\").lower()
            if name == "assert" and _boolean(node):
                return UNKNOWN  # an assertion of a condition, not of code in a string
            return self.call(name, args, node, False)
        target_value = self.visit(function)
        if target_value.inst == "closure":
            return self.execute("eval", target_value, node, "create_function")
        target = self.dynamic_name(target_value, node, "$function(…)")
        if target is None:
            return unknown(*args)
        return self.call(target.lstrip("\\").lower(), args, node,
                         target_value.built or target_value.hidden)

    def member_call(self, node: Any) -> Value:
        receiver = self.visit(node.child_by_field_name("object"))
        name_node = node.child_by_field_name("name")
        args = self.arguments(node)
        name = text_of(name_node)
        if name_node is not None and name_node.type != "name":
            target = self.dynamic_name(self.visit(name_node), node, "->$method(…)")
            if target is None:
                return unknown(receiver, *args)
            name = target
        inst = receiver.inst or ""
        if inst.startswith("net:") and name.lower() in ("request", "get", "post", "put",
                                                         "patch", "delete", "send",
                                                         "sendasync", "requestasync",
                                                         "__soapcall"):
            destination = args[1] if len(args) > 1 and name.lower() in (
                "request", "requestasync") else (args[0] if args else receiver)
            path = destination.text() or ""
            if receiver.partial and not path.startswith(("http://", "https://")):
                destination = const(receiver.partial.rstrip("/") + "/" + path.lstrip("/"),
                                    destination)
            return self.network(inst[4:], destination, [receiver, *args], node,
                                f"{inst[4:]}->{name}")
        return unknown(receiver, *args)

    def scoped_call(self, node: Any) -> Value:
        scope = text_of(node.child_by_field_name("scope"))
        name = text_of(node.child_by_field_name("name"))
        args = self.arguments(node)
        if scope.lstrip("\\") in ("Http", "Illuminate\\Support\\Facades\\Http") and (
                name.lower() in ("get", "post", "put", "patch", "delete", "send")):
            return self.network("http", args[0] if args else None, args[1:], node,
                                f"{scope}::{name}")
        return unknown(*args)

    def new(self, node: Any) -> Value:
        children = node.named_children
        cls = text_of(children[0]).lstrip("\\") if children else ""
        args = self.arguments(node) or [self.visit(a) for c in children[1:]
                                        if c.type == "arguments" for a in c.named_children]
        if children and children[0].type == "variable_name":
            target = self.dynamic_name(self.visit(children[0]), node, "new $class")
            cls = (target or "").lstrip("\\")
        cls = self.aliases.get(cls, cls)
        if cls in _NET_CLASSES or cls.endswith(("HttpClient", "GuzzleHttp\\Client")):
            base = next((v for a in args for k, v in _pairs(a) if k == "base_uri"), None)
            return Value(inst="net:http", partial=base, taint=taint_of(*args))
        if cls in ("SQLite3", "PDO") and args:
            path = args[0].text() or ""
            return self.read_file(const(path.removeprefix("sqlite:"), args[0]), node, cls)
        if cls == "SplFileObject" and args:
            return self.read_file(args[0], node, cls)
        return unknown(*args)


#: Calls whose result is a truth value (an ``assert`` of one is a condition, not code).
_PREDICATES = ("is_", "isset", "empty", "in_array", "array_key_exists", "count", "ctype_",
               "str_starts_with", "str_ends_with", "str_contains", "method_exists",
               "function_exists", "class_exists", "file_exists", "preg_match", "strlen",
               "is_", "property_exists", "defined")


def _boolean(node: Any) -> bool:
    """Whether the first argument of the call ``node`` is a condition (a comparison, a
    negation, a predicate call, a literal that is not a string)."""
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and (
        arguments.named_children) else None
    expression = first.named_children[0] if first is not None and first.named_children else None
    if expression is None:
        return True
    kind = expression.type
    if kind == "binary_expression":
        return text_of(expression.child_by_field_name("operator")) != "."
    if kind in ("function_call_expression",):
        callee = text_of(expression.child_by_field_name("function")).lstrip("\\").lower()
        return callee.startswith(_PREDICATES)
    return kind in ("unary_op_expression", "boolean", "null", "integer", "float",
                    "cast_expression", "instanceof_expression")


def _pairs(value: Value) -> list[tuple[str, str]]:
    """Known ``key => value`` texts of an options array."""
    return list(value.const) if value.known and isinstance(value.const, tuple) and all(
        isinstance(p, tuple) for p in value.const) else []


def _unescape(text: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "e": "\x1b", "v": "\v", "f": "\f"}
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
            return chr(int(body, 8) % 256)
        except ValueError:
            return body
    return simple.get(body, body)


def _source_text(text: str) -> str:
    """PHP code as the grammar expects it: a program without an opening tag (a fence,
    ``php -r``) gets one, on its first line so line numbers stay."""
    return text if "<?php" in text[:2000] or "<?=" in text[:2000] else "<?php " + text


def analyse(path: str, text: str, *, line_offset: int = 0) -> FileFacts:
    """The facts of the PHP source ``text`` of ``path``."""
    source = _source_text(text) if line_offset else text
    if not path.lower().endswith((".php", ".phtml", ".php5", ".php7", ".phps")):
        source = _source_text(text)
    root, error = parse("php", source)
    if root is None:
        return FileFacts(path=path, language="php", parsed=False, error=error)
    return PhpReader(path, source, root, line_offset=line_offset).run()


def analyse_inline(code: str, path: str, line: int, holes: frozenset[Source]
                   ) -> inline.InlineResult:
    """``php -r CODE`` on the shell line ``path:line``."""
    source = _source_text(code)
    root, _ = parse("php", source)
    if root is None:
        return inline.InlineResult()
    found = PhpReader(path, source, root, line=line, holes=holes).run()
    return inline.InlineResult(found.facts, found.writes, found.stdout)


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in WORDS)


__all__ = ["PhpReader", "analyse", "analyse_inline", "triggered"]
