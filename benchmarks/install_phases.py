"""Run ``lemon skill install ARGS`` in this process and print, on stderr as one JSON line, the
CPU seconds of each phase (``bench_install.py --phases`` runs it in a new process per run).

The phases are the install's own steps (the methods of
``lemon_core.install.pipeline.InstallSteps``, which every install takes), timed by wrapping
them, plus the imports that come first:

- ``import typer + lemon_core.cli``: the CLI, before any command runs;
- ``import the install library``: ``lemon_core.skills.installing`` and what it imports
  (pipeline, manifest and YAML, models, audit host, source kit), and the plugin loader;
- ``plugins: find entry points`` and ``plugins: import <group>`` / ``plugins: register``;
- ``fetch`` (the source's fetch, with dulwich and ``http.client`` imports on first use),
  ``checks`` (safe-tree scan, manifest, bundle hash, re-hash), ``audit`` (every auditor's
  run, the verdict cache), ``activate``, ``lockfile record`` (cattrs on first use),
  ``catalog refresh``, ``sweep`` (staging folders and backups), ``notify``;
- ``other``: what the command spent outside those (Typer, routing, approval, output).

Nothing here changes what runs: each wrapper calls the function it replaces.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
import time
from typing import Any

PHASES: dict[str, float] = {}
clock = time.process_time


def _add(name: str, since: float) -> None:
    PHASES[name] = PHASES.get(name, 0.0) + clock() - since


def _wrap(module: Any, attribute: str, phase: str) -> None:
    original = getattr(module, attribute)

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        since = clock()
        try:
            return original(*args, **kwargs)
        finally:
            _add(phase, since)

    setattr(module, attribute, timed)


def main(argv: list[str]) -> None:
    gc.disable()  # as the console script runs
    since = clock()
    from lemon_core.cli import main as lemon

    _add("import typer + lemon_core.cli", since)
    since = clock()
    import lemon_core.skills.installing  # noqa: F401
    from lemon_core import plugins
    from lemon_core.install import backups, checks, pipeline, staging

    _add("import the install library", since)
    _wrap(plugins, "_scan", "plugins: find entry points")
    original_import = plugins._import

    def timed_import(cand: Any) -> object:
        start = clock()
        try:
            return original_import(cand)
        finally:
            _add(f"plugins: import {cand.group.removeprefix('lemon.')}", start)

    plugins._import = timed_import  # type: ignore[assignment]
    _wrap(plugins.Plugins, "register", "plugins: register")
    for attribute, phase in (("fetch", "fetch"), ("audit", "audit"),
                             ("activate", "activate"), ("record", "lockfile record"),
                             ("refresh", "catalog refresh"), ("notify", "notify")):
        _wrap(pipeline.InstallSteps, attribute, phase)  # the steps every install takes
    for attribute in ("check_tree", "check_manifest", "hash_bundle", "content_hash", "rehash"):
        _wrap(checks, attribute, "checks")
    _wrap(staging, "sweep_stale", "sweep")
    _wrap(backups, "sweep", "sweep")
    since = clock()
    try:
        lemon(argv)
    except SystemExit as exc:
        if exc.code:
            raise
    command = clock() - since
    inner = sum(v for k, v in PHASES.items() if not k.startswith("import "))
    PHASES["other"] = command - inner
    print(json.dumps(PHASES), file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # as the console script leaves: no teardown of every object


if __name__ == "__main__":
    main(sys.argv[1:])
