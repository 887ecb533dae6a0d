"""How long ``lemon_core.text.defang`` takes on real text: every served text passes it.

``python benchmarks/bench_defang.py [DIR ...] [--repeat N]`` reads every ``.md``, ``.txt``,
``.py``, ``.sh``, ``.json``, ``.yaml`` and ``.toml`` file under each DIR (default: this
repository), then prints the best of N passes of ``defang`` over all of them (``note=True``,
as the servers call it), the characters per second, and how many were changed, beside one regex scan of each text for the hidden characters (what a
defang without a fast path would pay at the least).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".md", ".txt", ".py", ".sh", ".json", ".yaml", ".toml")


def texts_under(folders: list[Path]) -> list[str]:
    found = []
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if name.endswith(SUFFIXES):
                    try:
                        found.append(Path(root, name).read_text(encoding="utf-8"))
                    except (UnicodeDecodeError, OSError):
                        pass
    return found


def best_of(repeat: int, work: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from lemon_core.text import defang

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    texts = texts_under(args.folders)
    chars = sum(len(t) for t in texts)
    took = best_of(args.repeat, lambda: [defang(t, note=True) for t in texts])
    from lemon_core.text import _DEFANGED

    scan = best_of(args.repeat, lambda: [_DEFANGED.search(t) for t in texts])
    changed = sum(1 for t in texts if defang(t) != t)
    rate = chars / took / 1e6 if took else float("inf")
    print(f"defang: {len(texts)} texts, {chars / 1e6:.1f} M characters: {took * 1000:.0f} ms "
          f"({rate:.0f} M characters/s); {changed} changed")
    print(f"one regex scan per text (no fast path): {scan * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
