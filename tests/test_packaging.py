"""Guards on the packaging that built-in plugins depend on.

Built-in plugins are registered through entry points exactly like a third party's, so a package
missing from the explicit ``packages`` list, or an entry point missing from the installed
metadata, would silently drop a plugin. These tests read pyproject.toml, so they stay right as
entry points are added.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.plugins import BUILTIN_DISTRIBUTION, GROUPS, load_plugins

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
REINSTALL = "run `pip install -e '.[test]'` again to refresh the installed metadata"


def declared_entry_points() -> set[tuple[str, str, str]]:
    """(group, name, value) of every built-in plugin declared in pyproject.toml."""
    tables = PYPROJECT["project"].get("entry-points", {})
    return {
        (group, name, value) for group in GROUPS for name, value in tables.get(group, {}).items()
    }


def installed_entry_points() -> list[importlib.metadata.EntryPoint]:
    dist = importlib.metadata.distribution(BUILTIN_DISTRIBUTION)
    return [ep for ep in dist.entry_points if ep.group in GROUPS]


def package_folders() -> dict[str, Path]:
    """Import name → folder of every folder holding Python files under the mapped roots."""
    found = {}
    for import_name, folder in SETUPTOOLS["package-dir"].items():
        root = ROOT / folder
        for path in [root, *sorted(p for p in root.rglob("*") if p.is_dir())]:
            if "__pycache__" in path.parts or not any(path.glob("*.py")):
                continue
            relative = path.relative_to(root).parts
            found[".".join((import_name, *relative))] = path
    return found


def test_the_packages_list_matches_the_package_folders():
    listed = set(SETUPTOOLS["packages"])
    folders = package_folders()
    assert set(folders) == listed, (
        f"pyproject [tool.setuptools] packages must list exactly the package folders; "
        f"missing: {sorted(set(folders) - listed)}, extra: {sorted(listed - set(folders))}"
    )
    no_init = sorted(name for name, path in folders.items() if not (path / "__init__.py").exists())
    assert not no_init, f"package folders without __init__.py: {no_init}"


def test_the_mapped_plugins_package_imports_from_the_plugins_folder():
    package = importlib.import_module("lemon_plugins")
    assert Path(package.__file__).resolve().parent == (ROOT / "plugins").resolve()


def test_builtin_entry_points_in_the_installed_metadata_equal_pyproject():
    installed = {(ep.group, ep.name, ep.value) for ep in installed_entry_points()}
    assert installed == declared_entry_points(), REINSTALL


def test_every_installed_builtin_entry_point_loads():
    for ep in installed_entry_points():
        assert ep.value.startswith("lemon_plugins."), (
            f"{ep.group} {ep.name}: built-ins live in lemon_plugins"
        )
        assert ep.load() is not None, f"{ep.group} {ep.name} = {ep.value}"


def test_lemon_loads_exactly_the_declared_builtins():
    plugins = load_plugins(LemonContext.from_environment(env={}), builtins_only=True)
    loaded = {(info.group, info.name, info.entry_point) for info in plugins.infos}
    expected = {
        (group, f"{GROUPS[group]}.{name}", value) for group, name, value in declared_entry_points()
    }
    assert loaded == expected
    assert all(info.builtin for info in plugins.infos)
    version = importlib.metadata.version(BUILTIN_DISTRIBUTION)
    assert {info.version for info in plugins.infos} <= {version}
    # Registration hooks of every built-in run cleanly (names unique, protocols satisfied).
    plugins.sources(), plugins.mcp_importers(), plugins.auditors()


def test_the_version_in_pyproject_is_installed():
    assert importlib.metadata.version(BUILTIN_DISTRIBUTION) == PYPROJECT["project"]["version"], (
        REINSTALL
    )
