"""The PowerShell cmdlets, native commands and .NET calls that matter, as capabilities.

Called by :mod:`.powershell` with folded arguments: web cmdlets and ``Net.WebClient`` /
``HttpClient`` / sockets / DNS (network), ``Invoke-Expression`` and ``[scriptblock]::Create``
(execution; code that is a constant is read again, not reported), ``Start-Process`` and
native commands (handed to :mod:`.shell` word by word, so ``curl``, ``powershell
-EncodedCommand`` and ``cmdkey`` are judged as anywhere else), credential stores (files,
``Get-StoredCredential``, ``cmdkey``, DPAPI, the vault, ``Env:``), persistence (HKCU ``Run``
keys, scheduled tasks, ``$PROFILE`` and the Startup folder), destruction (``Remove-Item
-Recurse`` on a home, profile or drive root, ``Format-Volume``).
"""

from __future__ import annotations

import re
from typing import Any

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DECODE,
    DECODED,
    DYNAMIC_EXEC,
    ENV,
    FETCHED,
    HIGH,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    Source,
)
from lemon_core.auditor_kit.capabilities.powershell_values import (
    HOLE,
    MAX_DEPTH,
    UNKNOWN,
    Val,
    _first,
    _text,
    union,
)

ALIASES = {
    "iex": "invoke-expression", "iwr": "invoke-webrequest", "irm": "invoke-restmethod",
    "curl": "invoke-webrequest", "wget": "invoke-webrequest", "saps": "start-process",
    "start": "start-process", "gc": "get-content", "cat": "get-content", "type": "get-content",
    "rm": "remove-item", "del": "remove-item", "erase": "remove-item", "rd": "remove-item",
    "rmdir": "remove-item", "ri": "remove-item", "gci": "get-childitem", "ls": "get-childitem",
    "dir": "get-childitem", "sc": "set-content", "ac": "add-content", "icm": "invoke-command",
    "copy": "copy-item", "cp": "copy-item", "cpi": "copy-item", "move": "move-item",
    "mv": "move-item", "mi": "move-item", "ni": "new-item", "sp": "set-itemproperty",
    "echo": "write-output", "write": "write-output",
}
WEB = frozenset({"invoke-webrequest", "invoke-restmethod", "start-bitstransfer",
                 "send-mailmessage"})
READ = frozenset({"get-content", "import-csv", "import-clixml", "get-filehash", "select-string"})
WRITE = frozenset({"set-content", "add-content", "out-file", "export-csv", "export-clixml"})
CREDENTIALS = {
    "get-storedcredential": "Windows Credential Manager (Get-StoredCredential)",
    "get-secret": "a SecretManagement vault secret (Get-Secret)",
    "get-keyvaultsecret": "an Azure Key Vault secret",
    "get-azkeyvaultsecret": "an Azure Key Vault secret",
}
NATIVE_CREDENTIALS = {
    "cmdkey": "Windows Credential Manager (cmdkey)",
    "vaultcmd": "Windows Vault (vaultcmd)",
}
SWITCHES = frozenset({"-recurse", "-force", "-raw", "-usebasicparsing", "-wait", "-passthru",
                      "-append", "-nonewline", "-whatif", "-confirm", "-file", "-directory",
                      "-hidden", "-noprofile", "-nop", "-noninteractive", "-asplaintext",
                      "-erroraction", "-usedefaultcredentials", "-skipcertificatecheck",
                      "-nologo", "-r"})
_WINDOWS_ROOTS = frozenset({"~", "~/documents", "~/desktop", "~/downloads", "~/onedrive",
                            "~/appdata", "~/appdata/local", "~/appdata/roaming", "~/pictures",
                            "~/music", "~/videos", "~/.ssh", "c:/users"})


class Args:
    """A command's elements: ``(parameter, value)`` pairs (parameter None for a positional)."""

    def __init__(self, pairs: list[tuple[str | None, Val]], redirects: list[tuple[str, Val]]):
        self.pairs = pairs
        self.redirects = redirects

    def named(self, *names: str) -> Val | None:
        for name, value in self.pairs:
            if name is not None and any(n.startswith(name) and len(name) >= 3 or name == n
                                        for n in names):
                return value
        return None

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.pairs) or any(
            v.text is not None and v.text.lower() in names for _, v in self.pairs)

    def positional(self) -> list[Val]:
        return [v for name, v in self.pairs if name is None]

    def taint(self) -> frozenset[Source]:
        return union(*(v for _, v in self.pairs))

    def words(self) -> list[str]:
        out: list[str] = []
        for name, value in self.pairs:
            if name is not None:
                out.append(name)
            if value is not UNKNOWN or name is None:
                items = value.items if value.items is not None and value.text is None else (value,)
                out.extend(i.s() for i in items)
        return [w for w in out if w != ""]


def _switch(name: str) -> bool:
    """Whether ``-name`` is a switch (takes no value): one of :data:`SWITCHES` or an
    abbreviation of one (``-fo`` for ``-Force``, ``-rec`` for ``-Recurse``)."""
    return name in SWITCHES or len(name) >= 3 and any(
        s.startswith(name) for s in SWITCHES if len(s) > 3)


def elements(fe: Any, node: Any) -> Args:
    pairs: list[tuple[str | None, Val]] = []
    redirects: list[tuple[str, Val]] = []
    pending: str | None = None
    last_node = None
    if node is None:
        return Args(pairs, redirects)
    for child in node.named_children:
        kind = child.type
        if kind == "command_argument_sep" or kind == "comment":
            continue
        if kind == "command_parameter":
            if pending is not None:
                pairs.append((pending, UNKNOWN))
            text = _text(child).lower()
            name, _colon, _ = text.partition(":")
            pending = None if _switch(name) else name
            if pending is None:
                pairs.append((name, UNKNOWN))
            last_node = None
            continue
        if kind == "redirection":
            operator = _text(_first(child, "file_redirection_operator"))
            target = _first(child, "redirected_file_name")
            redirects.append((operator, fe.ev(target.named_children[-1]) if target is not None
                              and target.named_children else UNKNOWN))
            continue
        if kind == "argument_list" and last_node is not None:
            # ``(New-Object Net.WebClient).DownloadString($u)`` in argument mode
            value = call_on(fe, last_node, child)
            pairs[-1] = (pairs[-1][0], value)
            continue
        raw = _text(child)
        if kind != "string_literal" and raw.startswith("$") and ("\\" in raw or "/" in raw) and (
                " " not in raw):
            value = bareword(fe, raw, fe.line(child))  # $env:TEMP\k.txt in argument mode
        else:
            value = fe.ev(child)
        pairs.append((pending, value))
        pending = None
        last_node = child
    if pending is not None:
        pairs.append((pending, UNKNOWN))
    return Args(pairs, redirects)


_BAREWORD_VAR = re.compile(r"\$(?:\{([^}]+)\}|((?:env:)?[A-Za-z_]\w*))", re.IGNORECASE)


def bareword(fe: Any, raw: str, line: int) -> Val:
    """An unquoted argument holding variables (``$env:TEMP\\k.txt``), expanded as PowerShell
    expands it."""
    taint: set[Source] = set()

    def one(match: re.Match[str]) -> str:
        value = fe.variable("$" + (match.group(1) or match.group(2)), line)
        taint.update(value.taint)
        return value.s()

    return Val(_BAREWORD_VAR.sub(one, raw), frozenset(taint))


def call_on(fe: Any, target: Any, arguments: Any) -> Val:
    """A method call written as an expression followed by its argument list."""
    inner = target
    while inner.type != "member_access" and inner.named_child_count == 1:
        inner = inner.named_children[0]
    args = [fe.ev(c) for c in _argument_values(arguments)]
    if inner.type == "member_access" and inner.named_child_count >= 2:
        obj = fe.ev(inner.named_children[0])
        name = _text(inner.named_children[-1]).lower()
        return method(fe, inner, obj, name, args, static=inner.named_children[0].type
                      == "type_literal")
    if _text(target).lower() in ("net.sockets.tcpclient", "system.net.sockets.tcpclient",
                                 "net.webclient", "system.net.webclient"):
        return construct(fe, target, _text(target).lower(), args)
    return Val(None, union(*args))


def _argument_values(arguments: Any) -> list[Any]:
    listing = _first(arguments, "argument_expression_list")
    return list(listing.named_children) if listing is not None else []


def member(fe: Any, node: Any) -> Val:
    named = node.named_children
    if node.type == "member_access":
        obj = fe.ev(named[0]) if named else UNKNOWN
        name = _text(named[-1]).lower() if len(named) >= 2 else ""
        if obj.obj == "type" and name in ("unicode", "utf8", "ascii", "default", "utf32",
                                          "bigendianunicode"):
            return Val(name, obj="encoding")
        return Val(None, obj.taint, obj=obj.obj if obj.obj in ("socket",) else "")
    if len(named) < 2:
        return UNKNOWN
    target = named[0]
    name_node = _first(node, "member_name")
    arguments = _first(node, "argument_list")
    obj = fe.ev(target)
    args = [fe.ev(c) for c in _argument_values(arguments)] if arguments is not None else []
    name = _text(name_node).lower() if name_node is not None else ""
    return method(fe, node, obj, name, args, static=target.type == "type_literal")


def method(fe: Any, node: Any, obj: Val, name: str, args: list[Val], *, static: bool) -> Val:
    taint = union(obj, *args)
    owner = (obj.text or "").lower() if obj.obj == "type" else obj.obj
    first = args[0] if args else UNKNOWN
    line = fe.line(node)
    if name == "frombase64string" and args:
        data = None
        if first.text is not None and HOLE not in first.text:
            data = _b64(first.text)
        source = Source(DECODED, "base64", fe.path, line)
        fe.fact(DECODE, node, "base64", first.taint, "powershell")
        return Val(None, first.taint | {source}, data=data, built=True)
    if name == "getstring" and obj.obj == "encoding":
        if first.data is not None:
            codec = "utf-16-le" if obj.text in ("unicode",) else (
                "utf-16-be" if obj.text == "bigendianunicode" else "utf-8")
            return Val(first.data.decode(codec, "replace"), first.taint, built=True)
        return Val(None, first.taint, built=first.built)
    if name == "new" and obj.obj == "type" or owner in ("activator",) and name == "createinstance":
        return construct(fe, node, owner, args)
    if owner in ("string", "system.string") and name == "join" and len(args) >= 2:
        items = [i for a in args[1:] for i in (a.items or (a,))]
        return Val(args[0].s().join(i.s() for i in items), taint, built=True)
    if owner in ("string", "system.string") and name == "new":
        chars = first.items or (first,)
        return Val("".join(i.s() for i in chars), taint, built=True)
    if owner in ("scriptblock", "system.management.automation.scriptblock") and name == "create":
        return exec_code(fe, node, first, frozenset(), "[scriptblock]::Create", False)
    if name in ("invokescript", "newscriptblock") and "invokecommand" in _text(node).lower():
        return exec_code(fe, node, first, frozenset(), "InvokeScript", False)
    if owner in ("environment", "system.environment"):
        if name == "getenvironmentvariable" and first.text and HOLE not in first.text:
            grade = vocab.secret_env(first.text.upper())
            if grade is None:
                return Val(HOLE)
            return Val(HOLE, frozenset({Source(ENV, first.text.upper(), fe.path, line, grade)}))
        if name == "getenvironmentvariables":
            return _secret(fe, node, "the whole environment")
    if owner.endswith("protecteddata") and name == "unprotect":
        return _secret(fe, node, "DPAPI-protected data (ProtectedData.Unprotect)")
    if name == "getnetworkcredential" or name == "retrieveall" and "vault" in owner:
        return _secret(fe, node, "a stored Windows credential")
    if owner.endswith(("io.file", "file")) and name.startswith("read"):
        return read_file(fe, node, first)
    if owner.endswith(("io.file", "file")) and name.startswith(("write", "append")) and args:
        return write_file(fe, node, first, union(*args[1:]))
    if owner.endswith(("io.path", "path")) and name == "combine":
        return Val("/".join(a.s().rstrip("/\\") for a in args), taint)
    if owner.endswith("dns") and name.startswith(("gethost", "resolve")):
        fe.fact(NETWORK_EGRESS, node, first.s(), taint, "dns")
        return Val(None, taint)
    if owner.endswith(("webrequest", "httpwebrequest")) and name == "create":
        return Val(first.s(), first.taint, obj="httpclient")
    if owner.endswith("assembly") and name in ("load", "loadfrom", "loadfile", "unsafeloadfrom"):
        carried = first.taint
        if name != "load":
            loaded = shell.file_source(first.s(), fe.path, line)
            carried = carried | (frozenset({loaded}) if loaded is not None else frozenset())
        fe.fact(DYNAMIC_EXEC, node, None, carried, "exec", callee="Assembly." + name.capitalize())
        return Val(None, carried)
    if obj.obj in ("webclient", "httpclient"):
        return web_method(fe, node, name, args, taint, obj)
    if obj.obj == "socket":
        return Val(None, taint | {Source(FETCHED, fe.socket_host or "a socket", fe.path, line)},
                   obj="socket")
    if name == "replace" and len(args) == 2 and obj.text is not None:
        return Val(obj.text.replace(args[0].s(), args[1].s()), taint, built=True)
    if name in ("tolower", "toupper", "trim", "tostring") and obj.text is not None:
        text = obj.text
        text = text.lower() if name == "tolower" else text.upper() if name == "toupper" else (
            text.strip() if name == "trim" else text)
        return Val(text, taint, built=obj.built)
    if name in ("invoke", "invokereturnasis") and obj.obj == "scriptblock":
        return Val(None, taint)
    if "gzipstream" in _text(node).lower() or "deflatestream" in _text(node).lower():
        return Val(None, taint | {Source(DECODED, "gzip", fe.path, line)})
    return Val(None, taint, obj=obj.obj if obj.obj == "socket" else "")


def construct(fe: Any, node: Any, type_name: str, args: list[Val]) -> Val:
    lower = type_name.lower().strip("[]")
    if lower.endswith("webclient"):
        return Val(None, obj="webclient")
    if lower.endswith(("httpclient", "webrequest")):
        return Val(None, obj="httpclient")
    if lower.endswith(("tcpclient", "udpclient", "sockets.socket")):
        host = args[0].s() if args else None
        fe.socket_host = host or "a socket"
        fe.fact(NETWORK_EGRESS, node, host, union(*args), "socket")
        return Val(None, obj="socket")
    if "gzipstream" in lower or "deflatestream" in lower:
        return Val(None, union(*args) | {Source(DECODED, "gzip", fe.path, fe.line(node))})
    if lower in ("string", "system.string") and args:
        items = args[0].items or (args[0],)
        return Val("".join(i.s() for i in items), union(*args), built=True)
    return Val(None, union(*args))


def web_method(fe: Any, node: Any, name: str, args: list[Val], taint: frozenset[Source],
               obj: Val = UNKNOWN) -> Val:
    url = args[0].s() if args else obj.text
    if name.startswith(("download", "openread", "get")):
        fe.fact(NETWORK_EGRESS, node, url, args[0].taint if args else obj.taint, "http")
        fetched = Source(FETCHED, url or "the network", fe.path, fe.line(node))
        if name.startswith("downloadfile") and len(args) >= 2:
            fe.write(node, args[1].s(), frozenset({fetched}))
        return Val(None, frozenset({fetched}))
    if name.startswith("uploadfile") and len(args) >= 2:
        source = shell.file_source(args[-1].s(), fe.path, fe.line(node))
        sent = taint | (frozenset({source}) if source else frozenset())
        if source is not None and source.kind == SECRET:
            fe.fact(SECRET_READ, node, source.label, frozenset({source}), "file")
        fe.fact(NETWORK_EGRESS, node, url, sent, "http")
    elif name.startswith(("upload", "post", "put", "send", "patch")):
        fe.fact(NETWORK_EGRESS, node, url, taint, "http")
    return Val(None, frozenset({Source(FETCHED, url or "the network", fe.path, fe.line(node))}))


def _b64(text: str) -> bytes | None:
    import base64
    import binascii

    raw = "".join(text.split())
    try:
        return base64.b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        return None


def _secret(fe: Any, node: Any, label: str) -> Val:
    source = Source(SECRET, label, fe.path, fe.line(node), HIGH)
    fe.fact(SECRET_READ, node, label, frozenset({source}), "command")
    return Val(HOLE, frozenset({source}))


def read_file(fe: Any, node: Any, path: Val) -> Val:
    text = path.s()
    source = shell.file_source(text, fe.path, fe.line(node))
    if source is None:
        return Val(None, path.taint)
    if source.kind == SECRET:
        fe.fact(SECRET_READ, node, source.label, frozenset({source}), "file")
    return Val(None, path.taint | {source})


def write_file(fe: Any, node: Any, target: Val, carries: frozenset[Source]) -> Val:
    text = target.s()
    if HOLE not in text:
        found = vocab.persistence_path(text)
        if found is not None:
            fe.fact(PERSISTENCE, node, vocab.normal_path(text), carries, found[1])
        fe.write(node, text, carries)
    return UNKNOWN


def payload(fe: Any, node: Any, text: str, taint: frozenset[Source]) -> frozenset[Source]:
    """What a command line stored for later runs: downloaded or decoded code it runs."""
    out = {s for s in taint if s.kind in (DECODED, FETCHED)}
    if not text.strip() or fe.depth >= MAX_DEPTH:
        return frozenset(out)
    url = shell.runs_download(text, fe.path, fe.line(node))
    if url is not None:
        out.add(Source(FETCHED, url, fe.path, fe.line(node)))
    inner = fe.nested(text.replace(HOLE, "x"), frozenset())
    if inner is not None:
        for fact in inner.facts.values():
            if fact.kind == DYNAMIC_EXEC:
                out.update(s for s in fact.carries if s.kind in (DECODED, FETCHED))
    return frozenset(out)


def exec_code(fe: Any, node: Any, code: Val, carry: frozenset[Source], callee: str,
              hidden: bool) -> Val:
    """``Invoke-Expression``: a constant is read again as PowerShell; anything else is
    execution of what it carries."""
    taint = union(code) | carry
    if fe.socket_host is not None and (code.text is None or HOLE in (code.text or "")):
        taint |= {Source(FETCHED, fe.socket_host, fe.path, fe.line(node))}
    constant = code.text is not None and HOLE not in code.text and not taint and not code.built
    if not constant or hidden:
        fe.fact(DYNAMIC_EXEC, node, code.text, taint, "interpreter" if _cradle(fe, node, taint)
                and not hidden else "eval", hidden, callee if hidden else "")
    text = (code.text or "").replace(HOLE, "x")
    if text.strip() and fe.depth < MAX_DEPTH:
        inner = fe.nested(text, fe.taint | taint)
        if inner is not None:
            for fact in inner.facts.values():
                fe.add_fact(_at(fact, fe.line(node)))
            for write in inner.writes.values():
                fe.write(node, write.target, write.carries)
    return Val(None, taint)


def _cradle(fe: Any, node: Any, taint: frozenset[Source]) -> bool:
    """Whether a download run on the spot is written out on the line (``irm URL | iex``):
    then it is the line rules' to judge, with their list of vendor installers, as ``curl URL
    | sh`` is; a URL folded from parts, or one reached through a variable, decoded text or
    another line, stays this reading's."""
    fetched = [s for s in taint if s.kind == FETCHED]
    if not fetched or fe.depth or any(s.kind == DECODED for s in taint | fe.taint):
        return False
    line = fe.evidence(node)
    return all(s.line == fe.line(node) and s.label in line for s in fetched)


def _at(fact: Any, line: int) -> Any:
    import attrs

    return attrs.evolve(fact, line=line)


def native(fe: Any, node: Any, words: list[str], carry: frozenset[Source],
           holes: frozenset[Source]) -> Val:
    """A program run by name (``curl.exe``, ``powershell -enc``, ``cmdkey /list``)."""
    if not words:
        return UNKNOWN
    tool = vocab.tool_name(words[0])
    lower = [w.lower() for w in words]
    if tool in NATIVE_CREDENTIALS:
        return _secret(fe, node, NATIVE_CREDENTIALS[tool])
    if tool == "reg" and len(lower) > 2 and lower[1] == "add" and "\\currentversion\\run" in lower[2]:
        fe.fact(PERSISTENCE, node, words[2], payload(fe, node, " ".join(words[3:]), holes),
                "autostart")
        return UNKNOWN
    if tool == "schtasks" and "/create" in lower:
        command = words[lower.index("/tr") + 1] if "/tr" in lower[:-1] else ""
        fe.fact(PERSISTENCE, node, "a scheduled task", payload(fe, node, command, holes),
                "scheduled-task")
        return UNKNOWN
    result = shell.analyse_words(words, fe.path, fe.line(node), stdin=carry, holes=holes)
    for fact in result.facts:
        fe.add_fact(_at(fact, fe.line(node)))
    for write in result.writes:
        fe.write(node, write.target, write.carries)
    return Val(None, result.out)


__all__ = ["ALIASES", "Args", "elements", "exec_code", "member", "native", "payload",
           "read_file", "write_file"]
