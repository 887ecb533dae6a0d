"""Which files the PowerShell, Makefile, Dockerfile, awk and Go frontends read, and reading them
once per bundle.

A file is chosen by name (``.ps1``/``.psm1``; ``Makefile``, ``GNUmakefile``, ``*.mk``;
``Dockerfile``, ``Dockerfile.*``, ``*.dockerfile``, ``Containerfile``; ``.awk`` or an awk
``#!`` line; ``.go`` but not ``_test.go``) and read only when it holds one of its frontend's trigger words (most files have
nothing the capability reading could use) and is under its size cap. A Dockerfile is read with
the build secrets the skill's other files pass (``docker build --secret id=…,src=…``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import index
from lemon_core.auditor_kit.capabilities.model import NETWORK_EGRESS, FileFacts
from lemon_core.auditor_kit.capabilities.values import HOLE

#: Characters of one file read at most, per language (a larger file keeps to the line rules).
MAX_CHARS = {"powershell": 200_000, "make": 300_000, "dockerfile": 300_000, "awk": 200_000,
             "go": 300_000}

#: Lower-case words without which a PowerShell file is not parsed.
POWERSHELL_WORDS = (
    "invoke", "iex", "iwr", "irm", "webclient", "download", "upload", "start-process", "saps",
    "-enc", "-e ", "-ec ", "base64", "[char", "env:", "environment]", "credential", "cmdkey",
    "vaultcmd", "protecteddata", "\\run", "scheduled", "schtasks", "profile", "remove-item",
    "rm ", "del ", "rd ", "rmdir", "ri ", "format-volume", "clear-disk", "socket", "client",
    "dns", "curl", "wget", "http", "& (", "&(", "& $", ". $", ".(", "reg ", "scriptblock",
    "login data", "cookies", ".ssh", ".aws", "appdata", "-join", "-f ", "pwsh", "powershell",
    "cmd ", "cmd.exe", "bitstransfer", "send-mailmessage", "compress")


def language_of(path: str, text: str) -> str | None:
    """``powershell``, ``make``, ``dockerfile``, ``awk`` or ``go`` when the file at ``path`` is one."""
    name = path.lower().rpartition("/")[2]
    if name.endswith((".ps1", ".psm1")):
        return "powershell"
    if name in ("makefile", "gnumakefile") or name.endswith(".mk") or name.startswith(
            "makefile."):
        return "make"
    if name in ("dockerfile", "containerfile") or name.startswith(("dockerfile.",
                                                                  "containerfile.")) or (
            name.endswith(".dockerfile")):
        return "dockerfile"
    if name.endswith(".go") and not name.endswith("_test.go"):
        return "go"
    if name.endswith(".awk") or text.startswith("#!") and "awk" in text.split("\n", 1)[0]:
        return "awk"
    return None


def _triggered(language: str, text: str) -> bool:
    if language == "powershell":
        lower = text.lower()
        return any(word in lower for word in POWERSHELL_WORDS)
    if language == "make":
        from lemon_core.auditor_kit.capabilities import makefile

        return makefile.triggered(text)
    if language == "dockerfile":
        from lemon_core.auditor_kit.capabilities import dockerfile

        return dockerfile.triggered(text)
    if language == "go":
        from lemon_core.auditor_kit.capabilities import golang

        return golang.triggered(text)
    from lemon_core.auditor_kit.capabilities import awk

    return awk.triggered(text)


def _analyse(bundle: Any, path: str, text: str, language: str) -> FileFacts:
    if language == "powershell":
        from lemon_core.auditor_kit.capabilities import powershell

        return powershell.analyse(path, text)
    if language == "make":
        from lemon_core.auditor_kit.capabilities import makefile

        return makefile.analyse(path, text)
    if language == "dockerfile":
        from lemon_core.auditor_kit.capabilities import dockerfile

        others = [f.text for f in bundle.files if f.kind == "file" and f.text
                  and f.path != path and "--secret" in f.text]
        return dockerfile.analyse(path, text, dockerfile.build_secrets(others))
    if language == "go":
        from lemon_core.auditor_kit.capabilities import golang

        return golang.analyse(path, text)
    from lemon_core.auditor_kit.capabilities import awk

    return awk.analyse(path, text)


def file_facts(bundle: Any, path: str, text: str, language: str) -> FileFacts | None:
    """The facts of the file (None when it has nothing to say or was not read)."""
    if len(text) > MAX_CHARS[language] or not _triggered(language, text):
        return None
    found = index.derived(bundle, "build-files", path,
                          lambda: _analyse(bundle, path, text, language))
    if found.parsed and not (found.facts or found.writes or found.invocations):
        return None
    return found


_PS_FENCE = re.compile(
    r"^( {0,3})(`{3,}|~{3,})[ \t]*\{?\.?(?:powershell|pwsh|ps1|posh)\b[^\n]*\n(.*?)"
    r"^ {0,3}\2[`~]*[ \t]*$", re.MULTILINE | re.IGNORECASE | re.DOTALL)


def has_fence(text: str) -> bool:
    """Whether a markdown text may hold a fenced PowerShell block (a substring test)."""
    lower = text.lower()
    return any(f + word in lower for f in ("```", "~~~") for word in ("powershell", "pwsh",
                                                                      "ps1", "posh"))


def fenced(bundle: Any, path: str, text: str) -> Iterator[FileFacts]:
    """The facts of each fenced PowerShell block of a markdown file (a block in a warning
    context is an example, not an instruction, and is skipped)."""
    from lemon_core.auditor_kit.capabilities import powershell
    from lemon_core.auditor_kit.markdown import document

    for match in _PS_FENCE.finditer(text):
        body = match.group(3)
        lower = body.lower()
        if len(body) > MAX_CHARS["powershell"] or not any(w in lower for w in POWERSHELL_WORDS):
            continue
        first = text.count("\n", 0, match.start(3)) + 1
        if first >= 2 and document(path, text).line(first - 1).warned:
            continue
        found: FileFacts = index.derived(bundle, "build-files", (path, first), functools.partial(
            powershell.analyse, path, body, line_offset=first - 1))
        facts = tuple(f for f in found.facts if not _filled_in(f))
        if found.parsed and (facts or found.writes):
            yield attrs.evolve(found, facts=facts)


def _filled_in(fact: Any) -> bool:
    """A request of a documented example whose destination the reader fills in
    (``$endpoint/agents``, ``<project-endpoint>/…``), or a call of a well-known API
    (``api.hubapi.com`` with the user's HubSpot token): documentation, not a flow."""
    from lemon_core.auditor_kit.hosts import host_class

    if fact.kind != NETWORK_EGRESS or fact.detail == "dns":
        return False
    value = fact.value or HOLE
    host = value.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0]
    if not host or HOLE in host or host.startswith(("<", "{", "$")) or "." not in host:
        return True
    return host_class(host) in ("api", "loopback")


__all__ = ["MAX_CHARS", "POWERSHELL_WORDS", "fenced", "file_facts", "has_fence", "language_of"]
