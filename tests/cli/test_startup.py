"""``lemon --help`` stays fast because heavy libraries wait for the commands that need them."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import LEMON

pytestmark = pytest.mark.integration  # starts processes or loopback servers

HEAVY = ("yaml", "cattrs", "attrs", "pluggy", "dulwich", "pydantic", "mcp", "strictyaml",
         "tomllib", "tomli", "lemon_core.skills.api", "lemon_core.models", "tree_sitter")


def _loaded_after(code: str) -> list[str]:
    probe = (f"{code}\nimport sys\n"
             f"print('LOADED:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    loaded = result.stdout.rsplit("LOADED:", 1)[1].strip()
    return [m for m in loaded.split(",") if m]


def test_importing_the_cli_imports_no_heavy_library() -> None:
    assert _loaded_after("import lemon_core.cli") == []


def test_help_of_every_group_imports_no_heavy_library() -> None:
    for argv in ([], ["skill"], ["mcp"], ["plugins"]):
        code = ("from lemon_core.cli import main\n"
                f"try:\n    main({[*argv, '--help']!r})\nexcept SystemExit:\n    pass")
        assert _loaded_after(code) == [], argv


def test_version_and_completion_import_no_heavy_library() -> None:
    for argv in (["--version"], ["-V"], ["--show-completion", "bash"], ["skill", "-h"]):
        code = ("from lemon_core.cli import main\n"
                f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass")
        assert _loaded_after(code) == [], argv
    completing = ("import os\nos.environ.update(_LEMON_COMPLETE='complete_bash', "
                  "COMP_WORDS='lemon skill inspect --', COMP_CWORD='3')\n"
                  "from lemon_core.cli import main\n"
                  "try:\n    main([])\nexcept SystemExit:\n    pass")
    assert _loaded_after(completing) == []


def test_help_runs_as_a_console_script_and_as_a_module() -> None:
    """The script installed next to this interpreter (found without ``PATH``: no virtual
    environment need be activated), and ``python -m lemon_core.cli``, which the tests use."""
    script = str(Path(sys.executable).with_name("lemon"))
    for argv in ([script, "--help"], [*LEMON, "--help"]):
        result = subprocess.run(argv, capture_output=True, text=True, check=True)
        assert "skill" in result.stdout and "mcp" in result.stdout and "plugins" in result.stdout
        assert result.stdout.startswith("Usage: lemon ")


def test_importing_the_cli_leaves_the_collector_as_it_was() -> None:
    """The collector is off while the commands import (a faster start), then as before."""
    for before, expected in (("", "True"), ("gc.disable()\n", "False")):
        code = f"import gc\n{before}import lemon_core.cli\nprint(gc.isenabled())"
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True)
        assert result.stdout.strip() == expected

