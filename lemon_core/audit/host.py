"""The audit host: read a skill folder once, run every auditor, decide the verdict.

:func:`audit_folder` is what the install pipeline, ``lemon skill audit`` and ``lemon skill
lint`` call. It scans the folder with :func:`lemon_core.fsio.tree.scan_tree` (or takes the
scan the caller made), reads every regular file once (:mod:`lemon_core.audit.bundle`), runs
every registered auditor (the ``lemon.auditors`` group) on the same
:class:`~lemon_core.protocols.AuditBundle`, and returns an :class:`AuditReport`.

- What the host itself sees is a finding (``host.*`` rules of :mod:`~lemon_core.audit.policy`):
  a file it could not read or read only in part, a tree problem no auditor reported, an auditor
  that raised.
- Findings are bounded (per auditor and in all); their message, excerpt and path are escaped
  with :func:`lemon_core.text.escape` and clamped, so a report is safe to print or to paste into
  an agent. The verdict is decided over every finding, shown or not.
- With every auditor versioned (``rules_version``) the result is cached by bundle hash
  (:mod:`~lemon_core.audit.cache`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.audit import policy
from lemon_core.audit.bundle import ReadBundle, read_bundle
from lemon_core.fsio.tree import DEFAULT_LIMITS, TreeLimits, TreeScan, scan_tree
from lemon_core.protocols import Auditor, Finding
from lemon_core.text import escape

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

#: Findings kept from one auditor, and in one report (the verdict counts them all).
MAX_FINDINGS_PER_AUDITOR = 200
MAX_FINDINGS = 500
#: Characters of an excerpt (before escaping) and of a message, path or rule shown.
MAX_EXCERPT = 160
MAX_MESSAGE = 400
MAX_SHOWN = 600
NO_AUDITOR = "no auditor ran"


@attrs.frozen
class AuditReport:
    """The result of auditing one skill folder.

    ``verdict`` is ``pass``, ``warn`` or ``block``; ``bundle_hash`` the hash of the bytes that
    were audited (None when the bundle could not be read whole: such a bundle blocks and
    cannot be overridden); ``findings`` sorted by file then line; ``notes`` plain sentences
    (``"no auditor ran"`` when none is registered). ``auditors`` names each auditor that ran
    with its rules version; ``cached`` says the auditors' findings came from the verdict cache.
    """

    key: str
    path: str
    verdict: str
    bundle_hash: str | None
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    auditors: tuple[tuple[str, str | None], ...] = ()
    cached: bool = False
    #: Every rule that fired, the findings left out of ``findings`` included.
    rules: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.verdict == policy.PASS

    @property
    def blocked(self) -> bool:
        return self.verdict == policy.BLOCK


def _clamp(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value: object, limit: int = MAX_SHOWN) -> str:
    """``value`` escaped for a terminal or an agent, then clamped."""
    return _clamp(escape(_clamp(str(value), limit)), limit)


def _clean(finding: Any, auditor: str) -> Finding:
    """The finding as the host shows it: severity normalised, text escaped and bounded."""
    if not isinstance(finding, Finding):
        raise TypeError(f"yielded a {type(finding).__name__}, not a lemon_core.protocols.Finding")
    excerpt = finding.excerpt if finding.excerpt is not None else finding.match
    line = finding.line if isinstance(finding.line, int) and finding.line > 0 else None
    return Finding(
        rule=_shown(finding.rule or "unnamed", 120),
        severity=policy.severity_of(finding.severity),  # type: ignore[arg-type]
        message=_shown(" ".join(str(finding.message).split()), MAX_MESSAGE),
        path=None if finding.path is None else _shown(finding.path),
        match=None,
        auditor=auditor,
        family=_shown(finding.family or auditor, 60),
        line=line,
        excerpt=None if excerpt is None else _clamp(escape(_clamp(str(excerpt), MAX_EXCERPT)),
                                                    MAX_EXCERPT * 2),
    )


def _run(auditor: Auditor, bundle: Any) -> tuple[list[Finding], int]:
    """The auditor's findings (at most the per-auditor cap) and how many it yielded in all
    beyond that cap; an exception or a wrong object is one ``host.auditor-failed`` finding."""
    name = str(getattr(auditor, "name", "") or type(auditor).__name__)
    found: list[Finding] = []
    extra = 0
    worst_extra = policy.PASS
    try:
        results = iter(auditor.audit(bundle) or ())
        for finding in itertools.islice(results, MAX_FINDINGS_PER_AUDITOR):
            found.append(_clean(finding, name))
        for finding in itertools.islice(results, 100 * MAX_FINDINGS_PER_AUDITOR):
            extra += 1  # counted for the verdict, not kept
            if policy.severity_of(getattr(finding, "severity", "block")) == policy.BLOCK:
                worst_extra = policy.BLOCK
            elif worst_extra == policy.PASS:
                worst_extra = policy.WARN
    except Exception as exc:  # noqa: BLE001 - an auditor never breaks the audit
        found.append(policy.host_finding(
            "host.auditor-failed",
            _shown(f"auditor {name} failed: {type(exc).__name__}: {exc}", MAX_MESSAGE)))
        return found, extra
    if extra:
        found.append(Finding(
            rule="host.findings-capped", severity=worst_extra,  # type: ignore[arg-type]
            message=f"auditor {_shown(name, 80)} reported {extra} more findings than the "
                    f"{MAX_FINDINGS_PER_AUDITOR} kept; the worst of them counts here",
            auditor=policy.HOST, family=policy.HOST))
    return found, extra


def _covered(problem: Any, findings: Sequence[Finding]) -> bool:
    """True when an auditor already reported this tree problem (same path, a rule naming it,
    or the structure family), so the host does not report it twice."""
    path = problem.path
    code = problem.code
    for finding in findings:
        same = finding.path == path or (path in (".", "") and finding.path in (None, ".", ""))
        if same and (code in finding.rule or code.replace("_", "-") in finding.rule
                     or finding.family == "structure"):
            return True
    return False


_READ_RULES = {"truncated": "host.truncated", "archive": "host.archive-unread"}


def _host_findings(read: ReadBundle, findings: Sequence[Finding]) -> list[Finding]:
    own = []
    for problem in read.bundle.problems:
        if not _covered(problem, findings):
            rule = policy.TREE_RULES.get(problem.code, "host.unreadable")
            own.append(policy.host_finding(rule, _shown(problem.message, MAX_MESSAGE),
                                           _shown(problem.path)))
    for problem in read.problems:
        rule = _READ_RULES.get(problem.code, "host.unreadable")
        own.append(policy.host_finding(rule, _shown(problem.message, MAX_MESSAGE),
                                       _shown(problem.path)))
    return own


def _sorted(findings: list[Finding]) -> tuple[tuple[Finding, ...], int]:
    """The findings kept (the worst first when over the cap), sorted by file then line."""
    dropped = 0
    if len(findings) > MAX_FINDINGS:
        findings = sorted(findings, key=lambda f: -policy.rank(f.severity))
        dropped = len(findings) - MAX_FINDINGS
        findings = findings[:MAX_FINDINGS]
    findings.sort(key=lambda f: (f.path or "", f.line or 0, f.rule))
    return tuple(findings), dropped


def _auditors(ctx: LemonContext | None) -> list[Auditor]:
    from lemon_core.plugins import load_plugins

    return load_plugins(ctx).auditors()


def audit_folder(folder: Path, ctx: LemonContext | None = None, *, key: str | None = None,
                 scan: TreeScan | None = None, auditors: Sequence[Auditor] | None = None,
                 limits: TreeLimits = DEFAULT_LIMITS, use_cache: bool = True) -> AuditReport:
    """Audit the skill folder ``folder`` (never follows a link out of it, never runs anything
    in it). ``key`` defaults to the folder's name; ``scan`` is a
    :func:`~lemon_core.fsio.tree.scan_tree` of ``folder`` the caller already made;
    ``auditors`` defaults to every registered one (``lemon.auditors`` entry points, loaded
    for ``ctx``). The verdict cache is used when ``ctx`` is given and ``use_cache``."""
    from lemon_core.audit import cache

    folder = Path(folder)
    if key is None:
        key = folder.name or Path(os.path.abspath(folder)).name
    if scan is None:
        scan = scan_tree(folder, limits)
    if auditors is None:
        auditors = _auditors(ctx)
    read = read_bundle(folder, scan, limits, key)
    versions = tuple((str(getattr(a, "name", "")), cache.rules_version(a)) for a in auditors)
    store = cache.VerdictCache.for_context(ctx) if (ctx is not None and use_cache) else None
    cache_key = cache.cache_key(read, versions) if store is not None else None
    cached = store.load(cache_key) if (store is not None and cache_key is not None) else None
    notes: list[str] = []
    if cached is not None:
        from_auditors = list(cached)
    else:
        from lemon_core.auditor_kit.texts import audited

        from_auditors = []
        failed = False
        with audited(read.bundle):  # one text index for the bundle, shared by its auditors
            for auditor in auditors:
                found, _ = _run(auditor, read.bundle)
                failed = failed or any(f.rule == "host.auditor-failed" for f in found)
                from_auditors.extend(found)
        if store is not None and cache_key is not None and not failed:
            store.save(cache_key, from_auditors)
    if not auditors:
        notes.append(NO_AUDITOR)
    findings = from_auditors + _host_findings(read, from_auditors)
    result = policy.verdict(findings)
    kept, dropped = _sorted(findings)
    if dropped:
        notes.append(f"{dropped} more findings are not listed (the report keeps "
                     f"{MAX_FINDINGS}, the worst first); the verdict counts them all")
    return AuditReport(key=key, path=str(folder), verdict=result,
                       bundle_hash=read.bundle.bundle_hash, findings=kept, notes=tuple(notes),
                       auditors=versions, cached=cached is not None,
                       rules=tuple(sorted({f.rule for f in findings})))


__all__ = ["NO_AUDITOR", "AuditReport", "audit_folder"]
