from __future__ import annotations

import re
import subprocess
import sys

import pytest

from lemon_core.auditor_kit.lazy import LazyPattern, lazy_compile

pytestmark = pytest.mark.integration  # starts processes or loopback servers

_CHECK = """
import lemon_plugins.auditors.code.commands as commands
import lemon_plugins.auditors.code.exfil as exfil
import lemon_plugins.auditors.code.scan as scan
import lemon_plugins.auditors.instructions as instructions
from lemon_core.auditor_kit import decode, markdown
from lemon_core.auditor_kit.lazy import LazyPattern
lazy = [v for m in (commands, exfil, scan, instructions, decode, markdown)
        for v in vars(m).values() if isinstance(v, LazyPattern)]
assert len(lazy) > 40, len(lazy)
assert not [p for p in lazy if "_compiled" in vars(p)], "compiled at import"
"""


def test_importing_the_auditors_compiles_no_pattern() -> None:
    subprocess.run([sys.executable, "-c", _CHECK], check=True)


def test_a_lazy_pattern_acts_as_the_compiled_one() -> None:
    lazy = lazy_compile(r"c(u)rl", re.IGNORECASE)
    assert isinstance(lazy, LazyPattern) and "_compiled" not in vars(lazy)
    assert lazy.search("x CURL y").span() == (2, 6)
    assert [m.group(1) for m in lazy.finditer("curl Curl")] == ["u", "u"]
    assert lazy.sub("-", "curl") == "-" and lazy.flags & re.IGNORECASE and lazy.groups == 1
    assert lazy.compiled() is re.compile(r"c(u)rl", re.IGNORECASE)
