import os
import time
from pathlib import Path

from lemon_core.catalog import snapshot as catalog_module
from lemon_core.catalog.cache import CacheStore, cache_file
from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.snapshot import Catalog
from lemon_core.models import Diagnostic, SkillManifest


class CountingLoader:
    """Parses ``description: …`` lines only; counts calls so tests can see what was re-read."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: Path, key: str):
        self.calls.append(key)
        text = Path(path).read_text()
        if "broken" in text:
            return None, (Diagnostic(str(path), "error", "yaml_error", "broken"),)
        description = text.split("description: ", 1)[-1].split("\n", 1)[0]
        return SkillManifest(description=description), ()


def _write(root: Path, key: str, description: str = "d") -> Path:
    (root / key).mkdir(parents=True, exist_ok=True)
    path = root / key / "SKILL.md"
    path.write_text(f"---\ndescription: {description}\n---\n")
    return path


def _age(*paths: Path) -> None:
    """Move mtimes out of the racy window, as if the files were written a while ago."""
    old = time.time() - 60
    for path in paths:
        os.utime(path, (old, old))


def _roots(tmp_path: Path) -> tuple[SkillRoot, SkillRoot]:
    return (SkillRoot(tmp_path / "p", "project", "agents"),
            SkillRoot(tmp_path / "g", "global", "agents"))


def _settle(tmp_path: Path) -> None:
    for dirpath, _, files in os.walk(tmp_path):
        _age(Path(dirpath), *(Path(dirpath) / f for f in files))


def test_project_overrides_global_and_lists_what_it_shadows(tmp_path: Path) -> None:
    p, g = _roots(tmp_path)
    shadowed = _write(g.path, "same", "global")
    _write(p.path, "same", "project")
    _write(g.path, "only-global")
    snap = Catalog((p, g), loader=CountingLoader()).snapshot()
    by_key = snap.by_key()
    assert [e.key for e in snap.entries] == ["only-global", "same"]
    assert by_key["same"].description == "project" and by_key["same"].scope == "project"
    assert by_key["same"].shadowed == (str(shadowed),)


def test_a_broken_skill_is_diagnosed_and_does_not_claim_its_key(tmp_path: Path) -> None:
    p, g = _roots(tmp_path)
    (p.path / "same").mkdir(parents=True)
    (p.path / "same" / "SKILL.md").write_text("broken")
    _write(g.path, "same", "global")
    snap = Catalog((p, g), loader=CountingLoader()).snapshot()
    assert snap.by_key()["same"].scope == "global"
    assert [d.code for d in snap.diagnostics] == ["yaml_error"]


def test_unchanged_tree_is_not_reparsed_and_changes_are(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 0.0)
    p, g = _roots(tmp_path)
    a = _write(p.path, "a")
    _write(p.path, "b")
    _settle(tmp_path)
    loader = CountingLoader()
    catalog = Catalog((p, g), loader=loader)
    first = catalog.snapshot()
    assert sorted(loader.calls) == ["a", "b"]
    assert catalog.snapshot() is first and len(loader.calls) == 2
    a.write_text("---\ndescription: changed\n---\n")
    assert catalog.snapshot().by_key()["a"].description == "changed"
    assert loader.calls[2:] == ["a"]
    _write(g.path, "c")
    assert [e.key for e in catalog.snapshot().entries] == ["a", "b", "c"]
    (p.path / "b" / "SKILL.md").unlink()
    assert [e.key for e in catalog.snapshot().entries] == ["a", "c"]


def test_checks_are_coalesced_and_refresh_forces(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 3600.0)
    p, g = _roots(tmp_path)
    _write(p.path, "a")
    _settle(tmp_path)
    loader = CountingLoader()
    catalog = Catalog((p, g), loader=loader)
    catalog.snapshot()
    _write(p.path, "new")
    assert [e.key for e in catalog.snapshot().entries] == ["a"]  # within the interval
    assert [e.key for e in catalog.refresh().entries] == ["a", "new"]
    assert loader.calls.count("a") == 2  # refresh re-reads everything


def test_settings_and_lock_files_are_part_of_the_identity(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 0.0)
    p, g = _roots(tmp_path)
    _write(p.path, "a")
    _settle(tmp_path)
    lock = tmp_path / "skills.lock.json"
    catalog = Catalog((p, g), (lock,), loader=CountingLoader())
    first = catalog.snapshot()
    lock.write_text("{}")
    assert catalog.snapshot() is not first


def test_recent_files_are_racy_and_reread(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 0.0)
    p, g = _roots(tmp_path)
    _write(p.path, "fresh")
    loader = CountingLoader()
    catalog = Catalog((p, g), loader=loader)
    assert catalog.snapshot().racy
    catalog.snapshot()
    assert loader.calls == ["fresh", "fresh"]


def test_persistent_store_skips_parsing_on_an_unchanged_tree(tmp_path: Path) -> None:
    p, g = _roots(tmp_path)
    _write(p.path, "a", "from disk")
    _settle(tmp_path)
    store = CacheStore(tmp_path / "cache")
    Catalog((p, g), store=store, loader=CountingLoader()).snapshot()
    loader = CountingLoader()
    snap = Catalog((p, g), store=store, loader=loader).snapshot()
    assert loader.calls == [] and snap.by_key()["a"].description == "from disk"


def test_stale_or_corrupt_store_is_rebuilt(tmp_path: Path) -> None:
    p, g = _roots(tmp_path)
    skill = _write(p.path, "a", "one")
    _settle(tmp_path)
    store = CacheStore(tmp_path / "cache")
    Catalog((p, g), store=store, loader=CountingLoader()).snapshot()
    skill.write_text("---\ndescription: two\n---\n")
    _age(skill)
    loader = CountingLoader()
    assert Catalog((p, g), store=store, loader=loader).snapshot().by_key()["a"].description == "two"
    assert loader.calls == ["a"]
    path = cache_file(tmp_path / "cache", (p, g))
    for garbage in (b"{not json", b"[]", b'{"format": 1}', path.read_bytes().replace(
            b'"description":"two"', b'"description":7')):
        path.write_bytes(garbage)
        loader = CountingLoader()
        snap = Catalog((p, g), store=store, loader=loader).snapshot()
        assert loader.calls == ["a"] and snap.by_key()["a"].description == "two"


def test_the_check_interval_is_50_ms() -> None:
    assert catalog_module.CHECK_INTERVAL == 0.05
