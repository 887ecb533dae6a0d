"""Install whole public skill repositories with ``--all`` and compare with what agents load
(issue 18 §6).

Each repository is a bare git directory on disk (a snapshot; nothing fetched is committed),
served by dulwich's smart-HTTP server on 127.0.0.1 (``tests/gitserver.py``). Per repository:

- **SKILL.md files**: every file named exactly ``SKILL.md`` in the commit HEAD points at,
  outside ``.git`` and ``node_modules`` folders;
- **agents load**: the folders holding such a file whose frontmatter agents accept: the file
  starts with a ``---`` line, a later ``---`` line closes the frontmatter, the YAML between them
  (PyYAML ``safe_load``) is a mapping whose ``name`` and ``description`` are non-empty strings;
  and no folder above it holds such a SKILL.md. Hidden folders count (openai/skills keeps its
  skills in ``skills/.curated`` and the like, which the ``skills`` CLI and Codex read; a
  ``.github/skills`` folder is Copilot's project root); no other rule of lemon's (name = folder,
  one-line description, length caps) applies. **nested** counts the accepted SKILL.md files
  inside another skill's folder, apart: an agent reading ``<root>/<name>/SKILL.md`` never sees
  them, and the ``skills`` CLI's recursive search stops at the first SKILL.md of a branch;
- **lemon installs**: ``lemon skill install git+URL --all --approve --json`` as a new process
  on a fresh home (``HOME`` and ``LEMON_CACHE_DIR`` in a scratch folder, no ``LEMON_*`` of the
  caller's): the skill folders then in the global root (``~/.lemon/agent/skill``) and the
  records in the global lockfile;
- **renamed**: the skills agents load whose folder is named unlike their frontmatter ``name``
  (agents load them by the name; lemon installs them under it, with a warning);
- **unreported**: the skills agents load that are neither installed (under their folder's name
  or their frontmatter name) nor named in quotes (either name) in any failure line (skipped
  silently, or sunk by another skill's failure);
- **failures**: every ``lemon:`` line on stderr (and each entry of a ``failed`` list in the JSON,
  when lemon prints one), grouped by reason with the quoted names blanked;
- **wall time** of that install (``tests/integration/measured_run.py``: a launcher forks lemon
  and reports its wall time and its own peak RSS from ``wait4``) next to
  ``git clone --depth 1`` of the same URL from the same server (dulwich answers shallow
  requests); the ratio is lemon / clone;
- **peak RSS** of the lemon process.

::

    python benchmarks/bench_real_repos.py                       # the snapshots in /work/.mirror
    python benchmarks/bench_real_repos.py --repos /path/a.git /path/b.git --only b
    python benchmarks/bench_real_repos.py --lemon /path/to/other/checkout --json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration import measured_run

MIRROR = Path("/work/.mirror")
DEFAULT_REPOS = ("openai+skills", "anthropics+skills", "github+awesome-copilot",
                 "K-Dense-AI+claude-scientific-skills", "vercel-labs+agent-skills")
SKIP_DIRS = frozenset({b".git", b"node_modules"})



def repo_name(path: Path) -> str:
    """``/work/.mirror/owner+name/repo`` → ``owner/name``; ``/x/name.git`` → ``name``."""
    if path.name == "repo" and "+" in path.parent.name:
        return path.parent.name.replace("+", "/", 1)
    return path.name.removesuffix(".git")


# -- what a native agent loads ------------------------------------------------------------------

def frontmatter_fault(data: bytes) -> str | None:
    """None when agents accept this SKILL.md (see the module's rule), else why not."""
    return _frontmatter(data)[0]


def frontmatter_name(data: bytes) -> str | None:
    """The ``name`` agents load this SKILL.md by (None when they do not load it)."""
    return _frontmatter(data)[1]


def _frontmatter(data: bytes) -> tuple[str | None, str | None]:
    fault, meta = _read_frontmatter(data)
    return fault, (meta["name"].strip() if fault is None else None)


def _read_frontmatter(data: bytes) -> tuple[str | None, dict[str, Any]]:
    import yaml

    text = data.decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return "no frontmatter", {}
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return "frontmatter not closed", {}
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return "invalid YAML", {}
    if not isinstance(meta, dict):
        return "frontmatter not a mapping", {}
    for key in ("name", "description"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"no {key}", {}
    return None, meta


def native_skills(repo_path: Path) -> dict[str, Any]:
    """Walk the tree of HEAD: SKILL.md files, the folders agents load, nested ones, faults."""
    from dulwich.repo import Repo

    repo = Repo(str(repo_path))
    try:
        head = repo.head()
        store = repo.object_store
        found: dict[str, bytes] = {}  # folder ("" for the root) → SKILL.md bytes

        def walk(tree_id: bytes, prefix: str) -> None:
            for entry in store[tree_id].items():
                if entry.mode & 0o170000 == 0o040000:
                    if entry.path not in SKIP_DIRS:
                        walk(entry.sha, prefix + entry.path.decode("utf-8", "replace") + "/")
                elif entry.path == b"SKILL.md" and entry.mode & 0o170000 == 0o100000:
                    found[prefix.rstrip("/")] = store[entry.sha].as_raw_string()

        walk(store[head].tree, "")
        commit = head.decode("ascii")[:8]
    finally:
        repo.close()
    faults: dict[str, str] = {}
    loads = []
    names: dict[str, str] = {}
    for folder, data in sorted(found.items()):
        fault, name = _frontmatter(data)
        if fault is None:
            loads.append(folder)
            names[folder] = name or ""
        else:
            faults[folder or "."] = fault
    loaded = set(loads)
    nested = {f for f in loads
              if any(f.startswith(other + "/") or (other == "" and f) for other in loaded
                     if other != f)}
    outer = [f for f in loads if f not in nested]
    return {"commit": commit, "skill_md": len(found), "loads": len(outer),
            "nested": len(nested), "hidden": sum(1 for f in outer if "/." in "/" + f),
            "renamed": sum(1 for f in outer if names[f] != f.rsplit("/", 1)[-1]),
            "not_loaded": faults, "skills": outer,
            "names": {f: names[f] for f in outer}}


# -- what lemon installs -------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'")


def failure_lines(stderr: str, stdout: str) -> list[str]:
    """Each failure lemon reported: ``lemon:`` lines on stderr, ``failed`` entries in JSON."""
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip().startswith("lemon:")]
    try:
        doc = json.loads(stdout) if stdout.strip() else {}
    except ValueError:
        doc = {}
    failed = doc.get("failed") if isinstance(doc, dict) else None
    for item in failed if isinstance(failed, list) else []:
        if isinstance(item, dict):
            who = item.get("key") or item.get("name") or "?"
            where = item.get("folder")
            why = item.get("reason") or item.get("message") or item.get("error") or item
            lines.append(f"'{who}'" + (f" in '{where}'" if where else "") + f": {why}")
        else:
            lines.append(str(item))
    return lines


def warnings_of(stdout: str) -> list[str]:
    """The warnings of the installed skills in the ``--json`` output (``'key': text``)."""
    try:
        doc = json.loads(stdout) if stdout.strip() else {}
    except ValueError:
        return []
    out = []
    for item in doc.get("installed", []) if isinstance(doc, dict) else []:
        if isinstance(item, dict):
            out.extend(f"'{item.get('key', '?')}': {w}" for w in item.get("warnings") or [])
    return out


def reason_of(text: str) -> str:
    """A failure or warning line reduced to its reason, so the same rule groups together:
    quoted names (and the same names unquoted) blanked, an audit block reduced to its blocking
    rules, file lists, paths and numbers blanked."""
    names = sorted({n.strip("'") for n in _QUOTED.findall(text)} - {""}, key=len, reverse=True)
    text = _QUOTED.sub("'…'", text)
    for name in names:
        if len(name) >= 3:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "…", text)
    if "blocked by the security audit" in text:
        rules = sorted(set(re.findall(r"\[block\] ([\w.-]+)", text)))
        if rules:
            return "blocked by the security audit: [block] " + ", ".join(rules)
        warns = sorted(set(re.findall(r"\[warn\] ([\w.-]+)", text)))
        return "blocked by the security audit, no [block] finding listed: [warn] " \
            + ", ".join(warns)
    text = re.sub(r"\([^()]*/[^()]*\)", "(…)", text)
    text = re.sub(r"(?<![\w.])/[^\s`'\")]+", "PATH", text)
    return re.sub(r"\d+", "N", text)


def group_reasons(lines: list[str]) -> dict[str, dict[str, Any]]:
    """Failures grouped by reason (:func:`reason_of`): how many, and the first names quoted in
    them."""
    groups: dict[str, dict[str, Any]] = {}
    for line in lines:
        text = line.removeprefix("lemon:").strip()
        group = groups.setdefault(reason_of(text), {"count": 0, "names": []})
        group["count"] += 1
        names = _QUOTED.findall(text)
        if names and len(group["names"]) < 3:
            group["names"].append(names[0].strip("'"))
    return dict(sorted(groups.items(), key=lambda kv: -kv[1]["count"]))


def installed_in(home: Path) -> tuple[list[str], int]:
    """The skill folders in the global root, and the records in the global lockfile."""
    root = home / ".lemon" / "agent" / "skill"
    folders = sorted(p.name for p in root.iterdir() if (p / "SKILL.md").is_file()) \
        if root.is_dir() else []
    records = 0
    for lock in (home / ".lemon").rglob("skills.lock.json") if (home / ".lemon").is_dir() \
            else ():
        try:
            doc = json.loads(lock.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        skills = doc.get("skills") if isinstance(doc, dict) else None
        records += len(skills) if isinstance(skills, (dict, list)) else 0
    return folders, records


def clone(url: str, dest: Path, env: dict[str, str], timeout: float) -> dict[str, Any]:
    git = shutil.which("git")
    if git is None:
        return {"status": "no git on PATH", "wall_s": None, "peak_rss_mb": None}
    run = measured_run.run([git], ["clone", "-q", "--depth", "1", url, str(dest)], dest.parent,
                           env, timeout=timeout)
    return {"status": run.status, "wall_s": round(run.wall, 2),
            "peak_rss_mb": round(run.peak_rss_mb, 1),
            "message": (run.stderr.strip().splitlines() or [""])[-1][:200]}


def complete_copy(path: Path, dest: Path) -> tuple[Path, list[str]]:
    """The repository to serve, and the files of HEAD whose blobs the snapshot lacks.

    A snapshot may list its largest files without holding them; no git client can fetch such a
    commit. Then ``dest`` becomes a bare repository borrowing ``path``'s objects (git
    alternates) with one commit: HEAD's tree, each absent blob replaced by a short text saying
    so, under the same author, date and message."""
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.repo import Repo

    source = Repo(str(path))
    absent: list[str] = []
    try:
        store = source.object_store
        head = store[source.head()]
        assert isinstance(head, Commit)
        placeholder = Blob.from_string(b"absent from the snapshot\n")
        rewritten: list[Any] = []

        def rewrite(tree_id: bytes, prefix: str) -> bytes:
            tree = store[tree_id]
            new = Tree()
            changed = False
            for entry in tree.items():
                sha = entry.sha
                if entry.mode & 0o170000 == 0o040000:
                    sha = rewrite(entry.sha, f"{prefix}{entry.path.decode('utf-8', 'replace')}/")
                elif entry.mode & 0o170000 != 0o160000 and entry.sha not in store:
                    absent.append(prefix + entry.path.decode("utf-8", "replace"))
                    sha = placeholder.id
                changed = changed or sha != entry.sha
                new.add(entry.path, entry.mode, sha)
            if not changed:
                return tree_id
            rewritten.append(new)
            return new.id

        tree_id = rewrite(head.tree, "")
        if not absent:
            return path, []
        copy = Repo.init_bare(str(dest), mkdir=True)
        try:
            (dest / "objects" / "info").mkdir(parents=True, exist_ok=True)
            (dest / "objects" / "info" / "alternates").write_text(
                str(path / "objects") + "\n", encoding="utf-8")
            commit = Commit()
            commit.tree = tree_id
            for attr in ("author", "committer", "author_time", "commit_time",
                         "author_timezone", "commit_timezone", "message"):
                setattr(commit, attr, getattr(head, attr))
            copy.object_store.add_objects([(o, None) for o in (placeholder, *rewritten,
                                                                 commit)])
            copy.refs[b"refs/heads/main"] = commit.id
            copy.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
        finally:
            copy.close()
        return dest, absent
    finally:
        source.close()


def measure(name: str, path: Path, server: Any, lemon: list[str], extra: dict[str, str],
            scratch: Path, timeout: float, repeat: int) -> dict[str, Any]:
    from dulwich.repo import Repo

    row: dict[str, Any] = {"repository": name, "path": str(path), **native_skills(path)}
    served, absent = complete_copy(path, scratch / f"served-{name.replace('/', '-')}.git")
    row["absent_blobs"] = absent
    repo = Repo(str(served))
    try:
        url = server.add(f"{name.replace('/', '-')}.git", repo)
        walls, clones, run = [], [], None
        for i in range(repeat):
            home = scratch / f"home-{i}"
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
                   "LEMON_CACHE_DIR": str(home / ".cache"), "GIT_TERMINAL_PROMPT": "0",
                   **extra}
            run = measured_run.run(lemon, ["skill", "install", f"git+{url}", "--all",
                                           "--approve", "--json"], home, env, timeout=timeout)
            walls.append(run.wall)
            if i < repeat - 1:
                continue
            names, row["lock_records"] = installed_in(home)
            row["installed"] = len(names)
            dest = scratch / f"clone-{i}"
            shutil.rmtree(dest, ignore_errors=True)
            for _ in range(repeat):
                shutil.rmtree(dest, ignore_errors=True)
                clones.append(clone(url, dest, env, timeout))
            shutil.rmtree(dest, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
        assert run is not None
        failures = failure_lines(run.stderr, run.stdout)
        row.update({
            "lemon_status": run.status, "lemon_wall_s": round(statistics.median(walls), 2),
            "lemon_peak_rss_mb": round(run.peak_rss_mb, 1),
            "failures": failures, "failure_reasons": group_reasons(failures),
            "warnings": group_reasons(warnings_of(run.stdout)),
        })
        said = "\n".join(failures)
        # agents load a skill by its frontmatter name; lemon installs it under that name (a
        # folder named otherwise upstream) and reports a failure by its name or its folder's
        row["unreported"] = [f for f in row["skills"]
                             if not ({f.rsplit("/", 1)[-1], row["names"][f]} & set(names))
                             and f"'{f.rsplit('/', 1)[-1]}'" not in said
                             and f"'{row['names'][f]}'" not in said]
        clone_walls = [c["wall_s"] for c in clones if c["wall_s"] is not None]
        row["clone_status"] = clones[-1]["status"]
        row["clone_wall_s"] = round(statistics.median(clone_walls), 2) if clone_walls else None
        row["clone_peak_rss_mb"] = clones[-1]["peak_rss_mb"]
        row["ratio"] = (round(row["lemon_wall_s"] / row["clone_wall_s"], 2)
                        if row["clone_wall_s"] else None)
    finally:
        repo.close()
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    head = ("repository", "commit", "SKILL.md", "agents load", "nested", "renamed",
            "lemon installs",
            "lock", "unreported", "lemon exit", "lemon s", "clone s", "ratio", "peak MB")
    table = [head]
    for r in rows:
        table.append((r["repository"], r["commit"], str(r["skill_md"]), str(r["loads"]),
                      str(r["nested"]), str(r["renamed"]), str(r["installed"]),
                      str(r["lock_records"]),
                      str(len(r["unreported"])), r["lemon_status"], f"{r['lemon_wall_s']:.2f}",
                      "-" if r["clone_wall_s"] is None else f"{r['clone_wall_s']:.2f}",
                      "-" if r["ratio"] is None else f"{r['ratio']:.2f}",
                      f"{r['lemon_peak_rss_mb']:.0f}"))
    widths = [max(len(line[i]) for line in table) for i in range(len(head))]
    for n, line in enumerate(table):
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(line, widths, strict=True))))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for r in rows:
        print(f"\n{r['repository']}: lemon {r['lemon_status']}, "
              f"{len(r['failures'])} failure line(s); clone {r['clone_status']}")
        for reason, group in r["failure_reasons"].items():
            names = ", ".join(group["names"])
            print(f"  {group['count']:>4} × {reason[:300]}" + (f"  (e.g. {names})" if names
                                                                 else ""))
        for reason, group in r["warnings"].items():
            print(f"  {group['count']:>4} × installed with a warning: {reason[:300]}  "
                  f"(e.g. {', '.join(group['names'])})")
        if r["unreported"]:
            print(f"  {len(r['unreported'])} skill(s) agents load that lemon neither installed "
                  f"nor named in a failure (e.g. {', '.join(r['unreported'][:3])})")
        if r["absent_blobs"]:
            print(f"  the snapshot lacks {len(r['absent_blobs'])} blob(s) of HEAD (e.g. "
                  f"{r['absent_blobs'][0]}): served with placeholder text in their place")
        if r["not_loaded"]:
            faults: dict[str, int] = {}
            for why in r["not_loaded"].values():
                faults[why] = faults.get(why, 0) + 1
            print("  SKILL.md files agents skip: "
                  + ", ".join(f"{n} {why}" for why, n in sorted(faults.items())))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", nargs="+", type=Path,
                        help="bare git directories (default: the snapshots of "
                             + ", ".join(n.replace("+", "/") for n in DEFAULT_REPOS)
                             + f" under {MIRROR})")
    parser.add_argument("--lemon", help="a lemon console script, or a checkout (PYTHONPATH)")
    parser.add_argument("--only", action="append",
                        help="measure only repositories whose name contains this")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each install and clone (wall time: the median)")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    lemon, extra = measured_run.lemon_command(args.lemon)
    paths = args.repos or [MIRROR / n / "repo" for n in DEFAULT_REPOS
                           if (MIRROR / n / "repo").is_dir()]
    if args.only:
        paths = [p for p in paths if any(o in repo_name(p) for o in args.only)]
    if not paths:
        print("no repositories to measure (give --repos)", file=sys.stderr)
        return 2

    from tests.gitserver import GitServer

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the scratch folder is removed
    scratch = Path(tempfile.mkdtemp(prefix="lemon-bench-real-"))
    rows = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()[0]
    try:
        with GitServer() as server:
            for path in paths:
                rows.append(measure(repo_name(path), path.resolve(), server, lemon, extra,
                                    scratch, args.timeout, max(1, args.repeat)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{started}, load average {load:.1f} on {os.cpu_count()} cores\n")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
