"""Fixtures of the source tests: ``web_server`` (tests/registry_server.py) on 127.0.0.1."""

from __future__ import annotations

from tests.registry_server import web_server

__all__ = ["web_server"]
