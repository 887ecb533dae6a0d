"""lemon's own figures on a corpus: the library in this process, the CLI in subprocesses.

* **cold scan** — ``Catalog(roots, aux_files).snapshot()`` on a fresh catalog with no
  persistent cache: walk, read and parse every SKILL.md, build the entries.
* **cold list** — ``list_skills(ctx, refresh=True)``: the cold scan plus settings, lockfile and
  the status of every entry (informational).
* **warm list** — the catalog already built, sleep past the 50 ms coalescing interval so the
  identity check really runs, then ``list_skills(ctx)``: the check (stat every recorded path)
  plus the status of every entry.
* **identity check** — ``CatalogSnapshot.unchanged()`` alone (informational).
* **cli list first/second** — ``lemon skill list --json --cwd PROJECT`` with ``HOME`` the
  corpus home and ``LEMON_CACHE_DIR`` an emptied folder, then the same again on the unchanged
  tree (the persistent cache answers it).
* **help** — ``lemon --help``; **python startup** — ``python -c pass`` for comparison.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import median
from typing import Any

import attrs
from floors import timed

#: The identity check runs at most once per this many seconds; sleep longer than it.
COALESCE_SLEEP = 0.06


@attrs.frozen
class Corpus:
    """Where a generated corpus lives: the project (cwd) and the fake home."""

    project: Path
    home: Path


def lemon_context(corpus: Corpus, cache_dir: Path) -> Any:
    from lemon_core.context import LemonContext

    env = {"HOME": str(corpus.home), "PATH": os.environ.get("PATH", ""),
           "LEMON_CACHE_DIR": str(cache_dir)}
    return LemonContext(cwd=corpus.project, home=corpus.home, env=env)


def root_paths(ctx: Any) -> list[str]:
    """The roots lemon reads for this context, in precedence order."""
    from lemon_core.catalog.roots import skill_roots

    return [str(root.path) for root in skill_roots(ctx)]


def library_figures(ctx: Any, repeat: int) -> dict[str, Any]:
    """Cold scan, cold list, warm list and the identity check alone, in milliseconds."""
    from lemon_core.catalog.snapshot import Catalog
    from lemon_core.skills import api
    from lemon_core.skills.workspace import Workspace

    workspace = Workspace(ctx)  # a long-lived process (a server, an embedder) holds one
    template = workspace.catalog()
    roots, aux = template.roots, template.aux_files
    Catalog(roots, aux).snapshot()  # warm-up: imports and the OS cache, untimed
    cold_ms, snapshot = timed(lambda: Catalog(roots, aux).snapshot(), repeat)
    cold_list_ms, _ = timed(lambda: api.list_skills(ctx, refresh=True), repeat)
    listing = api.list_skills(workspace=workspace)
    catalog = workspace.catalog()
    built = catalog.snapshot()
    warm: list[float] = []
    checks_ran = True
    for _ in range(max(1, repeat)):
        checked_before = getattr(catalog, "_checked_at", None)
        time.sleep(COALESCE_SLEEP)
        started = time.perf_counter()
        listing = api.list_skills(workspace=workspace)
        warm.append((time.perf_counter() - started) * 1000)
        checks_ran &= getattr(catalog, "_checked_at", None) != checked_before
    rebuilt = catalog.snapshot() is not built
    check_ms, same = timed(built.unchanged, repeat)
    errors = sum(1 for d in listing.diagnostics if d.severity == "error")
    return {
        "cold scan": cold_ms, "cold list": cold_list_ms, "warm list": median(warm),
        "identity check": check_ms,
        "notes": {
            "entries": len(listing.skills), "errors": errors,
            "diagnostics": len(listing.diagnostics), "found": len(snapshot.parsed),
            "shadowing": sum(1 for item in listing.skills if item.entry.shadowed),
            "check_ran": checks_ran, "rebuilt": rebuilt, "unchanged": same,
        },
    }


def lemon_command() -> list[str]:
    """The ``lemon`` console script of this interpreter (no shims), or an equivalent."""
    script = Path(sys.executable).with_name("lemon")
    if script.exists():
        return [str(script)]
    code = "import sys; sys.argv[0] = 'lemon'; from lemon_core.cli import main; main()"
    return [sys.executable, "-c", code]


def cli_env(corpus: Corpus, cache_dir: Path, pycache: Path) -> dict[str, str]:
    """The process environment minus ``LEMON_*``, with the corpus home and a private cache.

    Byte-code goes to ``pycache`` (``PYTHONPYCACHEPREFIX``) even where the environment says
    ``PYTHONDONTWRITEBYTECODE``: an installed lemon runs from compiled modules, and so should
    the figures (without writing into the source tree).
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEMON_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(corpus.home), LEMON_CACHE_DIR=str(cache_dir),
               PYTHONPYCACHEPREFIX=str(pycache))
    return env


def _run(argv: Sequence[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    return (time.perf_counter() - started) * 1000, done


class CliError(RuntimeError):
    """A lemon subprocess failed; the message carries its stderr."""


def cli_figures(corpus: Corpus, work: Path, repeat: int) -> dict[str, Any]:
    """First and second ``lemon skill list --json``, ``lemon --help``, ``python -c pass``.

    ``work`` holds the cache folder (emptied before every first run) and the byte-code.
    """
    cache_dir = work / "cache-cli"
    env = cli_env(corpus, cache_dir, work / "pycache")
    lemon = lemon_command()
    list_argv = [*lemon, "skill", "list", "--json", "--cwd", str(corpus.project)]
    for argv in ([*lemon, "--help"], list_argv):  # warm-up: byte-code, OS cache; untimed
        _run(argv, env)
    first, second, counts = [], [], set()
    for _ in range(max(1, repeat)):
        shutil.rmtree(cache_dir, ignore_errors=True)
        for bucket in (first, second):
            ms, done = _run(list_argv, env)
            if done.returncode != 0:
                raise CliError(done.stderr.decode(errors="replace").strip()[-500:])
            bucket.append(ms)
            counts.add(len(json.loads(done.stdout)["skills"]))
    help_ms = median(_run([*lemon, "--help"], env)[0] for _ in range(max(3, repeat)))
    python_ms = median(_run([sys.executable, "-c", "pass"], env)[0]
                       for _ in range(max(3, repeat)))
    return {"cli list first": median(first), "cli list second": median(second),
            "help": help_ms, "python startup": python_ms,
            "notes": {"cli_entries": sorted(counts), "command": " ".join(lemon)}}


def help_figure(corpus: Corpus, work: Path, repeat: int) -> float:
    """``lemon --help`` alone (when the list cannot run)."""
    env = cli_env(corpus, work / "cache-cli", work / "pycache")
    lemon = lemon_command()
    _run([*lemon, "--help"], env)
    return median(_run([*lemon, "--help"], env)[0] for _ in range(max(3, repeat)))


__all__ = ["CliError", "Corpus", "cli_env", "cli_figures", "help_figure", "lemon_command",
           "lemon_context", "library_figures", "root_paths"]
