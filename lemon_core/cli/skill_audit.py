"""``lemon skill …`` commands of this module register on :data:`lemon_core.cli.skill_app.app`."""

from __future__ import annotations

from lemon_core.cli.skill_app import app  # noqa: F401
