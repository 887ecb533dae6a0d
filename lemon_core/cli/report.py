"""How a long command shows that it is working: a progress bar on a terminal, one line per
skill on stderr otherwise, nothing with ``-q``/``--quiet``.

The library reports through what it already has: the progress callback (fetches, and each
skill checked during a multi-skill install) drives the bar; the ``lemon_skill_written``
observer hook, which every install, update, sync and removal sends per skill, drives the
lines (:class:`SkillLines`, registered in-process like any observer plugin). Both go to stderr,
imported only by the commands that show them (``lemon --help`` never loads pluggy).
so ``--json`` output on stdout stays one document; with ``--json`` there are no lines either.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lemon_core.hookspecs import hookimpl

#: What an accepted write event did, as a line says it.
_DONE = {"install": "installed", "update": "updated", "remove": "removed"}


class SkillLines:
    """An observer plugin printing ``lemon: installed KEY (SCOPE)`` on stderr for each skill
    written, or with ``bar`` (a progress callback) showing it in the bar instead; refusals are
    reported by the command itself, with their reasons."""

    def __init__(self, bar: Any = None) -> None:
        self.bar = bar
        self.count = 0

    @hookimpl
    def lemon_skill_written(self, event: Any) -> None:
        if not event.accepted:
            return
        from lemon_core.cli.output import warn

        self.count += 1
        scope = f" ({event.scope})" if event.scope else ""
        line = f"{_DONE.get(event.action, event.action)} {event.key}{scope}"
        if self.bar is not None:
            self.bar(self.count, None, line)
        else:
            warn(line, label=None)


def bar_wanted(as_json: bool, quiet: bool) -> bool:
    """A progress bar: on a terminal, for a person (not ``--json``), unless ``--quiet``."""
    return not (as_json or quiet) and sys.stderr.isatty()


def lines_wanted(as_json: bool, quiet: bool) -> bool:
    """Per-skill lines on stderr: without a terminal (where there is no bar), for a person."""
    return not (as_json or quiet) and not sys.stderr.isatty()


def plugins_for(cwd: Path | None, lines: bool, bar: Any = None) -> Any:
    """The plugins an install, update or sync loads, with :class:`SkillLines` among them when
    ``lines`` (or a ``bar`` to show each skill in); None leaves the library to load its own."""
    if not lines and bar is None:
        return None
    from lemon_core.context import LemonContext
    from lemon_core.plugins import load_plugins

    ctx = LemonContext.from_environment(cwd)
    return load_plugins(ctx, needs=("lemon.sources", "lemon.auditors"),
                        extra=[("cli.skill_lines", SkillLines(None if lines else bar))])


def on_bar(bar: Any, line: Any) -> Any:
    """A per-result callback that shows ``line(result)`` in ``bar`` (None: no callback)."""
    if bar is None:
        return None
    seen = [0]

    def show(result: Any) -> None:
        seen[0] += 1
        bar(seen[0], None, line(result))

    return show


def checked(name: str, verdict: str) -> None:
    """``lemon: checked NAME (VERDICT)`` on stderr (``lemon skill audit`` without a
    terminal)."""
    from lemon_core.cli.output import warn

    warn(f"checked {name} ({verdict})", label=None)


__all__ = ["SkillLines", "bar_wanted", "checked", "lines_wanted", "on_bar", "plugins_for"]
