"""What Perl's calls do, as capability facts: the call half of :mod:`.perl` (the syntax half
evaluates the tree and calls :meth:`PerlCalls.call` and :meth:`PerlCalls.on_receiver`).

Built-ins and module functions by name (``eval``, ``system``/``exec``/``qx``, ``open`` with
its modes and pipes, ``print``/``syswrite``/``send`` to a handle, the decoders, ``pack``,
``chr``/``reverse``/``split``/``join``, ``unlink``/``rmtree``, ``gethostbyname``, LWP::Simple),
and methods of objects (``LWP::UserAgent``, ``HTTP::Tiny``, ``IO::Socket::INET``,
``Net::DNS::Resolver``, ``Net::SMTP``…) by the class that made them.
"""

from __future__ import annotations

from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities.model import DYNAMIC_EXEC
from lemon_core.auditor_kit.capabilities.scripting import MAX_UNROLL, Reader, text_of
from lemon_core.auditor_kit.capabilities.values import (
    UNKNOWN,
    Value,
    const,
    taint_of,
    unknown,
)

_NET_CLASSES = {"LWP::UserAgent": "http", "HTTP::Tiny": "http", "WWW::Mechanize": "http",
                "Mojo::UserAgent": "http", "Furl": "http", "HTTP::Request": "request",
                "IO::Socket::INET": "socket", "IO::Socket::SSL": "socket",
                "IO::Socket::IP": "socket", "IO::Socket::INET6": "socket",
                "Net::DNS::Resolver": "dns", "Net::SMTP": "mail", "Net::FTP": "http",
                "Net::HTTP": "http", "Net::HTTPS": "http", "REST::Client": "http",
                "HTTP::Request::Common": "request", "Net::Ping": "socket"}

_SENDS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "mirror",
                    "post_form", "send", "print", "printf", "syswrite", "query", "search",
                    "write", "say", "simple_request", "submit_form", "data", "datasend",
                    "tx", "build_tx", "start", "connect", "getstore", "put_object"})

_LWP_SIMPLE = frozenset({"get", "getstore", "getprint", "head", "mirror"})

_DECODERS = {"decode_base64": "base64", "MIME::Base64::decode_base64": "base64",
             "decode_base64url": "base64", "MIME::Base64::decode": "base64",
             "uncompress": "zlib", "Compress::Zlib::uncompress": "zlib", "memGunzip": "zlib",
             "Compress::Zlib::memGunzip": "zlib", "inflate": "zlib", "gunzip": "zlib",
             "decode_hex": "hex"}

_DELETES = frozenset({"unlink", "rmtree", "remove_tree", "File::Path::rmtree",
                      "File::Path::remove_tree", "rmdir", "File::Remove::remove"})


class PerlCalls(Reader):
    """The call semantics of the Perl reader."""

    modules: set[str]

    def on_receiver(self, name: str, receiver: Value, args: list[Value], node: Any,
                    hidden: bool) -> Value:
        first = args[0] if args else None
        inst = receiver.inst or ""
        cls = receiver.ref if receiver.known else None
        if name == "can" and first is not None:
            target = self.symbolic(first, node, "->can(…)")
            return Value(ref=target, inst="code", hidden=first.built or first.hidden) if (
                target) else UNKNOWN
        if cls in _NET_CLASSES and name in ("new", "create"):
            kind = _NET_CLASSES[cls]
            if kind == "request":
                return Value(inst="request", partial=args[1].text() if len(args) > 1 else None,
                             taint=taint_of(*args))
            destination = self.option(args, ("PeerAddr", "PeerHost", "Host", "nameservers"))
            client = Value(inst=f"net:{kind}", partial=destination.text() if destination
                           else None, hidden=hidden)
            if kind in ("socket", "mail"):
                self.network(kind, destination, [], node, f"{cls}->new", hidden)
            return client
        if inst.startswith("net:") and name in _SENDS:
            destination = first if first is not None and first.text() and not receiver.partial \
                else receiver
            if first is not None and first.inst == "request":
                destination = first
            return self.network(inst[4:], destination, [receiver, *args], node,
                                f"{inst[4:]}->{name}", hidden or receiver.hidden)
        if inst == "pipe" and name in ("print", "printf", "say", "syswrite", "write"):
            code = args[0] if len(args) == 1 else unknown(*args)
            self.fact(DYNAMIC_EXEC, node, receiver.partial, self.revealed(code, node),
                      "interpreter")
            return receiver
        if inst == "writer" and receiver.partial and name in ("print", "printf", "say",
                                                              "syswrite", "write", "spew"):
            self.write(receiver.partial, taint_of(*args), node)
            return receiver
        if cls is not None and name not in ("new",):
            return self.call(f"{cls}::{name}", args, node, hidden, None)
        if name in ("slurp", "slurp_utf8", "slurp_raw", "lines") and receiver.inst == "path":
            return self.read_file(receiver, node, f"path->{name}", hidden)
        return unknown(receiver, *args)

    def symbolic(self, name: Value, node: Any, what: str) -> str | None:
        """The sub a symbolic reference names (``&{"sy" . "stem"}``, ``$obj->$name``): the
        folded text. One that does not fold is ``unresolved`` when it is a string built at run
        time (``"main::$x"``) or decoded or fetched data; a variable holding a code reference
        (``&$callback``, ``$self->$method``) is ordinary code."""
        return self.dynamic_name(name, node, what)

    @staticmethod
    def option(args: list[Value], keys: tuple[str, ...]) -> Value | None:
        for index, arg in enumerate(args[:-1]):
            if arg.text() in keys:
                return args[index + 1]
        return args[0] if len(args) == 1 else None

    def call(self, name: str, args: list[Value], node: Any, hidden: bool, handle: Any
             ) -> Value:
        first = args[0] if args else None
        bare = name.rpartition("::")[2]
        if name in self.functions:
            return self.invoke(name, args)
        if name in ("eval", "CORE::eval") and first is not None:
            return self.execute("eval", first, node, "eval", hidden)
        if name in ("system", "exec", "readpipe", "IPC::Open3::open3", "open3", "open2",
                    "IPC::Run::run", "run3", "capture", "capturex", "qx"):
            words = args[2:] if bare in ("open3", "open2") else args
            return self.command(words, node, name, hidden)
        if name == "open":
            return self.open_(args, node, hidden)
        if name in ("print", "printf", "say", "syswrite", "send") and (handle is not None or (
                name in ("syswrite", "send") and first is not None)):
            target = self.visit(handle.named_children[0]) if handle is not None and (
                handle.named_children) else (first if handle is None else UNKNOWN)
            data = args if handle is not None else args[1:]
            if handle is not None and text_of(handle) in ("STDOUT", "STDERR", "{*STDOUT}"):
                self.stdout.update(taint_of(*data))
                return UNKNOWN
            return self.on_receiver(name, target or UNKNOWN, data, node, hidden)
        if name in ("print", "printf", "say"):
            self.stdout.update(taint_of(*args))
            return UNKNOWN
        if name in _DECODERS or bare in ("decode_base64", "memGunzip", "uncompress"):
            encoding = _DECODERS.get(name) or _DECODERS.get(bare, "base64")
            kind = "base64" if encoding == "base64" else ("zlib" if encoding == "zlib"
                                                          else "hex")
            return self.decode(encoding, first or UNKNOWN, node, kind)
        if name == "pack" and first is not None and first.known:
            return self.pack(str(first.const), args[1:], node)
        if name == "unpack" and first is not None and first.known and len(args) > 1:
            form = str(first.const)
            if form.startswith("u"):
                return self.decode("uuencode", args[1], node)
            if form.startswith("m"):
                return self.decode("base64", args[1], node, "base64")
            return unknown(args[1])
        if name == "chr" and first is not None and isinstance(first.const, int) and (
                0 <= first.const < 0x110000):
            return Value(const=chr(first.const), hidden=True)
        if name == "chr" and first is None:
            item = self.lookup("$_")
            if isinstance(item.const, int) and 0 <= item.const < 0x110000:
                return Value(const=chr(item.const), hidden=True)
        if name == "reverse" and len(args) == 1 and first is not None and isinstance(
                first.const, str):
            return const(first.const[::-1], first, hidden=True)
        if name == "reverse" and args:
            items = [i for a in args for i in (a.items if a.items is not None else (a,))]
            return Value(items=tuple(reversed(items)), taint=taint_of(*items), hidden=True)
        if name == "split" and len(args) >= 2 and first is not None and first.known and (
                first.const == "") and isinstance(args[1].const, str) and len(
                    args[1].const) <= MAX_UNROLL:
            return Value(items=tuple(Value(const=c) for c in args[1].const), taint=args[1].taint)
        if name == "join" and first is not None:
            pieces = [i for a in args[1:] for i in (a.items if a.items is not None else (a,))]
            separator = first.text()
            if separator is not None and all(p.known and p.text() is not None for p in pieces):
                return const(separator.join(p.text() or "" for p in pieces), *pieces,
                             hidden=any(p.hidden for p in (*pieces, *args[1:])))
            return unknown(*pieces)
        if name in ("lc", "uc") and first is not None and isinstance(first.const, str):
            return const(first.const.lower() if name == "lc" else first.const.upper(), first)
        if name in ("glob", "bsd_glob", "File::Glob::bsd_glob") and first is not None:
            return first
        if name in ("File::Spec->catfile", "catfile", "catdir"):
            texts = [a.text() for a in args]
            if any(t is None for t in texts):
                return unknown(*args)
            return const("/".join(t for t in texts if t), *args)
        if name in _DELETES or bare in ("rmtree", "remove_tree"):
            for arg in args:
                self.delete(arg, node, name, hidden)
            return UNKNOWN
        if name in ("File::Slurp::read_file", "read_file", "slurp", "path", "Path::Tiny::path",
                    "file") and first is not None:
            if name in ("path", "Path::Tiny::path", "file"):
                return Value(const=first.const, partial=first.partial, taint=first.taint,
                             inst="path") if first.known else unknown(first)
            return self.read_file(first, node, name, hidden)
        if name in ("File::Slurp::write_file", "write_file") and first is not None:
            self.write_file(first, args[1:], node)
            return UNKNOWN
        if name in ("gethostbyname", "Socket::inet_aton", "inet_aton") and first is not None:
            return self.network("dns", first, [first], node, name, hidden)
        if (bare in _LWP_SIMPLE and ("LWP::Simple" in self.modules or "::" in name)) or (
                name in ("HTTP::Tiny::get",)):
            return self.network("http", first, [], node, name, hidden)
        if name == "connect" and first is not None:
            client = self.network("socket", args[1] if len(args) > 1 else None, [], node, name,
                                  hidden)
            self.bind_handle(node, attrs.evolve(client, taint=frozenset()))
            return client
        if name in ("sockaddr_in", "Socket::sockaddr_in", "pack_sockaddr_in") and args:
            return args[-1]
        if name == "home" or name == "File::HomeDir->my_home":
            return Value(const="~")
        return unknown(*args)

    def open_(self, args: list[Value], node: Any, hidden: bool) -> Value:
        if not args:
            return UNKNOWN
        handle = node.named_children[1] if len(node.named_children) > 1 else None
        if len(args) == 2:
            spec = (args[1].text() or "").strip()
            mode, target = "<", spec
            if spec.startswith("|"):
                mode, target = "|-", spec[1:]
            elif spec.endswith("|"):
                mode, target = "-|", spec[:-1]
            elif spec.startswith((">>", "+<", ">", "<")):
                size = 2 if spec[:2] in (">>", "+<") else 1
                mode, target = spec[:size], spec[size:].strip()
            target_value = const(target, args[1]) if args[1].known else args[1]
        else:
            mode = (args[1].text() or "<").strip()
            target_value = args[2]
            target = target_value.text() or ""
        del handle
        if mode.startswith(("|-", "-|")):
            found = self.command(args[2:] if len(args) > 3 else [target_value], node, "open",
                                 hidden, is_shell=len(args) <= 3)
            result = Value(inst="pipe", partial=target or None, taint=found.taint)
        elif mode.startswith((">", "+>")):
            result = Value(inst="writer", partial=target or None)
        else:
            result = self.read_file(target_value, node, "open", hidden)
        self.bind_handle(node, result)
        return result

    def bind_handle(self, node: Any, value: Value) -> None:
        """``open(my $fh, …)``/``open(FH, …)``: the handle now stands for the opened file."""
        for child in node.named_children:
            if child.type in ("list_expression", "parenthesized_expression"):
                self.bind_handle(child, value)
                return
            if child.type == "function":
                continue
            if child.type == "variable_declaration" and child.named_children:
                child = child.named_children[0]
            if child.type == "scalar" and child.named_children:
                self.bind("$" + text_of(child.named_children[0]), value)
            elif child.type == "bareword":
                self.bind("*" + text_of(child), value)
            return

    def pack(self, form: str, args: list[Value], node: Any) -> Value:
        items = [i for a in args for i in (a.items if a.items is not None else (a,))]
        if form.startswith(("H", "h")) and items:
            return self.decode("hex", items[0], node, "hex")
        if form.rstrip("*") in ("C", "c", "U", "W") and items and all(
                isinstance(i.const, int) for i in items):
            try:
                return Value(const="".join(chr(i.const) for i in items), hidden=True)
            except (ValueError, OverflowError):
                return unknown(*items)
        return unknown(*items)


__all__ = ["PerlCalls"]
