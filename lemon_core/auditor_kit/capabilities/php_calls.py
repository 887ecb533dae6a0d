"""What PHP's functions do, as capability facts: the call half of :mod:`.php` (the syntax half
evaluates the tree and calls :meth:`PhpCalls.call` with a function's name).

Code run from strings (``eval``, ``assert``, ``create_function``, ``preg_replace`` with
``/e``, ``unserialize``), programs (``system``, ``exec``, ``shell_exec``, ``passthru``,
``popen``, ``proc_open``), callbacks by name (``call_user_func``, ``array_map``…), the
decoders (``base64_decode``, ``hex2bin``, ``gz*``, ``str_rot13``, ``strrev``, ``pack``,
``chr``/``implode``), the environment (``getenv``), the network (``curl_*``, URLs opened as
files, sockets, ``mail``, DNS), file reads, writes and deletions.
"""

from __future__ import annotations

from typing import Any

from lemon_core.auditor_kit.capabilities.model import Source
from lemon_core.auditor_kit.capabilities.scripting import MAX_UNROLL, Reader, text_of
from lemon_core.auditor_kit.capabilities.values import (
    UNKNOWN,
    Value,
    const,
    taint_of,
    unknown,
)

_COMMANDS = frozenset({"system", "exec", "shell_exec", "passthru", "proc_open", "popen",
                       "pcntl_exec", "expect_popen"})

_EVALS = frozenset({"eval", "assert", "create_function"})

_DECODERS = {"base64_decode": ("base64", "base64"), "hex2bin": ("hex", "hex"),
             "gzinflate": ("deflate", "inflate"), "gzuncompress": ("zlib", "zlib"),
             "gzdecode": ("gzip", "zlib"), "str_rot13": ("rot13", "rot13"),
             "convert_uudecode": ("uuencode", None), "zlib_decode": ("zlib", "zlib"),
             "sodium_base642bin": ("base64", "base64")}

_READS = frozenset({"file_get_contents", "file", "readfile", "fopen", "parse_ini_file",
                    "SplFileObject", "highlight_file", "show_source"})

_SOCKETS = frozenset({"fsockopen", "pfsockopen", "stream_socket_client", "socket_connect"})

_SENDS = frozenset({"fwrite", "fputs", "socket_write", "socket_send", "socket_sendto",
                    "stream_socket_sendto"})

_CALLBACKS = frozenset({"call_user_func", "call_user_func_array", "array_map", "array_filter",
                        "array_walk", "usort", "uasort", "register_shutdown_function",
                        "forward_static_call", "iterator_apply"})

def text_of_option(value: Value) -> str | None:
    return value.ref or value.text()


class PhpCalls(Reader):
    """The call semantics of the PHP reader."""

    def call(self, name: str, args: list[Value], node: Any, hidden: bool) -> Value:
        first = args[0] if args else None
        if name in self.functions:
            return self.invoke(name, args)
        if name in _EVALS and first is not None:
            if name == "create_function":
                code = args[1] if len(args) > 1 else first
                self.execute("eval", code, node, name, hidden)
                return Value(inst="closure", taint=code.taint)
            if name == "assert" and first.known and not isinstance(first.const, str):
                return UNKNOWN
            return self.execute("eval", first, node, name, hidden)
        if name in ("preg_replace", "mb_ereg_replace", "preg_filter") and len(args) >= 2:
            pattern = first.text() if first is not None else None
            if pattern and pattern[:1] and pattern.rstrip().rpartition(pattern[0])[2].count("e"):
                return self.execute("eval", args[1], node, f"{name} /e", hidden)
            if pattern and name == "mb_ereg_replace" and len(args) > 3 and "e" in (
                    args[3].text() or ""):
                return self.execute("eval", args[1], node, name, hidden)
            return unknown(*args)
        if name in _COMMANDS and first is not None:
            found = self.command([first] if first.items is None else list(first.items), node,
                                 name, hidden, is_shell=first.items is None)
            if name == "popen":
                return Value(inst="pipe", partial=first.text(), taint=found.taint)
            return found
        if name in _CALLBACKS and first is not None:
            target = first.text()
            rest = args[1:]
            if name in ("array_map",):
                return self.array_map(first, rest, node, hidden)
            if name in ("array_filter", "array_walk", "usort", "uasort"):
                rest, target = [args[0]], (args[1].text() if len(args) > 1 else None)
            if name == "call_user_func_array" and rest and rest[0].items is not None:
                rest = list(rest[0].items)
            if target is None:
                self.dynamic_name(first if name not in ("array_filter", "array_walk", "usort",
                                                        "uasort") else args[-1], node,
                                  f"{name}(…)")
                return unknown(*args)
            return self.call(target.lstrip("\\").lower(), rest, node,
                             hidden or first.built or first.hidden)
        if name in _DECODERS and first is not None:
            encoding, kind = _DECODERS[name]
            return self.decode(encoding, first, node, kind)
        if name == "pack" and first is not None and first.known:
            form = str(first.const)
            if form.startswith(("H", "h")) and len(args) > 1:
                return self.decode("hex", args[1], node, "hex")
            if form.rstrip("*") in ("C", "c", "U") and all(isinstance(a.const, int)
                                                           for a in args[1:]):
                try:
                    return Value(const="".join(chr(a.const) for a in args[1:]), hidden=True)
                except (ValueError, OverflowError):
                    return unknown(*args)
            return unknown(*args)
        if name == "strrev" and first is not None:
            if isinstance(first.const, str):
                return const(first.const[::-1], first, hidden=True)
            return unknown(first, hidden=True)
        if name == "chr" and first is not None and isinstance(first.const, int):
            return Value(const=chr(first.const % 256), hidden=True)
        if name in ("implode", "join") and args:
            separator, pieces_value = (args[0], args[1]) if len(args) > 1 else (
                Value(const=""), args[0])
            pieces = pieces_value.items or ()
            if pieces and all(p.text() is not None for p in pieces) and separator.text() is not None:
                return const((separator.text() or "").join(p.text() or "" for p in pieces),
                             *pieces, hidden=any(p.hidden for p in pieces))
            return unknown(*args)
        if name in ("strtolower", "strtoupper", "trim") and first is not None and isinstance(
                first.const, str):
            text = first.const
            return const(text.lower() if name == "strtolower" else text.upper()
                         if name == "strtoupper" else text.strip(), first)
        if name == "getenv":
            return self.env(first, node, "getenv")
        if name in ("str_replace",) and len(args) == 3 and all(
                isinstance(a.const, str) for a in args):
            return const(args[2].const.replace(args[0].const, args[1].const), *args)
        if name in ("sys_get_temp_dir",):
            return Value(const="/tmp")
        if name in _SOCKETS and first is not None:
            destination = args[1] if name == "socket_connect" and len(args) > 1 else first
            return self.network("socket", destination, [], node, name, hidden)
        if name in _SENDS and first is not None:
            handle = first.inst or ""
            if handle.startswith("net:"):
                return self.network(handle[4:], first, args[1:], node, name, hidden)
            if handle == "writer" and first.partial:
                self.write(first.partial, taint_of(*args[1:]), node)
            if handle == "pipe":
                from lemon_core.auditor_kit.capabilities.model import DYNAMIC_EXEC

                self.fact(DYNAMIC_EXEC, node, first.partial,
                          self.revealed(unknown(*args[1:]), node), "interpreter")
            return UNKNOWN
        if name == "curl_init":
            return Value(inst="net:http", partial=first.text() if first is not None else None,
                         taint=first.taint if first is not None else frozenset())
        if name in ("curl_setopt", "curl_setopt_array") and first is not None and len(args) > 1:
            self.taint_handle(node, taint_of(*args[1:]))
            url = args[2].text() if len(args) > 2 and text_of_option(args[1]) == "CURLOPT_URL" \
                else None
            if url:
                self.rebind_handle(node, url)
            return UNKNOWN
        if name in ("curl_exec", "curl_multi_exec") and first is not None:
            return self.network("http", first, [first], node, name, hidden)
        if name == "mail" and first is not None:
            return self.network("mail", first, args[1:], node, name, hidden)
        if name in ("dns_get_record", "gethostbyname", "gethostbynamel", "checkdnsrr",
                    "dns_check_record", "getmxrr") and first is not None:
            return self.network("dns", first, [first], node, name, hidden)
        if name in ("file_put_contents",) and first is not None:
            target = first.text() or ""
            if target.startswith(("http://", "https://", "ftp://")):
                return self.network("http", first, args[1:], node, name, hidden)
            self.write_file(first, args[1:2], node)
            return UNKNOWN
        if name in _READS and first is not None:
            text = first.text() or ""
            mode = args[1].text() if len(args) > 1 else "r"
            if text.startswith(("http://", "https://", "ftp://")):
                data = [a for a in args[1:] if a.taint]
                return self.network("http", first, data, node, name, hidden)
            if name == "fopen" and mode and mode[:1] in ("w", "a", "x", "c"):
                return Value(inst="writer", partial=text or None)
            return self.read_file(first, node, name, hidden)
        if name in ("stream_context_create",):
            return unknown(*args)
        if name in ("unlink", "rmdir", "delete"):
            for arg in args[:1]:
                self.delete(arg, node, name, hidden)
            return UNKNOWN
        if name in ("glob",) and first is not None:
            return first
        if name in ("copy", "rename") and len(args) >= 2:
            read = self.read_file(args[0], node, name, hidden)
            self.write_file(args[1], [read], node)
            return UNKNOWN
        if name in ("print", "printf", "print_r", "var_dump", "fputcsv"):
            self.stdout.update(taint_of(*args))
            return UNKNOWN
        if name in ("unserialize",) and first is not None and first.taint:
            return self.execute("deserialise", first, node, name, hidden)
        return unknown(*args)

    def array_map(self, callback: Value, rest: list[Value], node: Any, hidden: bool) -> Value:
        target = callback.text()
        listed = rest[0] if rest else UNKNOWN
        if target is None:
            if callback.known is False and callback.inst != "closure" and callback.taint:
                self.dynamic_name(callback, node, "array_map(…)")
            return unknown(callback, *rest)
        if listed.items is not None and len(listed.items) <= MAX_UNROLL:
            out = [self.call(target.lower(), [item], node, hidden or callback.built)
                   for item in listed.items]
            return Value(items=tuple(out), taint=taint_of(*out), hidden=any(o.hidden for o in out))
        return self.call(target.lower(), [listed], node, hidden or callback.built)

    def taint_handle(self, node: Any, taint: frozenset[Source]) -> None:
        arguments = node.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and (
            arguments.named_children) else None
        variable = first.named_children[0] if first is not None and first.named_children \
            else None
        if variable is not None and variable.type == "variable_name":
            self.taint_name("$" + text_of(variable).lstrip("$"), taint)

    def rebind_handle(self, node: Any, url: str) -> None:
        arguments = node.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None else None
        variable = first.named_children[0] if first is not None and first.named_children \
            else None
        if variable is not None and variable.type == "variable_name":
            name = "$" + text_of(variable).lstrip("$")
            found = self.lookup(name)
            self.bind(name, Value(inst=found.inst or "net:http", partial=url,
                                  taint=found.taint))


__all__ = ["PhpCalls"]
