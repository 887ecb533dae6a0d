"""auditor_kit.scripts: what kind of file an entry is."""

from __future__ import annotations

import pytest

from lemon_core.auditor_kit import fence_language, file_kind, is_comment


@pytest.mark.parametrize(("path", "text", "expected"), [
    ("SKILL.md", "# x", ("markdown", None)),
    ("scripts/run.sh", "echo", ("script", "shell")),
    ("tool.PY", "", ("script", "python")),
    ("bin/setup", "#!/usr/bin/env python3\nprint()", ("script", "python")),
    ("notes.md", "#!/bin/bash\ncurl x", ("script", "shell")),
    ("Makefile", "all:", ("script", "shell")),
    ("package.json", "{}", ("data", None)),
    ("payload.bin", "abc", ("text", None)),
    ("run", "#!/usr/bin/env -S node --no-warnings\n", ("script", "javascript")),
])  # fmt: skip
def test_file_kind(path: str, text: str, expected: tuple[str, str | None]) -> None:
    assert file_kind(path, text) == expected


def test_fence_language_and_comments() -> None:
    assert fence_language("bash title=install.sh") == "shell"
    assert fence_language("{.python}") == "python"
    assert fence_language("") is None
    assert is_comment("  # hi", "shell") and not is_comment("#!/bin/sh", "shell")
    assert is_comment("// hi", "javascript") and not is_comment("x = 1  # hi", "python")
