"""The ``capabilities`` auditor family: what a skill's code can do, and where its data goes.

Python is parsed with :mod:`ast` and run through a small abstract interpreter
(:mod:`lemon_core.auditor_kit.capabilities.python`) that folds constants (fragments,
character codes, rot13, hex, base64, zlib, ``getattr``/``__import__``) and follows data
from where it is read (a credential store, the environment, a decoder, the network) to where
it goes (a network client, an interpreter, a shell, an agent's configuration). Markdown
fences and shell lines that run the skill's scripts are read for the pipes and files that
join them. JavaScript, TypeScript, Ruby, Perl and PHP are read the same way over tree-sitter
grammars (files, fenced blocks, ``perl -e``/``ruby -e``/``php -r`` on shell lines, ``node -e``
in npm install hooks). The flow judge (:mod:`.judge`) combines the facts of every file: a secret reaching
the network, or decoded or fetched data reaching an interpreter, blocks wherever the pieces
sit in the skill; a capability a legitimate skill may need alone warns. The rule table is
:mod:`.rules`.
"""

from __future__ import annotations

from collections.abc import Iterator

from lemon_plugins.auditors.capabilities.guards import guarded
from lemon_plugins.auditors.capabilities.judge import Judge
from lemon_plugins.auditors.capabilities.rules import POLICY, RULES, RULES_VERSION

from lemon_core import hookimpl
from lemon_core.auditor_kit.capabilities.bundle import file_facts
from lemon_core.protocols import AuditBundle, Finding

FAMILY = "capabilities"


class CapabilitiesAuditor:
    """Capabilities and flows of a skill's code (see the module docstring)."""

    name = "capabilities"
    rules_version = RULES_VERSION
    rules = RULES
    policy = POLICY

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        files = file_facts(bundle)
        if not files:
            return
        paths = [f.path for f in bundle.files if f.kind == "file"]
        sources = {f.path: f.text for f in bundle.files if f.kind == "file" and f.text}
        for raw in Judge(files, paths).findings():
            raw = guarded(raw, sources)
            yield Finding(rule=raw.rule, severity=raw.severity,  # type: ignore[arg-type]
                          message=raw.message, path=raw.path, auditor=self.name,
                          family=FAMILY, line=raw.line, excerpt=raw.excerpt or None)


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    register(CapabilitiesAuditor())


__all__ = ["CapabilitiesAuditor", "lemon_register_auditors"]
