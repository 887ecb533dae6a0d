"""CI workflow YAML (GitHub Actions, GitLab CI) as capabilities: ``run:`` and ``script:`` steps
read as shell, with the pipeline's secrets as credential sources.

A skill that ships a workflow (``.github/workflows/*.yml``, ``.gitlab-ci.yml``, an
``action.yml``, or any YAML template holding ``${{ secrets… }}``) hands the repository's
secrets to whatever its steps run. The file is read by line (no YAML library: a template may
not be valid YAML until filled in): each ``run:`` value (one line or a ``|``/``>`` block) and
each item of a GitLab ``script:``/``before_script:``/``after_script:`` list goes to
:mod:`.shell` line by line. ``${{ toJSON(secrets) }}`` is every secret at once (grade high);
``${{ secrets.NAME }}`` is one secret (high for a well-known credential's name, low
otherwise); an ``env:``/``variables:`` entry set from one makes ``$NAME`` carry it. Other
``${{ … }}`` expressions are unknown text. Bounded by :data:`MAX_LINES`.
"""

from __future__ import annotations

import re

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
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
#: Characters of one file read at most.
MAX_CHARS = 300_000
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_ALL = re.compile(r"^\s*to[Jj][Ss][Oo][Nn]\s*\(\s*secrets\s*\)\s*$")
_ONE = re.compile(r"secrets\s*(?:\.\s*([A-Za-z_][\w-]*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")
_KEY = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_SCRIPT_KEYS = ("script", "before_script", "after_script")


def language_of(path: str, text: str) -> bool:
    """Whether the file at ``path`` is a CI workflow (or a template of one) worth reading."""
    lower = path.lower()
    name = lower.rpartition("/")[2]
    if not name.endswith((".yml", ".yaml")):
        return False
    if "/workflows/" in f"/{lower}" or name in (".gitlab-ci.yml", "action.yml", "action.yaml"):
        return True
    return "${{" in text and "secrets" in text


class _Secrets:
    def __init__(self, path: str) -> None:
        self.path = path

    def source(self, expression: str, line: int) -> Source | None:
        if _ALL.match(expression):
            return Source(SECRET, "every CI secret (toJSON(secrets))", self.path, line, HIGH)
        found = _ONE.search(expression)
        if found is None:
            return None
        name = found.group(1) or found.group(2)
        grade = HIGH if vocab.secret_env(name) == HIGH else LOW
        return Source(SECRET, f"the CI secret {name}", self.path, line, grade)


def _blocks(text: str) -> list[tuple[int, str, str]]:
    """``(first line, key, body)`` of each ``run:``/``script:``/``env:`` value, and of each
    ``NAME: value`` pair (key ``=NAME``)."""
    lines = text.split("\n")[:MAX_LINES]
    out: list[tuple[int, str, str]] = []
    i = 0
    while i < len(lines):
        match = _KEY.match(lines[i])
        i += 1
        if match is None or lines[i - 1].lstrip().startswith("#"):
            continue
        indent, key, value = len(match.group(1)), match.group(2), match.group(3).strip()
        if key == "run" or key in _SCRIPT_KEYS:
            body: list[str] = []
            start = i + 1
            if value and value[0] not in "|>":
                if value.startswith("[") and key in _SCRIPT_KEYS:
                    body = [v.strip().strip("'\"") for v in value.strip("[]").split(",")]
                else:
                    body = [value.strip("'\"") if value[:1] in "'\"" else value]
                start = i
            else:
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(lines[i].lstrip()) > indent):
                    item = lines[i].strip()
                    if key in _SCRIPT_KEYS and item.startswith("- "):
                        item = item[2:].strip()
                        if item[:1] in "'\"" and item[-1:] == item[:1]:
                            item = item[1:-1]
                    body.append(item)
                    i += 1
            out.append((start, key, "\n".join(body)))
        elif value and "${{" in value or "$" in value and not value.startswith(("|", ">")):
            out.append((i, "=" + key, value.strip("'\"")))
    return out


def analyse(path: str, text: str) -> FileFacts:
    """The facts of a CI workflow file."""
    secrets = _Secrets(path)
    variables: dict[str, frozenset[Source]] = {}
    facts: list[Fact] = []
    writes: list[Write] = []
    for first, key, body in _blocks(text):
        if key.startswith("="):
            carried = frozenset(s for e in _EXPR.findall(body)
                                if (s := secrets.source(e.strip(), first)) is not None)
            if carried:
                variables[key[1:]] = carried
            continue
        for offset, raw in enumerate(body.split("\n")):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            number = first + offset
            local = dict(variables)

            def put(match: re.Match[str], number: int = number,
                    local: dict[str, frozenset[Source]] = local) -> str:
                source = secrets.source(match.group(1).strip(), number)
                if source is None:
                    return "LEMON_CI_EXPRESSION"
                name = f"LEMON_CI_SECRET_{len(local)}"
                local[name] = frozenset({source})
                return "${" + name + "}"

            line = _EXPR.sub(put, line)
            found = shell.analyse(line, path, number, variables=local)
            # a key file the runner reads is the runner's, not the user's: only its flows count
            facts.extend(f for f in found.facts if f.kind != SECRET_READ)
            writes.extend(found.writes)
    return FileFacts(path=path, language="ci-yaml", facts=tuple(facts), writes=tuple(writes))


TRIGGERS = ("curl", "wget", "nc ", "ncat", "socat", "/dev/tcp", "nslookup", "dig ", "http",
            "ssh", "scp", "rsync", "python", "node", "perl", "ruby", "pwsh", "base64", "eval")


def triggered(text: str) -> bool:
    lower = text.lower()
    return "secret" in lower and any(word in lower for word in TRIGGERS)


__all__ = ["MAX_CHARS", "MAX_LINES", "analyse", "language_of", "triggered"]
