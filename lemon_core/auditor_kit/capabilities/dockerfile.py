"""Dockerfiles as capabilities: ``RUN`` steps read as shell, with ``ARG``/``ENV`` values and
BuildKit secrets.

The instruction structure is read by hand (the ``# escape=`` directive, continuations,
comments inside them, here-documents ``RUN <<EOF``): each ``RUN`` (and ``CMD``/``ENTRYPOINT``/
``ONBUILD RUN`` in shell form) is handed to :mod:`.shell` with ``$NAME``/``${NAME}`` replaced
by the ``ARG`` default or ``ENV`` value where known, or as a JSON exec form word by word; a
``SHELL ["pwsh", "-Command"]`` instruction sends later steps to :mod:`.powershell`. A
``--mount=type=secret`` makes its file (``/run/secrets/<id>`` or ``target=``) or its ``env=``
variable a credential source: a ``RUN`` step that sends it anywhere is a secret reaching the
network. Its grade is high when a build script of the skill passes a credential store as that
secret (``docker build --secret id=aws,src=$HOME/.aws/credentials``), low otherwise.
Bounded by :data:`MAX_LINES`.
"""

from __future__ import annotations

import json
import re

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    DYNAMIC_EXEC,
    HIGH,
    LOW,
    SECRET,
    SECRET_READ,
    Fact,
    FileFacts,
    Source,
    Write,
)

MAX_LINES = 5_000
_VAR = re.compile(r"\$\{([A-Za-z_]\w*)(?::?[-+]([^}]*))?\}|\$([A-Za-z_]\w*)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
_BUILD_SECRET = re.compile(r"--secret[= ]+(?:id=)?([\w.-]+),(?:src|source)=(\S+)")


def build_secrets(texts: list[str]) -> dict[str, str]:
    """``id -> source path`` of the secrets build commands of the skill pass
    (``--secret id=x,src=path``)."""
    found: dict[str, str] = {}
    for text in texts:
        if "--secret" not in text:
            continue
        for match in _BUILD_SECRET.finditer(text):
            found[match.group(1)] = match.group(2).strip("\"'")
    return found


def _instructions(text: str) -> list[tuple[int, str, str]]:
    """``(line, INSTRUCTION, arguments)`` with continuations and here-documents joined."""
    lines = text.split("\n")[:MAX_LINES]
    escape = "\\"
    for line in lines[:5]:
        match = re.match(r"#\s*escape\s*=\s*(\S)", line.strip())
        if match:
            escape = match.group(1)
    out: list[tuple[int, str, str]] = []
    i = 0
    while i < len(lines):
        number = i + 1
        line = lines[i].rstrip()
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [line]
        while parts[-1].endswith(escape) and i < len(lines):
            parts[-1] = parts[-1][:-1]
            following = lines[i].rstrip()
            i += 1
            if following.lstrip().startswith("#"):
                parts.append(escape)  # a comment inside a continuation is dropped
                continue
            parts.append(following)
        joined = " ".join(p for p in parts if p != escape).strip()
        for match in _HEREDOC.finditer(joined):
            body: list[str] = []
            while i < len(lines) and lines[i].strip() != match.group(2):
                body.append(lines[i])
                i += 1
            i += 1
            joined += "\n" + "\n".join(body)
        word, _, rest = joined.partition(" ")
        out.append((number, word.upper(), rest.strip()))
    return out


def _substitute(text: str, values: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name in values:
            return values[name]
        if match.group(2) is not None and ":-" in match.group(0):
            return match.group(2)
        return match.group(0)

    return _VAR.sub(one, text)


class _Secrets:
    def __init__(self, path: str, passed: dict[str, str]) -> None:
        self.path = path
        self.passed = passed

    def source(self, secret_id: str, line: int) -> Source:
        given = self.passed.get(secret_id)
        found = vocab.secret_path(given) if given else None
        label = (f"the BuildKit secret {secret_id!r} ({vocab.normal_path(given)})" if given
                 else f"the BuildKit secret {secret_id!r}")
        return Source(SECRET, label, self.path, line, HIGH if found and found[1] == HIGH
                      else LOW)


def _mounts(flags: list[str]) -> list[dict[str, str]]:
    out = []
    for flag in flags:
        if not flag.startswith("--mount="):
            continue
        fields = dict(part.partition("=")[::2] for part in flag[8:].split(","))
        if fields.get("type") == "secret":
            out.append(fields)
    return out


def analyse(path: str, text: str, passed: dict[str, str] | None = None) -> FileFacts:
    """The facts of a Dockerfile (``passed``: the build secrets a build script gives)."""
    secrets = _Secrets(path, passed or {})
    values: dict[str, str] = {}
    facts: list[Fact] = []
    writes: list[Write] = []
    powershell = False
    for number, instruction, rest in _instructions(text):
        if instruction == "ONBUILD":
            instruction, _, rest = rest.partition(" ")
            instruction = instruction.upper()
        if instruction in ("ARG", "ENV"):
            for name, value in _pairs(rest, instruction):
                if value is not None and "$" not in value:
                    values[name] = value
            continue
        if instruction == "SHELL":
            powershell = any(w in rest.lower() for w in ("pwsh", "powershell"))
            continue
        if instruction not in ("RUN", "CMD", "ENTRYPOINT"):
            continue
        flags: list[str] = []
        while rest.startswith("--"):
            flag, _, rest = rest.partition(" ")
            flags.append(flag)
            rest = rest.lstrip()
        variables: dict[str, frozenset[Source]] = {}
        targets: dict[str, Source] = {}
        for mount in _mounts(flags):
            secret_id = mount.get("id") or mount.get("target", "").rpartition("/")[2]
            source = secrets.source(secret_id, number)
            targets[mount.get("target") or mount.get("dst") or f"/run/secrets/{secret_id}"] = source
            if mount.get("env"):
                variables[mount["env"]] = frozenset({source})
        result = _run(path, number, rest, values, variables, powershell)
        for fact in result[0]:
            facts.append(_with_secrets(fact, targets))
        writes.extend(result[1])
    return FileFacts(path=path, language="dockerfile", facts=tuple(facts), writes=tuple(writes))


def _pairs(rest: str, instruction: str) -> list[tuple[str, str | None]]:
    words = shell.tokens(rest) or []
    if instruction == "ENV" and len(words) >= 2 and "=" not in words[0]:
        return [(words[0], " ".join(words[1:]))]
    out: list[tuple[str, str | None]] = []
    for word in words:
        name, equals, value = word.partition("=")
        out.append((name, value if equals else None))
    return out


def _run(path: str, number: int, rest: str, values: dict[str, str],
         variables: dict[str, frozenset[Source]], powershell: bool
         ) -> tuple[list[Fact], list[Write]]:
    if rest.startswith("["):
        try:
            words = json.loads(rest.split("\n", 1)[0])
        except ValueError:
            words = None
        if isinstance(words, list) and all(isinstance(w, str) for w in words):
            given = [_substitute(w, values) for w in words]
            found = shell.analyse_words(given, path, number)
            return (_expanded(found.facts, " ".join(words), " ".join(given)),
                    list(found.writes))
    text = _substitute(rest, values)
    if powershell:
        from lemon_core.auditor_kit.capabilities import powershell as ps

        frontend = ps.walk(path, text)
        if frontend is None:
            return [], []
        return ([attrs.evolve(f, line=number) for f in frontend.facts.values()],
                [attrs.evolve(w, line=number) for w in frontend.writes.values()])
    if "\n" in text:
        head, _, body = text.partition("\n")
        command = head.split("<<", 1)[0].strip()
        if command and vocab.tool_name(command.split()[0]) not in vocab.SHELLS:
            found = shell.analyse(head, path, number, variables=variables)
            return list(found.facts), list(found.writes)
        facts: list[Fact] = []
        writes: list[Write] = []
        for line in body.replace("\\\n", " ").split("\n"):
            if line.strip() and not line.lstrip().startswith("#"):
                found = shell.analyse(line, path, number, variables=variables)
                facts.extend(_expanded(found.facts, line, line))
                writes.extend(found.writes)
        return facts, writes
    found = shell.analyse(text, path, number, variables=variables)
    return _expanded(found.facts, rest, text), list(found.writes)


def _expanded(facts: tuple[Fact, ...], raw: str, text: str) -> list[Fact]:
    """A pipe into an interpreter that only appears once ``ARG``/``ENV`` values are put in
    is this reading's to judge (a line rule sees ``$BOOT | $RUNNER``)."""
    if raw == text:
        return list(facts)
    return [attrs.evolve(f, detail="expanded") if f.kind == DYNAMIC_EXEC
            and f.detail == "interpreter" else f for f in facts]


def _with_secrets(fact: Fact, targets: dict[str, Source]) -> Fact:
    """``fact`` with reads of a mounted secret's file carrying that secret."""
    if not targets:
        return fact
    carries = set()
    changed = False
    for source in fact.carries:
        found = targets.get(source.label)
        if found is not None:
            carries.add(found)
            changed = True
        else:
            carries.add(source)
    if fact.kind == SECRET_READ and fact.value in targets:
        changed = True
    return attrs.evolve(fact, carries=frozenset(carries)) if changed else fact


TRIGGERS = ("curl", "wget", "secret", "base64", "| sh", "|sh", "| bash", "nc ", "eval", "ssh",
            "scp", "rsync", "rm -", "crontab", "bashrc", "credential", ".aws", "python -c",
            "perl", "ruby", "node -e", "pwsh", "powershell", "awk", "xxd", "openssl", "token",
            "invoke-", "iex", "printenv", ".npmrc", ".netrc")


def triggered(text: str) -> bool:
    lower = text.lower()
    return any(word in lower for word in TRIGGERS)


__all__ = ["MAX_LINES", "analyse", "build_secrets", "triggered"]
