"""Real parts for install tests: the real ``local`` source, a small auditor and a recorder."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import Finding
from lemon_core.testing import EventRecorder, inline_plugins


class MarkerAuditor:
    """Warns on a file holding WARNME, blocks on one holding BLOCKME."""

    name = "marker"
    rules_version = "1"

    def audit(self, bundle: Any) -> list[Finding]:
        found = []
        for item in bundle.files:
            text = item.text or ""
            for marker, severity in (("WARNME", "warn"), ("BLOCKME", "block")):
                if marker in text:
                    found.append(Finding(f"test.{severity}", severity, f"{marker} found",
                                         path=item.path, auditor=self.name))
        return found


class MarkerPlugin:
    @hookimpl
    def lemon_register_auditors(self, register: Any) -> None:
        register(MarkerAuditor())


def make_plugins(recorder: EventRecorder | None = None) -> Any:
    from lemon_plugins.sources import local

    extra: list[Any] = [("sources.local", local), ("auditors.marker", MarkerPlugin())]
    if recorder is not None:
        extra.append(("inline.recorder", recorder))
    return inline_plugins(*extra)


def snapshot(*roots: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``roots``: kind, and content hash (files), target (links) or mode."""
    seen: dict[str, tuple[str, str]] = {}
    for root in roots:
        if not os.path.lexists(root):
            continue
        for parent, dirs, files in os.walk(root):
            for name in dirs + files:
                path = os.path.join(parent, name)
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    seen[path] = ("link", os.readlink(path))
                elif stat.S_ISDIR(info.st_mode):
                    seen[path] = ("dir", oct(stat.S_IMODE(info.st_mode)))
                else:
                    data = Path(path).read_bytes()
                    seen[path] = ("file", hashlib.sha256(data).hexdigest())
    return seen


def skill_folder(parent: Path, name: str, body: str = "Body.\n", *,
                 extra: dict[str, str] | None = None, manifest_name: str | None = None) -> Path:
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {manifest_name or name}\ndescription: Use when testing {name}.\n---\n"
        f"{body}", encoding="utf-8")
    for relative, text in (extra or {}).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


class Faults:
    """Which step of a write fails, injected as the write's steps (never patched): ``step``
    raises ``error`` on its ``at``-th call (1 = the first) only; every other call runs the
    real step (a rollback writing the lockfile back works). ``calls`` counts every call."""

    def __init__(self, step: str, error: BaseException, at: int = 1, *,
                 after: bool = False) -> None:
        """``after``: the failing call runs the real step first (a crash just after it)."""
        self.step, self.error, self.at, self.after = step, error, at, after
        self.calls = 0

    def steps(self) -> Any:
        from lemon_core.install.pipeline import InstallSteps

        faults = self
        real = getattr(InstallSteps, self.step)

        def failing(steps: Any, *args: Any, **kwargs: Any) -> Any:
            faults.calls += 1
            if faults.calls != faults.at:
                return real(steps, *args, **kwargs)
            if faults.after:
                real(steps, *args, **kwargs)
            raise faults.error

        return type("FailingSteps", (InstallSteps,), {self.step: failing})()
