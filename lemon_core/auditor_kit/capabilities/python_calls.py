"""What the calls a Python program makes mean: the library knowledge of the interpreter.

:class:`Calls` is mixed into :class:`~.python.Interpreter`: ``known_call`` turns a call of a
resolved name (``open``, ``subprocess.run``, ``requests.post``, ``base64.b64decode``,
``getattr``, ``pathlib.Path.read_text``…) into a value and the facts it implies (a secret read,
a network sink, a program run, a decoder, a file written, a path deleted). The interpreter's
own job (statements, expressions, names, functions) stays in :mod:`.python`.
"""

from __future__ import annotations

import ast
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    ARGFILE,
    ARGV,
    DECODE,
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    FETCHED,
    FILE,
    HIGH,
    MAX_FACTS,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    STDIN,
    UNRESOLVED,
    Source,
)
from lemon_core.auditor_kit.capabilities.python_destruction import (
    CLOCK_CALLS,
    Destruction,
)
from lemon_core.auditor_kit.capabilities.values import (
    HOLE,
    MAX_CONST,
    UNKNOWN,
    Value,
    concat,
    const,
    decode,
    format_braces,
    readable,
    taint_of,
    unknown,
)

MAX_UNROLL = 512
#: Strings of character codes, reversed or rot13 text shorter than this are not "decoded
#: data" (``chr(65 + i)`` names a column).
MIN_DECODED = 4
PATH_TYPES = ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.WindowsPath",
              "pathlib.PurePosixPath", "path.Path")
_ENV_DUMP_METHODS = frozenset({"copy", "items", "keys", "values", "__iter__"})
_FILE_READS = frozenset({"read", "readline", "readlines", "read_text", "read_bytes",
                         "__iter__", "fetchall", "fetchone", "fetchmany", "execute",
                         "cursor", "iterdump", "getvalue", "load", "loads"})
DELETERS = frozenset({"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir", "os.removedirs",
                      "send2trash.send2trash"})
COPIERS = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move",
                     "shutil.copytree", "os.rename", "os.replace", "os.symlink", "os.link"})
_SECRET_CALLS = {
    "keyring.get_password": "the system keyring", "keyring.get_credential": "the system keyring",
    "browser_cookie3.chrome": "browser cookies", "browser_cookie3.load": "browser cookies",
    "browser_cookie3.firefox": "browser cookies", "browser_cookie3.edge": "browser cookies",
    "win32crypt.CryptUnprotectData": "a Windows protected secret (DPAPI)",
}
_IMPORTERS_OR_GETATTR = vocab.IMPORTERS | {"getattr", "builtins.getattr"}


def items_of(value: Value) -> tuple[Value, ...] | None:
    """The elements of a sequence known item by item (a list, a tuple, a string, ``range``)."""
    if value.items is not None:
        return value.items
    if value.known and isinstance(value.const, (str, bytes, bytearray, tuple)) and len(
            value.const) <= MAX_UNROLL:
        return tuple(Value(const=c, taint=value.taint) for c in value.const)
    return None


class Calls(Destruction):
    """The calls :class:`~.python.Interpreter` knows (mixed into it)."""

    # provided by the interpreter
    path: str
    files: Any
    writes: Any
    stdout: set[Source]
    invocations: list[Any]
    facts: dict[Any, Any]

    def known_call(self, ref: str, func: Value, receiver: Value | None, args: list[Value],
                   kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        first = args[0] if args else None
        last = ref.rpartition(".")[2]
        self.sql_call(last, args, node)
        self.encryption(last, node)
        if ref in CLOCK_CALLS:
            return self.clock(node)
        if ref.startswith("."):
            return self.method(last, receiver or UNKNOWN, args, kwargs, node)
        if ref in ("open", "io.open", "codecs.open", "builtins.open") or (
                ref.endswith(".open") and ref.rpartition(".")[0] in PATH_TYPES):
            path_value = receiver if ref.rpartition(".")[0] in PATH_TYPES else first
            mode_value = (args[0] if ref.rpartition(".")[0] in PATH_TYPES and args else
                          args[1] if len(args) > 1 else kwargs.get("mode"))
            return self.open(path_value or UNKNOWN, mode_value, node)
        if ref in ("sqlite3.connect", "shelve.open", "dbm.open"):
            return self.open(first or UNKNOWN, Value(const="rb"), node, inst=ref)
        if ref in _IMPORTERS_OR_GETATTR:
            return self.dynamic_name(ref, func, args, node)
        if ref in ("chr", "builtins.chr"):
            if first is not None and first.known and isinstance(first.const, int) and (
                    0 <= first.const < 0x110000):
                return const(chr(first.const), first, hidden=True)
            return unknown(first, hidden=True)
        if ref in ("ord", "builtins.ord"):
            if first is not None and first.known and isinstance(first.const, str) and len(
                    first.const) == 1:
                return Value(const=ord(first.const), taint=first.taint)
            return unknown(first)
        if ref in ("bytes", "bytearray"):
            return self.make_bytes(args, node)
        if ref == "map" and len(args) == 2 and args[0].ref in ("chr", "ord", "str", "int"):
            items = items_of(args[1])
            if items is not None and len(items) <= MAX_UNROLL:
                mapper = args[0]
                out = [self.known_call(mapper.ref or "", mapper, None, [item], {}, node)
                       or unknown(item) for item in items]
                return Value(items=tuple(out), taint=taint_of(*out),
                             hidden=any(o.hidden for o in out))
            return unknown(args[1], hidden=True)
        if ref in ("str", "repr", "format") and first is not None:
            text = first.text()
            if first.known and text is not None and len(args) == 1:
                return const(text, first)
            return unknown(first)
        if ref in ("reversed",) and first is not None:
            if first.known and isinstance(first.const, str):
                return self.reversed_text(first, node)
            return unknown(first)
        if ref in ("print", "builtins.print"):
            target = kwargs.get("file")
            data = taint_of(*args)
            if target is not None and target.file is not None:
                self.write(target.file[0], data, node)
            elif target is None or (target.ref or "").startswith("sys.std"):
                self.stdout.update(data)
            return UNKNOWN
        if ref in ("sys.stdout.write", "sys.stdout.buffer.write", "sys.stderr.write"):
            self.stdout.update(taint_of(*args))
            return UNKNOWN
        if ref in ("input", "sys.stdin.read", "sys.stdin.readline", "sys.stdin.readlines",
                   "sys.stdin.buffer.read", "fileinput.input"):
            return Value(taint=frozenset({self.source(STDIN, "stdin", node)}))
        if last == "parse_args" or last == "parse_known_args":
            return Value(taint=frozenset({self.source(ARGV, "argv", node)}))
        if ref in ("os.getenv", "os.environ.get", "os.environ.setdefault", "os.environ.pop",
                   "os.getenvb", "os.environ.__getitem__"):
            default = args[1] if len(args) > 1 else None
            found = self.env(first or UNKNOWN, node, func.hidden)
            if found.known or found.taint:
                return found
            return default if default is not None else found
        if ref.startswith("os.environ.") and last in _ENV_DUMP_METHODS:
            return self.materialise(Value(ref="os.environ", hidden=func.hidden))
        if ref in ("json.loads", "json.load", "tomllib.loads", "tomllib.load", "toml.loads",
                   "toml.load", "tomli.loads", "tomli.load") and first is not None:
            text = first
            if first.file is not None and first.items and first.items[0].known:
                text = first.items[0]
            parsed = _parse_config(ref, text.const) if text.known else None
            if parsed is not None:
                return Value(const=parsed, taint=first.taint)
            return unknown(first)
        if ref in ("dict", "list", "tuple", "set", "sorted", "frozenset", "iter", "next",
                   "json.dumps", "str.join", "vars") and first is not None:
            return unknown(first, *args[1:])
        if ref in _SECRET_CALLS:
            source = self.source(SECRET, _SECRET_CALLS[ref], node, HIGH)
            self.fact(SECRET_READ, node, _SECRET_CALLS[ref], frozenset({source}), "call",
                      func.hidden, ref)
            return Value(taint=frozenset({source}))
        path_op = self.path_call(ref, receiver, args, kwargs, node)
        if path_op is not None:
            return path_op
        if ref in DELETERS or (last in ("unlink", "rmdir") and receiver is not None
                                and receiver.inst in PATH_TYPES):
            target = receiver if (receiver is not None and receiver.inst in PATH_TYPES
                                  and last in ("unlink", "rmdir")) else first
            self.deletion(last, target.text() if target is not None else None, node)
            return UNKNOWN
        if ref in COPIERS and len(args) >= 2:
            source_value = self.open(args[0], Value(const="rb"), node)
            destination = args[1].text()
            if destination is not None:
                self.write(destination, source_value.taint, node)
            return UNKNOWN
        if ref == "shutil.make_archive" and len(args) >= 2:
            root = kwargs.get("root_dir") or (args[2] if len(args) > 2 else None)
            read = self.open(root, Value(const="rb"), node) if root is not None else UNKNOWN
            base = args[0].text()
            if base is not None:
                self.write(base + "." + (args[1].text() or "zip"), read.taint, node)
            return Value(const=base, taint=read.taint) if base else unknown(read)
        decoder = vocab.decoder_call(ref)
        if decoder is not None:
            return self.decode_call(decoder, args, kwargs, node)
        if ref == "codecs.encode" and len(args) >= 2:
            return self.decode_call(("codecs", "codecs"), args, kwargs, node)
        kind = vocab.exec_call(ref)
        if kind is not None:
            return self.exec_sink(kind, ref, func, args, kwargs, node)
        network = vocab.network_call(ref)
        if network is not None:
            return self.network_sink(network, ref, func, receiver, args, kwargs, node)
        if ref.startswith(vocab.NET_MODULES) and ref.rpartition(".")[0] in vocab.NET_MODULES:
            # a client, connection or request object: keeps where it goes and what it holds
            text = first.text() if first is not None else None
            return Value(inst=ref, const=text if text and HOLE not in text else Value().const,
                         partial=text if text and HOLE in text else None,
                         taint=taint_of(*args, *kwargs.values()))
        if receiver is not None and receiver.file is not None:
            return self.file_method(last, receiver, args, node)
        if receiver is not None and receiver.inst is not None and receiver.inst.startswith(
                ("zipfile", "tarfile")):
            if last in ("write", "add") and first is not None:
                read = self.open(first, Value(const="rb"), node)
                target = receiver.text()
                if target is not None:
                    self.write(target, read.taint, node)
            return UNKNOWN
        if ref in ("zipfile.ZipFile", "tarfile.open", "tarfile.TarFile") and first is not None:
            alias = None
            if node.args and isinstance(node.args[0], ast.Name):
                alias = ("var:" + node.args[0].id, "w")
            return Value(inst=ref, const=first.const if first.known else Value().const,
                         partial=first.partial, file=alias if first.text() is None else None)
        if ref in ("json.dump", "pickle.dump", "yaml.dump", "yaml.safe_dump", "toml.dump") and (
                len(args) >= 2):
            target = args[1]
            if target.file is not None:
                self.write(target.file[0], args[0].taint, node)
            elif (target.ref or "").startswith("sys.stdout"):
                self.stdout.update(args[0].taint)
            return UNKNOWN
        if receiver is not None and last in _FILE_READS and receiver.taint:
            return unknown(receiver, *args)
        return None

    # -- pieces of known_call -------------------------------------------------------------

    def method(self, name: str, receiver: Value, args: list[Value], kwargs: dict[str, Value],
               node: ast.Call) -> Value:
        text = receiver.const if receiver.known else None
        first = args[0] if args else None
        if isinstance(text, dict) and name == "get" and first is not None and first.known:
            if first.const in text:
                return Value(const=frozen(text[first.const]), taint=receiver.taint)
            return args[1] if len(args) > 1 else UNKNOWN
        if name == "join" and isinstance(text, (str, bytes)) and first is not None:
            items = items_of(first)
            if items is not None and all(i.known and isinstance(i.const, type(text))
                                         for i in items):
                joined = text.join(i.const for i in items)  # type: ignore[arg-type]
                hidden = any(i.hidden for i in items)
                extra = ()
                if hidden and len(joined) >= MIN_DECODED:
                    extra = (self.source(DECODED, "character codes", node),)
                return const(joined, receiver, *items, hidden=hidden, built=len(items) > 1,
                             extra=extra)
            if items is not None:
                return concat([items[0]] + [x for i in items[1:] for x in (receiver, i)]
                              if items else [receiver])
            return unknown(receiver, first)
        if name == "format" and isinstance(text, str):
            out = format_braces(text, args, kwargs)
            if out is not None:
                return (const(out, receiver, *args, *kwargs.values(), built=True)
                        if HOLE not in out else
                        Value(partial=out, taint=taint_of(receiver, *args, *kwargs.values()),
                              built=True))
            return unknown(receiver, *args, *kwargs.values())
        if name in ("decode", "encode") and first is not None and first.known and isinstance(
                first.const, str) and first.const.lower().replace("-", "_") in (
                    "base64", "hex", "rot13", "rot_13", "zlib", "base_64", "bz2", "hex_codec",
                    "zlib_codec"):
            return self.decode_call(("codecs", "codecs"), [receiver, first], {}, node)
        if text is not None and isinstance(text, (str, bytes)):
            try:
                if name == "decode" and isinstance(text, (bytes, bytearray)):
                    return const(bytes(text).decode("utf-8", "replace"), receiver)
                if name == "encode" and isinstance(text, str):
                    return const(text.encode("utf-8", "replace"), receiver)
                if name in ("lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title",
                            "capitalize", "swapcase", "removeprefix", "removesuffix", "replace",
                            "zfill", "center", "ljust", "rjust", "expandtabs"):
                    plain = [a.const for a in args]
                    if all(a.known for a in args) and not any(
                            isinstance(p, int) and p > MAX_CONST for p in plain):
                        out = getattr(text, name)(*plain)
                        if isinstance(out, (str, bytes)) and len(out) <= MAX_CONST:
                            return const(out, receiver, *args, built=name == "replace")
                if name == "split" and all(a.known for a in args):
                    pieces = text.split(*[a.const for a in args])
                    if len(pieces) <= MAX_UNROLL:
                        values = tuple(const(p, receiver) for p in pieces)
                        return Value(const=tuple(pieces), items=values, taint=receiver.taint)
            except (TypeError, ValueError):
                return unknown(receiver, *args)
        if name == "translate" and text is not None:
            return unknown(receiver, *args, hidden=True)
        if name in ("read", "readlines", "readline") and receiver.taint:
            return unknown(receiver)
        if name == "decode" or name == "encode":
            return unknown(receiver, *args)
        if name in ("get", "setdefault", "pop") and receiver.items is not None:
            return unknown(receiver)
        return unknown(receiver, *args, *kwargs.values())

    def reversed_text(self, value: Value, node: ast.AST) -> Value:
        text = value.const
        extra = (self.source(DECODED, "reversed text", node),) if len(text) >= MIN_DECODED else ()
        return const(text[::-1], value, hidden=True, extra=extra)

    def make_bytes(self, args: list[Value], node: ast.AST) -> Value:
        first = args[0] if args else None
        if first is None:
            return Value(const=b"")
        if first.known and isinstance(first.const, str) and len(args) >= 2:
            return const(first.const.encode("utf-8", "replace"), first)
        items = items_of(first)
        if items is not None and all(i.known and isinstance(i.const, int) and 0 <= i.const < 256
                                     for i in items):
            data = bytes(i.const for i in items)
            extra = (self.source(DECODED, "byte values", node),) if len(data) >= MIN_DECODED else ()
            return const(data, first, *items, hidden=True, extra=extra)
        return unknown(first)

    def dynamic_name(self, ref: str, func: Value, args: list[Value], node: ast.Call) -> Value:
        """``getattr(obj, name)``, ``__import__(name)``, ``importlib.import_module(name)``."""
        if ref in ("getattr", "builtins.getattr"):
            if len(args) < 2:
                return UNKNOWN
            owner, name = args[0], args[1]
            if name.known and isinstance(name.const, str):
                found = self.attribute(owner, name.const, node)
                hidden = name.built or name.hidden or owner.hidden
                return attrs.evolve(found, hidden=found.hidden or hidden)
            if owner.ref and not owner.ref.startswith((".", "local:", "class:")):
                self.fact(UNRESOLVED, node, f"getattr({owner.ref}, …)",
                          taint_of(name), "attribute", func.hidden or name.hidden)
            return unknown(owner, name)
        name = args[0] if args else UNKNOWN
        if name.known and isinstance(name.const, (str, bytes)):
            module = readable(name.const)
            hidden = name.built or name.hidden or func.hidden
            if not module.isidentifier() and not all(p.isidentifier() for p in module.split(".")):
                return unknown(name)
            return Value(ref=module, hidden=hidden)
        self.fact(UNRESOLVED, node, f"{ref}(…)", taint_of(name), "import",
                  func.hidden or name.hidden)
        return unknown(name, hidden=True)

    def open(self, path_value: Value | None, mode_value: Value | None, node: ast.AST,
             inst: str | None = None) -> Value:
        """A file handle (or database connection) on ``path_value``; reading it yields the
        sources of that path."""
        if path_value is None:
            return UNKNOWN
        mode = mode_value.const if mode_value is not None and mode_value.known else "r"
        mode = mode if isinstance(mode, str) else "r"
        text = path_value.text()
        writing = any(c in mode for c in "wax+") and "r" not in mode.replace("r+", "")
        target = vocab.normal_path(text) if text is not None else None
        if writing:
            if target is not None:
                persistence = vocab.persistence_path(target) if HOLE not in target else None
                if persistence is not None:
                    self.fact(PERSISTENCE, node, target, frozenset(), persistence[1])
                self.write(target, frozenset(), node)
            return Value(inst="file", file=(target or HOLE, mode), taint=frozenset())
        sources: set[Source] = set()
        for source in path_value.taint:
            if source.kind in (ARGV, STDIN):
                sources.add(Source(ARGFILE, source.label, source.path, source.line))
            elif source.kind == SECRET:
                sources.add(source)
        if target is not None:
            found = vocab.secret_path(target)
            if found is not None:
                label, grade = found
                sources.add(self.source(SECRET, target, node, grade))
                self.fact(SECRET_READ, node, target, frozenset(sources), label)
            elif target and HOLE not in target.rpartition("/")[2]:
                sources.add(self.source(FILE, target, node))
        own = self._own_text(target) if inst is None else None
        return Value(inst=inst or "file", file=(target or HOLE, mode), taint=frozenset(sources),
                     hidden=path_value.hidden, items=None if own is None else (own,))

    def _own_text(self, target: str | None) -> Value | None:
        """The text of the skill's own file at ``target`` (relative to the skill or to this
        file's folder), when it is one: configuration read at run time folds like a
        constant."""
        if self.files is None or not target or HOLE in target or target.startswith(("~", "/")):
            return None
        here = self.path.rpartition("/")[0]
        for candidate in (target, f"{here}/{target}" if here else target):
            text = self.files(candidate.removeprefix("./"))
            if text is not None and len(text) <= MAX_CONST:
                return Value(const=text)
        return None

    def file_method(self, name: str, receiver: Value, args: list[Value], node: ast.AST) -> Value:
        path, _mode = receiver.file  # type: ignore[misc]
        if name in ("write", "writelines", "write_text", "write_bytes"):
            if path != HOLE:
                self.write(path, taint_of(*args), node, args)
            return UNKNOWN
        if name in ("read", "read_text") and receiver.items and receiver.items[0].known:
            return attrs.evolve(receiver.items[0], taint=receiver.taint)
        return unknown(receiver)

    def path_call(self, ref: str, receiver: Value | None, args: list[Value],
                  kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        owner, _, last = ref.rpartition(".")
        if ref in PATH_TYPES:
            pieces = [a.text() for a in args] or ["."]
            joined = "/".join(p if p is not None else HOLE for p in pieces)
            known = all(p is not None and HOLE not in p for p in pieces)
            return Value(inst="pathlib.Path", const=joined if known else Value().const,
                         partial=None if known else joined, taint=taint_of(*args),
                         hidden=any(a.hidden for a in args))
        if owner in PATH_TYPES and last == "home":
            return Value(inst="pathlib.Path", const="~")
        if owner in PATH_TYPES and last == "cwd":
            return Value(inst="pathlib.Path", const=".")
        if ref in ("os.path.expanduser", "os.path.expandvars", "os.path.abspath",
                   "os.path.realpath", "os.path.normpath", "os.fspath") and args:
            return args[0]
        if ref == "os.path.join" and args:
            pieces = [a.text() for a in args]
            joined = "/".join(p if p is not None else HOLE for p in pieces)
            known = all(p is not None and HOLE not in p for p in pieces)
            return Value(const=joined if known else Value().const,
                         partial=None if known else joined, taint=taint_of(*args),
                         hidden=any(a.hidden for a in args))
        if ref in ("os.path.expanduser",):
            return args[0] if args else UNKNOWN
        if ref in ("glob.glob", "glob.iglob", "os.listdir", "os.scandir", "os.walk") or (
                receiver is not None and receiver.inst in PATH_TYPES
                and last in ("glob", "rglob", "iterdir")):
            base = receiver if receiver is not None and receiver.inst in PATH_TYPES else (
                args[0] if args else None)
            text = base.text() if base is not None else None
            self.walk(text, node)
            sources = set(base.taint) if base is not None else set()
            if text is not None:
                found = vocab.secret_path(text.split("*")[0].rstrip("/") or text) or (
                    vocab.secret_path(text) if "*" in text else None)
                if found is not None:
                    sources.add(self.source(SECRET, vocab.normal_path(text), node, found[1]))
                    self.fact(SECRET_READ, node, vocab.normal_path(text), frozenset(sources),
                              found[0])
            return Value(inst="listing", partial=(text or HOLE) + "/" + HOLE,
                         taint=frozenset(sources))
        if receiver is not None and receiver.inst in PATH_TYPES:
            if last in ("read_text", "read_bytes"):
                handle = self.open(receiver, Value(const="r"), node)
                if handle.items and handle.items[0].known:
                    return attrs.evolve(handle.items[0], taint=handle.taint)
                return unknown(handle)
            if last in ("write_text", "write_bytes"):
                text = receiver.text()
                if text is not None:
                    self.write(text, taint_of(*args), node, args)
                return UNKNOWN
            if last in ("expanduser", "resolve", "absolute", "with_suffix", "with_name",
                        "joinpath", "parent"):
                if last == "joinpath":
                    out = receiver
                    for arg in args:
                        out = self.binop(ast.Div(), out, arg)
                    return out
                if last in ("with_suffix", "with_name"):
                    return Value(inst=receiver.inst, partial=(receiver.text() or HOLE) + HOLE,
                                 taint=receiver.taint)
                return receiver
        return None

    def decode_call(self, decoder: tuple[str, str], args: list[Value],
                    kwargs: dict[str, Value], node: ast.AST) -> Value:
        kind, module = decoder
        data = args[0] if args else kwargs.get("s") or kwargs.get("data") or UNKNOWN
        label = kind
        if kind == "codecs":
            encoding = args[1] if len(args) > 1 else kwargs.get("encoding")
            name = (encoding.const if encoding is not None and encoding.known else "")
            name = name.lower().replace("-", "_") if isinstance(name, str) else ""
            if name in ("utf_8", "utf8", "ascii", "latin_1", "latin1", ""):
                if data.known and isinstance(data.const, (bytes, bytearray)):
                    return const(bytes(data.const).decode("utf-8", "replace"), data)
                return unknown(data)
            kind = {"base_64": "base64", "rot_13": "rot13", "zlib_codec": "zlib",
                    "hex_codec": "hex", "bz2_codec": "bz2", "base64_codec": "base64"}.get(
                        name, name)
            label = kind
        else:
            from lemon_core.auditor_kit.capabilities.values import DECODERS

            label = DECODERS.get(kind, kind) if module != "zlib" or kind != "decompress" else (
                "zlib")
            if kind == "decompress":
                label = module
        source = self.source(DECODED, label, node)
        out = decode(kind, data.const, module) if data.known else None
        shown = None
        if out is not None:
            shown = readable(out)
        self.fact(DECODE, node, label if shown is None else f"{label}: {shown}",
                  data.taint, "python")
        if out is None:
            return Value(taint=data.taint | {source}, hidden=True)
        return const(out, data, hidden=True, extra=(source,))

    def exec_sink(self, kind: str, ref: str, func: Value, args: list[Value],
                  kwargs: dict[str, Value], node: ast.Call) -> Value:
        first = args[0] if args else (kwargs.get("args") or kwargs.get("cmd")
                                      or kwargs.get("source") or kwargs.get("command"))
        if kind in ("exec", "eval", "compile"):
            if first is None:
                return UNKNOWN
            if first.known and not first.hidden and not first.taint and not func.hidden:
                return UNKNOWN  # eval("1 + 2"): a literal, nothing hidden
            self.fact(DYNAMIC_EXEC, node, first.text(), first.taint, kind, func.hidden, ref)
            return unknown(first)
        if kind == "deserialise":
            data = first or UNKNOWN
            self.fact(DYNAMIC_EXEC, node, ref, data.taint, "deserialise", func.hidden, ref)
            return unknown(data)
        if kind == "native":
            return UNKNOWN
        stdin = kwargs.get("input") or kwargs.get("stdin")
        stdin_taint = stdin.taint if stdin is not None and stdin.file is None else (
            stdin.taint if stdin is not None else frozenset())
        shell_flag = kwargs.get("shell")
        is_shell = kind == "shell" or (shell_flag is not None and shell_flag.known
                                       and bool(shell_flag.const))
        if ref.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
            rest = args[1:]
            if rest and rest[0].items is not None:
                words_from = rest[0]
            else:
                words_from = Value(items=tuple(rest), taint=taint_of(*rest))
            first = words_from if ref.startswith("os.exec") else (
                Value(items=tuple(args[2:]), taint=taint_of(*args[2:]))
                if ref.startswith("os.spawn") else words_from)
        if first is None:
            return UNKNOWN
        if first.items is not None and not is_shell:
            words = [item.text() if item.text() is not None else HOLE for item in first.items]
            result = shell.analyse_words(words, self.path, self._line(node), stdin=stdin_taint,
                                         holes=first.taint)
            shown = " ".join(words)
        else:
            text = first.text()
            if text is None:
                text = HOLE
            result = (shell.analyse(text, self.path, self._line(node), stdin=stdin_taint,
                                    holes=first.taint)
                      if is_shell or " " not in text.strip() or kind == "shell"
                      else shell.analyse_words([text], self.path, self._line(node),
                                               stdin=stdin_taint, holes=first.taint))
            shown = text
        evidence = self._evidence(node)
        for found in result.facts:
            merged = attrs.evolve(found, evidence=evidence or found.evidence,
                                  hidden=found.hidden or func.hidden, callee=ref,
                                  carries=found.carries | self.gate()
                                  if found.kind == DESTRUCTION else found.carries)
            key = (merged.kind, merged.line, merged.detail, merged.value)
            if key not in self.facts and len(self.facts) < MAX_FACTS:
                self.facts[key] = merged
        for write in result.writes:
            self.write(write.target, write.carries, node)
        self.invocations.extend(result.invocations)
        self.fact(DYNAMIC_EXEC, node, shown, first.taint | stdin_taint,
                  "shell" if is_shell else "process", func.hidden, ref)
        return Value(inst="subprocess.result", taint=result.out | first.taint)

    def network_sink(self, detail: str, ref: str, func: Value, receiver: Value | None,
                     args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        last = ref.rpartition(".")[2]
        candidates: list[Value | None] = []
        if last == "request" and len(args) >= 2:
            candidates.append(args[1])
        candidates.extend([kwargs.get("url"), args[0] if args else None])
        if receiver is not None and receiver.inst is not None:
            candidates.append(receiver)
        destination = None
        for candidate in candidates:
            if candidate is None:
                continue
            if candidate.items:
                candidate = candidate.items[0]
            text = candidate.text()
            if text is not None and (text.startswith(("http", "ftp", "ws")) or "." in text):
                destination = text
                break
        carries = taint_of(*args, *kwargs.values())
        if receiver is not None:
            carries = carries | receiver.taint
        carries = frozenset(s for s in carries if s.kind != FETCHED or detail != "http")
        self.fact(NETWORK_EGRESS, node, destination, carries, detail, func.hidden, ref)
        fetched = self.source(FETCHED, destination or ref, node)
        return Value(inst=ref + "()", taint=frozenset({fetched}))


def frozen(value: Any) -> Any:
    """Parsed configuration as constants the interpreter folds (lists as tuples)."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value[:MAX_UNROLL])
    return value


def _parse_config(ref: str, text: Any) -> dict[str, Any] | None:
    """JSON or TOML of the skill's own configuration (bounded), or None."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str) or len(text) > MAX_CONST:
        return None
    try:
        if ref.startswith("json"):
            import json

            found = json.loads(text)
        else:
            import tomllib

            found = tomllib.loads(text)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


__all__ = ["COPIERS", "DELETERS", "MIN_DECODED", "PATH_TYPES", "Calls", "frozen", "items_of"]
