"""What a fetch costs when the repository holds far more than the skill (issue 17 §4).

Each row is one ``lemon skill install ID --approve --json`` in a new process on a fresh home,
measured by ``tests/integration/measured_run.py`` (a launcher forks lemon and reports its
own peak RSS from ``wait4``, and its wall time). The repositories are built with dulwich in a
temporary folder: one small skill in ``skills/good/`` and files of zero bytes written as
loose objects in bounded chunks (:class:`tests.gitserver.Zeros`, so 2 GB of them take a few
MB of disk and are never in the builder's memory):

- ``file-outside``: ``--outside`` MiB of zero files (in files of ``--chunk`` MiB) in
  ``big/``, installed as ``git+file://REPO#subdirectory=skills/good``;
- ``file-inside``: one ``--inside`` MiB zero file in ``skills/good/`` (must be refused);
- ``http-outside`` / ``http-inside``: the same shapes served by dulwich's smart-HTTP server on
  127.0.0.1 (``tests/gitserver.py``), ``--http-outside`` MiB outside in pieces of
  ``--http-chunk`` MiB (under the 64 MiB per object and 512 MiB in all a pack is held to);
- ``local-outside`` / ``local-inside``: the same shapes as plain folders (sparse files made
  with ``truncate``), installed as a path to the skill folder and to the tree root.

``--lemon`` takes a console script or a checkout (run with ``PYTHONPATH`` set to it), so the
code before a change can be measured the same way::

    python benchmarks/bench_fetch_bounds.py
    python benchmarks/bench_fetch_bounds.py --lemon /path/to/old/checkout
    python benchmarks/bench_fetch_bounds.py --outside 2048 --only file-outside
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gitserver import GitServer, Zeros, build_repo
from tests.integration import measured_run

MIB = 1024 * 1024
SKILL = "---\nname: good\ndescription: Use when measuring bounded fetches.\n---\n# Good\n"
ROWS = ("file-outside", "file-inside", "http-outside", "http-inside", "local-outside",
        "local-inside")



def outside_files(total_mib: int, chunk_mib: int) -> dict[str, object]:
    files: dict[str, object] = {"skills/good/SKILL.md": SKILL}
    left, n = total_mib, 0
    while left > 0:
        size = min(chunk_mib, left)
        files[f"big/zeros-{n}.bin"] = Zeros(size * MIB + n)  # distinct blobs
        left -= size
        n += 1
    return files


def local_tree(path: Path, files: dict[str, object]) -> None:
    for name, spec in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, Zeros):
            with open(target, "wb") as f:
                f.truncate(spec.size)  # sparse: no disk
        else:
            target.write_text(str(spec), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lemon", help="a lemon console script, or a checkout (PYTHONPATH)")
    parser.add_argument("--outside", type=int, default=900, help="MiB of zeros outside")
    parser.add_argument("--chunk", type=int, default=300, help="MiB per file outside")
    parser.add_argument("--http-outside", type=int, default=480,
                        help="MiB of zeros outside, over HTTP (under the 512 MiB a pack may "
                             "inflate to)")
    parser.add_argument("--http-chunk", type=int, default=60,
                        help="MiB per file outside, over HTTP")
    parser.add_argument("--inside", type=int, default=300, help="MiB of the file inside")
    parser.add_argument("--only", action="append", choices=ROWS, help="measure only these")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    lemon, extra = measured_run.lemon_command(args.lemon)
    rows = args.only or list(ROWS)

    scratch = Path(tempfile.mkdtemp(prefix="lemon-bench-fetch-"))
    results = []
    try:
        specs = {
            "outside": outside_files(args.outside, args.chunk),
            "inside": {"skills/good/SKILL.md": SKILL,
                       "skills/good/zeros.bin": Zeros(args.inside * MIB)},
            "http-outside": outside_files(args.http_outside, args.http_chunk),
        }
        with GitServer() as server:
            ids: dict[str, str] = {}
            for row in rows:
                kind, where = row.split("-", 1)
                shape = "http-outside" if row == "http-outside" else where
                if kind == "local":
                    folder = scratch / f"tree-{where}"
                    if not folder.exists():
                        local_tree(folder, specs[where])
                    ids[row] = str(folder / "skills" / "good") if where == "inside" \
                        else str(folder)
                    continue
                repo_dir = scratch / f"repo-{shape}.git"
                if not repo_dir.exists():
                    build_repo(repo_dir, specs[shape])
                if kind == "http":
                    from dulwich.repo import Repo

                    server.add(f"o/{shape}.git", Repo(str(repo_dir)))
                base = (f"git+file://{repo_dir}" if kind == "file"
                        else f"git+{server.url}/o/{shape}.git")
                ids[row] = base + "#subdirectory=skills/good"
            for row in rows:
                home = scratch / f"home-{row}"
                home.mkdir()
                env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
                       "LEMON_CACHE_DIR": str(home / ".cache"), **extra}
                args_ = ["skill", "install", ids[row], "--approve", "--json"]
                if row == "local-outside":
                    args_ = ["skill", "install", ids[row], "--skill", "good", "--approve",
                             "--json"]
                run = measured_run.run(lemon, args_, home, env, timeout=args.timeout)
                last = (run.stderr.strip().splitlines() or [""])[-1]
                results.append({"row": row, "status": run.status, "wall_s": round(run.wall, 2),
                                "peak_rss_mb": round(run.peak_rss_mb, 1),
                                "message": last[:200]})
                shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'row':<14} {'status':<10} {'wall s':>7} {'peak RSS MB':>12}  message")
    for r in results:
        print(f"{r['row']:<14} {r['status']:<10} {r['wall_s']:>7} {r['peak_rss_mb']:>12}  "
              f"{r['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
