"""plain: the one off switch of the speed-ups, all of them or by seam name."""

from __future__ import annotations

import pytest

from lemon_core.plain import plain


@pytest.mark.parametrize(("value", "dispatch", "process"), [
    (None, False, False), ("", False, False), ("0", False, False), ("1", True, True),
    ("all", True, True), ("dispatch", True, False), ("process, dispatch", True, True),
    ("yaml", False, False),
])  # fmt: skip
def test_plain_by_seam(value: str | None, dispatch: bool, process: bool) -> None:
    env = {} if value is None else {"LEMON_PLAIN": value}
    assert (plain("dispatch", env), plain("process", env)) == (dispatch, process)


def test_plain_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEMON_PLAIN", "dispatch")
    assert plain("dispatch") and not plain("process")
