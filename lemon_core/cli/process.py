"""How a ``lemon`` process runs and ends: the one place for process-wide settings.

A command is a short-lived process: it imports Typer and its commands, builds its answer and
exits. :func:`run_process` runs :func:`lemon_core.cli.main` as such, with its exit code and
its output complete (a string exit code is printed on stderr and exits 1; a reader that went
away, ``lemon skill list | head``, exits 1 without a traceback).

The speed-up, behind this seam only: ``gc.freeze()`` (public since Python 3.7) moves every
object the imports built into the collector's permanent generation, so the cyclic collector
never walks Typer's and the commands' objects again while the command builds its answer.
``LEMON_PLAIN=process`` (or ``LEMON_PLAIN=1``, :mod:`lemon_core.plain`) turns it off (the plain path; tests/cli/test_process.py checks the
two give the same output and exit codes).

It replaces two tricks of the first releases: the collector turned off while
``lemon_core.cli`` imported (a process-wide switch flipped for every embedder too) and the
exit through ``os._exit`` (skipping the interpreter's own clean-up to save freeing the
objects of a large listing, 0-30 ms of CPU on 2,000 skills: within the noise of a loaded
machine, not worth skipping ``atexit`` handlers and buffered files for).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from lemon_core.plain import plain as _plain


def run_process(main: Callable[[], None]) -> NoReturn:
    """Run ``main`` as the whole process and exit with its code."""
    if not _plain("process"):
        gc.freeze()  # what the imports built lives until the end: never walk it again
    code: int | str | None = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    if isinstance(code, str):
        from lemon_core.cli.output import say

        say(code, err=True)
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (``lemon skill list | head``)
        code = code or 1
        _quiet_stdout()
    sys.exit(code or 0)


def _quiet_stdout() -> None:
    """Point stdout at the null device so that the interpreter's own flush at exit does not
    fail again on the closed pipe (the recipe of the ``signal`` module's documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no file descriptor behind stdout
        pass


__all__ = ["run_process"]
