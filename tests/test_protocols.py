"""protocols: a plugin object's optional members are protocols of their own, which the host
checks with ``isinstance`` (and a type checker sees), instead of reading them by name."""

from __future__ import annotations

from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.plugins import load_plugins
from lemon_core.protocols import (
    BindingSource,
    CatalogSource,
    SourceForms,
    UserOptIn,
    UserPaths,
    VersionedAuditor,
)


def test_the_built_in_plugins_satisfy_their_optional_protocols(tmp_path: Path) -> None:
    ctx = LemonContext(cwd=tmp_path, home=tmp_path, env={"HOME": str(tmp_path)})
    plugins = load_plugins(ctx)
    sources = {source.name: source for source in plugins.sources()}
    assert all(isinstance(source, SourceForms) for source in sources.values())
    assert isinstance(sources["local"], BindingSource)
    assert not isinstance(sources["gh"], BindingSource)
    assert isinstance(sources["hermes"], CatalogSource)
    assert not isinstance(sources["git"], CatalogSource)
    importers = {importer.name: importer for importer in plugins.mcp_importers()}
    assert isinstance(importers["omp"], UserOptIn)
    assert isinstance(importers["claude"], UserOptIn) and isinstance(importers["claude"], UserPaths)
    assert all(isinstance(auditor, VersionedAuditor) for auditor in plugins.auditors())


def test_an_object_without_the_member_is_not_taken_for_one() -> None:
    class Bare:
        name = "bare"

    assert not any(isinstance(Bare(), kind) for kind in (
        BindingSource, CatalogSource, SourceForms, UserOptIn, UserPaths, VersionedAuditor))
