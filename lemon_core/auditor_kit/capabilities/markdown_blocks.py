"""Markdown blocks as programs: the fences of a document, and the shell blocks an agent is
told to run read for what they destroy and what they send of a credential.

:func:`fenced_blocks` lists a document's fences with their language, first line and whether
they stand in a warning context (a security tutorial, "never run this"). :func:`shell_block`
reads a shell block as a script (:func:`.shell.analyse_script`): the lines that run a file of
the skill give every fact (the judge follows data across files through them); the other lines
give what this reading judges of a block the agent runs: destruction, credential reads,
credentials sent. A block is read only when its words could matter (:func:`told_document`,
searched with every auditor's words, then :func:`told_triggered` per block).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs

from lemon_core.auditor_kit.capabilities import shell
from lemon_core.auditor_kit.capabilities.model import (
    DESTRUCTION,
    ENV,
    FILE,
    HIGH,
    NETWORK_EGRESS,
    SECRET,
    SECRET_READ,
    Fact,
    FileFacts,
)
from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import indexed, register_words, word_lines
from lemon_core.auditor_kit.markdown import document

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: Lines of one fenced block read as shell at most.
MAX_SHELL_LINES = 2_000


@attrs.frozen
class Block:
    """A fenced block: its language, the line number of its first content line, its lines."""

    language: str | None
    first: int
    lines: tuple[str, ...]
    warned: bool = False


def fenced_blocks(path: str, text: str, *, keep_warned: bool = False) -> Iterator[Block]:
    """The fenced blocks of a markdown file that are not in a warning context (with
    ``keep_warned``, those too, marked ``warned``)."""
    doc = document(path, text)
    current: list[str] = []
    language: str | None = None
    first = 0
    inside = False
    warned = False
    for line in doc.lines:
        if line.context != "fence":
            if inside and current and (keep_warned or not warned):
                yield Block(language, first, tuple(current), warned)
            inside, current = False, []
            continue
        if not inside:
            inside, current, language, first = True, [], line.language, line.number + 1
            warned = line.warned
            continue
        if _FENCE.match(line.text) and line.text.strip()[:1] in "`~" and not line.text.strip(
                line.text.strip()[:1]).strip():
            if current and (keep_warned or not warned):
                yield Block(language, first, tuple(current), warned)
            inside, current = False, []
            continue
        current.append(line.text)
    if inside and current and (keep_warned or not warned):
        yield Block(language, first, tuple(current), warned)


def shell_block(path: str, block: Block, mention: re.Pattern[str] | None,
                triggers: re.Pattern[str]) -> FileFacts | None:
    """A fenced shell block read as a script. Its lines that run a file of the skill give
    every fact; the others give what an agent told to run them would destroy or send of a
    credential (the rest is the line rules' job)."""
    lines = [line[2:] if line.startswith(("$ ", "> ")) else line
             for line in block.lines[:MAX_SHELL_LINES]]
    body = "\n".join(lines)
    mentioned = mention is not None and mention.search(body) is not None
    if not mentioned and not told_triggered(body):
        return None
    only = _TOLD_LINES if not mentioned else re.compile(
        f"{triggers.pattern}|{mention.pattern}")  # type: ignore[union-attr]
    result = shell.analyse_script(body, path, only=only, first_line=block.first)
    # a line that runs a file of the skill gives every fact; any other, what it destroys or
    # sends of a credential
    running = {block.first + i for i, line in enumerate(lines)
               if mentioned and mention is not None and mention.search(line)}
    facts = tuple(f for f in result.facts if f.line in running or _told(f))
    writes = tuple(w for w in result.writes if w.line in running or (
        w.carries and any(s.kind == SECRET for s in w.carries)))
    invocations = result.invocations
    if not (facts or writes or invocations):
        return None
    return FileFacts(path=path, language="shell", facts=facts, writes=writes,
                     invocations=invocations, warned=block.warned)


#: Words of a markdown shell block that may destroy something, read a credential or send one
#: (a block that runs no file of the skill is read only with one that destroys, or one that
#: reads a credential and one that sends). Searched with every auditor's words, once per text.
_DESTROY_WORDS = frozenset({
    "rm -", "mkfs", "shred ", "wipefs", "of=/dev", "git push", "drop schema", "drop database",
    "drop table", "dropdb", "truncate ", "kubectl delete", "oc delete", "destroy", "-delete",
    "-exec rm", "s3 rm", "s3 rb", "blkdiscard", "remove-item", "xargs rm", "> /dev/sd",
    "> /dev/nvme", "> /dev/disk"})
_CREDENTIAL_WORDS = frozenset({
    ".ssh", ".aws", "netrc", "credential", "gh auth", "security find", "security dump",
    "gcloud auth", "access-token", "keychain", "printenv", "login data", "cookies",
    "logins.json", "key4.db", "wallet", ".kube", ".docker/", ".azure", ".config/gh", "npmrc",
    "pypirc", ".env", "kwallet", "secret-tool", "op read", "vault read", "docker-credential",
    "session-token", "--raw", "bw get", "pass show", "id_rsa", "id_ed25519", "local state",
    "keyring", "gnupg", "_history", "/etc/shadow"})
_SEND_WORDS = frozenset({
    "curl", "wget", " nc ", "| nc", "ncat", "socat", "scp ", "rsync", "ftp", "/dev/tcp",
    "/dev/udp", "telnet", "nslookup", "sendmail"})
_TOLD_WORDS = _DESTROY_WORDS | _CREDENTIAL_WORDS | _SEND_WORDS
register_words(_TOLD_WORDS)
#: The lines of such a block read (with assignments, conditions and loops).
_TOLD_LINES = lazy_compile("|".join(re.escape(w) for w in sorted(_TOLD_WORDS)) + (
    r"|\brm\b|\bgit\b|\bdd\b|terraform|kubectl|psql|mysql|\bop\b|\bbw\b|\baws\b|gcloud|"
    r"\baz\b|security|\bcat\b|base64|xargs|find\b"))
_SHELL_FENCE = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[ \t]*(?:(?:ba|z|k|da)?sh|shell|console|shell-session|terminal|"
    r"text|)[ \t]*\n(.*?)^ {0,3}\1[`~]*[ \t]*$", re.MULTILINE | re.IGNORECASE | re.DOTALL)


def _shell_bodies(text: str) -> Iterator[str]:
    """The bodies of the fenced blocks that may be shell, found without parsing the
    document (most documents have none worth reading)."""
    for match in _SHELL_FENCE.finditer(text):
        yield match.group(2)


def _told_words(found: set[str] | frozenset[str]) -> bool:
    return bool(found & _DESTROY_WORDS) or bool(found & _CREDENTIAL_WORDS) and bool(
        found & _SEND_WORDS)


def told_document(text: str) -> bool:
    """Whether a markdown document holds the words of a block worth reading (the shared
    word search: no extra pass over the text)."""
    return _told_words(set(word_lines(*indexed(text), _TOLD_WORDS)))


def told(text: str) -> bool:
    """Whether a markdown document has a shell block worth reading for destruction and
    credentials (most have none: no parse of the document is needed to say so)."""
    return told_document(text) and any(told_triggered(body) for body in _shell_bodies(text))


def told_triggered(body: str) -> bool:
    """Whether a markdown shell block may destroy something, or read a credential and send
    data (:data:`_DESTROY_WORDS`, :data:`_CREDENTIAL_WORDS`, :data:`_SEND_WORDS`)."""
    lower = body.lower()
    return _told_words({w for w in _TOLD_WORDS if w in lower})


def _told(fact: Fact) -> bool:
    """Whether a fact of a markdown block that runs no file of the skill is one this
    reading judges: a destruction, a credential read, a credential sent."""
    if fact.kind in (DESTRUCTION, SECRET_READ):
        return True
    return fact.kind == NETWORK_EGRESS and any(
        s.kind == SECRET or (s.kind == ENV and s.grade == HIGH) or s.kind == FILE
        for s in fact.carries)


__all__ = ["MAX_SHELL_LINES", "Block", "fenced_blocks", "shell_block", "told", "told_document",
           "told_triggered"]
