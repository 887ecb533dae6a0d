"""One file through the ``code`` rules: every line where a trigger word appears (raw and
de-obfuscated), every encoded payload, and the flows inside one script or fenced block."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from lemon_plugins.auditors.code import commands, exfil, installs

from lemon_core.auditor_kit import (
    Document,
    Line,
    LineIndex,
    assignments,
    decoded_payloads,
    document,
    normalise_shell,
)
from lemon_core.auditor_kit.rules import weigh

Hit = tuple[str, str, str, int, int]
#: A finding before it is built: (rule, severity, message, line, start, end).
Raw = tuple[str, str, str, Line, int, int | None]
I = re.IGNORECASE

#: Lower-case words at least one of which a line needs for any line rule to match it.
TRIGGER_WORDS = tuple(sorted({word for words, _ in commands.LINE_DETECTORS for word in words} | {
    "scp", "sftp", "rsync", "telnet", "sendmail", "smtplib", "socket", "axios", "xmlhttprequest",
    "sendbeacon", "webclient", "nslookup", "dig ", "host ", "drill", "getent", "resolve",
    "gethostbyname", "getaddrinfo", "pip", "npm", "pnpm", "yarn", "bun ", "npx", "bunx", "uv ",
    "poetry", "conda", "mamba", "![", "<img", "${ifs", "$ifs", "$'"}))
_CODE_CONTEXTS = ("code", "fence", "data", "comment")
_DISGUISE = ("'", '"', "\\", "$")
_DECODE_CALL = re.compile(
    r"\b(?:b64decode|a2b_base64|b32decode|b85decode|unhexlify|fromhex|atob|decompress|"
    r"marshal\.loads)\s*\(|Buffer\.from\s*\([^)]*[\"'](?:base64|hex)[\"']|base64\s+(?:-d|"
    r"--decode)|FromBase64String|codecs\.decode\([^)]*rot", I)
_DYNAMIC_EXEC = re.compile(
    r"(?<![\w.])(?:exec|eval)\s*\((?!\s*[\"'][^\"']*[\"']\s*\))|\bnew\s+Function\s*\(|"
    r"\|\s*(?:ba|z)?sh\b|\beval\s+[\"']?\$|\bsh\s+-c\s+[\"']?\$|\b(?:iex|Invoke-Expression)\b", I)
#: Sources that may go nowhere but loopback; other credential files may go to a known API
#: or documentation host (a git credential sent to github.com is GitHub being used).
_HIGH_VALUE = re.compile(r"\.ssh|\.aws|env|printenv|environ|process\.env|\.claude|\.codex|"
                         r"wallet|keystore|solana|shadow|history|keychain", I)
_DECODE_WORDS = ("decode", "a2b_", "unhexlify", "fromhex", "atob", "decompress", "marshal",
                 "buffer.from", "base64")
_EXEC_WORDS = ("exec", "eval", "function", "sh", "iex", "invoke-expression")
_NETWORK_DATA = ("code.pipe-to-shell", "code.download-exec", "code.reverse-shell",
                 "code.exfiltration", "code.collector-host", "code.dns-exfiltration",
                 "code.obfuscated-exec", "code.destructive", "code.privilege-escalation",
                 "code.ssh-backdoor")


def _line_hits(text: str, script: bool, markdown: bool,
               names: frozenset[str] = frozenset()) -> Iterator[Hit]:
    yield from commands.detect_line(text, names, script=script)
    yield from exfil.line_exfiltration(text)
    yield from exfil.dns_exfiltration(text)
    yield from installs.installs(text, script=script)
    if markdown:
        yield from exfil.image_exfiltration(text)


def _lines_to_check(doc: Document, text: str) -> list[Line]:
    """The lines holding a trigger word, and code lines that could hide one (quotes,
    backslashes, variables): a substring search per word over the whole text."""
    lower = text.lower()
    index = LineIndex(text)
    numbers: set[int] = set()
    for word in TRIGGER_WORDS:
        at = lower.find(word)
        while at != -1:
            number = index.line_of(at)
            numbers.add(number)
            at = lower.find(word, index.start_of(number + 1) if number < len(doc.lines) else
                            len(lower))
    for line in doc.lines:
        if line.context in _CODE_CONTEXTS and line.number not in numbers and \
                any(mark in line.text for mark in _DISGUISE):
            numbers.add(line.number)
    return [doc.lines[n - 1] for n in sorted(numbers) if n - 1 < len(doc.lines)]


def _logical(line: Line, doc: Document) -> str:
    """The line with the lines it continues onto (a trailing backslash), in code."""
    text = line.text
    if not text.rstrip().endswith("\\") or line.context not in _CODE_CONTEXTS:
        return text
    parts = [text.rstrip()[:-1]]
    for following in doc.lines[line.number: line.number + 12]:
        body = following.text.rstrip()
        if body.endswith("\\"):
            parts.append(body[:-1])
            continue
        parts.append(body)
        break
    return " ".join(part.strip() for part in parts)


def _check_line(line: Line, doc: Document, variables: dict[str, str],
                names: frozenset[str] = frozenset()) -> Iterator[Raw]:
    raw = _logical(line, doc)
    if not raw.strip():
        return
    script = doc.kind == "script" and line.context == "code"
    markdown = doc.kind in ("markdown", "text")
    plain = normalise_shell(raw)
    full = normalise_shell(raw, variables) if variables and "$" in raw else plain
    raw_rules = ({hit[0] for hit in _line_hits(raw, script, markdown, names)}
                 if full != raw else set())
    for rule, severity, message, start, end in _line_hits(full, script, markdown, names):
        if full != raw or raw != line.text:
            start, end = 0, None
            if rule not in raw_rules and plain != raw and rule in _NETWORK_DATA:
                message = f"{message}, disguised (split strings, $IFS, quotes or escapes)"
                rule, severity = "code.obfuscated-command", "block"
        if rule == "code.image-exfiltration" and not line.warned:
            weighed: str | None = severity  # an image in prose is rendered, not mentioned
        else:
            weighed = weigh(severity, line, start if end is not None else None)
        if weighed is not None:
            yield rule, weighed, message, line, start, end


def _payloads(doc: Document, text: str) -> Iterator[Raw]:
    index = LineIndex(text)
    for found in decoded_payloads(text):
        line = doc.lines[index.line_of(found.start) - 1]
        inner = [found.text, *(d.text for d in decoded_payloads(found.text))]
        for piece in inner:
            hits = [hit for part in piece.splitlines()
                    for hit in _line_hits(normalise_shell(part), True, False)]
            bad = [hit for hit in hits if hit[0] in _NETWORK_DATA]
            if bad:
                weighed = weigh("block", line, found.start - line.start)
                if weighed is not None:
                    yield ("code.encoded-payload", weighed,
                           f"a {found.encoding} blob decodes to: {bad[0][2]}",
                           line, found.start - line.start, found.end - line.start)
                break


def _units(doc: Document) -> Iterator[list[Line]]:
    """The lines that run together: a script's code lines, each fenced block's lines."""
    if doc.kind in ("script", "data"):
        yield [line for line in doc.lines if line.context in ("code", "data")]
        return
    block: list[Line] = []
    for line in doc.lines:
        if line.context == "fence":
            block.append(line)
            continue
        if block:
            yield block
            block = []
    if block:
        yield block


def _flows(doc: Document, variables: dict[str, str], reported: set[int]) -> Iterator[Raw]:
    for unit in _units(doc):
        if not unit or unit[0].warned:
            continue
        sources, sends, decodes, execs = [], [], [], []
        for line in unit:
            text = normalise_shell(line.text, variables)
            match = exfil.sources_in(text)
            if match is not None:
                sources.append((line, match))
            if exfil.sends(text):
                sends.append((line, exfil.destinations(text)))
            lower = text.lower()
            if any(w in lower for w in _DECODE_WORDS) and _DECODE_CALL.search(text):
                decodes.append(line)
            if any(w in lower for w in _EXEC_WORDS) and _DYNAMIC_EXEC.search(text):
                execs.append(line)
        if sources and sends and not reported & {line.number for line, _ in sources + sends}:
            dests = [d for _, found in sends for d in found]
            unresolved = any(not found for _, found in sends)
            source_line, match = sources[0]
            high = any(_HIGH_VALUE.search(m.group()) for _, m in sources)
            allowed = {"loopback"} | (set() if high else {"api", "docs", "vendor"})
            outside = [d for k, d in dests if k not in allowed]
            if outside or unresolved:
                where = outside[0] if outside else "a destination not written out"
                yield ("code.exfiltration", "block",
                       (f"reads {match.group().strip()} (line {source_line.number}) and sends "
                       f"data to {where} (line {sends[0][0].number})"),
                       source_line, match.start(), match.end())
        if decodes and execs and not reported & {line.number for line in execs}:
            yield ("code.obfuscated-exec", "block",
                   (f"decodes a payload (line {decodes[0].number}) and executes code built at "
                   f"run time (line {execs[0].number})"), execs[0], 0, None)


def scan(path: str, text: str, names: frozenset[str] = frozenset()) -> Iterator[Raw]:
    """Every code-rule hit in one decoding of one file; ``names`` are the skill's own names
    (key, manifest name), lower case without separators."""
    doc = document(path, text)
    variables = assignments(text) if "=" in text else {}
    reported: set[int] = set()
    for line in _lines_to_check(doc, text):
        for hit in _check_line(line, doc, variables, names):
            reported.add(line.number)
            yield hit
    yield from _payloads(doc, text)
    yield from _flows(doc, variables, reported)


def lines_of(hits: Sequence[Raw]) -> set[int]:
    return {hit[3].number for hit in hits}


__all__ = ["scan"]
