"""Draw lemon's house from the code: which package of lemon_core imports which.

    python tools/house.py            # one line per package: what it imports, top layer first
    python tools/house.py --check    # exit 1 if two packages import each other, even indirectly

The layers themselves are checked by import-linter (``lint-imports``, run by
tests/test_architecture.py); this script shows what the contracts are checked against.
"""

from __future__ import annotations

import argparse
import sys

import grimp

#: Top first, as docs/architecture.md draws them.
PACKAGES = (
    "cli testing skills lint mcp install audit search state catalog manifest plugins "
    "plugin_registry hookspecs protocols records models errors context fsio jsondata text"
).split()


def edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    names = [f"lemon_core.{name}" for name in PACKAGES]
    found: dict[str, set[str]] = {}
    for importer in names:
        found[importer] = {
            imported
            for imported in names
            if imported != importer
            and graph.direct_import_exists(importer=importer, imported=imported, as_packages=True)
        }
    return found


def circles(found: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of packages that reach each other through the package graph."""

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in found[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {name: reach(name) for name in found}
    return sorted((a, b) for a in found for b in reached[a] if a < b and a in reached[b])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 on a circle")
    args = parser.parse_args()
    graph = grimp.build_graph("lemon_core")
    found = edges(graph)
    width = max(len(name) for name in PACKAGES)
    for name in PACKAGES:
        imports = sorted(dep.removeprefix("lemon_core.") for dep in found[f"lemon_core.{name}"])
        print(f"{name.ljust(width)}  -> {', '.join(imports) or '(nothing of lemon)'}")
    bad = circles(found)
    for a, b in bad:
        print(f"circle: {a} and {b} import each other", file=sys.stderr)
    if not bad:
        print("no circle between packages")
    return 1 if (bad and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
