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



def test_file_kind_names_a_path_as_pathlib_does() -> None:
    # file_kind reads a path's name and suffix with string operations; pathlib's reading is
    # the reference (the kind of every path must be what it gives).
    import random
    from pathlib import PurePosixPath

    from lemon_core.auditor_kit import scripts

    def reference(path: str) -> tuple[str, str | None]:
        name = PurePosixPath(path).name
        lower = name.lower()
        suffix = PurePosixPath(lower).suffix
        if suffix in scripts.SCRIPT_SUFFIXES:
            return "script", scripts.SCRIPT_SUFFIXES[suffix]
        if lower in scripts.SCRIPT_NAMES:
            return "script", scripts.SCRIPT_NAMES[lower]
        if lower.startswith("dockerfile") or lower.endswith(".mk"):
            return "script", "shell"
        if suffix in scripts.MARKDOWN_SUFFIXES:
            return "markdown", None
        if suffix in scripts.DATA_SUFFIXES or lower.startswith(".env"):
            return "data", None
        return "text", None

    rng = random.Random(5)
    parts = ["a", "b", ".", "..", "/", "//", ".md", ".PY", ".tar.gz", "Makefile", ".env",
             "Dockerfile", "x.", ".sh", "SKILL", "é", ".mk", ".Json"]
    for _ in range(20000):
        path = "".join(rng.choice(parts) for _ in range(rng.randint(1, 6)))
        assert scripts.file_kind(path) == reference(path), path
