"""PowerShell commands (cmdlets, functions, programs) as capabilities: one dispatch,
:func:`run`, called by :mod:`.powershell_calls` with the folded name and arguments."""

from __future__ import annotations

from typing import Any

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DESTRUCTION,
    DYNAMIC_EXEC,
    FETCHED,
    FILE,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    Source,
)
from lemon_core.auditor_kit.capabilities.powershell_calls import (
    _WINDOWS_ROOTS,
    ALIASES,
    CREDENTIALS,
    READ,
    WEB,
    WRITE,
    Args,
    construct,
    exec_code,
    native,
    payload,
    read_file,
    write_file,
)
from lemon_core.auditor_kit.capabilities.powershell_values import (
    HOLE,
    UNKNOWN,
    Val,
    union,
)


def destructive(path: str) -> str | None:
    """A label when deleting ``path`` (recursively) destroys a home, profile or drive root."""
    if not path or path.replace(HOLE, "") == "" and HOLE not in path:
        return None
    found = vocab.destructive_target(path)
    if found:
        return found
    text = vocab.normal_path(path).rstrip("/*").rstrip("/")
    if text.lower() in _WINDOWS_ROOTS or (len(text) == 2 and text[1] == ":"):
        return text or "/"
    return None


def run(fe: Any, node: Any, name: str, name_val: Val, args: Args, carry: frozenset[Source],
        previous: Val) -> Val:
    lower = name.lower().removesuffix(".exe") if HOLE not in name else ""
    if "/" in lower or "\\" in lower:
        lower_tail = lower.replace("\\", "/").rpartition("/")[2]
    else:
        lower_tail = lower
    hidden = name_val.built
    if lower_tail in fe.aliases:
        lower_tail = fe.aliases[lower_tail]
        hidden = True  # a command renamed so that its name does not appear where it runs
    canonical = ALIASES.get(lower_tail, lower_tail)
    for _operator, target in args.redirects:
        write_file(fe, node, target, carry | union(previous))
    if not lower:
        # ``& $x`` / ``. $x``: what runs is chosen at run time
        if name_val.taint:
            return exec_code(fe, node, name_val, carry, "&", False)
        return Val(None, args.taint() | carry)
    if canonical in fe.functions:
        return Val(None, args.taint() | carry)
    if canonical in ("set-alias", "new-alias", "sal", "nal"):
        alias = args.named("-name") or (args.positional()[0] if args.positional() else UNKNOWN)
        target = args.named("-value") or (args.positional()[1] if len(args.positional()) > 1
                                          else UNKNOWN)
        if alias.text and target.text and HOLE not in alias.text + target.text:
            fe.aliases[alias.text.lower()] = target.text.lower()
        return UNKNOWN
    if _is_path(lower):
        return run_file(fe, node, name, args, carry)
    if canonical == "invoke-expression":
        code = args.named("-command") or (args.positional()[0] if args.positional() else None)
        if code is None:
            code = previous if previous is not UNKNOWN else Val(None, carry)
        return exec_code(fe, node, code, carry, "Invoke-Expression", hidden)
    if canonical in WEB:
        return web(fe, node, canonical, args, carry)
    if canonical == "new-object":
        type_name = args.named("-typename") or (args.positional()[0] if args.positional()
                                                else UNKNOWN)
        given = args.named("-argumentlist")
        rest = args.positional()[1:]
        if given is not None:
            rest = list(given.items or (given,))
        if len(rest) == 1 and rest[0].items is not None:
            rest = list(rest[0].items)
        return construct(fe, node, type_name.s(), rest)
    if canonical == "start-process":
        return start_process(fe, node, args, carry)
    if canonical == "invoke-command":
        return Val(None, args.taint() | carry)
    if canonical in READ:
        target = args.named("-path", "-literalpath") or (args.positional()[0]
                                                          if args.positional() else UNKNOWN)
        return read_file(fe, node, target)
    if canonical in CREDENTIALS:
        label = CREDENTIALS[canonical]
        source = Source(SECRET, label, fe.path, fe.line(node), "high")
        fe.fact(SECRET_READ, node, label, frozenset({source}), "command")
        return Val(HOLE, frozenset({source}))
    if canonical == "convertfrom-securestring" and args.has("-asplaintext"):
        source = Source(SECRET, "a SecureString as plain text", fe.path, fe.line(node), "high")
        return Val(HOLE, frozenset({source}) | carry)
    if canonical in WRITE:
        target = args.named("-path", "-filepath", "-literalpath") or (
            args.positional()[0] if args.positional() else UNKNOWN)
        value = args.named("-value", "-inputobject")
        data = carry | union(previous) | (value.taint if value is not None else frozenset())
        if value is None and len(args.positional()) > 1:
            value = args.positional()[1]
            data |= value.taint
        if value is not None and vocab.persistence_path(target.s()) is not None:
            data |= payload(fe, node, value.s(), value.taint)
        return write_file(fe, node, target, data)
    if canonical in ("copy-item", "move-item", "compress-archive"):
        source_path = args.named("-path", "-literalpath") or (
            args.positional()[0] if args.positional() else UNKNOWN)
        dest = args.named("-destination", "-destinationpath") or (
            args.positional()[1] if len(args.positional()) > 1 else UNKNOWN)
        found = read_file(fe, node, source_path)
        return write_file(fe, node, dest, found.taint)
    if canonical == "join-path":
        parts = [v for _, v in args.pairs if v is not UNKNOWN]
        text = "/".join(p.s().replace("\\", "/").rstrip("/") for p in parts)
        return Val(text.rstrip("/") or "/", union(*parts))
    if canonical in ("get-childitem", "get-item") :
        target = args.named("-path", "-literalpath") or (args.positional()[0]
                                                          if args.positional() else Val("."))
        if (target.text or "").lower().rstrip(":") == "env":
            source = Source(SECRET, "the whole environment", fe.path, fe.line(node), "high")
            fe.fact(SECRET_READ, node, "the whole environment", frozenset({source}), "command")
            return Val(HOLE, frozenset({source}))
        found = read_file(fe, node, target) if canonical == "get-item" else Val(None, target.taint)
        return Val(target.s(), found.taint, obj="listing")
    if canonical == "remove-item":
        return remove(fe, node, args, previous)
    if canonical in ("format-volume", "clear-disk", "remove-partition", "initialize-disk"):
        fe.fact(DESTRUCTION, node, "a disk (" + canonical + ")", frozenset(), canonical)
        return UNKNOWN
    if canonical in ("set-itemproperty", "new-itemproperty", "new-item") and _run_key(args):
        value = args.named("-value") or UNKNOWN
        fe.fact(PERSISTENCE, node, (args.named("-path") or UNKNOWN).s(),
                payload(fe, node, value.s(), value.taint), "autostart")
        return UNKNOWN
    if canonical == "new-item":
        target = args.named("-path") or (args.positional()[0] if args.positional() else UNKNOWN)
        value = args.named("-value")
        if value is not None:
            return write_file(fe, node, target, value.taint)
        return UNKNOWN
    if canonical in ("register-scheduledtask", "new-scheduledtaskaction",
                     "register-scheduledjob"):
        action = [args.named("-execute"), args.named("-argument"), args.named("-scriptblock")]
        text = " ".join(a.s() for a in action if a is not None)
        fe.fact(PERSISTENCE, node, "a scheduled task", payload(fe, node, text, union(
            *(a for a in action if a is not None))), "scheduled-task")
        return UNKNOWN
    if canonical in ("resolve-dnsname", "test-netconnection", "test-connection"):
        target = args.named("-name", "-computername", "-targetname") or (
            args.positional()[0] if args.positional() else UNKNOWN)
        fe.fact(NETWORK_EGRESS, node, target.s(), target.taint | carry, "dns")
        return UNKNOWN
    if canonical in ("write-output", "write-host", "out-string", "select-object",
                     "where-object", "foreach-object", "sort-object", "convertto-json",
                     "convertfrom-json", "out-null", "tee-object", "format-table"):
        return Val(None, carry | args.taint(), obj=previous.obj if canonical in (
            "where-object", "select-object", "sort-object") else "")
    if "-" in canonical:
        return Val(None, carry | args.taint())  # another cmdlet: data passes through
    words = [name] + args.words()
    return native(fe, node, words, carry, args.taint())


def _run_key(args: Args) -> bool:
    path = (args.named("-path") or (args.positional()[0] if args.positional() else UNKNOWN)).s()
    lower = path.lower().replace("/", "\\")
    return "\\currentversion\\run" in lower or "\\winlogon" in lower


def web(fe: Any, node: Any, canonical: str, args: Args, carry: frozenset[Source]) -> Val:
    url = args.named("-uri", "-url", "-source", "-smtpserver") or (
        args.positional()[0] if args.positional() else UNKNOWN)
    sent = set(carry) | url.taint
    for name in ("-body", "-headers", "-attachments", "-infile", "-form"):
        value = args.named(name)
        if value is None:
            continue
        sent |= value.taint
        if name in ("-infile", "-attachments"):
            items = value.items or (value,)
            for item in items:
                source = shell.file_source(item.s(), fe.path, fe.line(node))
                if source is not None:
                    sent.add(source)
                    if source.kind == SECRET:
                        fe.fact(SECRET_READ, node, source.label, frozenset({source}), "file")
    if canonical == "send-mailmessage":
        sent |= args.taint()
    fe.fact(NETWORK_EGRESS, node, url.s(), frozenset(sent), "http")
    fetched = Source(FETCHED, url.s(), fe.path, fe.line(node))
    out = args.named("-outfile", "-destination")
    if out is not None:
        fe.write(node, out.s(), frozenset({fetched}))
    return Val(None, frozenset({fetched}))


def start_process(fe: Any, node: Any, args: Args, carry: frozenset[Source]) -> Val:
    program = args.named("-filepath") or (args.positional()[0] if args.positional()
                                          else UNKNOWN)
    given = args.named("-argumentlist")
    rest = list(given.items or (given,)) if given is not None else args.positional()[1:]
    words = [program.s()] + [w.s() for w in rest]
    if not words[0] or words[0] == HOLE:
        return Val(None, union(program, *rest))
    if _is_path(words[0].lower()):
        run_file(fe, node, words[0], args, carry)
    return native(fe, node, words, carry, union(program, *rest))


_RUNNABLE = (".exe", ".ps1", ".bat", ".cmd", ".msi", ".vbs", ".js", ".hta", ".scr", ".com",
             ".dll", ".psm1")


def _is_path(lower: str) -> bool:
    return HOLE not in lower and ("/" in lower or "\\" in lower) and lower.endswith(_RUNNABLE)


def run_file(fe: Any, node: Any, program: str, args: Args, carry: frozenset[Source]) -> Val:
    """A file run by its path (``Start-Process $env:TEMP\\a.exe``, ``& C:\\x\\a.ps1``): what
    the file holds is run (the judge follows the file to what wrote it)."""
    source = Source(FILE, vocab.normal_path(program), fe.path, fe.line(node))
    fe.fact(DYNAMIC_EXEC, node, vocab.normal_path(program), frozenset({source}) | carry, "shell")
    return Val(None, args.taint() | carry)


def remove(fe: Any, node: Any, args: Args, previous: Val) -> Val:
    recursive = args.has("-recurse", "-r")
    targets = [v for name, v in args.pairs if name in ("-path", "-literalpath")
               or name is None]
    if previous.obj == "listing" and previous.text is not None:
        # ``Get-ChildItem X | Remove-Item``: X's entries
        found = destructive(previous.text)
        if found:
            fe.fact(DESTRUCTION, node, "everything under " + found, frozenset(), "remove-item")
        return UNKNOWN
    if not recursive:
        return UNKNOWN
    for target in targets:
        for item in target.items or (target,):
            found = destructive(item.s())
            if found:
                fe.fact(DESTRUCTION, node, found, frozenset(), "remove-item")
    return UNKNOWN


__all__ = ["destructive", "run"]
