"""Write the popular-package lists the ``code`` auditor compares dependency names against.

``python scripts/popular_packages.py PYPI_CSV NPM_JS [--pypi N] [--npm N]``

Where the names come from (public download rankings):

- PyPI: ``top-pypi-packages.csv`` of https://github.com/hugovk/top-pypi-packages — the
  15,000 most-downloaded projects of the last 30 days (``download_count,project``, most
  downloaded first), built from PyPI's public download statistics.
- npm: ``lib/top-download.js`` of https://github.com/wooorm/npm-high-impact — npm's
  "high-impact" packages by downloads (a JavaScript array of names, most downloaded first).

Pass the two files as checked out from those repositories (for instance ``git show
HEAD:top-pypi-packages.csv > pypi.csv``) and give their commits with ``--pypi-source`` and
``--npm-source``: the header of each written file records them. The output is one name per
line in rank order (PyPI names normalised as PEP 503 does), at
``plugins/auditors/code/popular/{pypi,npm}.txt``. Nothing here reaches the network.
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "plugins" / "auditors" / "code" / "popular"


def pypi_names(path: Path, count: int) -> list[str]:
    names: list[str] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            name = re.sub(r"[-_.]+", "-", row["project"].strip().lower())
            if name and name not in names:
                names.append(name)
            if len(names) >= count:
                break
    return names


def npm_names(path: Path, count: int) -> list[str]:
    text = path.read_text(encoding="utf-8")
    names: list[str] = []
    for match in re.finditer(r"'((?:@[a-z0-9._~-]+/)?[a-z0-9._~-]+)'", text):
        if match.group(1) not in names:
            names.append(match.group(1))
        if len(names) >= count:
            break
    return names


def write(path: Path, names: list[str], source: str) -> None:
    header = (f"# {len(names)} names, most downloaded first; from {source}\n"
              "# written by scripts/popular_packages.py; one name a line\n")
    path.write_text(header + "\n".join(names) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pypi_csv", type=Path)
    parser.add_argument("npm_js", type=Path)
    parser.add_argument("--pypi", type=int, default=12_000)
    parser.add_argument("--npm", type=int, default=8_000)
    parser.add_argument("--pypi-source", default="hugovk/top-pypi-packages "
                        "top-pypi-packages.csv")
    parser.add_argument("--npm-source", default="wooorm/npm-high-impact lib/top-download.js")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    write(OUT / "pypi.txt", pypi_names(args.pypi_csv, args.pypi), args.pypi_source)
    write(OUT / "npm.txt", npm_names(args.npm_js, args.npm), args.npm_source)


if __name__ == "__main__":
    main()
