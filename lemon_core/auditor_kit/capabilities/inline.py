"""Interpreters a shell line runs with program text of its own, routed to their frontends.

``perl -e '…'``, ``ruby -rnet/http -e '…'``, ``php -r '…'``, or a here-document fed to one
(``perl <<'EOF'``): the shell frontend (:mod:`.shell`) asks :func:`run` whether the command is
one of the interpreters registered here; if so the program text is read by that language's
frontend and its facts join the line's. The registry is a table of interpreter name ->
:class:`Inline`, one :func:`register` call per language (each frontend's module is imported
on first use, so the table costs nothing until such a line is read). Other frontends add
their interpreters the same way, with their own ``register`` line at the end of this file.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities.model import Fact, Source, Write
from lemon_core.auditor_kit.capabilities.values import HOLE

#: Characters of inline program text read at most.
MAX_INLINE = 100_000


@attrs.frozen
class Inline:
    """An interpreter reached from the shell: ``module`` (dotted; imported on first use)
    holds ``function(code, path, line, stdin) -> InlineResult``; ``code_flags`` are the
    options whose next word is the program (``-e``; also glued, ``-e'…'``, and at the end of
    a cluster, ``-lne``, when ``clusters``), ``value_flags`` options that take the next word
    (``-r net/http``); ``stdin`` says a here-document or pipe is read as the program when no
    script file is named."""

    module: str
    function: str = "analyse_inline"
    code_flags: tuple[str, ...] = ("-e",)
    value_flags: tuple[str, ...] = ()
    clusters: bool = True
    stdin: bool = True
    #: The first word that is not an option is the program (``awk '{…}' file``), unless a
    #: program file is named (``-f``).
    program_word: bool = False


@attrs.frozen
class InlineResult:
    """What the program text does, as facts at the shell line, and what it prints."""

    facts: tuple[Fact, ...] = ()
    writes: tuple[Write, ...] = ()
    out: frozenset[Source] = frozenset()


INTERPRETERS: dict[str, Inline] = {}


def register(names: tuple[str, ...], inline: Inline) -> None:
    """Route the interpreters ``names`` (as :func:`~.vocab.tool_name` spells them) to
    ``inline``."""
    for name in names:
        INTERPRETERS[name] = inline


def trigger_pattern() -> str:
    """A pattern finding a registered interpreter's name as a word on a shell line."""
    names = sorted(INTERPRETERS, key=len, reverse=True)
    return r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b"


def mentioned(lower: str) -> bool:
    """Whether lower-case text names a registered interpreter followed by a space."""
    return any(name + " " in lower for name in INTERPRETERS)


def program(inline: Inline, words: list[str], stdin_code: str | None
            ) -> tuple[str, int] | None:
    """``(program text, index of its word or -1 for the input)`` of the command ``words``,
    or None when it runs a script file (or nothing this registry reads)."""
    letters = "".join(flag[1:] for flag in inline.code_flags)
    skip = False
    for index, word in enumerate(words[1:], start=1):
        if skip:
            skip = False
            continue
        if inline.program_word and not word.startswith("-"):
            return word, index
        if inline.program_word and word in ("-f", "--file") or word.startswith("--file="):
            return None  # the program is a file (its own frontend reads it)
        if word == "--" or not word.startswith("-") or word == "-":
            break  # a script file (its own frontend reads it), or the program on the input
        if word in inline.value_flags:
            skip = True
            continue
        cluster = inline.clusters and re.fullmatch(r"-[A-Za-z]+", word) is not None
        if word in inline.code_flags or (cluster and word[-1] in letters):
            if index + 1 < len(words):
                return words[index + 1], index + 1
            return None
        if word[:2] in inline.code_flags and len(word) > 2 and not cluster:
            return word[2:], index  # -e'print 1' as one word
    else:
        if inline.stdin and stdin_code is not None:
            return stdin_code, -1
        return None
    if inline.stdin and stdin_code is not None and word in ("-", "--"):
        return stdin_code, -1
    return None


def run(tool: str, words: list[str], stdin_code: str | None, path: str, line: int,
        holes: frozenset[Source]) -> InlineResult | None:
    """The facts of the program an interpreter command runs, or None when ``tool`` is not
    registered or names no program text (``holes``: the taint of its unknown parts)."""
    inline = INTERPRETERS.get(tool)
    if inline is None:
        return None
    found = program(inline, words, stdin_code)
    if found is None or not found[0].strip() or len(found[0]) > MAX_INLINE:
        return None
    code = found[0]
    if HOLE in code:
        code = code.replace(HOLE, " ")
    try:
        module = importlib.import_module(inline.module)
    except ImportError:  # a frontend not installed in this checkout: the line rules read it
        return None
    analyse: Callable[..., Any] = getattr(module, inline.function)
    result: InlineResult = analyse(code, path, line, holes)
    return result


register(("perl", "perl5"), Inline("lemon_core.auditor_kit.capabilities.perl",
                                   code_flags=("-e", "-E"), value_flags=("-I", "-x")))
register(("ruby", "jruby", "truffleruby"), Inline(
    "lemon_core.auditor_kit.capabilities.ruby", code_flags=("-e",),
    value_flags=("-r", "-I", "-C", "-E", "--encoding")))
register(("php", "php-cli"), Inline(
    "lemon_core.auditor_kit.capabilities.php", code_flags=("-r",),
    value_flags=("-c", "-d", "-z", "-t", "-B", "-E", "-R", "-F"), clusters=False))
# Other interpreters register below, one line each.
_PWSH_FLAGS = tuple(f for base in ("-c", "-command", "-e", "-ec", "-en", "-enc", "-enco",
                                   "-encodedcommand")
                    for f in {base, base.upper(), "-" + base[1:].capitalize(),
                              base.replace("command", "Command").replace("encoded", "Encoded")})
_PWSH_VALUES = tuple(f for base in ("-w", "-windowstyle", "-ep", "-ex", "-exec",
                                    "-executionpolicy", "-wd", "-workingdirectory",
                                    "-outputformat", "-of", "-inputformat", "-if", "-version",
                                    "-v", "-configurationname", "-settingsfile")
                     for f in {base, base.upper(), "-" + base[1:].capitalize()})
register(("pwsh", "powershell", "pwsh-preview"), Inline(
    "lemon_core.auditor_kit.capabilities.powershell", code_flags=_PWSH_FLAGS,
    value_flags=_PWSH_VALUES + ("-WindowStyle", "-ExecutionPolicy", "-WorkingDirectory"),
    clusters=False))
register(("awk", "gawk", "mawk", "nawk", "busybox-awk"), Inline(
    "lemon_core.auditor_kit.capabilities.awk", code_flags=(), clusters=False,
    value_flags=("-F", "-v", "--assign", "--field-separator"), program_word=True))
