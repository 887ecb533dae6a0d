"""The flow judge's reading of destruction: what a skill destroys, how widely, and what decides
it (mixed into :class:`~.judge.Judge`).

A wide destruction blocks (``destruction``); any destruction that fetched data or the clock
compared with a fixed moment decides blocks (``destruction-gated``: a remote switch, a time
bomb); a forced push from a file that makes an empty orphan branch is wide; encrypting files
where a file walks the user's folders, while the skill sends data out, blocks
(``ransomware``); a scoped one warns, naming the target (``destruction-scoped``).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
from lemon_plugins.auditors.capabilities.rules import RULES
from lemon_plugins.auditors.capabilities.words import (
    Raw,
    destination,
    host_of,
    shown,
    words,
)

from lemon_core.auditor_kit.capabilities.model import (
    CLOCK,
    FETCHED,
    QUIET,
    SCOPED,
    WIDE,
    Fact,
    FileFacts,
    Source,
)
from lemon_core.auditor_kit.hosts import host_class

_VERBS = {"rm": "deletes", "find": "deletes", "rmtree": "deletes", "unlink": "deletes",
          "rmdir": "deletes", "remove": "deletes", "rmSync": "deletes", "rm-js": "deletes",
          "dd": "overwrites", "mkfs": "formats", "shred": "overwrites", "wipefs": "wipes",
          "overwrite": "overwrites"}


class DestructionJudge:
    """The destruction rules of the judge (mixed into it)."""

    files: tuple[FileFacts, ...]
    orphans: set[str]

    def _raw(self, rule: str, message: str, fact: Fact) -> Raw:
        return Raw(rule, RULES[rule][0], message, fact.path, fact.line, fact.evidence)

    def _destruction(self, fact: Fact, resolved: dict[Source, str | None]) -> Iterator[Raw]:
        if fact.detail in ("encrypt", "walk", "orphan"):
            return  # judged together (:meth:`_ransom`, :attr:`orphans`)
        if fact.detail == "git-push" and fact.scope != WIDE and fact.path in self.orphans:
            fact = attrs.evolve(fact, scope=WIDE, value=(fact.value or "") + (
                ", from an empty orphan branch"))
        where = f"{fact.path}:{fact.line}"
        target = shown(fact.value or "?")
        verb = _VERBS.get(fact.detail, "destroys")
        gates = {s: v for s, v in resolved.items() if s.kind == CLOCK or (
            s.kind == FETCHED and host_class(host_of(s.label) or "") != "loopback")}
        if gates:
            yield self._raw("capabilities.destruction-gated", (
                f"{where} {verb} {target} when {words(gates, fact)} says so (a remote "
                "switch or a time bomb)"), fact)
        elif fact.scope == SCOPED:
            yield self._raw("capabilities.destruction-scoped", (
                f"{where} {verb} {target}; make sure this is what the user asked for"), fact)
        elif fact.scope != QUIET:
            yield self._raw("capabilities.destruction", f"{where} {verb} {target}", fact)

    def _ransom(self, facts: list[Fact], senders: list[Fact]) -> Iterator[Raw]:
        """Encrypting files in a file that also walks the user's files (or deletes them
        widely), while the skill sends data out: the files are held for ransom."""
        sending = [f for f in senders if host_class(host_of(f.value) or "") != "loopback"]
        for fact in facts:
            if fact.detail != "encrypt" or not sending:
                continue
            walks = [f for f in facts if f.detail == "walk" and f.path == fact.path]
            if not walks:
                continue
            other = sending[0]
            yield self._raw("capabilities.ransomware", (
                f"{fact.path}:{fact.line} encrypts files while {walks[0].path}:{walks[0].line} "
                f"walks {shown(walks[0].value or 'the user files')}, and "
                f"{other.path}:{other.line} sends data to {destination(other)}: the user's "
                "files held for a key sent away"), fact)
            return


def tempered(raw: Raw) -> Raw:
    """A finding from a markdown block in a passage that warns against it: a warning."""
    return raw._replace(severity="warn", message=raw.message + (
        " (in a passage that warns against it)")) if raw.severity == "block" else raw


__all__ = ["DestructionJudge", "tempered"]
