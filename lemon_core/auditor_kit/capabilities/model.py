"""The capability model: what a skill's code can do, as facts an auditor can reason about.

A :class:`Fact` is one capability seen at one place (``secret_read``, ``network_egress``,
``decode``, ``dynamic_exec``, ``persistence``, ``destruction``, ``unresolved``): the file and
line, the resolved value where folding found one (a path, a URL, a command), the evidence
text, and the data it carries (:class:`Source` records: which secret, decoded or fetched
value flows into it). A :class:`FileFacts` is everything one file contributed, with the
channels through which its data can reach another file of the skill (files it writes, what
it prints, what it reads from its input and arguments); the flow judge combines them.

Sources of kind ``stdin``, ``argv``, ``argfile``, ``file`` and ``stdout`` are *symbolic*: they
stand for data another part of the skill provides (a pipe, an argument, a file another script
wrote, what a script of the skill prints), and are resolved across files by the judge.
"""

from __future__ import annotations

import attrs

SECRET_READ = "secret_read"
NETWORK_EGRESS = "network_egress"
DECODE = "decode"
DYNAMIC_EXEC = "dynamic_exec"
PERSISTENCE = "persistence"
DESTRUCTION = "destruction"
UNRESOLVED = "unresolved"
KINDS = (SECRET_READ, NETWORK_EGRESS, DECODE, DYNAMIC_EXEC, PERSISTENCE, DESTRUCTION, UNRESOLVED)

#: Source kinds. ``secret`` (a credential store, a credential command, the whole
#: environment: ``grade`` high) and ``env`` (one environment variable named like a secret:
#: ``grade`` low unless the name is a well-known cloud or forge credential), ``config`` (a
#: ``.env`` or config file of the skill's own: low), ``decoded`` (a decoder's output, or a
#: string built from character codes), ``fetched`` (a network response), and the symbolic ones.
SECRET, ENV, CONFIG, DECODED, FETCHED = "secret", "env", "config", "decoded", "fetched"
#: ``clock``: the date or time (``date +%s``, ``datetime.now()``), compared with a fixed moment
#: in a condition (a time bomb).
CLOCK = "clock"
STDIN, ARGV, ARGFILE, FILE, STDOUT = "stdin", "argv", "argfile", "file", "stdout"
SYMBOLIC = frozenset({STDIN, ARGV, ARGFILE, FILE, STDOUT})
HIGH, LOW = "high", "low"
#: Scopes of a ``destruction`` fact: ``wide`` (the home folder, the root, a disk, every ref of a
#: remote, a server the environment names: blocked), ``scoped`` (what a cleanup skill may need:
#: warned, naming the target), ``quiet`` (an absolute path, encryption, a walk of the user's
#: files: nothing alone, judged when fetched data or the clock gates it, or in combination).
#: A fact without a scope is wide.
WIDE, SCOPED, QUIET = "wide", "scoped", "quiet"

#: Bounds: facts kept per file, characters of a resolved value or an evidence text.
MAX_FACTS = 200
MAX_VALUE = 300
MAX_EVIDENCE = 160


def clamp(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@attrs.frozen
class Source:
    """Where data comes from: ``kind`` (above), ``label`` (the path, variable, command or URL
    it was read from, or the encoding), ``grade`` (``high`` or ``low``), the file and line."""

    kind: str
    label: str
    path: str
    line: int
    grade: str = LOW

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@attrs.frozen
class Fact:
    """One capability at one place. ``value`` is what folding resolved (a path, URL,
    command, module), None when unknown; ``evidence`` the source text (clamped, not yet
    escaped: the host escapes what it shows); ``carries`` the sources of the data that flows
    into it; ``detail`` a short word that refines ``kind`` (``http``, ``socket``, ``dns``,
    ``exec``, ``shell``, ``import``, ``agent-config``…); ``hidden`` says the target itself was
    built from fragments, character codes or a decoder (code that disguises what it calls);
    ``callee`` the function called, as resolved (``os.system``), when there is one; ``scope``
    how widely a ``destruction`` fact destroys (:data:`WIDE`, :data:`SCOPED`, :data:`QUIET`),
    its ``carries`` then being what decides whether it runs (fetched data, the clock)."""

    kind: str
    path: str
    line: int
    value: str | None = None
    evidence: str = ""
    carries: frozenset[Source] = frozenset()
    detail: str = ""
    hidden: bool = False
    callee: str = ""
    scope: str = ""


@attrs.frozen
class Write:
    """``path`` (as written in the code, folded) receives data carrying ``carries``."""

    target: str
    carries: frozenset[Source]
    path: str
    line: int


def merge_fact(facts: dict[tuple[str, int, str, str | None], Fact], fact: Fact) -> None:
    """Add ``fact`` to a frontend's ``facts`` (one per kind, line, detail and value): one
    already there gains what this one carries and its ``hidden`` flag; at most
    :data:`MAX_FACTS` are kept."""
    key = (fact.kind, fact.line, fact.detail, fact.value)
    found = facts.get(key)
    if found is None:
        if len(facts) < MAX_FACTS:
            facts[key] = fact
    elif not fact.carries <= found.carries or (fact.hidden and not found.hidden):
        facts[key] = attrs.evolve(found, carries=found.carries | fact.carries,
                                  hidden=found.hidden or fact.hidden)


def merge_write(writes: dict[tuple[str, int], Write], write: Write) -> None:
    """Add ``write`` to a frontend's ``writes`` (one per target and line), joining what an
    earlier write of the same place carried."""
    key = (write.target, write.line)
    found = writes.get(key)
    writes[key] = write if found is None else attrs.evolve(
        write, carries=write.carries | found.carries)


@attrs.frozen
class FileFacts:
    """What one file contributed. ``parsed`` is False when the file could not be parsed
    (``error`` says why; the line rules still read it); ``stdout`` the sources of what it
    prints; ``writes`` the files it writes; ``invocations`` the commands of its pipelines
    that run other files of the skill (from markdown fences and shell lines); ``warned`` that
    the facts come from a markdown block in a passage that warns against it (a security
    tutorial, "never run this"): its findings warn at most."""

    path: str
    language: str
    facts: tuple[Fact, ...] = ()
    writes: tuple[Write, ...] = ()
    stdout: frozenset[Source] = frozenset()
    parsed: bool = True
    error: str | None = None
    error_line: int | None = None
    invocations: tuple[object, ...] = ()
    warned: bool = False


__all__ = [
    "ARGFILE", "ARGV", "CLOCK", "CONFIG", "DECODE", "DECODED", "DESTRUCTION", "DYNAMIC_EXEC", "ENV",
    "FETCHED", "FILE", "HIGH", "KINDS", "LOW", "MAX_EVIDENCE", "MAX_FACTS", "MAX_VALUE",
    "NETWORK_EGRESS", "PERSISTENCE", "QUIET", "SCOPED", "SECRET", "SECRET_READ", "STDIN", "STDOUT",
    "SYMBOLIC", "UNRESOLVED", "WIDE",
    "Fact", "FileFacts", "Source", "Write", "clamp",
]
