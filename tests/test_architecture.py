"""The layers of docs/architecture.md, as import-linter contracts (pyproject.toml).

The contracts are checked on the real tree, and once on a copy with an upward import planted in
it, so a contract that could never fail would be noticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    script = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", script, "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _copy_tree(target: Path) -> Path:
    shutil.copytree(ROOT / "lemon_core", target / "lemon_core",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copytree(ROOT / "plugins", target / "lemon_plugins",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_tree(tmp_path_factory.mktemp("house"))


def test_every_contract_is_kept(tree: Path) -> None:
    result = _lint_imports(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        ("lemon_core/models.py", "import lemon_core.catalog.snapshot", "the contract and the model import nothing"),
        ("lemon_core/catalog/walk.py", "import lemon_core.cli", "services sit below the CLI"),
        ("lemon_core/catalog/walk.py", "import lemon_core.skills.api", "services sit below the CLI"),
        ("lemon_core/manifest/load.py", "import lemon_plugins.mcp_importers.omp", "lemon_core never imports lemon_plugins"),
        ("lemon_plugins/mcp_importers/omp.py", "import lemon_core.mcp.effective", "plugins use lemon_core's public API only"),
        ("lemon_plugins/mcp_importers/omp.py", "import lemon_plugins.mcp_importers.codex", "built-in plugins never import each other"),
    ],
)  # fmt: skip
def test_a_planted_import_breaks_its_contract(
    tmp_path: Path, module: str, planted: str, contract: str
) -> None:
    tree = _copy_tree(tmp_path)
    target = tree / module
    target.write_text(target.read_text() + f"\n{planted}  # planted by the test\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    assert contract in result.stdout
    assert "BROKEN" in result.stdout


def test_the_house_drawn_from_the_code_has_no_circle() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "house.py"), "--check"],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "no circle between packages" in result.stdout
    assert result.stdout.splitlines()[0].startswith("cli ")
