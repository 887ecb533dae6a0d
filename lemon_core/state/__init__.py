"""Skill state: what the user switched on or off, what was installed, and what is ready.

- :mod:`~lemon_core.state.settings`: ``skills.json`` per scope.
- :mod:`~lemon_core.state.lockfile`: ``skills.lock.json`` (install provenance, audit status).
- :mod:`~lemon_core.state.readiness`: a skill's status from PATH, environment, settings and lock.
"""
