"""The ``code`` auditor family: what scripts and the commands in a skill's documents would do.

Remote code execution (a download piped to a shell or interpreter), reverse shells,
exfiltration (environment variables, credential files, SSH keys and agent context sent out,
DNS lookups and image URLs carrying data), obfuscated payloads decoded and executed,
persistence, destructive commands, privilege escalation, agent-config writes, typosquatted and
unpinned installs. Context decides (:mod:`lemon_core.auditor_kit.rules`): a command in a
script or a fenced block counts in full, in prose it is a mention, in a "never run this" table
or section it does not count; loopback and documentation hosts are not exfiltration; a
well-known vendor installer is not an unknown host. The rule table is :mod:`.rules`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lemon_plugins.auditors.code import dependencies
from lemon_plugins.auditors.code.rules import POLICY, RULES, RULES_VERSION
from lemon_plugins.auditors.code.scan import LineHits, scan

from lemon_core import hookimpl
from lemon_core.auditor_kit.lines import excerpt
from lemon_core.auditor_kit.rules import finding, texts_of, unique
from lemon_core.protocols import AuditBundle, Finding

FAMILY = "code"


def _names(bundle: AuditBundle) -> frozenset[str]:
    """The skill's own names (its key, its manifest name, their parts), lower case, without
    separators: an installer from a host that names the skill is its own project's."""
    raw = [bundle.key or "", str(getattr(bundle.manifest, "name", "") or "")]
    names = set()
    for value in raw:
        value = value.lower()
        names.add(re.sub(r"[-_. ]", "", value))
        names.update(part for part in re.split(r"[-_. ]", value) if len(part) >= 5)
    return frozenset(name for name in names if len(name) >= 4)


class CodeAuditor:
    """Scripts and the commands in a skill's documents (see the module docstring)."""

    name = "code"
    rules_version = RULES_VERSION
    rules = RULES
    policy = POLICY

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        names = _names(bundle)
        hits = LineHits(names)  # the files of one bundle share lines
        for file in bundle.files:
            if file.kind != "file":
                continue
            found = []
            for text in texts_of(file):
                for rule, severity, message, line, start, end in scan(file.path, text, names,
                                                                      hits):
                    found.append(finding(RULES, rule, severity, message, file.path, line,
                                         start, end, family=FAMILY, auditor=self.name))
            yield from unique(found)
        yield from self._dependencies(bundle)

    def _dependencies(self, bundle: AuditBundle) -> Iterator[Finding]:
        """The dependency files of the bundle, read as data (:mod:`.dependencies`)."""
        files = [(file.path, file.text) for file in bundle.files
                 if file.kind == "file" and file.text]
        for path, number, rule, severity, message in dependencies.findings(files):
            text = next(text for name, text in files if name == path)
            lines = text.splitlines()
            shown = lines[number - 1] if 0 < number <= len(lines) else ""
            yield Finding(rule=rule, severity=severity, message=message,  # type: ignore[arg-type]
                          path=path, auditor=self.name, family=FAMILY, line=number,
                          excerpt=excerpt(shown))


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    register(CodeAuditor())


__all__ = ["CodeAuditor", "lemon_register_auditors"]
