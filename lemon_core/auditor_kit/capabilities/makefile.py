"""Makefiles as capabilities: variables expanded into recipes, recipes read as shell.

GNU make's line structure is read by hand (assignments ``=``, ``:=``, ``::=``, ``?=``,
``+=``, ``!=``, ``define … endef``, ``export``/``override``, rules and their tab-indented
recipes, ``target: ; recipe``, backslash continuations); conditionals are read through (both
branches assign, as either may run). A recipe line is expanded (``$(VAR)``, ``${VAR}``,
``$(VAR:a=b)``, ``$(shell …)``, ``$(subst …)``, ``$(patsubst …)``, ``$(strip)``,
``$(firstword)``, ``$(word)``, ``$(addprefix)``, ``$(if)``, ``$(call)``…) and handed to the
shell frontend (:mod:`.shell`) line by line, so ``$(DL) $(URL) | $(RUN)`` is judged as the
``curl … | sh`` it runs. ``$(shell printf 'cu'; printf 'rl')`` and ``$(shell echo … | base64
-d)`` are folded; a network client or interpreter whose name only appears after such folding
is reported as hidden. Bounded: :data:`MAX_LINES`, :data:`MAX_EXPANSION` characters and
:data:`MAX_DEPTH` nested expansions.
"""

from __future__ import annotations

import re

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DYNAMIC_EXEC,
    NETWORK_EGRESS,
    Fact,
    FileFacts,
    Source,
    Write,
)
from lemon_core.auditor_kit.capabilities.values import HOLE

MAX_LINES = 5_000
MAX_EXPANSION = 20_000
MAX_DEPTH = 12

_ASSIGN = re.compile(r"^(?:(?:export|override|private)\s+)*([A-Za-z_.][\w.+-]*)\s*"
                     r"(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$", re.DOTALL)
_RULE = re.compile(r"^([^\t=#:][^=#]*?)::?(?!=)(.*)$")
_DIRECTIVES = ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include",
               "sinclude", "vpath", "unexport", ".PHONY", "$(info", "$(warning", "$(error")
_AUTOMATIC = {"SHELL": "/bin/sh", "MAKE": "make", "RM": "rm -f", "CC": "cc", "CURDIR": HOLE,
              "MAKEFILE_LIST": "Makefile", ".SHELLFLAGS": "-c"}
_ECHO = re.compile(r"^\s*(printf|echo)\s+(.*)$", re.DOTALL)


@attrs.frozen
class Expanded:
    text: str
    built: bool  # a function folded part of it ($(shell …), $(subst …))


class Make:
    def __init__(self, path: str) -> None:
        self.path = path
        self.vars: dict[str, str] = {}
        self.simple: set[str] = set()
        self.budget = MAX_EXPANSION * 20
        self.built_vars: set[str] = set()
        self.facts: list[Fact] = []
        self.writes: list[Write] = []
        self.shell_vars: dict[str, frozenset[Source]] = {}

    # -- expansion -------------------------------------------------------------------------

    def expand(self, text: str, depth: int = 0, args: tuple[str, ...] = ()) -> Expanded:
        if "$" not in text:
            return Expanded(text, False)
        if depth > MAX_DEPTH or self.budget <= 0:
            return Expanded(HOLE, False)  # a self-reference or a chain too deep
        out: list[str] = []
        built = False
        i = 0
        while i < len(text):
            self.budget -= 1
            if self.budget <= 0 or sum(map(len, out)) > MAX_EXPANSION:
                out.append(HOLE)
                break
            char = text[i]
            if char != "$" or i + 1 >= len(text):
                out.append(char)
                i += 1
                continue
            following = text[i + 1]
            if following == "$":
                out.append("$")
                i += 2
                continue
            if following in "({":
                close = ")" if following == "(" else "}"
                end = _matching(text, i + 1, following, close)
                if end < 0:
                    out.append(text[i:])
                    break
                inner = text[i + 2:end]
                value = self.reference(inner, depth, args)
                out.append(value.text)
                built = built or value.built
                i = end + 1
                continue
            out.append(self.variable(following, depth, args).text)
            i += 2
        return Expanded("".join(out), built)

    def variable(self, name: str, depth: int, args: tuple[str, ...] = ()) -> Expanded:
        if name.isdigit():
            index = int(name)
            return Expanded(args[index] if index < len(args) else "", False)
        if name in ("@", "<", "^", "*", "?", "+", "|"):
            return Expanded(HOLE, False)
        if name in self.vars:
            raw = self.vars[name]
            if name in self.simple:
                return Expanded(raw, name in self.built_vars)
            found = self.expand(raw, depth + 1, args)
            return Expanded(found.text, found.built or name in self.built_vars)
        if name in _AUTOMATIC:
            return Expanded(_AUTOMATIC[name], False)
        return Expanded("", False)

    def reference(self, inner: str, depth: int, args: tuple[str, ...]) -> Expanded:
        head, _, rest = inner.partition(" ")
        if not _ or head not in _FUNCTIONS:
            head, _, rest = inner.partition("\t")
        if head in _FUNCTIONS and _:
            return self.function(head, rest, depth, args)
        name = self.expand(inner, depth + 1, args).text.strip()
        if ":" in name and "=" in name:  # $(VAR:.c=.o)
            var, _, pattern = name.partition(":")
            old, _, new = pattern.partition("=")
            words = self.variable(var, depth + 1, args)
            replaced = [w[:-len(old)] + new if old and w.endswith(old) else w
                        for w in words.text.split()]
            return Expanded(" ".join(replaced), words.built)
        return self.variable(name, depth + 1, args)

    def function(self, name: str, rest: str, depth: int, args: tuple[str, ...]) -> Expanded:
        parts = _split_args(rest)
        values = [self.expand(p, depth + 1, args) for p in parts]
        texts = [v.text for v in values]
        built = any(v.built for v in values)
        if name == "shell":
            folded = fold_shell(texts[0] if texts else "")
            if folded is None:
                self.run_shell(texts[0] if texts else "", 0)
                return Expanded(HOLE, built)
            return Expanded(folded, True)
        if name == "subst" and len(texts) >= 3:
            return Expanded(texts[2].replace(texts[0], texts[1]) if texts[0] else texts[2], True)
        if name == "patsubst" and len(texts) >= 3:
            return Expanded(" ".join(_patsubst(texts[0], texts[1], w) for w in texts[2].split()),
                            True)
        if name == "strip":
            return Expanded(" ".join(texts[0].split()) if texts else "", built)
        words = texts[-1].split() if texts else []
        if name == "firstword":
            return Expanded(words[0] if words else "", built)
        if name == "lastword":
            return Expanded(words[-1] if words else "", built)
        if name == "word" and len(texts) >= 2 and texts[0].strip().isdigit():
            index = int(texts[0].strip()) - 1
            items = texts[1].split()
            return Expanded(items[index] if 0 <= index < len(items) else "", built)
        if name in ("addprefix", "addsuffix") and len(texts) >= 2:
            return Expanded(" ".join((texts[0] + w) if name == "addprefix" else (w + texts[0])
                                     for w in texts[1].split()), built)
        if name == "if":
            chosen = texts[1] if len(texts) > 1 and texts[0].strip() else (
                texts[2] if len(texts) > 2 else "")
            return Expanded(chosen, built)
        if name == "call" and texts:
            body = self.vars.get(texts[0].strip(), "")
            found = self.expand(body, depth + 1, tuple(texts))
            return Expanded(found.text, found.built or built)
        if name == "value" and texts:
            return Expanded(self.vars.get(texts[0].strip(), ""), built)
        if name in ("notdir", "dir", "basename", "suffix"):
            return Expanded(" ".join(_path_part(name, w) for w in words), built)
        if name in ("info", "warning", "error", "eval"):
            return Expanded("", built)
        return Expanded(HOLE, built)

    # -- reading ---------------------------------------------------------------------------

    def assign(self, name: str, operator: str, value: str, number: int) -> None:
        value = value.strip()
        if operator == "?=" and name in self.vars:
            return
        if operator == "+=" and name in self.vars:
            if name in self.simple:
                found = self.expand(value)
                value = self.vars[name] + " " + found.text
                if found.built:
                    self.built_vars.add(name)
            else:
                value = self.vars[name] + " " + value
            self.vars[name] = value
            return
        if operator in (":=", "::=", ":::="):
            found = self.expand(value)
            self.vars[name] = found.text
            self.simple.add(name)
            if found.built:
                self.built_vars.add(name)
            else:
                self.built_vars.discard(name)
            return
        if operator == "!=":
            command = self.expand(value).text
            folded = fold_shell(command)
            if folded is None:
                self.run_shell(command, number)
            self.vars[name] = HOLE if folded is None else folded
            self.simple.add(name)
            if folded is not None:
                self.built_vars.add(name)
            return
        self.vars[name] = value
        self.simple.discard(name)
        self.built_vars.discard(name)

    def run_shell(self, text: str, number: int, raw: str = "", built: bool = False) -> None:
        if not text.strip() or HOLE == text.strip():
            return
        result = shell.analyse(text.replace(HOLE, "x"), self.path, number or 1,
                               variables=self.shell_vars)
        for fact in result.facts:
            if built and fact.kind == NETWORK_EGRESS:
                tool = _tool_of(fact)
                if tool and tool.lower() not in raw.lower():
                    fact = attrs.evolve(fact, hidden=True, callee=tool)
            if fact.kind == DYNAMIC_EXEC and fact.detail == "interpreter" and raw and (
                    text.strip() != raw.strip()):
                # the pipe into an interpreter only appears once make has expanded the line
                fact = attrs.evolve(fact, detail="expanded")
            self.facts.append(fact)
        self.writes.extend(result.writes)


_FUNCTIONS = frozenset({"shell", "subst", "patsubst", "strip", "findstring", "filter",
                        "filter-out", "sort", "word", "wordlist", "words", "firstword",
                        "lastword", "dir", "notdir", "suffix", "basename", "addsuffix",
                        "addprefix", "join", "wildcard", "realpath", "abspath", "if", "or",
                        "and", "foreach", "file", "call", "value", "eval", "origin", "flavor",
                        "error", "warning", "info", "let", "intcmp"})


def _tool_of(fact: Fact) -> str:
    words = shell.tokens(fact.evidence) or []
    for word in words:
        if vocab.tool_name(word) in vocab.NETWORK_TOOLS:
            return vocab.tool_name(word)
    return ""


def _matching(text: str, start: int, opening: str, closing: str) -> int:
    level = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            level += 1
        elif text[index] == closing:
            level -= 1
            if level == 0:
                return index
    return -1


def _split_args(text: str) -> list[str]:
    out: list[str] = []
    level = 0
    current: list[str] = []
    for char in text:
        if char in "({":
            level += 1
        elif char in ")}":
            level -= 1
        if char == "," and level == 0:
            out.append("".join(current))
            current = []
            continue
        current.append(char)
    out.append("".join(current))
    return out


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    if "%" not in pattern:
        return replacement if word == pattern else word
    head, _, tail = pattern.partition("%")
    if word.startswith(head) and word.endswith(tail) and len(word) >= len(head) + len(tail):
        stem = word[len(head):len(word) - len(tail) if tail else len(word)]
        return replacement.replace("%", stem, 1)
    return word


def _path_part(name: str, word: str) -> str:
    directory, _, base = word.rpartition("/")
    if name == "notdir":
        return base
    if name == "dir":
        return (directory + "/") if directory else "./"
    stem, dot, suffix = word.rpartition(".")
    if name == "basename":
        return stem if dot and "/" not in suffix else word
    return ("." + suffix) if dot and "/" not in suffix else ""


_PRINTF_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|[nt\\])")


def _printf(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8))
        return {"n": "\n", "t": "\t", "\\": "\\"}[code]

    return _PRINTF_ESCAPE.sub(one, text)


def fold_shell(command: str) -> str | None:
    """What ``$(shell command)`` prints when it is only ``printf``/``echo`` of constants,
    optionally piped through ``base64 -d``, ``rev`` or ``tr a-zA-Z n-za-mN-ZA-M`` (None when
    it cannot be known without running it)."""
    if HOLE in command or len(command) > 4_000:
        return None
    out: list[str] = []
    for part in re.split(r";|&&", command):
        stages = [s.strip() for s in part.split("|")]
        if not stages or not stages[0]:
            continue
        match = _ECHO.match(stages[0])
        if match is None:
            return None
        words = shell.tokens(match.group(2))
        if words is None or any(w in ("|", ">", "<", "(", ")") for w in words):
            return None
        if match.group(1) == "printf":
            text = _printf(words[0]) if words else ""
        else:
            flags = [w for w in words if w in ("-n", "-e", "-ne", "-en")]
            text = " ".join(w for w in words if w not in flags)
            text = _printf(text) if any("e" in f for f in flags) else text
            text += "" if any("n" in f for f in flags) else "\n"
        for stage in stages[1:]:
            folded = _filter(stage, text)
            if folded is None:
                return None
            text = folded
        out.append(text)
    if not out:
        return None
    return " ".join("".join(out).split("\n")).strip()


def _filter(stage: str, text: str) -> str | None:
    from lemon_core.auditor_kit.capabilities.values import decode, readable

    words = stage.split()
    if not words:
        return None
    tool = vocab.tool_name(words[0])
    if tool in ("base64", "base32") and any(w in ("-d", "--decode", "-D") for w in words):
        found = decode(tool, text.strip())
        return readable(found) if found is not None else None
    if tool == "rev":
        return "\n".join(line[::-1] for line in text.split("\n"))
    if tool == "tr" and any("n-za-m" in w.lower() for w in words):
        rotated = decode("rot13", text)
        return readable(rotated) if rotated is not None else None
    if tool == "xxd" and any(w.startswith("-r") for w in words):
        found = decode("hex", text.strip())
        return readable(found) if found is not None else None
    return None


def _logical(lines: list[str]) -> list[tuple[int, str, bool]]:
    """``(first line number, text, is recipe)`` with continuations joined."""
    out: list[tuple[int, str, bool]] = []
    i = 0
    in_rule = False
    while i < len(lines):
        number = i + 1
        line = lines[i]
        recipe = line.startswith("\t") and in_rule
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            following = lines[i]
            if recipe:
                line = line[:-1] + " " + following.lstrip("\t")
            else:
                line = line[:-1].rstrip() + " " + following.strip()
        i += 1
        stripped = line.strip()
        if not recipe:
            if not stripped or stripped.startswith("#"):
                continue
            in_rule = bool(_RULE.match(stripped)) and not _ASSIGN.match(stripped)
        out.append((number, line, recipe))
    return out


def analyse(path: str, text: str) -> FileFacts:
    """The facts of a Makefile."""
    make = Make(path)
    lines = text.split("\n")[:MAX_LINES]
    logical = _logical(lines)
    recipes: list[tuple[int, str]] = []
    index = 0
    while index < len(logical):
        number, line, recipe = logical[index]
        index += 1
        stripped = line.strip()
        if recipe:
            recipes.append((number, stripped))
            continue
        if stripped.startswith("define "):
            header = stripped[7:].strip()
            name = re.split(r"\s+|=|:=", header, maxsplit=1)[0]
            body: list[str] = []
            while index < len(logical) and logical[index][1].strip() != "endef":
                body.append(logical[index][1])
                index += 1
            index += 1
            make.assign(name, ":=" if ":=" in header else "=", "\n".join(body), number)
            continue
        if stripped.startswith(_DIRECTIVES):
            if stripped.startswith(("$(info", "$(warning", "$(error")):
                make.expand(stripped)
            continue
        assignment = _ASSIGN.match(stripped)
        rule = _RULE.match(stripped)
        if assignment and (rule is None or assignment.start(2) < stripped.find(":")
                           or assignment.group(2) in (":=", "::=", ":::=")):
            make.assign(assignment.group(1), assignment.group(2), assignment.group(3), number)
            continue
        if rule is not None and ";" in rule.group(2):
            recipes.append((number, rule.group(2).split(";", 1)[1].strip()))
        if "$(shell" in stripped or "${shell" in stripped:
            make.expand(stripped)
    for number, raw in recipes:
        command = raw.lstrip("@-+ \t")
        if not command or command.startswith("#"):
            continue
        found = make.expand(command)
        make.run_shell(found.text, number, raw=command, built=found.built)
    return FileFacts(path=path, language="make", facts=tuple(make.facts),
                     writes=tuple(make.writes))


#: Words without which a Makefile is not read (nothing it runs could matter).
TRIGGERS = ("curl", "wget", "shell", "base64", "| sh", "|sh", "bash", "nc ", "eval", "ssh",
            "scp", "rsync", "rm -", "crontab", "bashrc", "profile", "credential", ".aws",
            "printf", "subst", "python", "perl", "ruby", "node", "pwsh", "powershell", "awk",
            "$(RUN", "xxd", "openssl", "systemctl", "hooks", "claude", "token", "secret")


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word.lower() in lower for word in TRIGGERS)


__all__ = ["MAX_DEPTH", "MAX_EXPANSION", "MAX_LINES", "Make", "analyse", "fold_shell",
           "triggered"]
