"""The off switch of lemon's speed-ups: ``LEMON_PLAIN``.

Each speed-up that leans on more than a dependency's documented API lives behind one seam, and
each seam asks :func:`plain` before taking its shortcut: ``LEMON_PLAIN=1`` (or ``all``) turns
every one off, ``LEMON_PLAIN=dispatch,process`` the named ones. The seams, each with a test that
its shortcut gives what the plain path gives:

==========  ===========================================  ===================================
seam        shortcut                                     plain path
==========  ===========================================  ===================================
process     ``gc.freeze()`` after the imports            the collector as Python leaves it
            (:mod:`lemon_core.cli.process`)
dispatch    Typer builds only the command a run names    Typer builds every command
            (:mod:`lemon_core.cli.dispatch`)
yaml        frontmatter of text, lists and plain values   PyYAML's full safe loader
            built from libyaml's events
            (:mod:`lemon_core.manifest.parse_fast`)
==========  ===========================================  ===================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: The environment variable.
SWITCH = "LEMON_PLAIN"


def plain(seam: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether the seam named ``seam`` must take its plain path."""
    value = (os.environ if env is None else env).get(SWITCH, "").strip().lower()
    if not value:
        return False
    return value in ("1", "all", "true", "yes") or seam in value.replace(" ", "").split(",")


__all__ = ["SWITCH", "plain"]
