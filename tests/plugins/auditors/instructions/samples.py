"""The instructions auditor's own evaluation samples (``dev.toml``, ``report.toml``): loaded as
skill bundles, judged by the auditor alone, and counted.

``python -m tests.plugins.auditors.instructions.samples [dev|report] [--names]`` prints the
figures of a half (``--names`` also names each miss; use it on the dev half only).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import tomllib

from lemon_core.protocols import AuditBundle, AuditFile

HERE = Path(__file__).resolve().parent


def load(half: str) -> list[dict[str, object]]:
    """The samples of ``half`` (``dev`` or ``report``), each with its ``files``."""
    with open(HERE / f"{half}.toml", "rb") as handle:
        samples = tomllib.load(handle)["sample"]
    for sample in samples:
        skill = str(sample["skill"]).lstrip("\n")
        if not skill.startswith("---"):
            skill = (f"---\nname: {sample['pair']}\ndescription: A helper skill for the "
                     f"{sample['pair']} task.\n---\n{skill}")
        files = {"SKILL.md": skill}
        files.update(sample.get("files", {}))
        sample["files"] = files
    return samples


def bundle(sample: dict[str, object]) -> AuditBundle:
    files = sample["files"]
    assert isinstance(files, dict)
    return AuditBundle(key=str(sample["pair"]), dir=Path("."), files=tuple(
        AuditFile(path=path, text=text, size=len(text)) for path, text in files.items()))


def verdict(sample: dict[str, object]) -> tuple[str, list[str]]:
    """The worst severity the instructions auditor gives ``sample`` and the rules behind it."""
    from lemon_plugins.auditors.instructions import InstructionsAuditor

    found = list(InstructionsAuditor().audit(bundle(sample)))
    worst = "block" if any(f.severity == "block" for f in found) else \
        "warn" if found else "pass"
    return worst, sorted({f.rule for f in found if f.severity == worst})


def figures(half: str) -> dict[str, object]:
    counts: Counter[str] = Counter()
    misses, false = [], []
    for sample in load(half):
        worst, why = verdict(sample)
        counts[f"{sample['label']}:{worst}"] += 1
        name = f"{sample['pair']}/{sample['variant']} [{sample['category']}; {sample['language']}]"
        if sample["label"] == "malicious" and worst != "block":
            misses.append(f"{worst}: {name}")
        if sample["label"] == "benign" and worst != "pass":
            false.append(f"{worst}: {name} {why}")
    return {"counts": dict(counts), "misses": misses, "benign_flagged": false}


def main(argv: list[str]) -> None:
    half = argv[0] if argv else "dev"
    result = figures(half)
    counts = result["counts"]
    assert isinstance(counts, dict)
    mal = sum(v for k, v in counts.items() if k.startswith("malicious"))
    ben = sum(v for k, v in counts.items() if k.startswith("benign"))
    print(f"{half}: malicious {mal}: blocked {counts.get('malicious:block', 0)}, warned "
          f"{counts.get('malicious:warn', 0)}, passed {counts.get('malicious:pass', 0)}; "
          f"benign {ben}: blocked {counts.get('benign:block', 0)}, warned "
          f"{counts.get('benign:warn', 0)}, passed {counts.get('benign:pass', 0)}")
    if "--names" in argv:
        for line in [*result["misses"], *result["benign_flagged"]]:  # type: ignore[misc]
            print("  ", line)


if __name__ == "__main__":
    main(sys.argv[1:])
