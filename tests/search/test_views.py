"""read_skill's text views: headings outside fences, sections, the summary, the clamp."""

from __future__ import annotations

import pytest

from lemon_core.search.views import (
    UnknownSectionError,
    clamp,
    headings,
    section,
    summary,
)

TEXT = """---
name: demo
description: A demo.
---
# Demo

## Install
Run `pip install demo`.

```sh
# not a heading
```

### Windows
Use the installer.

## Usage ##
Call it.
"""


def test_headings_skip_fenced_code() -> None:
    assert [(level, title) for level, title, _ in headings(TEXT.split("---\n", 2)[2])] == [
        (1, "Demo"), (2, "Install"), (3, "Windows"), (2, "Usage")]


def test_section_by_heading_case_and_punctuation_insensitive() -> None:
    install = section(TEXT, "install")
    assert install.startswith("## Install\n") and "### Windows" in install
    assert "# not a heading" in install and "## Usage" not in install
    assert section(TEXT, "## USAGE") == "## Usage ##\nCall it.\n"
    assert section(TEXT, "windows").startswith("### Windows")


def test_unknown_section_names_the_headings() -> None:
    with pytest.raises(UnknownSectionError) as caught:
        section(TEXT, "nope", key="demo")
    assert caught.value.headings == ("Demo", "Install", "Windows", "Usage")
    assert "'Install'" in str(caught.value)


def test_summary_outline_and_files() -> None:
    text = summary("demo", "Demo Tool", "A demo.", TEXT, ("scripts/run.sh",))
    assert text == ("# Demo Tool (demo)\n\nA demo.\n\nSections:\n- Demo\n  - Install\n"
                    "    - Windows\n  - Usage\n\nFiles:\n- scripts/run.sh\n")


def test_clamp() -> None:
    assert clamp("abc", None) == ("abc", False) and clamp("abc", 3) == ("abc", False)
    cut, truncated = clamp("abcdef", 2)
    assert truncated and cut.startswith("ab\n[... truncated: 2 of 6 characters shown]")
