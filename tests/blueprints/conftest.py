from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core.testing import EventRecorder
from tests.install.support import make_plugins


@pytest.fixture
def recorder() -> EventRecorder:
    return EventRecorder()


@pytest.fixture
def plugins(recorder: EventRecorder):
    return make_plugins(recorder)


@pytest.fixture
def ctx(make_ctx):
    return make_ctx()


@pytest.fixture
def agent(home: Path) -> Path:
    return home / ".lemon" / "agent"
