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
from lemon_core.auditor_kit.capabilities.scripting import (
    MAX_UNROLL,
    Reader,
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

SUFFIXES = (".rb", ".rake", ".gemspec", ".ru")
NAMES = ("rakefile", "gemfile", "guardfile", "vagrantfile", "podfile", "fastfile", "brewfile")
#: Lower-case words without which Ruby code does nothing this reader follows.
WORDS = ("eval", "system", "exec", "spawn", "popen", "open3", "`", "%x", "open(", "open ",
         "net::", "net/", "uri", "faraday", "httparty", "rest", "socket", "resolv", "excon",
         "http.", "env", "file", "io.", "dir", "fileutils", "base64", "unpack", "pack", "zlib",
         "chr", "reverse", "send", "const_get", "method(", "marshal", "load", "curl", "wget")

_NET_CLASSES = {"Net::HTTP": "http", "Faraday": "http", "HTTParty": "http",
                "RestClient": "http", "Excon": "http", "HTTP": "http", "HTTPClient": "http",
                "Typhoeus": "http", "OpenURI": "http", "Net::FTP": "http", "Net::SMTP": "mail",
                "TCPSocket": "socket", "UDPSocket": "socket", "Socket": "socket",
                "SSLSocket": "socket", "OpenSSL::SSL::SSLSocket": "socket",
                "Resolv": "dns", "Resolv::DNS": "dns", "Net::Telnet": "socket",
                "Mechanize": "http", "RestClient::Resource": "http"}
_SENDS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "start",
                    "send_request", "post_form", "get_response", "write", "puts", "print",
                    "send", "<<", "sendmsg", "syswrite", "getresource", "getresources",
                    "getaddress", "getaddresses", "open", "new", "get_content", "run",
                    "perform", "call", "tcp", "udp", "write_nonblock", "sendmail",
                    "send_message", "connect"})
_EVALS = frozenset({"eval", "instance_eval", "class_eval", "module_eval", "instance_exec",
                    "class_exec"})
_COMMANDS = frozenset({"system", "exec", "spawn", "`", "capture2", "capture2e", "capture3",
                       "popen2", "popen2e", "popen3", "pipeline", "pipeline_r", "pipeline_w"})
_READS = frozenset({"read", "readlines", "binread", "foreach", "readline", "new", "open"})
_DELETES = frozenset({"rm_rf", "rm_r", "rm", "rm_f", "remove_dir", "remove_entry",
                      "remove_entry_secure", "rmtree", "delete", "unlink", "rmdir",
                      "remove", "remove_file"})
_WHOLE_ENV = frozenset({"to_h", "to_a", "to_hash", "each", "each_pair", "map", "select",
                        "filter", "inspect", "to_s", "dup", "clone", "sort", "reject",
                        "filter_map", "slice", "values", "find_all", "to_json"})
_ROT13 = ("A-Za-z", "N-ZA-Mn-za-m")
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


class RubyReader(Reader):
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

    def dispatch(self, name: str, receiver: Value | None, args: list[Value], node: Any,
                 hidden: bool) -> Value:
        """The value of calling ``name`` on ``receiver`` (None: a call without one)."""
        first = args[0] if args else None
        ref = receiver.ref if receiver is not None else None
        qual = f"{ref}.{name}" if ref else name
        hidden = hidden or bool(receiver is not None and receiver.hidden and ref)
        kernel = receiver is None or ref in ("Kernel", "Object")
        # reflection: the target comes from a value
        if name in ("send", "public_send", "__send__") and first is not None:
            target = self.dynamic_name(first, node, f"{qual}(…)", always=ref is not None)
            if target is None:
                return unknown(*args)
            return self.dispatch(target, receiver, args[1:], node,
                                 hidden or first.built or first.hidden)
        if name == "const_get" and first is not None:
            target = self.dynamic_name(first, node, f"{qual}(…)", always=True)
            return Value(ref=target, hidden=first.built or first.hidden) if target else UNKNOWN
        if name in ("method", "public_method", "instance_method") and first is not None:
            target = self.dynamic_name(first, node, f"{qual}(…)", always=ref is not None)
            if target is None:
                return UNKNOWN
            return Value(ref=f"{ref}.{target}" if ref else target,
                         hidden=first.built or first.hidden, inst="method")
        if name in ("call", "()", "to_proc") and receiver is not None and receiver.inst == "method":
            owner, _, target = (receiver.ref or "").rpartition(".")
            return self.dispatch(target, Value(ref=owner) if owner else None, args, node,
                                 receiver.hidden)
        if ref == "ENV" or qual.startswith("ENV."):
            if name in ("fetch", "[]", "dig"):
                return self.env(first, node, "ENV.fetch")
            if name in _WHOLE_ENV:
                return self.env(None, node, f"ENV.{name}")
            return UNKNOWN
        if kernel and name in self.functions:
            return self.invoke(name, args)
        # running code and programs
        if name in _EVALS and args and (kernel or ref in ("Binding", "TOPLEVEL_BINDING")
                                        or name != "eval"):
            return self.execute("eval", first or UNKNOWN, node, qual, hidden)
        if name in _COMMANDS and (kernel or ref in ("Process", "Open3", "IO", "PTY")):
            # an environment hash first and options last are not words of the command
            words = [a for a in args if a.inst != "hash"]
            return self.command(words or args, node, qual, hidden)
        if name == "popen" and ref in ("IO", "Open3"):
            words = list(first.items) if first is not None and first.items is not None else (
                args[:1])
            found = self.command(words, node, qual, hidden, is_shell=first is not None and (
                first.items is None))
            return Value(inst="pipe", partial=first.text() if first is not None else None,
                         taint=found.taint)
        if name in ("open", "read") and receiver is not None and (receiver.text() or "").startswith(
                ("http://", "https://", "ftp://")):
            return self.network("http", receiver, [], node, "URI#open", hidden)
        if (name == "open" and (kernel or ref in ("File", "URI", "IO", "OpenURI"))) or (
                name == "new" and ref in ("File", "IO")):
            return self.kernel_open(qual, args, node, hidden)
        if name == "load" and (kernel or ref in ("Marshal", "YAML", "Psych")) and first:
            detail = "eval" if kernel else "deserialise"
            if ref in ("Marshal",) or first.taint:
                self.execute(detail, first, node, qual, hidden)
            return unknown(first)
        # the environment, the file system
        if qual in ("Dir.home", "Etc.getlogin") or (name == "home" and ref == "Dir"):
            return Value(const="~")
        if qual in ("File.join", "Pathname.join") or (name == "join" and ref == "File"):
            return self.path_join(args)
        if qual in ("File.expand_path", "Pathname.new", "Pathname", "Dir.glob", "Dir.[]",
                    "URI", "URI.parse", "Kernel.URI", "String", "Pathname.glob"):
            return first if first is not None else UNKNOWN
        if ref in ("File", "IO", "Pathname") and name in _READS and first is not None:
            return self.read_file(first, node, qual, hidden)
        if ref in ("File", "IO") and name in ("write", "binwrite") and first is not None:
            self.write_file(first, args[1:], node)
            return UNKNOWN
        if ref in ("FileUtils", "File", "Dir", "Pathname", "FileUtils::Verbose") and (
                name in _DELETES) and first is not None:
            for arg in args:
                self.delete(arg, node, qual, hidden)
            return UNKNOWN
        if ref == "FileUtils" and name in ("cp", "cp_r", "mv", "copy", "install", "ln_s") and (
                len(args) >= 2):
            read = self.read_file(args[0], node, qual, hidden)
            self.write_file(args[1], [read], node)
            return UNKNOWN
        if ref in ("SQLite3::Database",) and first is not None:
            return self.read_file(first, node, qual, hidden)
        if name in ("puts", "print", "p", "pp", "printf") and (kernel or ref in ("$stdout",
                                                                              "STDOUT")):
            self.stdout.update(taint_of(*args))
            return UNKNOWN
        # the network
        net = self.net_kind(ref, name)
        if net is not None:
            if name in ("new", "start", "open", "tcp") and ref in _NET_CLASSES and (
                    _NET_CLASSES[ref] != "dns" or name == "new"):
                client = Value(inst=f"net:{net}", partial=first.text() if first else None,
                               taint=first.taint if first else frozenset(), hidden=hidden)
                if net == "socket" or name != "new":
                    self.network(net, first, [], node, qual, hidden)
                return client
            return self.network(net, first, args[1:] if first is not None and (
                first.text() or "").startswith(("http", "/")) else args, node, qual, hidden)
        if ref is not None and ref.startswith(("Net::HTTP::", "Net::HTTPGenericRequest")):
            return Value(inst="request", partial=first.text() if first else None,
                         taint=taint_of(*args))
        if ref in ("Base64",) and name in ("decode64", "strict_decode64", "urlsafe_decode64"):
            return self.decode("base64", first or UNKNOWN, node, "base64")
        if ref in ("Zlib", "Zlib::Inflate") and name in ("inflate", "gunzip"):
            return self.decode("zlib", first or UNKNOWN, node, "zlib")
        if ref in ("Zlib::GzipReader",) and name in ("new", "wrap", "open"):
            return self.decode("gzip", first or UNKNOWN, node)
        if receiver is not None:
            return self.method_call(name, receiver, args, node, hidden, qual)
        return unknown(*args)

    def kernel_open(self, qual: str, args: list[Value], node: Any, hidden: bool) -> Value:
        first = args[0] if args else UNKNOWN
        text = first.text() or ""
        mode = args[1].text() if len(args) > 1 else None
        if text.startswith("|"):
            found = self.command([const(text[1:], first)], node, qual, hidden, is_shell=True)
            return Value(inst="pipe", partial=text[1:], taint=found.taint)
        if text.startswith(("http://", "https://", "ftp://")) or qual in ("URI.open",
                                                                          "OpenURI.open_uri"):
            return self.network("http", first, [], node, qual, hidden)
        if mode is not None and mode[:1] in ("w", "a"):
            return Value(inst="writer", partial=text or None)
        if qual.startswith(("File", "Kernel", "IO")) or qual == "open":
            return self.read_file(first, node, qual, hidden)
        return unknown(*args)

    def path_join(self, args: list[Value]) -> Value:
        pieces = [a.text() for a in args]
        if all(p is not None for p in pieces):
            return const("/".join(p.rstrip("/") for p in pieces if p is not None), *args)
        return unknown(*args)

    @staticmethod
    def net_kind(ref: str | None, name: str) -> str | None:
        if ref is None:
            return None
        if ref in _NET_CLASSES:
            return _NET_CLASSES[ref]
        if ref.startswith(("Net::HTTP", "Faraday", "HTTParty", "RestClient", "Excon")):
            return "http"
        return None

    def method_call(self, name: str, receiver: Value, args: list[Value], node: Any,
                    hidden: bool, qual: str) -> Value:
        first = args[0] if args else None
        text = receiver.const if receiver.known else None
        inst = receiver.inst or ""
        if inst.startswith("net:") and name in _SENDS:
            destination = receiver if receiver.partial else first
            return self.network(inst[4:], destination, [receiver, *args], node,
                                f"{inst[4:]}.{name}", hidden or receiver.hidden)
        if inst == "request" and name in ("body=", "set_form_data", "form_data=", "[]="):
            return receiver
        if inst == "pipe" and name in ("write", "puts", "print", "<<", "syswrite"):
            self.fact(DYNAMIC_EXEC, node, receiver.partial, self.revealed(
                args[0] if len(args) == 1 else unknown(*args), node), "interpreter")
            return receiver
        if inst == "writer" and receiver.partial and name in ("write", "puts", "print", "<<"):
            self.write(receiver.partial, taint_of(*args), node)
            return receiver
        if inst == "file" and name in ("read", "readlines", "each_line", "gets"):
            return receiver
        if name == "chr" and isinstance(text, int) and 0 <= text < 0x110000:
            return Value(const=chr(text), hidden=True)
        if name == "reverse" and isinstance(text, str):
            return const(text[::-1], receiver, hidden=True)
        if name == "reverse" and receiver.items is not None:
            return Value(items=tuple(reversed(receiver.items)), taint=receiver.taint,
                         hidden=True)
        if name == "tr" and len(args) == 2 and (args[0].text(), args[1].text()) == _ROT13:
            return self.decode("rot13", receiver, node, "rot13")
        if name in ("unpack", "unpack1") and first is not None and first.known:
            form = str(first.const)
            if form.startswith("m"):
                return self.decode("base64", receiver, node, "base64")
            if form.startswith(("H", "h")):
                return self.decode("hex", receiver, node, "hex")
            if form.startswith("u"):
                return self.decode("uuencode", receiver, node)
        if name == "pack" and receiver.items is not None and first is not None and first.known:
            return self.pack(str(first.const), receiver, node)
        if name in ("join", "sum") and receiver.items is not None:
            separator = first.text() if first is not None else ""
            if all(i.known and isinstance(i.const, str) for i in receiver.items) and (
                    separator is not None):
                return const(separator.join(i.const for i in receiver.items), receiver,
                             *receiver.items, hidden=receiver.hidden or any(
                                 i.hidden for i in receiver.items))
            return unknown(receiver, *receiver.items)
        if name in ("to_s", "to_str", "strip", "chomp", "freeze", "dup", "itself", "to_sym",
                    "force_encoding", "b") and receiver.known:
            return receiver
        if name in ("downcase", "upcase") and isinstance(text, str):
            return const(text.lower() if name == "downcase" else text.upper(), receiver)
        if name in ("map", "collect") and receiver.items is not None:
            return Value(items=receiver.items, taint=taint_of(receiver, *args))
        return unknown(receiver, *args)

    def pack(self, form: str, receiver: Value, node: Any) -> Value:
        items = receiver.items or ()
        if form.startswith(("H", "h")) and items:
            return self.decode("hex", items[0], node, "hex")
        if form.startswith("m") and items:
            return UNKNOWN if not items[0].taint else unknown(items[0])
        if form.rstrip("*") in ("C", "c", "U") and all(isinstance(i.const, int) for i in items):
            try:
                text = "".join(chr(i.const) for i in items)
            except (ValueError, OverflowError):
                return unknown(receiver)
            return Value(const=text, hidden=True)
        return unknown(receiver)


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
