"""A skill's readiness, from the current PATH, environment, settings and lockfile.

States, first match wins: ``disabled``, ``platform_incompatible``, ``blocked`` (audit status
``block`` in the lockfile), ``not_ready`` (something is missing, or a requested verification
failed), ``active``. Nothing here is cached: status always reads the present.

``verify=True`` acts: it runs a command. What it runs is re-read from the SKILL.md itself at that
moment, never taken from the entry (which may come from a snapshot or the persistent cache), and
the whole status is computed from that fresh manifest.
"""

from __future__ import annotations

import os
import subprocess

import attrs

from lemon_core.context import LemonContext
from lemon_core.models import SkillEntry, SkillStatus, Verification, VerificationResult
from lemon_core.state.records import LockRecord

VERIFY_TIMEOUT_SECONDS = 30.0
MAX_VERIFY_OUTPUT = 64 * 1024


def platform_ok(entry: SkillEntry, ctx: LemonContext) -> bool:
    platforms = entry.manifest.platforms
    return "any" in platforms or ctx.platform in platforms


def _unset(ctx: LemonContext, names: tuple[str, ...]) -> tuple[str, ...]:
    if not names:
        return ()
    env = ctx.env
    return tuple(name for name in names if not env.get(name))


def _missing_programs(ctx: LemonContext, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(name for name in names if ctx.which(name) is None) if names else ()


def run_verification(
    verification: Verification, entry: SkillEntry, ctx: LemonContext,
    timeout: float = VERIFY_TIMEOUT_SECONDS,
) -> VerificationResult:
    """Run the manifest's verification command in the skill's folder, with a timeout."""
    try:
        completed = subprocess.run(
            verification.command, shell=True, cwd=entry.dir, env=dict(ctx.env),
            capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False,
        )
    except subprocess.TimeoutExpired:
        return VerificationResult(None, False, "", f"timed out after {timeout:g} s")
    except OSError as exc:
        return VerificationResult(None, False, "", f"could not run: {exc.strerror}")
    output = completed.stdout[:MAX_VERIFY_OUTPUT].decode("utf-8", "replace")
    passed = completed.returncode == verification.expect_exit and (
        verification.expect_output is None or verification.expect_output in output
    )
    return VerificationResult(completed.returncode, passed, output)


def reread_entry(entry: SkillEntry) -> tuple[SkillEntry | None, str]:
    """``entry`` with its manifest parsed afresh from its SKILL.md (the safe loader), or None
    and why: the file no longer loads, or it resolves outside the skill's folder."""
    # deferred: only --verify pays for it
    from lemon_core.manifest.load import load_manifest

    try:
        folder = os.path.realpath(entry.dir)
        inside = os.path.realpath(entry.path).startswith(folder.rstrip(os.sep) + os.sep)
    except (OSError, ValueError):
        inside = False
    if not inside:
        return None, "its SKILL.md is not a file inside the skill folder; not run"
    result = load_manifest(entry.path, key=entry.key)
    if result.manifest is None:
        first = next((d for d in result.diagnostics if d.severity == "error"), None)
        why = f": {first.message} [{first.code}]" if first is not None else ""
        return None, f"its SKILL.md no longer loads{why}; not run"
    return attrs.evolve(entry, manifest=result.manifest), ""


def compute_status(
    entry: SkillEntry,
    ctx: LemonContext,
    *,
    disabled: bool,
    lock_record: LockRecord | None = None,
    verify: bool = False,
    verify_timeout: float = VERIFY_TIMEOUT_SECONDS,
) -> SkillStatus:
    unverifiable = ""
    if verify:
        fresh, unverifiable = reread_entry(entry)
        entry = fresh if fresh is not None else entry
    manifest = entry.manifest
    missing_bins = _missing_programs(ctx, manifest.requires_bins)
    missing_config = _unset(ctx, manifest.requires_config)
    missing_env = _unset(ctx, manifest.required_environment_variables)
    if missing_env and manifest.optional_environment_variables:
        optional = manifest.optional_environment_variables
        missing_env = tuple(name for name in missing_env if name not in optional)
    missing_tools = _missing_programs(ctx, manifest.requires_tools)
    on_platform = platform_ok(entry, ctx)
    verification = None
    if unverifiable:
        verification = VerificationResult(None, False, "", unverifiable)
    elif verify and manifest.verification is not None:
        verification = run_verification(manifest.verification, entry, ctx, verify_timeout)

    if disabled:
        state = "disabled"
    elif not on_platform:
        state = "platform_incompatible"
    elif lock_record is not None and lock_record.audit_status == "block":
        state = "blocked"
    elif missing_bins or missing_config or missing_env or missing_tools or (
        verification is not None and not verification.passed
    ):
        state = "not_ready"
    else:
        state = "active"
    return SkillStatus(
        key=entry.key, state=state, disabled=disabled, platform_ok=on_platform,
        missing_bins=missing_bins, missing_config=missing_config,
        missing_env_vars=missing_env, missing_tools=missing_tools, verification=verification,
    )


__all__ = ["compute_status", "platform_ok", "reread_entry", "run_verification"]
