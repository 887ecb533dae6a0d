"""One file through the ``code`` rules: every line where a trigger word appears (raw and
de-obfuscated), every encoded payload, and the flows inside one script or fenced block."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from lemon_plugins.auditors.code import commands, exfil, installs, warning

from lemon_core.auditor_kit import (
    Document,
    Line,
    LineIndex,
    assignments,
    decoded_payloads,
    document,
    host_class,
    is_warning,
    names_host,
    normalise_shell,
    table_cells,
)
from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import (
    indexed,
    register_words,
    word_lines,
)
from lemon_core.auditor_kit.rules import weigh
from lemon_core.auditor_kit.scripts import is_comment

Hit = tuple[str, str, str, int, int]
#: A finding before it is built: (rule, severity, message, line, start, end).
Raw = tuple[str, str, str, Line, int, int | None]
I = re.IGNORECASE

#: Lower-case words at least one of which a line needs for any line rule to match it.
TRIGGER_WORDS = tuple(sorted({word for words, _ in commands.LINE_DETECTORS for word in words} | {
    "scp ", "sftp", "rsync", "telnet", "sendmail", "smtplib", "socket", "axios", "sendbeacon",
    "xmlhttprequest", "webclient", "upload", "requests.", "httpx.", "session.post",
    "http.client", "aiohttp", "httparty", "curl_exec", "got.post", "fetch(",
    "nslookup", "dig ", "host ", "drill ", "ping ", "getent", "resolvectl", "resolve-dnsname",
    "gethostbyname", "getaddrinfo", "resolver.", "dns.", "pip install", "pip3 install",
    "pip3.", "-m pip", "pipx", "uv pip", "uv add", "poetry add", "conda install",
    "mamba install", "npm i", "npm add", "pnpm", "yarn add", "yarn global", "bun add",
    "bun i", "npx", "bunx", "![", "<img", "${ifs", "$ifs", "$'", "--dangerously", "--yolo",
    "--full-auto"}))
#: A variable holding one of these is followed to where it is used.
_HELD_WORDS = ("curl", "wget", "sh", "base64", "nc", "ssh", "aws", "env", "eval", "exec",
               "http", "/dev/", "rm ", "crontab", ".bashrc", ".zshrc", "authorized_keys")
#: Signs of a disguised command on a code line (``c''url``, ``c\\url``, ``c'u'rl``, ``$IFS``).
#: (Written to start on the quote or backslash, so a search of a whole text is quick.)
_DISGUISED = lazy_compile(r"''(?<=\w'')(?=\w)|\"\"(?<=\w\"\")(?=\w)"
                          r"|\\(?<=[A-Za-z]\\)(?=[A-Za-z])"
                          r"|'(?<=[A-Za-z]')[A-Za-z]{1,3}['\"](?=[A-Za-z])"
                          r"|\"(?<=[A-Za-z]\")[A-Za-z]{1,3}['\"](?=[A-Za-z])")
_CODE_CONTEXTS = ("code", "fence", "data", "comment")
#: Line rules a fenced example under a warning in any language (:mod:`.warning`) lowers to a
#: warning: an attack shown to teach or detect it.
_TEACHABLE = frozenset({"code.exfiltration", "code.reverse-shell", "code.download-exec",
                        "code.pipe-to-shell", "code.obfuscated-exec"})
_DECODE_CALL = lazy_compile(
    r"\b(?:b64decode|a2b_base64|b32decode|b85decode|a85decode|unhexlify|fromhex|atob|decompress|"
    r"marshal\.loads)\s*\(|Buffer\.from\s*\([^)]*[\"'](?:base64|hex)[\"']|base64\s+(?:-d|"
    r"--decode)|FromBase64String|codecs\.decode\([^)]*rot", I)
_DYNAMIC_EXEC = lazy_compile(
    r"(?<![\w.\"'])(?:exec|eval)\s*\((?!\s*[\"'][^\"']*[\"']\s*\))|\bnew\s+Function\s*\(|"
    r"\|\s*(?:ba|z)?sh\b|\beval\s+[\"']?\$|\bsh\s+-c\s+[\"']?\$|\b(?:iex|Invoke-Expression)\b", I)
#: Sources that may go nowhere but loopback; other credential files may go to a known API
#: or documentation host (a git credential sent to github.com is GitHub being used).
_HIGH_VALUE = lazy_compile(r"\.ssh|\.aws|env|printenv|environ|process\.env|\.claude|\.codex|"
                         r"wallet|keystore|solana|shadow|history|keychain", I)
_DECODE_WORDS = ("decode", "a2b_", "unhexlify", "fromhex", "atob", "decompress", "marshal",
                 "buffer.from", "base64")
_EXEC_WORDS = ("exec", "eval", "new function", "| sh", "|sh", "| bash", "|bash", "| zsh",
               "sh -c", "iex", "invoke-expression", "system(", "popen", "subprocess", "spawn")
#: ``name = <decode call>``: the variable a decoded payload is kept in.
_DECODED_INTO = lazy_compile(r"^\s*(?:(?:const|let|var|my|local)\s+)?\$?([A-Za-z_]\w*)\s*"
                             r"(?::[^=\n]*)?=(?!=)", I)
#: A call that runs a command or a program, by its first argument.
_RUN_CALL = (r"\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?)|subprocess\.(?:run|call|"
             r"check_call|check_output|Popen|getoutput|getstatusoutput)|pty\.spawn|execSync|"
             r"execFileSync|spawnSync|child_process\.(?:exec|spawn|execFile))\s*\(\s*\[?\s*")
_NETWORK_DATA = ("code.pipe-to-shell", "code.download-exec", "code.reverse-shell",
                 "code.exfiltration", "code.collector-host", "code.dns-exfiltration",
                 "code.obfuscated-exec", "code.destructive", "code.privilege-escalation",
                 "code.ssh-backdoor")


def _line_hits(text: str, script: bool, markdown: bool, names: frozenset[str] = frozenset(),
               only: frozenset[int] | None = None) -> Iterator[Hit]:
    yield from commands.detect_line(text, names, script=script, only=only)
    yield from exfil.line_exfiltration(text)
    yield from exfil.dns_exfiltration(text)
    yield from installs.installs(text, script=script)
    if markdown:
        yield from exfil.image_exfiltration(text)


class LineHits:
    """The hits of each line text already searched in one bundle (its files share lines:
    boilerplate, repeated examples), with the skill's own ``names``. :func:`_line_hits` is
    a function of the text and its arguments alone, so a line searched again gets the same
    hits; nothing is kept from one bundle to the next."""

    def __init__(self, names: frozenset[str] = frozenset()) -> None:
        self.names = names
        self._seen: dict[tuple[str, bool, bool, frozenset[int] | None], tuple[Hit, ...]] = {}

    def __call__(self, text: str, script: bool, markdown: bool,
                 only: frozenset[int] | None = None) -> tuple[Hit, ...]:
        key = (text, script, markdown, only)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = tuple(_line_hits(text, script, markdown, self.names, only))
        return found

    def row(self, text: str, table: bool, script: bool, markdown: bool,
            only: frozenset[int] | None = None) -> Iterator[Hit]:
        """The hits of a line, or of each cell of a markdown table row (its ``|`` are cell
        separators, not pipes: ``| HTTP | Ruby |`` pipes nothing into ``ruby``), with the
        offsets of the whole row."""
        whole = self(text, script, markdown, only)
        if not table or not whole:  # a cell's hit is a hit of the row too: none, no cells
            yield from whole
            return
        for offset, cell in table_cells(text):
            for rule, severity, message, start, end in self(cell, script, markdown, only):
                yield rule, severity, message, start + offset, \
                    None if end is None else end + offset


@functools.lru_cache(maxsize=64)
def _fixed_and_other(words: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """``words`` split into those every file is searched for at once (:func:`_scan_words`)
    and the others (a variable's ``$name``), looked for one by one."""
    fixed = _scan_words()
    return frozenset(w for w in words if w in fixed), tuple(w for w in words if w not in fixed)


class _Words:
    """Which lines of a file hold which trigger words, found once per file."""

    def __init__(self, text: str) -> None:
        self.index, self.lower = indexed(text)
        #: The fixed words present in the file, with their lines (absent ones are left out).
        self._present: dict[str, frozenset[int]] = dict(
            word_lines(self.index, self.lower, _scan_words()))  # all at once
        self._other: dict[str, set[int]] = {}
        self.detectors = [self.lines(words) for words, _ in commands.LINE_DETECTORS]

    def only(self, number: int) -> frozenset[int]:
        return frozenset(i for i, lines in enumerate(self.detectors) if number in lines)

    def lines(self, words: tuple[str, ...]) -> set[int]:
        """The lines holding any of ``words`` (each word searched once per file): the few
        fixed words present are gone through, not every word asked about."""
        fixed, other = _fixed_and_other(words)
        found: set[int] = set()
        for word, hits in self._present.items():
            if word in fixed:
                found |= hits
        for word in other:
            hits = self._other.get(word)
            if hits is None:
                hits = self._other[word] = self.index.lines_containing(self.lower, (word,))
            found |= hits
        return found


def _lines_to_check(doc: Document, text: str, words: _Words,
                    variables: dict[str, str]) -> list[Line]:
    """The lines holding a trigger word, and code lines that could hide one (quotes,
    backslashes, variables): a substring search per word over the whole text."""
    numbers = words.lines(TRIGGER_WORDS)
    count = len(doc.lines)
    for match in _DISGUISED.finditer(text):  # a match never spans lines
        number = words.index.line_of(match.start())
        if number not in numbers and number <= count and \
                doc.lines[number - 1].context in _CODE_CONTEXTS:
            numbers.add(number)
    if variables:
        held = tuple(f"${name.lower()}" for name, value in variables.items()
                     if "://" in value or any(w in value.lower() for w in _HELD_WORDS))
        held += tuple("${" + name[1:] for name in held)
        numbers |= words.lines(held) if held else set()
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


def _check_line(line: Line, doc: Document, variables: dict[str, str], hits: LineHits,
                words: _Words) -> Iterator[Raw]:
    raw = _logical(line, doc)
    if not raw.strip():
        return
    script = doc.kind == "script" and line.context == "code"
    markdown = doc.kind in ("markdown", "text")
    plain = normalise_shell(raw)
    full = normalise_shell(raw, variables) if variables and "$" in raw else plain
    only = words.only(line.number) if full == raw == line.text else None
    table = line.context == "table"
    raw_rules: set[str] | None = None  # the rules the line hits as written, found when asked
    for rule, severity, message, start, end in hits.row(full, table, script, markdown, only):
        if full != raw or raw != line.text:
            start, end = 0, None
            if plain != raw and rule in _NETWORK_DATA:
                if raw_rules is None:
                    raw_rules = ({hit[0] for hit in hits.row(raw, table, script, markdown)}
                                 if full != raw else set())
                if rule not in raw_rules:
                    message = f"{message}, disguised (split strings, $IFS, quotes or escapes)"
                    rule, severity = "code.obfuscated-command", "block"
        if line.own_text and _sentence_warns(line, doc):
            continue  # "… (`curl … | sh` in an rc file) is a red flag": the sentence warns
        if rule == "code.image-exfiltration" and not line.warned:
            weighed: str | None = severity  # an image in prose is rendered, not mentioned
        else:
            weighed = weigh(severity, line, start if end is not None else None)
        if weighed == "block" and rule in _TEACHABLE:
            lead = warning.fence_lead(doc, line)
            if lead is not None:  # "Nunca ejecutes esto:" above an attack shown to teach it
                weighed = "warn"
                message = f"{message} (shown under a warning, so only a warning: \"{lead}\")"
        if weighed is not None:
            yield rule, weighed, message, line, start, end


def _sentence_warns(line: Line, doc: Document) -> bool:
    """Whether the sentence a prose line belongs to, read on to the next line of its paragraph
    (a sentence wraps), warns against what it names."""
    following = doc.lines[line.number] if line.number < len(doc.lines) else None
    if following is None or following.context != line.context or not following.text.strip() \
            or line.text.rstrip().endswith((".", "!", "?")):
        return False
    return is_warning(line.text + " " + following.text)


def _payloads(doc: Document, text: str, index: LineIndex) -> Iterator[Raw]:
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


def _units(doc: Document, numbers: set[int]) -> dict[int, list[Line]]:
    """The lines of ``numbers`` grouped by the lines that run together — a script's code
    lines, each run of fenced lines — keyed by the number of the unit's first line, in order.
    Found from those lines (walking back to where a run of fence lines starts), not by going
    through every line of the document."""
    lines = doc.lines
    units: dict[int, list[Line]] = {}
    if doc.kind in ("script", "data"):
        first = next((line.number for line in lines if line.context in ("code", "data")), 0)
        for number in sorted(numbers):
            if number <= len(lines) and lines[number - 1].context in ("code", "data"):
                units.setdefault(first, []).append(lines[number - 1])
        return units
    last, last_start = 0, 0  # the last fence line placed, and where its run starts
    for number in sorted(numbers):
        if number > len(lines) or lines[number - 1].context != "fence":
            continue
        start = number
        while start > 1 and lines[start - 2].context == "fence":
            start -= 1
            if start == last:
                start = last_start
                break
        units.setdefault(start, []).append(lines[number - 1])
        last, last_start = number, start
    return units


_FLOW_WORDS = tuple(sorted(set(exfil.NET_WORDS) | set(exfil.SOURCE_WORDS)))


def _is_comment(line: Line) -> bool:
    """A whole-line comment of a script or of a fenced example."""
    return line.context == "script-comment" or (
        line.context == "fence" and is_comment(line.text, line.language))


def _flows(doc: Document, variables: dict[str, str], reported: set[int],
           words: _Words) -> Iterator[Raw]:
    flow_lines = words.lines(_FLOW_WORDS)
    decode_lines = words.lines(_DECODE_WORDS)
    exec_lines = words.lines(_EXEC_WORDS) if decode_lines else set()
    interesting = flow_lines | decode_lines | exec_lines
    for first, unit in _units(doc, interesting).items():
        if doc.lines[first - 1].warned:
            continue
        # What each line reads and decodes first; what it sends only when something in the
        # unit reads a secret, and what it runs only when something in it decodes (each rule
        # needs both halves): the same lists as one pass over every line, in the same order.
        sources, sends, decodes, execs = [], [], [], []
        texts: list[str] = []
        intos: list[str | None] = []  # the variable a decoding line fills, if any
        for line in unit:
            text = normalise_shell(line.text, variables)
            texts.append(text)
            match = None if _is_comment(line) else exfil.sources_in(text)
            if match is not None:  # a comment reads nothing
                sources.append((line, match))
            lower = text.lower()
            decodes_here = any(w in lower for w in _DECODE_WORDS) and \
                _DECODE_CALL.search(text) is not None
            into = _DECODED_INTO.match(text) if decodes_here else None
            intos.append(into.group(1) if into is not None else None)
            if decodes_here:
                decodes.append(line)
        if sources:
            for line, text in zip(unit, texts):
                if exfil.sends(text):
                    sends.append((line, exfil.destinations(text)
                                  or _call_destinations(doc, line)))
        if decodes:
            decoded: dict[str, Line] = {}
            for line, text, into_name in zip(unit, texts, intos):
                if decoded and _runs_decoded(text, decoded):
                    execs.append(line)
                if into_name is not None and len(decoded) < 32:
                    decoded.setdefault(into_name, line)
                lower = text.lower()
                if any(w in lower for w in _EXEC_WORDS) and _DYNAMIC_EXEC.search(text):
                    execs.append(line)
        if sources and sends and not reported & {line.number for line, _ in sources + sends}:
            dests = [d for _, found in sends for d in found]
            unresolved = any(not found for _, found in sends)
            source_line, match = sources[0]
            high = any(_HIGH_VALUE.search(m.group()) for _, m in sources)
            allowed = {"loopback"} | (set() if high else {"api", "docs", "vendor"})
            outside = [d for k, d in dests if k not in allowed]
            if outside and not unresolved and all(_DOTENV.fullmatch(m.group().strip())
                                                  for _, m in sources):
                # a .env read for the API key its name names (OPENROUTER_API_KEY to
                # openrouter.ai): that API being used, as for a named credential on one line
                keys = _key_names(doc)
                outside = [d for d in outside if not any(names_host(k, d) for k in keys)]
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


_DOTENV = lazy_compile(r"\.env")
_KEY_NAME = lazy_compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|KEY|TOKEN|SECRET)\b")
#: ``name = "https://…"`` or ``self.name = "https://…"``: a URL kept in a variable.
_URL_CONSTANT = lazy_compile(r"(?:\bself\.|\bthis\.)?\b([A-Za-z_]\w*)\s*[:=]\s*f?[\"'](https?://[^\"'\s]+)")
_CALL_LINES = 6


def _key_names(doc: Document) -> set[str]:
    """The API-key names a script mentions (``OPENROUTER_API_KEY``)."""
    return {m.group() for line in doc.lines if "_" in line.text
            for m in _KEY_NAME.finditer(line.text)}


def _call_destinations(doc: Document, line: Line) -> list[tuple[str, str]]:
    """Where a send whose line names no destination goes: a URL on the lines that continue
    its call (``requests.post(\n    url="https://…"``), or a variable holding a URL constant
    the script assigns (``self.base_url = "https://…"`` … ``f"{self.base_url}/chat"``)."""
    if line.context not in ("code", "fence"):
        return []
    following = [line.text]
    depth = line.text.count("(") - line.text.count(")")
    for nxt in doc.lines[line.number: line.number + _CALL_LINES]:
        if depth <= 0 or nxt.context != line.context:
            break
        following.append(nxt.text)
        depth += nxt.text.count("(") - nxt.text.count(")")
    call = "\n".join(following)
    found = exfil.destinations(call)
    if found:
        return found
    constants: dict[str, str] = {}
    for other in doc.lines:
        if "://" in other.text and other.context == line.context:
            for match in _URL_CONSTANT.finditer(other.text):
                constants.setdefault(match.group(1), match.group(2))
    return [(host_class(url), url) for name, url in constants.items()
            if re.search(rf"\b{re.escape(name)}\b", call)]


def _runs_decoded(text: str, decoded: dict[str, Line]) -> bool:
    """Whether ``text`` runs, as a command or a program, a variable that an earlier line of the
    same script filled with a decoded payload (``cmd = b85decode(P).decode()`` ...
    ``os.system(cmd)``)."""
    lower = text.lower()
    if not any(word in lower for word in ("system(", "popen", "subprocess", "spawn", "exec")):
        return False
    names = "|".join(re.escape(name) for name in decoded)
    return re.search(rf"{_RUN_CALL}(?:{names})\b", text) is not None


@functools.lru_cache(maxsize=1)
def _scan_words() -> frozenset[str]:
    """Every fixed word a file is searched for (the variables' names are not fixed)."""
    return frozenset(TRIGGER_WORDS) | frozenset(_FLOW_WORDS) | frozenset(_DECODE_WORDS) | \
        frozenset(_EXEC_WORDS)


def scan(path: str, text: str, names: frozenset[str] = frozenset(),
         hits: LineHits | None = None) -> Iterator[Raw]:
    """Every code-rule hit in one decoding of one file; ``names`` are the skill's own names
    (key, manifest name), lower case without separators; ``hits`` the lines already searched
    in the bundle (:class:`LineHits` of the same names)."""
    if hits is None:
        hits = LineHits(names)
    doc = document(path, text)
    variables = assignments(text) if "=" in text else {}
    words = _Words(text)
    reported: set[int] = set()
    for line in _lines_to_check(doc, text, words, variables):
        for hit in _check_line(line, doc, variables, hits, words):
            reported.add(line.number)
            yield hit
    yield from _payloads(doc, text, words.index)
    yield from _flows(doc, variables, reported, words)


register_words(_scan_words())  # searched with the other auditors' words, once per text


def lines_of(hits: Sequence[Raw]) -> set[int]:
    return {hit[3].number for hit in hits}


__all__ = ["LineHits", "scan"]
