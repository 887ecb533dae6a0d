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
import textwrap

import attrs

from lemon_core.auditor_kit.capabilities import shell, vocab
from lemon_core.auditor_kit.capabilities.model import (
    HIGH,
    LOW,
    NETWORK_EGRESS,
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


def _step_shell(lines: list[str], at: int, column: int) -> str:
    """The ``shell:`` of the step whose ``run:`` key stands at line index ``at``, column
    ``column`` (``bash`` when none)."""
    for step in (range(at - 1, -1, -1), range(at + 1, len(lines))):
        for j in step:
            line = lines[j]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            match = _KEY.match(line)
            if match is None:
                if len(line) - len(line.lstrip()) < column:
                    break
                continue
            if match.start(2) < column:
                break
            if match.start(2) == column and match.group(2) == "shell":
                return match.group(3).strip().strip("'\"").split()[0].lower()
            if match.start(2) == column and line.lstrip().startswith("- "):
                break  # the next step
    return "bash"


def _under_with(lines: list[str], at: int, indent: int) -> bool:
    """Whether the key at line index ``at`` (indent ``indent``) belongs to a ``with:``
    mapping (``actions/github-script``'s ``script:`` is JavaScript, not a GitLab list)."""
    for j in range(at - 1, -1, -1):
        line = lines[j]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) < indent:
            return line.strip().rstrip(":").strip() in ("with", "- with")
    return False


def _blocks(text: str) -> list[tuple[int, str, str]]:
    """``(first line, key, body)`` of each ``run:``/``script:`` value (key ``run:SHELL`` for
    a step with another ``shell:`` than a POSIX one), and of each ``NAME: value`` pair holding
    an expression (key ``=NAME``)."""
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
                    item = lines[i].rstrip()
                    if key in _SCRIPT_KEYS and item.strip().startswith("- "):
                        item = item.strip()[2:].strip()
                        if item[:1] in "'\"" and item[-1:] == item[:1]:
                            item = item[1:-1]
                    body.append(item)
                    i += 1
            if key == "script" and value[:1] in "|>" and _under_with(lines, i - len(body) - 1,
                                                                    indent):
                key = "run:javascript"
            if key == "run":
                kind = _step_shell(lines, start - 1 if value and value[0] not in "|>"
                                   else start - 2, match.start(2))
                if kind in _OTHER_SHELLS:
                    key = "run:" + _OTHER_SHELLS[kind]
            out.append((start, key, textwrap.dedent("\n".join(body))))
        elif value and "${{" in value or "$" in value and not value.startswith(("|", ">")):
            out.append((i, "=" + key, value.strip("'\"")))
    return out


#: ``shell:`` values of a step -> the reader of its ``run:`` program.
_OTHER_SHELLS = {"python": "python", "python3": "python", "pwsh": "powershell",
                 "powershell": "powershell", "node": "javascript"}
_ALIAS = "LEMON_CI_SECRET_TOKEN_"
#: An expression with the quotes around it, if any (GitHub puts its text in before the program
#: runs: ``'${{ secrets.X }}'`` is the secret as a string).
_QUOTED_EXPR = re.compile(r"""(['"`]?)\$\{\{(.*?)\}\}\1""", re.DOTALL)


def _program(path: str, first: int, kind: str, body: str,
             variables: dict[str, frozenset[Source]], secrets: _Secrets) -> list[Fact]:
    """The facts of a step run by Python, PowerShell or node: the ``env:`` names set from
    secrets are renamed so the reader sees a secret's read, then given their secrets back."""
    aliases: dict[str, frozenset[Source]] = {}
    for number, (name, sources) in enumerate(variables.items()):
        if re.search(rf"\b{re.escape(name)}\b", body):
            alias = f"{_ALIAS}{number}"
            body = re.sub(rf"\b{re.escape(name)}\b", alias, body)
            aliases[alias] = sources
    reads = {"python": "__import__('os').environ['{}']", "powershell": "$env:{}",
             "javascript": "process.env.{}"}[kind]

    def put(match: re.Match[str]) -> str:
        source = secrets.source(match.group(2).strip(), first)
        if source is None:
            return match.group(0)
        alias = f"{_ALIAS}{len(variables) + len(aliases)}"
        aliases[alias] = frozenset({source})
        return reads.format(alias)

    body = _QUOTED_EXPR.sub(put, body)
    if kind == "python":
        from lemon_core.auditor_kit.capabilities import python as reader
    elif kind == "powershell":
        from lemon_core.auditor_kit.capabilities import powershell as reader  # type: ignore[no-redef]
    else:
        from lemon_core.auditor_kit.capabilities import javascript as reader  # type: ignore[no-redef]
    found = reader.analyse(path, body, line_offset=first - 1)
    out = []
    for fact in found.facts:
        if fact.kind != NETWORK_EGRESS:
            continue  # a CI program's own imports and key files are the runner's business
        carries = frozenset().union(*(aliases.get(s.label.upper(), frozenset({s}))
                                      for s in fact.carries)) if fact.carries else fact.carries
        out.append(attrs.evolve(fact, carries=carries))
    return out


def analyse(path: str, text: str) -> FileFacts:
    """The facts of a CI workflow file."""
    secrets = _Secrets(path)
    variables: dict[str, frozenset[Source]] = {}
    facts: list[Fact] = []
    writes: list[Write] = []
    blocks = _blocks(text)
    for first, key, body in blocks:  # env entries first: a step's env: may follow its run:
        if key.startswith("="):
            carried = frozenset(s for e in _EXPR.findall(body)
                                if (s := secrets.source(e.strip(), first)) is not None)
            if carried:
                variables[key[1:]] = carried
    for first, key, body in blocks:
        if key.startswith("="):
            continue
        if key.startswith("run:"):
            facts.extend(_program(path, first, key[4:], body, variables, secrets))
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
