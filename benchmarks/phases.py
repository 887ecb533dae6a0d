"""Where lemon's discovery time goes: each phase of the three library figures, timed alone.

``python benchmarks/phases.py --corpus DIR [--repeat R]`` (DIR from ``corpus.py``; the CLI
cache is built in a temporary folder). A diagnosis aid for ``bench_discovery.py``: it reaches
into lemon's modules (some private helpers), so it may need updating when the core changes.
Figures are medians in milliseconds; "gc off" rows show what the cyclic garbage collector adds.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floors
import lemon_figures


def _time(name: str, func: Callable[[], Any], repeat: int, *, gc_off: bool = False) -> Any:
    times, result = [], None
    for _ in range(max(1, repeat)):
        result = None
        gc.collect()
        if gc_off:
            gc.disable()
        started = time.perf_counter()
        try:
            result = func()
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            gc.enable()
        times.append(elapsed)
    print(f"  {name:<52} {median(times):9.1f}  (min {min(times):.1f})")
    return result


def cold_scan_phases(ctx: Any, repeat: int) -> None:
    from lemon_core.catalog.snapshot import Catalog, ParsedSkill, build_entries
    from lemon_core.catalog.walk import walk_roots
    from lemon_core.manifest.build_fast import build_manifest
    from lemon_core.manifest.checks import Checker
    from lemon_core.manifest.frontmatter import read_frontmatter
    from lemon_core.manifest.load import load_frontmatter_data, load_manifest
    from lemon_core.skills.workspace import Workspace

    template = Workspace(ctx).catalog()
    roots, aux = template.roots, template.aux_files
    print("(a) cold scan")
    _time("Catalog(...).snapshot()", lambda: Catalog(roots, aux).snapshot(), repeat)
    _time("Catalog(...).snapshot(), gc off", lambda: Catalog(roots, aux).snapshot(), repeat,
          gc_off=True)
    walked = _time("walk_roots", lambda: walk_roots(list(roots)), repeat)
    paths = [str(f.skill_md) for f in walked.found]
    _time("floor: walk", lambda: floors.walk_floor([str(r.path) for r in roots]), repeat)
    _time("load_manifest x all",
          lambda: [load_manifest(f.skill_md, key=f.key) for f in walked.found], repeat)

    def split_all() -> list[Any]:
        out = []
        for path in paths:
            fd = os.open(path, os.O_RDONLY)
            try:
                out.append(read_frontmatter(lambda n, fd=fd: os.read(fd, n))[1])
            except Exception:  # noqa: BLE001
                out.append(None)
            finally:
                os.close(fd)
        return out

    splits = _time("  open + read_frontmatter + close", split_all, repeat)
    _time("  floor: head-read", lambda: floors.head_read_floor(paths), repeat)

    def data_all() -> list[Any]:
        out = []
        for split in splits:
            try:
                out.append(None if split is None else
                           (load_frontmatter_data(split, Checker("x")), split.format))
            except Exception:  # noqa: BLE001
                out.append(None)
        return out

    data = _time("  load_frontmatter_data (YAML/TOML, bounded)", data_all, repeat)
    heads = floors.head_read_floor(paths)
    _time("  floor: parse", lambda: floors.parse_floor(heads), repeat)

    def build_all() -> list[Any]:
        out = []
        for item in data:
            try:
                out.append(None if item is None else build_manifest(item[0], Checker("x"),
                                                                     fmt=item[1]))
            except Exception:  # noqa: BLE001
                out.append(None)
        return out

    manifests = _time("  build_manifest (validation)", build_all, repeat)
    parsed = [ParsedSkill(f, m, ()) for f, m in zip(walked.found, manifests)]
    _time("build_entries", lambda: build_entries(parsed), repeat)


def warm_list_phases(ctx: Any, repeat: int) -> None:
    from lemon_core.skills import api
    from lemon_core.skills.views import SnapshotViews
    from lemon_core.skills.workspace import Workspace

    print("(b) list after identity check")
    workspace = Workspace(ctx)
    api.list_skills(workspace=workspace)
    catalog = workspace.catalog()
    snapshot = catalog.snapshot()
    roots = [str(r.path) for r in snapshot.roots]
    targets = floors.stat_targets(roots, floors.walk_floor(roots))
    _time("floor: stat-walk", lambda: floors.stat_walk_floor(targets), repeat)
    _time("CatalogSnapshot.unchanged()", snapshot.unchanged, repeat)
    _time("CatalogSnapshot.racy", lambda: snapshot.racy, repeat)
    _time("CatalogSnapshot.diagnostics", lambda: snapshot.diagnostics, repeat)
    _time("listing_of (settings, lockfile, status of every entry)",
          lambda: api.listing_of(workspace, SnapshotViews(catalog, snapshot)), repeat)


def cli_second_phases(ctx: Any, repeat: int) -> None:
    from lemon_core.catalog.cache import CacheStore, cache_file
    from lemon_core.catalog.serialize import entry_view
    from lemon_core.cli.output import emit_json  # noqa: F401 - the import is part of the run
    from lemon_core.skills import api
    from lemon_core.skills.views import SnapshotViews
    from lemon_core.skills.workspace import Workspace

    print("(c) second `lemon skill list --json`, in process")
    workspace = Workspace(ctx)
    catalog = workspace.catalog(persistent=True)
    catalog.snapshot()  # writes the persistent cache
    store = CacheStore(ctx.cache_dir)
    from lemon_core.catalog.cache import MAGIC
    from lemon_core.catalog.cache_folder import read_key, unseal

    sealed = cache_file(ctx.cache_dir, catalog.roots).read_bytes()
    print(f"  cache file: {len(sealed) / 1e6:.1f} MB")
    key = read_key(ctx.cache_dir)
    raw = _time("unseal (HMAC-SHA256 check)", lambda: unseal(key, MAGIC, sealed), repeat)
    _time("json.loads(cache)", lambda: json.loads(raw), repeat)
    _time("json.loads(cache), gc off", lambda: json.loads(raw), repeat, gc_off=True)
    snapshot = _time("CacheStore.load (loads + decode + entries)",
                     lambda: store.load(catalog.roots, catalog.aux_files), repeat)
    _time("CacheStore.load, gc off", lambda: store.load(catalog.roots, catalog.aux_files),
          repeat, gc_off=True)
    listing = _time("listing_of (status)",
                    lambda: api.listing_of(workspace, SnapshotViews(catalog, snapshot)), repeat)
    views = _time("entry_view x all",
                  lambda: [entry_view(i.entry, i.status, i.scope) for i in listing.skills],
                  repeat)
    document = {"skills": views, "diagnostics": []}
    _time("JSON for a pipe (emit_json)",
          lambda: json.JSONEncoder(check_circular=False).encode(document), repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a corpus.py folder")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = lemon_figures.Corpus(args.corpus / "project", args.corpus / "home")
    with tempfile.TemporaryDirectory(prefix="lemon-phases-") as work:
        ctx = lemon_figures.lemon_context(corpus, Path(work) / "cache")
        print("milliseconds, median of", args.repeat)
        cold_scan_phases(ctx, args.repeat)
        warm_list_phases(ctx, args.repeat)
        cli_second_phases(ctx, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
