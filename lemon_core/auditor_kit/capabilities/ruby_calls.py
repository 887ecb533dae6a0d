"""What Ruby's calls do, as capability facts: the call half of :mod:`.ruby` (the syntax half
evaluates the tree and calls :meth:`RubyCalls.dispatch`).

Kernel functions (``eval``, ``system``/``exec``/``spawn``, ``open``, ``load``, ``send`` and
friends), the classes that read, write and delete files (``File``, ``IO``, ``Dir``,
``FileUtils``, ``Pathname``), the environment (``ENV``), the network clients (``Net::HTTP``,
open-uri, Faraday, HTTParty, RestClient, ``TCPSocket``, ``Resolv``…) and their objects, the
decoders (``Base64``, ``Zlib``, ``unpack``/``pack``, ``tr`` rot13, ``reverse``, ``chr``).
"""

from __future__ import annotations

from typing import Any

from lemon_core.auditor_kit.capabilities.model import DYNAMIC_EXEC
from lemon_core.auditor_kit.capabilities.scripting import Reader
from lemon_core.auditor_kit.capabilities.values import (
    UNKNOWN,
    Value,
    const,
    taint_of,
    unknown,
)

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


class RubyCalls(Reader):
    """The call semantics of the Ruby reader."""

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


__all__ = ["RubyCalls"]
