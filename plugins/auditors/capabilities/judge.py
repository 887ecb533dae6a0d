"""The flow judge: combine the capability facts of a skill's files into findings.

Each file's facts carry the sources of their data. Symbolic sources are resolved across the
skill: a file another script wrote (``/tmp/c.txt``), what a script of the skill prints (read
by the next command of a pipeline in SKILL.md or a shell script), a script's input and its
arguments (given by the command that runs it). Then:

- a credential reaching a network sink blocks (``secret-exfiltration``); a low-grade one (an
  API key variable, the skill's own ``.env``) sent to a host its name does not name warns;
- decoded or fetched data reaching an interpreter, ``exec``/``eval``, a shell command or a
  deserialiser blocks (``exec-decoded``, ``exec-fetched``);
- a dangerous call reached through a name assembled at run time blocks (``hidden-call``);
- writes into an agent's configuration in the home folder, or of decoded, fetched or secret
  data into one, block; a project's agent file, start-up files, cron and hooks warn;
- destruction of the home folder, the root, a disk, every ref of a remote or a server the
  environment names blocks (``destruction``), and so does any destruction that fetched data or
  the clock decides (``destruction-gated``: a remote flag, a time bomb) and encrypting the
  user's files beside a network send (``ransomware``); what a cleanup skill may need warns,
  naming the target (``destruction-scoped``);
- single capabilities a legitimate skill may need warn, saying what was seen;
- facts from a markdown block in a passage that warns against it warn at most.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from lemon_plugins.auditors.capabilities.judge_destruction import (
    DestructionJudge,
    tempered,
)
from lemon_plugins.auditors.capabilities.rules import RULES
from lemon_plugins.auditors.capabilities.words import (
    Raw,
    describe,
    destination,
    host_of,
    names_strictly,
    place,
    shown,
    words,
)

from lemon_core.auditor_kit.capabilities import vocab
from lemon_core.auditor_kit.capabilities.model import (
    ARGFILE,
    ARGV,
    CONFIG,
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    ENV,
    FETCHED,
    FILE,
    HIGH,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    STDIN,
    STDOUT,
    SYMBOLIC,
    UNRESOLVED,
    Fact,
    FileFacts,
    Source,
    Write,
)
from lemon_core.auditor_kit.capabilities.shell import Invocation
from lemon_core.auditor_kit.capabilities.values import HOLE
from lemon_core.auditor_kit.hosts import host_class, names_host

MAX_HOPS = 6
#: Credential stores no honest skill both reads and sends data out beside.
CRITICAL = ("browser credential store", "browser profile", "keychain", "cryptocurrency wallet",
            "an agent's credentials", "system password file", "the Windows credential store")
_SECRET_KINDS = (SECRET, ENV, CONFIG)


_LANGUAGE_NAMES = {"python": "Python 3", "javascript": "JavaScript or TypeScript",
                   "ruby": "Ruby", "perl": "Perl", "php": "PHP", "powershell": "PowerShell",
                   "go": "Go"}
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
#: Ruby, Perl and PHP scripts (their sends are judged as Python's and JavaScript's are).
_OTHER_SUFFIXES = (".rb", ".pl", ".pm", ".php")


def _is_script(path: str) -> bool:
    lower = path.lower()
    return not lower.endswith((".md", ".markdown", ".mdx", ".txt", ".rst"))


class Judge(DestructionJudge):
    """Findings for the facts of one bundle (:meth:`findings`)."""

    def __init__(self, files: Iterable[FileFacts], paths: Iterable[str]) -> None:
        self.files = tuple(files)
        self.paths = tuple(paths)
        self.by_path = {f.path: f for f in self.files if f.language in ("python", "javascript")
                        and f.parsed
                        and _is_script(f.path)}
        self.writes: list[Write] = [w for f in self.files for w in f.writes]
        self.invocations: list[Invocation] = [
            i for f in self.files for i in f.invocations if isinstance(i, Invocation)]
        self._scripts: dict[str, str | None] = {}
        #: Files that make an empty orphan branch: a forced push from them wipes history.
        self.orphans = {f.path for f in self.files for fact in f.facts
                        if fact.kind == DESTRUCTION and fact.detail == "orphan"}

    # -- resolving symbolic sources -------------------------------------------------------

    def script_for(self, written: str) -> str | None:
        """The bundle path a command's script word names (``scripts/a.py``,
        ``{baseDir}/scripts/a.py``, ``./a.py``)."""
        if written in self._scripts:
            return self._scripts[written]
        text = written.replace("\\", "/").lstrip("./")
        found = None
        for path in self.paths:
            if text == path or text.endswith("/" + path):
                found = path
                break
        if found is None:
            name = text.rpartition("/")[2]
            matches = [p for p in self.paths if p.rpartition("/")[2] == name]
            found = matches[0] if len(matches) == 1 else None
        self._scripts[written] = found
        return found

    def _writes_to(self, target: str, reader: Source) -> list[Write]:
        name = target.rpartition("/")[2]
        out = []
        for write in self.writes:
            same = write.target == target or (
                len(name) >= 3 and write.target.rpartition("/")[2] == name
                and ("/" in write.target or "/" in target))
            if same and (write.path, write.line) != (reader.path, reader.line) and write.carries:
                out.append(write)
        return out

    def resolve(self, sources: Iterable[Source], context: Invocation | None = None,
                depth: int = 0, via: str | None = None) -> dict[Source, str | None]:
        """The concrete sources behind ``sources`` (symbolic ones followed across files),
        each with the channel it came through (None when direct)."""
        out: dict[Source, str | None] = {}
        for source in sources:
            if source.kind not in SYMBOLIC:
                out.setdefault(source, via)
                continue
            if depth >= MAX_HOPS:
                continue
            if source.kind == FILE:
                for write in self._writes_to(source.label, source):
                    note = via or (f"through {shown(write.target)}, written at "
                                   f"{write.path}:{write.line}")
                    for found, how in self.resolve(write.carries, None, depth + 1, note).items():
                        out.setdefault(found, how)
            elif source.kind == STDOUT:
                script = self.script_for(source.label)
                facts = self.by_path.get(script or "")
                if facts is None:
                    continue
                contexts = [i for i in self.invocations
                            if i.script == source.label and (i.path, i.line) == (source.path,
                                                                                  source.line)]
                note = via or f"through the output of {script}, piped at {place(source)}"
                for invocation in contexts or [None]:
                    found_sources = self.resolve(facts.stdout, invocation, depth + 1, note)
                    for found, how in found_sources.items():
                        out.setdefault(found, how)
            elif context is not None and source.kind == STDIN:
                note = via or f"through the input of {source.path}, given at " \
                              f"{context.path}:{context.line}"
                for found, how in self.resolve(context.stdin, None, depth + 1, note).items():
                    out.setdefault(found, how)
            elif context is not None and source.kind in (ARGV, ARGFILE):
                note = via or f"named on the command line at {context.path}:{context.line}"
                for _, given in context.argfiles:
                    for found, how in self.resolve(given, None, depth + 1, note).items():
                        out.setdefault(found, how)
        return out

    def _own(self, label: str) -> bool:
        """Whether ``label`` names a file of the skill itself (its own configuration)."""
        text = label.removeprefix("./")
        return any(p == text or p.endswith("/" + text) for p in self.paths)

    def contexts(self, facts: FileFacts) -> list[Invocation | None]:
        found: list[Invocation | None] = [None]
        for invocation in self.invocations:
            if self.script_for(invocation.script) == facts.path:
                found.append(invocation)
        return found

    # -- the findings ---------------------------------------------------------------------

    def findings(self) -> Iterator[Raw]:
        seen: set[tuple[str, str, int]] = set()
        exfiltrated: set[Source] = set()
        secret_reads: list[Fact] = []
        senders: list[Fact] = []
        encrypting: list[Fact] = []
        for facts in self.files:
            if not facts.parsed:
                where = f" (line {facts.error_line}: {facts.error})" if facts.error_line else (
                    f" ({facts.error})" if facts.error else "")
                yield Raw("capabilities.unparsed", RULES["capabilities.unparsed"][0],
                          f"{facts.path} does not parse as {_LANGUAGE_NAMES.get(facts.language, facts.language)}"
                          f"{where}; the capability "
                          "analysis could not read it, only the line rules did",
                          facts.path, facts.error_line or 1, "")
                continue
            contexts = self.contexts(facts)
            for fact in facts.facts:
                resolved: dict[Source, str | None] = {}
                for context in contexts:
                    for source, how in self.resolve(fact.carries, context).items():
                        resolved.setdefault(source, how)
                if fact.kind == SECRET_READ and fact.detail != "env":
                    secret_reads.append(fact)
                if fact.kind == NETWORK_EGRESS:
                    senders.append(fact)
                if fact.kind == DESTRUCTION and fact.detail in ("encrypt", "walk"):
                    encrypting.append(fact)
                for raw in self.judge(fact, resolved, exfiltrated):
                    key = (raw.rule, raw.path, raw.line)
                    if key not in seen:
                        seen.add(key)
                        yield tempered(raw) if facts.warned else raw
        yield from self._combinations(secret_reads, senders, exfiltrated, seen)
        yield from self._ransom(encrypting, senders)

    def _raw(self, rule: str, message: str, fact: Fact) -> Raw:
        return Raw(rule, RULES[rule][0], message, fact.path, fact.line, fact.evidence)

    def judge(self, fact: Fact, resolved: dict[Source, str | None],
              exfiltrated: set[Source]) -> Iterator[Raw]:
        where = f"{fact.path}:{fact.line}"
        if fact.hidden and fact.kind in (DYNAMIC_EXEC, NETWORK_EGRESS, SECRET_READ) and (
                fact.callee or fact.kind != DYNAMIC_EXEC):
            what = fact.callee or shown(fact.value or fact.kind)
            yield self._raw("capabilities.hidden-call", (
                f"{where} calls {what} through a name assembled at run time (string fragments, "
                "character codes or a decoder), so no literal name of it appears in the code"),
                fact)
        if fact.kind == NETWORK_EGRESS:
            yield from self._network(fact, resolved, exfiltrated)
        elif fact.kind == DYNAMIC_EXEC:
            yield from self._exec(fact, resolved)
        elif fact.kind == PERSISTENCE:
            yield from self._persistence(fact, resolved)
        elif fact.kind == DESTRUCTION:
            yield from self._destruction(fact, resolved)
        elif fact.kind == UNRESOLVED and _is_script(fact.path):
            tainted = {s: v for s, v in resolved.items() if s.kind in (DECODED, FETCHED)}
            if tainted:
                yield self._raw("capabilities.hidden-call", (
                    f"{where} calls {fact.value} with a name made of "
                    f"{words(tainted, fact)}"), fact)
            else:
                yield self._raw("capabilities.unresolved", (
                    f"{where} calls {fact.value} with a name chosen at run time that cannot "
                    "be read from the code"), fact)

    def _network(self, fact: Fact, resolved: dict[Source, str | None],
                 exfiltrated: set[Source]) -> Iterator[Raw]:
        where_to = destination(fact)
        kind = host_class(host_of(fact.value) or "") if host_of(fact.value) else "unknown"
        if kind == "loopback":
            return
        verb = "looks up a name built from" if fact.detail == "dns" else "sends"
        host = host_of(fact.value)
        high: dict[Source, str | None] = {}
        low: dict[Source, str | None] = {}
        for source, how in resolved.items():
            if source.kind not in _SECRET_KINDS:
                continue
            if source.kind in (ENV, CONFIG) and host is None:
                continue  # a key handed to a URL the caller chooses: an API client
            named = host is not None and source.label != "the whole environment" and (
                names_strictly(source.label, host) if source.kind == ENV
                and source.grade == HIGH else names_host(source.label, host))
            if named:
                continue
            (high if source.grade == HIGH else low)[source] = how
        where = f"{fact.path}:{fact.line}"
        if high:
            exfiltrated.update(high)
            yield self._raw("capabilities.secret-exfiltration", (
                f"{where} {verb} {words(high, fact)} to {where_to}"), fact)
            return
        if low:
            yield self._raw("capabilities.secret-to-host", (
                f"{where} {verb} {words(low, fact)} to {where_to}, a host its name does "
                "not name"), fact)
            return
        data: dict[Source, str | None] = {
            s: None for s in fact.carries if s.kind in (FILE, ARGFILE)
            and not (host is not None and names_host(s.label.rpartition("/")[2], host))
            and not self._own(s.label)}
        if data and fact.path.endswith((".py", *_JS_SUFFIXES, *_OTHER_SUFFIXES)) and kind in (
                "unknown", "collector"):
            yield self._raw("capabilities.network-send", (
                f"{where} {verb} {words(data, fact)} to {where_to}"), fact)

    def _exec(self, fact: Fact, resolved: dict[Source, str | None]) -> Iterator[Raw]:
        where = f"{fact.path}:{fact.line}"
        if fact.detail == "process" and not _program_is_data(fact.value):
            return
        decoded = {s: v for s, v in resolved.items() if s.kind == DECODED}
        fetched = {s: v for s, v in resolved.items() if s.kind == FETCHED
                   and host_class(s.label) not in ("vendor", "docs", "api", "loopback")}
        if not decoded and not fact.path.endswith(".py") and fact.detail == "interpreter":
            # a download piped straight into a shell on one line is the code auditor's rule
            # (with its vendor-installer list); the flows it cannot see are ours
            fetched = {s: v for s, v in fetched.items() if (s.path, s.line) != (fact.path,
                                                                                  fact.line)}
        how = {"exec": "executes", "eval": "evaluates", "compile": "compiles",
               "deserialise": "deserialises", "interpreter": "feeds to an interpreter",
               "shell-eval": "evaluates", "expanded": "feeds to an interpreter",
               "shell": "runs as a shell command", "process": "runs as a program"}.get(
                   fact.detail, "runs")
        if fetched:
            yield self._raw("capabilities.exec-fetched",
                            f"{where} {how} {words(fetched, fact)}", fact)
        if decoded:
            text = f": {shown(fact.value)}" if fact.value else ""
            yield self._raw("capabilities.exec-decoded",
                            f"{where} {how} {words(decoded, fact)}{text}", fact)
        if not fetched and not decoded and fact.detail in ("exec", "eval", "compile") and (
                _is_script(fact.path)):
            yield self._raw("capabilities.dynamic-exec", (
                f"{where} {how} a value built at run time"
                + (f" from {words(resolved, fact)}" if resolved else "")), fact)

    def _persistence(self, fact: Fact, resolved: dict[Source, str | None]) -> Iterator[Raw]:
        where = f"{fact.path}:{fact.line}"
        target = shown(fact.value or "?")
        payload = {s: v for s, v in resolved.items() if s.kind in (DECODED, FETCHED)}
        secret = {s: v for s, v in resolved.items() if s.kind in _SECRET_KINDS}
        if fact.detail == "agent-config":
            home = vocab.in_home(target) or target.startswith("/")
            if home or payload or secret:
                extra = f" with {words(payload or secret, fact)}" if (payload or secret) else ""
                yield self._raw("capabilities.agent-config", (
                    f"{where} writes {target}, an agent's configuration{extra}"), fact)
            else:
                yield self._raw("capabilities.project-agent-config", (
                    f"{where} writes {target}, a project's agent instructions or settings"),
                    fact)
            return
        if payload:
            yield self._raw("capabilities.persistence-payload", (
                f"{where} installs {words(payload, fact)} into {target}"), fact)
        else:
            yield self._raw("capabilities.persistence", (
                f"{where} writes {target} ({fact.detail}): it runs again later"), fact)

    def _combinations(self, reads: list[Fact], senders: list[Fact], exfiltrated: set[Source],
                      seen: set[tuple[str, str, int]]) -> Iterator[Raw]:
        sending = [f for f in senders if _is_script(f.path) and f.value is not None
                   and host_class(f.value) != "loopback" or (f.value is None and f.carries)]
        for fact in reads:
            if any(s in exfiltrated for s in fact.carries):
                continue
            found = vocab.secret_path(fact.value or "")
            label = found[0] if found else (fact.detail or "")
            where = f"{fact.path}:{fact.line}"
            value = shown(fact.value or "")
            if label in CRITICAL and sending:
                other = sending[0]
                rule = "capabilities.secret-and-network"
                message = (f"{where} reads {value} ({label}) and "
                           f"{other.path}:{other.line} sends data to {destination(other)}")
            elif any(s.grade == HIGH for s in fact.carries) and _is_script(fact.path) and (
                    fact.detail != "command"):
                rule = "capabilities.secret-read"
                message = f"{where} reads {value} ({label})" + (
                    f"; the skill also sends data to {destination(sending[0])} "
                    f"({sending[0].path}:{sending[0].line})" if sending else "")
            else:
                continue
            key = (rule, fact.path, fact.line)
            if key not in seen:
                seen.add(key)
                yield self._raw(rule, message, fact)


def _program_is_data(value: str | None) -> bool:
    """Whether a ``subprocess`` argument list runs data: its program is unknown or an
    interpreter or shell (``["bash", "-c", x]``, ``["python", "-c", x]``)."""
    if not value:
        return True
    first = value.split(" ", 1)[0]
    if HOLE in first:
        return True
    return vocab.tool_name(first) in vocab.INTERPRETERS


__all__ = ["CRITICAL", "Judge", "Raw", "describe"]
