"""PowerShell as capabilities: the tree-sitter grammar, constant folding, facts.

A ``.ps1``/``.psm1`` file (or an inline ``pwsh -Command``/``-EncodedCommand`` from a shell
line) is parsed with the ``tree-sitter-powershell`` grammar and walked in source order. Values
are folded where they are constant: string literals and ``"…$var…"`` expansion, ``+``, the
format operator ``-f``, ``-join``, ``-replace``, ``[char]``/``[char[]]`` codes, ``.Replace()``,
``[Convert]::FromBase64String`` and ``[Text.Encoding]::…GetString`` (base64 of UTF-16LE is
decoded and the result parsed again), ``$env:`` folders spelled as home paths. Each value
carries the sources of its data (a secret, a decoder, a download). The cmdlets and .NET calls
that matter are in :mod:`.powershell_calls`. Bounded: :data:`MAX_CHARS` of source,
:data:`MAX_NODES` nodes visited, :data:`MAX_DEPTH` nested decodes.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import powershell_calls as calls
from lemon_core.auditor_kit.capabilities import powershell_commands as commands
from lemon_core.auditor_kit.capabilities.model import (
    DECODED,
    MAX_EVIDENCE,
    MAX_VALUE,
    Fact,
    FileFacts,
    Source,
    Write,
    clamp,
    merge_fact,
    merge_write,
)
from lemon_core.auditor_kit.capabilities.powershell_values import (
    AUTOMATIC,
    ENV_PATHS,
    HOLE,
    MAX_CHARS,
    MAX_DEPTH,
    UNKNOWN,
    Val,
    _descendant,
    _first,
    _text,
    decode_encoded_command,
    union,
)

MAX_NODES = 200_000
MAX_ITEMS = 4_096

_LANGUAGE: list[Any] = []


def _language() -> Any:
    if not _LANGUAGE:
        try:
            import tree_sitter
            import tree_sitter_powershell

            _LANGUAGE.append(tree_sitter.Language(tree_sitter_powershell.language()))
        except Exception:  # noqa: BLE001 - no grammar: the line rules still read the file
            _LANGUAGE.append(None)
    return _LANGUAGE[0]


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "e": "\x1b",
            "`": "`", '"': '"', "$": "$", "'": "'"}
_BACKTICK = re.compile(r"`(.)", re.DOTALL)
_FORMAT = re.compile(r"\{(\d+)(?:,[-\d]+)?(?::[^}]*)?\}")


class Frontend:
    """One walk of one PowerShell text (see the module docstring)."""

    def __init__(self, path: str, text: str, *, line_offset: int = 0, depth: int = 0,
                 taint: frozenset[Source] = frozenset()) -> None:
        self.path = path
        self.source = text.encode("utf-8", "surrogatepass")
        self.line_offset = line_offset
        self.depth = depth
        #: taint of everything this text does (a decoded or fetched script's origin)
        self.taint = taint
        self.vars: dict[str, Val] = {}
        self.facts: dict[tuple[str, int, str, str | None], Fact] = {}
        self.writes: dict[tuple[str, int], Write] = {}
        self.memo: dict[int, Val] = {}
        self.visited = 0
        self.functions: set[str] = set()
        #: the host of a socket the script opened (data read from it is fetched)
        self.socket_host: str | None = None
        #: aliases the script defines (``Set-Alias x Invoke-Expression``)
        self.aliases: dict[str, str] = {}

    # -- facts -----------------------------------------------------------------------------

    def line(self, node: Any) -> int:
        return int(node.start_point[0]) + 1 + self.line_offset

    def evidence(self, node: Any) -> str:
        start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        end = self.source.find(b"\n", node.start_byte)
        text = self.source[start:end if end >= 0 else len(self.source)]
        return clamp(text.decode("utf-8", "replace").strip(), MAX_EVIDENCE)

    def fact(self, kind: str, node: Any, value: str | None, carries: frozenset[Source] = frozenset(),
             detail: str = "", hidden: bool = False, callee: str = "") -> None:
        merge_fact(self.facts, Fact(kind, self.path, self.line(node),
                                    None if value is None else clamp(value, MAX_VALUE),
                                    self.evidence(node), carries | self.taint, detail, hidden,
                                    callee))

    def add_fact(self, fact: Fact) -> None:
        merge_fact(self.facts, attrs.evolve(fact, carries=fact.carries | self.taint))

    def write(self, node: Any, target: str, carries: frozenset[Source]) -> None:
        if HOLE in target:
            return
        from lemon_core.auditor_kit.capabilities import vocab

        merge_write(self.writes, Write(vocab.normal_path(target), carries | self.taint,
                                       self.path, self.line(node)))

    # -- walking ---------------------------------------------------------------------------

    def run(self, root: Any) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            self.visited += 1
            if self.visited > MAX_NODES:
                return
            kind = node.type
            if kind == "pipeline" and node.parent is not None and node.parent.type in (
                    "statement_list", "script_block_body", "program"):
                self.statement(node, calls)
            elif kind == "script_parameter":
                self.parameter(node)
            elif kind == "function_statement":
                name = node.child_by_field_name("function_name") or _first(node, "function_name")
                if name is not None:
                    self.functions.add(_text(name).lower())
            stack.extend(reversed(node.named_children))

    def statement(self, node: Any, calls: Any) -> None:
        self.ev(node)

    def parameter(self, node: Any) -> None:
        """``param([string]$Sub = '')``: the default is what runs when no value is given."""
        variable = _first(node, "variable")
        default = _first(node, "script_parameter_default")
        if variable is None:
            return
        name = _text(variable).lstrip("$").strip("{}").lower()
        value = self.ev(default.named_children[-1]) if default is not None and (
            default.named_children) else Val(HOLE)
        self.vars[name] = value

    def ev(self, node: Any | None) -> Val:
        """The folded value of an expression node (memoised: facts are recorded once)."""
        if node is None:
            return UNKNOWN
        found = self.memo.get(node.id)
        if found is not None:
            return found
        self.memo[node.id] = UNKNOWN  # a cycle through a malformed tree ends here
        value = self._ev(node)
        self.memo[node.id] = value
        return value

    def _ev(self, node: Any) -> Val:
        kind = node.type
        named = node.named_children
        if kind in _PASS and len(named) == 1:
            return self.ev(named[0])
        if kind == "string_literal":
            return self.string(named[0]) if named else Val(_text(node))
        if kind in ("integer_literal", "decimal_integer_literal", "hexadecimal_integer_literal",
                    "real_literal"):
            return Val(_int_text(_text(node)))
        if kind == "generic_token":
            return Val(_text(node))
        if kind == "variable":
            return self.variable(_text(node), self.line(node))
        if kind == "array_literal_expression" or kind == "argument_expression_list":
            items = tuple(self.ev(c) for c in named[:MAX_ITEMS])
            return Val(None, union(*items), items, built=any(i.built for i in items))
        if kind in ("parenthesized_expression", "sub_expression", "array_expression"):
            inner = [c for c in named if c.type in ("pipeline", "statement_list")]
            return self.ev(inner[-1]) if inner else UNKNOWN
        if kind == "statement_list":
            values = [self.ev(c) for c in named]
            return values[-1] if values else UNKNOWN
        if kind == "pipeline" or kind == "pipeline_chain":
            return self.pipeline(node)
        if kind == "assignment_expression":
            return self.assign(node)
        if kind == "additive_expression" and len(named) == 2:
            left, right = self.ev(named[0]), self.ev(named[1])
            if "-" in _between(node, named[0], named[1]):
                return Val(None, union(left, right))
            if left.items is not None or right.items is not None:
                items = (left.items or (left,)) + (right.items or (right,))
                return Val(None, union(left, right), items[:MAX_ITEMS], built=True)
            return Val(left.s() + right.s(), union(left, right), built=True)
        if kind == "format_expression" and len(named) >= 3:
            return self.format(self.ev(named[0]), self.ev(named[-1]))
        if kind == "comparison_expression" and len(named) == 3:
            return self.operator(_text(named[1]).lower(), self.ev(named[0]), self.ev(named[2]))
        if kind == "expression_with_unary_operator":
            return self.unary(node)
        if kind == "element_access" and len(named) >= 2:
            return self.index(self.ev(named[0]), self.ev(named[1]))
        if kind == "range_expression" and len(named) == 2:
            low, high = _code(self.ev(named[0]).text), _code(self.ev(named[1]).text)
            if low is None or high is None or abs(high - low) >= MAX_ITEMS:
                return UNKNOWN
            step = 1 if high >= low else -1
            return Val(None, items=tuple(Val(str(i)) for i in range(low, high + step, step)))
        if kind == "cast_expression":
            return self.cast(node)
        if kind == "command":
            return self.command(node, frozenset(), UNKNOWN)
        if kind in ("invokation_expression", "member_access"):
            return calls.member(self, node)
        if kind == "script_block_expression" or kind == "script_block":
            return Val(_text(node).strip("{}"), obj="scriptblock")
        if kind == "type_literal":
            return Val(_text(node).strip("[]"), obj="type")
        if kind == "hash_literal_expression":
            items = tuple(self.ev(c) for c in named[:MAX_ITEMS])
            return Val(None, union(*items))
        # anything else: visit its parts for their facts, keep their taint
        parts = [self.ev(c) for c in named[:64]]
        return Val(None, union(*parts))

    def command(self, node: Any, carry: frozenset[Source], previous: Val) -> Val:
        """A command of a pipeline: its name folded, its arguments read, then what it means
        (:mod:`.powershell_commands`)."""
        name_node = node.child_by_field_name("command_name")
        if name_node is None:
            return UNKNOWN
        name_val = self.ev(name_node) if name_node.type == "command_name_expr" else Val(
            _text(name_node))
        args = calls.elements(self, node.child_by_field_name("command_elements"))
        return commands.run(self, node, name_val.s(), name_val, args, carry, previous)

    def nested(self, text: str, taint: frozenset[Source]) -> Frontend | None:
        """``text`` (code this script runs: a constant ``Invoke-Expression``, a scheduled
        command line) walked one level deeper, or None past :data:`MAX_DEPTH`."""
        if self.depth >= MAX_DEPTH:
            return None
        return walk(self.path, text, depth=self.depth + 1, taint=taint)

    # -- values ----------------------------------------------------------------------------

    def string(self, node: Any) -> Val:
        kind = node.type
        raw = _text(node)
        if kind == "verbatim_string_characters":
            return Val(raw[1:-1].replace("''", "'") if len(raw) >= 2 else raw)
        if kind == "verbatim_here_string_characters":
            return Val(_here(raw))
        body = _here(raw) if "here_string" in kind else raw[1:-1]
        start = node.start_byte + (raw.index("\n") + 1 if "here_string" in kind else 1)
        out: list[str] = []
        taint: frozenset[Source] = frozenset()
        position = start
        for child in node.named_children:
            if child.type not in ("variable", "sub_expression"):
                continue
            out.append(_unescape(self.source[position:child.start_byte].decode("utf-8",
                                                                                  "replace")))
            value = self.ev(child)
            out.append(value.s())
            taint |= union(value)
            position = child.end_byte
        end = node.end_byte - (2 if "here_string" in kind else 1)
        if position <= start and not out:
            return Val(_unescape(body))
        out.append(_unescape(self.source[position:max(position, end)].decode("utf-8", "replace")))
        return Val("".join(out), taint)

    def variable(self, text: str, line: int = 0) -> Val:
        from lemon_core.auditor_kit.capabilities import vocab
        from lemon_core.auditor_kit.capabilities.model import ENV

        name = text.lstrip("$@").strip("{}").lower()
        if name.startswith("env:"):
            env = name[4:]
            if env in ENV_PATHS:
                return Val(ENV_PATHS[env])
            original = text.lstrip("$@").strip("{}")[4:]
            grade = vocab.secret_env(original.upper())
            if grade is not None:
                return Val(HOLE, frozenset({Source(ENV, original.upper(), self.path, line, grade)}))
            return Val(HOLE)
        if name in self.vars:
            return self.vars[name]
        if name in AUTOMATIC:
            return Val(AUTOMATIC[name])
        return Val(HOLE)

    def assign(self, node: Any) -> Val:
        left = node.named_children[0] if node.named_children else None
        right = node.child_by_field_name("value") or (node.named_children[-1]
                                                      if node.named_children else None)
        value = self.ev(right)
        operator = _first(node, "assignement_operator")
        target = _descendant(left, "variable") if left is not None else None
        if target is not None:
            name = _text(target).lstrip("$").strip("{}").lower()
            if operator is not None and _text(operator) == "+=" and name in self.vars:
                old = self.vars[name]
                value = (Val(None, union(old, value), ((old.items or ()) + (value.items or (value,)))[:MAX_ITEMS])
                         if old.items is not None else Val(old.s() + value.s(), union(old, value), built=True))
            self.vars[name] = value
        return value

    def pipeline(self, node: Any) -> Val:
        stages = [c for c in node.named_children if c.type not in ("comment",)]
        if node.type == "pipeline" and len(stages) == 1:
            return self.ev(stages[0])
        carry: frozenset[Source] = frozenset()
        previous = UNKNOWN
        last = UNKNOWN
        for stage in stages:
            if stage.type == "command":
                last = self.command(stage, carry, previous)
            else:
                last = self.ev(stage)
            carry = union(last)
            previous = last
        return last

    def format(self, template: Val, args: Val) -> Val:
        items = args.items if args.items is not None else (args,)
        if template.text is None:
            return Val(None, union(template, *items))

        def one(match: re.Match[str]) -> str:
            index = int(match.group(1))
            return items[index].s() if index < len(items) else HOLE

        text = _FORMAT.sub(one, template.text.replace("{{", "\ue001").replace("}}", "\ue002"))
        return Val(text.replace("\ue001", "{").replace("\ue002", "}"), union(template, *items),
                   built=True)

    def operator(self, op: str, left: Val, right: Val) -> Val:
        taint = union(left, right)
        if op == "-join":
            items = left.items if left.items is not None else (left,)
            joined = right.s() if right.text is not None else ""
            return Val(joined.join(i.s() for i in items), taint, built=True)
        if op in ("-replace", "-creplace", "-ireplace"):
            pair = right.items if right.items is not None else (right, Val(""))
            if left.text is not None and len(pair) >= 1 and pair[0].text is not None and (
                    HOLE not in pair[0].text):
                new = pair[1].s() if len(pair) > 1 else ""
                try:
                    text = re.sub(pair[0].text, new.replace("\\", "\\\\"), left.text,
                                  flags=0 if op == "-creplace" else re.IGNORECASE)
                except (re.error, IndexError):
                    return Val(None, taint)
                return Val(text, taint, built=True)
        if op in ("-split", "-isplit", "-csplit"):
            return Val(None, taint)
        return Val(None, taint)

    def index(self, value: Val, index: Val) -> Val:
        """``$s[4]``, ``$s[4,15,25]``, ``$s[-1..-3]``: characters of a known string (or items
        of a known array)."""
        positions = [_code(i.text) for i in (index.items or (index,))]
        if value.text is None and value.items is None or None in positions:
            return Val(None, union(value, index))
        pool: tuple[Val, ...] = value.items if value.items is not None else tuple(
            Val(c) for c in (value.text or ""))
        picked = tuple(pool[p] if -len(pool) <= p < len(pool) else Val("")
                       for p in positions if p is not None)
        if len(picked) == 1 and index.items is None:
            return Val(picked[0].text, union(value), built=True)
        return Val(None, union(value), picked, built=True)

    def unary(self, node: Any) -> Val:
        named = node.named_children
        text = _text(node).lstrip()
        if text.startswith("-") and text[1:].strip().isdigit():
            return Val("-" + text[1:].strip())
        if text[:5].lower() == "-join" and named:
            inner = self.ev(named[-1])
            items = inner.items if inner.items is not None else (inner,)
            return Val("".join(i.s() for i in items), union(inner), built=True)
        if named and named[0].type == "cast_expression":
            return self.ev(named[0])
        values = [self.ev(c) for c in named]
        if len(values) == 1 and text.startswith(","):
            return Val(None, values[0].taint, (values[0],))
        return values[-1] if values else UNKNOWN

    def cast(self, node: Any) -> Val:
        named = node.named_children
        if len(named) < 2:
            return UNKNOWN
        kind = _text(named[0]).replace(" ", "").lower()
        kind = kind[1:-1] if kind.startswith("[") and kind.endswith("]") else kind
        value = self.ev(named[-1])
        if kind in ("char", "char[]", "system.char", "system.char[]", "byte[]", "string"):
            items = value.items if value.items is not None else (value,)
            if kind == "string":
                return value
            codes = [_code(i.text) for i in items]
            if kind.startswith("byte") and all(c is not None for c in codes):
                data = bytes(c & 0xFF for c in codes if c is not None)
                return Val(None, value.taint, data=data, built=True)
            chars = tuple(Val(chr(c)) if c is not None and 0 <= c < 0x110000 else Val(HOLE)
                          for c in codes)
            taint = value.taint | frozenset({Source(DECODED, "character codes", self.path,
                                                    self.line(node))})
            if kind in ("char", "system.char"):
                return Val(chars[0].s() if chars else HOLE, taint, built=True)
            return Val(None, taint, tuple(Val(c.text, taint) for c in chars), built=True)
        return value


_PASS = frozenset({"logical_expression", "bitwise_expression", "comparison_expression",
                   "additive_expression", "multiplicative_expression", "format_expression",
                   "range_expression", "array_literal_expression", "unary_expression",
                   "pipeline_chain", "logical_argument_expression", "bitwise_argument_expression",
                   "comparison_argument_expression", "additive_argument_expression",
                   "multiplicative_argument_expression", "format_argument_expression",
                   "range_argument_expression", "argument_expression", "expression",
                   "left_assignment_expression", "argument_expression_list",
                   "command_name_expr", "path_command_name"})


def _between(node: Any, left: Any, right: Any) -> str:
    return node.text[left.end_byte - node.start_byte:right.start_byte - node.start_byte].decode(
        "utf-8", "replace")


def _here(raw: str) -> str:
    body = raw.split("\n", 1)[1] if "\n" in raw else ""
    return body.rsplit("\n", 1)[0] if "\n" in body else ""


def _unescape(text: str) -> str:
    return _BACKTICK.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _int_text(text: str) -> str:
    try:
        return str(int(text, 16) if text.lower().startswith("0x") else int(text))
    except ValueError:
        return text


def _code(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        return ord(text) if len(text) == 1 else None


def parse(text: str) -> tuple[Any, str | None]:
    if len(text) > MAX_CHARS:
        return None, f"larger than {MAX_CHARS} characters"
    language = _language()
    if language is None:
        return None, "the PowerShell grammar (tree-sitter-powershell) could not be loaded"
    try:
        import tree_sitter

        tree = tree_sitter.Parser(language).parse(text.encode("utf-8", "surrogatepass"))
    except Exception as exc:  # noqa: BLE001 - a parser failure is an unparsed file
        return None, f"tree-sitter failed: {type(exc).__name__}"
    return tree.root_node, None


def walk(path: str, text: str, *, line_offset: int = 0, depth: int = 0,
         taint: frozenset[Source] = frozenset()) -> Frontend | None:
    """The frontend after walking ``text`` (None when it does not parse)."""
    root, _ = parse(text)
    if root is None:
        return None
    frontend = Frontend(path, text, line_offset=line_offset, depth=depth, taint=taint)
    frontend.run(root)
    return frontend


def analyse(path: str, text: str, *, line_offset: int = 0) -> FileFacts:
    """The facts of a PowerShell file (or of a fenced block whose first line is
    ``line_offset + 1``)."""
    root, error = parse(text)
    if root is None:
        return FileFacts(path=path, language="powershell", parsed=False, error=error)
    frontend = Frontend(path, text, line_offset=line_offset)
    frontend.run(root)
    return FileFacts(path=path, language="powershell", facts=tuple(frontend.facts.values()),
                     writes=tuple(frontend.writes.values()))


__all__ = ["ENV_PATHS", "MAX_CHARS", "MAX_DEPTH", "Frontend", "Val", "analyse", "analyse_inline",
           "decode_encoded_command", "parse", "walk"]


_BASE64 = re.compile(r"^[A-Za-z0-9+/]{8,}={0,2}$")


def analyse_inline(code: str, path: str, line: int, holes: frozenset[Source]) -> Any:
    """``pwsh -Command '…'`` / ``-EncodedCommand …`` from a shell line (:mod:`.inline`): the
    program's facts at that line. A single base64 word is the encoded form (UTF-16LE): it is
    decoded, and what it does carries the decoder as its source."""
    from lemon_core.auditor_kit.capabilities.inline import InlineResult

    taint = holes
    text = code.strip()
    if _BASE64.match(text):
        decoded = decode_encoded_command(text)
        if decoded is None:
            return InlineResult()
        text = decoded
        taint = taint | {Source(DECODED, "PowerShell -EncodedCommand", path, line)}
    frontend = walk(path, text, depth=1, taint=taint)
    if frontend is None:
        return InlineResult()
    facts = tuple(attrs.evolve(f, line=line) for f in frontend.facts.values())
    writes = tuple(attrs.evolve(w, line=line) for w in frontend.writes.values())
    return InlineResult(facts, writes, frozenset())
