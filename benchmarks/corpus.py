"""A deterministic corpus of skills for the discovery benchmarks.

``python benchmarks/corpus.py DEST --skills N [--layout flat|grouped|mixed] [--seed S]``

Writes ``N`` SKILL.md files (duplicates and invalid ones included) below ``DEST``::

    DEST/project/.git/                      marks the repository root
    DEST/project/.agents/skills/            project roots
    DEST/project/.claude/skills/
    DEST/home/.lemon/agent/skill/           global roots (HOME=DEST/home)
    DEST/home/.agents/skills/
    DEST/corpus.json                        what was generated (counts, invalid, duplicates)

Layouts: ``flat`` (``root/<key>/SKILL.md``, the default: the spec's layout, the one agent roots
load), ``grouped`` (``root/<category>/<sub>/<key>/SKILL.md``: agent roots report these as one
``nested_skills`` diagnostic per root instead of loading them, so this measures that report) or
``mixed`` (each skill picks one, half and half).
Mostly YAML frontmatter, about 10% TOML; descriptions of 50–600 characters, some tags, keywords
and requires blocks, bodies of 1–20 KiB, a few supporting files. About 3% of the skills reuse a
key from another root (shadowing) and about 1% are invalid (broken YAML or TOML, wrong types,
unclosed frontmatter, invalid UTF-8; at least one of each kind, and none of either
below 20 skills). The same seed gives the same bytes; after writing, every
file and folder gets an mtime one hour in the past so a catalog's racy window (files changed
less than 2 s before a scan are re-read) does not apply.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

#: (root id, path below DEST, share of the skills).
ROOTS: tuple[tuple[str, str, float], ...] = (
    ("project-agents", "project/.agents/skills", 0.35),
    ("project-claude", "project/.claude/skills", 0.15),
    ("global-lemon", "home/.lemon/agent/skill", 0.30),
    ("global-agents", "home/.agents/skills", 0.20),
)
LAYOUTS = ("flat", "grouped", "mixed")
INVALID_KINDS = ("yaml_syntax", "yaml_tab_indent", "wrong_type", "unclosed", "toml_syntax",
                 "invalid_utf8")
DUPLICATE_SHARE = 0.03
INVALID_SHARE = 0.01
TOML_SHARE = 0.10
AGE_SECONDS = 3600

_WORDS = ["agent", "analyse", "api", "archive", "audit", "aws", "azure", "backup", "bash", "benchmark", "build", "bundle", "cache", "chart", "check", "ci", "cli", "cloud", "cluster", "code", "commit", "compose", "config", "container", "coverage", "cron", "css", "data", "database", "debug", "deploy", "diff", "docker", "docs", "domain", "elixir", "email", "encrypt", "env", "event", "export", "file", "firewall", "flake", "format", "frontend", "git", "github", "gradle", "graph", "grpc", "helm", "http", "image", "index", "infra", "ingest", "java", "json", "jwt", "kafka", "kotlin", "kubernetes", "lambda", "lint", "log", "markdown", "metrics", "migrate", "mock", "monitor", "network", "nginx", "node", "notebook", "oauth", "openapi", "package", "pdf", "perf", "pipeline", "postgres", "profile", "prompt", "proxy", "python", "query", "queue", "rails", "react", "redis", "refactor", "release", "report", "repo", "review", "rust", "schema", "search", "secret", "security", "server", "shell", "slack", "snapshot", "spark", "sql", "ssh", "storage", "stream", "swift", "terraform", "test", "trace", "typescript", "upgrade", "vault", "video", "vue", "webhook", "yaml"]
_CATEGORIES = ("devops", "languages", "data", "security", "frontend", "backend", "testing",
               "docs", "cloud", "productivity", "ml", "mobile")
_SUBS = ("core", "tools", "ops", "review", "build", "misc")
_BINS = ("git", "docker", "kubectl", "helm", "jq", "rg", "node", "python3", "terraform", "gh",
         "aws", "psql", "redis-cli", "cargo", "go", "make", "curl", "ffmpeg")
_ENV = ("GITHUB_TOKEN", "KUBECONFIG", "AWS_PROFILE", "DATABASE_URL", "OPENAI_API_KEY",
        "SLACK_WEBHOOK", "VAULT_ADDR", "SENTRY_DSN")
_TOOLS = ("bash", "read", "write", "edit", "web_search", "python", "browser")
_PLATFORMS = ("linux", "darwin", "win32", "macos")


@attrs.frozen
class PlannedSkill:
    """One SKILL.md to write: where, what kind, and with which key."""

    key: str
    root: str
    rel_dir: str
    kind: str  # "valid", "duplicate" or one of INVALID_KINDS
    fmt: str  # "yaml", "toml" or "none"


def _sentence(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def _text(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    size = 0
    while size < chars:
        sentence = _sentence(rng, 5, 16)
        parts.append(sentence)
        size += len(sentence) + 1
    return " ".join(parts)[:chars].rstrip(" .") + "."


class _Paragraphs:
    """A pool of markdown paragraphs that bodies are assembled from (fast, seeded)."""

    def __init__(self, rng: random.Random) -> None:
        self.pool = [self._paragraph(rng, i) for i in range(400)]

    @staticmethod
    def _paragraph(rng: random.Random, index: int) -> str:
        shape = index % 5
        if shape == 0:
            return f"## {_sentence(rng, 2, 5).rstrip('.')}\n"
        if shape == 1:
            return "\n".join(f"- {_sentence(rng, 3, 9)}" for _ in range(rng.randint(2, 6))) + "\n"
        if shape == 2:
            lines = [f"{rng.choice(_BINS)} {rng.choice(_WORDS)} --{rng.choice(_WORDS)}"
                     for _ in range(rng.randint(1, 5))]
            return "```bash\n" + "\n".join(lines) + "\n```\n"
        return _text(rng, rng.randint(200, 900)) + "\n"

    def body(self, rng: random.Random, size: int, title: str) -> str:
        chunks = [f"# {title}\n"]
        total = len(chunks[0])
        while total < size:
            chunk = rng.choice(self.pool)
            chunks.append(chunk)
            total += len(chunk) + 1
        return "\n".join(chunks)


def _yaml_list(name: str, items: list[str], rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"{name}: [{', '.join(items)}]\n"
    return f"{name}:\n" + "".join(f"  - {item}\n" for item in items)


def _yaml_description(text: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.005:  # the common real-world slip: an unquoted ": " (loads with a warning)
        return f"description: Use when: {text}\n"
    if roll < 0.55:
        return f"description: {text}\n"
    if roll < 0.85:
        return f"description: {json.dumps(text, ensure_ascii=False)}\n"
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) > 80:
            lines.append(line)
            line = ""
        line = f"{line} {word}".strip()
    lines.append(line)
    return "description: >-\n" + "".join(f"  {part}\n" for part in lines)


def _fields(rng: random.Random, key: str) -> dict[str, object]:
    """The manifest of one skill as plain data (the writers below render it)."""
    data: dict[str, object] = {"name": key, "description": _text(rng, rng.randint(50, 600))}
    if rng.random() < 0.6:
        data["version"] = f"{rng.randint(0, 3)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
    if rng.random() < 0.4:
        data["author"] = f"{rng.choice(_WORDS)}-team"
    if rng.random() < 0.5:
        data["tags"] = rng.sample(_WORDS, rng.randint(1, 6))
    if rng.random() < 0.3:
        data["keywords"] = rng.sample(_WORDS, rng.randint(2, 10))
    if rng.random() < 0.25:
        requires: dict[str, list[str]] = {"bins": rng.sample(_BINS, rng.randint(1, 3))}
        if rng.random() < 0.4:
            requires["config"] = rng.sample(_ENV, rng.randint(1, 2))
        data["requires"] = requires
    if rng.random() < 0.15:
        data["platforms"] = rng.sample(_PLATFORMS, rng.randint(1, 2))
    if rng.random() < 0.3:
        data["metadata"] = {"lemon": {"category": f"{rng.choice(_CATEGORIES)}/{rng.choice(_SUBS)}"}}
    if rng.random() < 0.1:
        data["requires_tools"] = rng.sample(_TOOLS, rng.randint(1, 3))
    if rng.random() < 0.1:
        data["required_environment_variables"] = rng.sample(_ENV, 1)
    if rng.random() < 0.05:
        data["verification"] = {"command": f"{rng.choice(_BINS)} --version", "expect_exit": 0}
    if rng.random() < 0.1:
        data["references"] = [{"path": "references/guide.md"}, {"url": "https://example.com/docs"}]
    if rng.random() < 0.05:
        data["hide"] = True
    if rng.random() < 0.1:
        data["license"] = "MIT"  # an unknown top-level key, as real skills carry
    return data


def _render_yaml(data: dict[str, object], rng: random.Random) -> str:
    out = []
    for name, value in data.items():
        if name == "description":
            out.append(_yaml_description(str(value), rng))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out.append(_yaml_list(name, value, rng))
        elif name == "references":
            out.append("references:\n  - path: references/guide.md\n"
                       "  - url: https://example.com/docs\n")
        elif isinstance(value, dict):
            out.append(f"{name}:\n" + _yaml_map(value, "  "))
        elif isinstance(value, bool):
            out.append(f"{name}: {'true' if value else 'false'}\n")
        elif name == "version":
            out.append(f'{name}: "{value}"\n')
        else:
            out.append(f"{name}: {value}\n")
    return "".join(out)


def _yaml_map(mapping: dict[str, object], indent: str) -> str:
    out = []
    for name, value in mapping.items():
        if isinstance(value, dict):
            out.append(f"{indent}{name}:\n" + _yaml_map(value, indent + "  "))
        elif isinstance(value, list):
            out.append(f"{indent}{name}: [{', '.join(value)}]\n")
        else:
            out.append(f"{indent}{name}: {json.dumps(value)}\n")
    return "".join(out)


def _render_toml(data: dict[str, object]) -> str:
    top, tables = [], []
    for name, value in data.items():
        if name == "references":
            tables.append('[[references]]\npath = "references/guide.md"\n\n'
                          '[[references]]\nurl = "https://example.com/docs"\n')
        elif name == "metadata":
            category = value["lemon"]["category"]  # type: ignore[index]
            tables.append(f'[metadata.lemon]\ncategory = "{category}"\n')
        elif isinstance(value, dict):
            body = "".join(f"{k} = {json.dumps(v)}\n" for k, v in value.items())
            tables.append(f"[{name}]\n{body}")
        elif isinstance(value, bool):
            top.append(f"{name} = {'true' if value else 'false'}\n")
        else:
            top.append(f"{name} = {json.dumps(value, ensure_ascii=False)}\n")
    return "".join(top) + ("\n" + "\n".join(tables) if tables else "")


def _invalid_frontmatter(kind: str, key: str, rng: random.Random) -> tuple[str, str]:
    """(delimiter, frontmatter) of a skill that must fail to load, by kind."""
    description = _text(rng, rng.randint(50, 200))
    if kind == "yaml_syntax":
        return "---", f"name: {key}\ndescription: {description}\ntags: [alpha, beta\n"
    if kind == "yaml_tab_indent":
        return "---", f"name: {key}\ndescription: {description}\nrequires:\n\tbins: [git]\n"
    if kind == "wrong_type":
        bad = rng.choice(("tags: 7\n", "name: [a, b]\n", "description: {x: 1}\n",
                          "platforms: [solaris]\n", "requires:\n  bins: git\n"))
        return "---", f"name: {key}\ndescription: {description}\n" + bad
    if kind == "toml_syntax":
        return "+++", f'name = "{key}"\ndescription = "{description}\n'
    return "---", f"name: {key}\ndescription: {description}\n"  # unclosed, invalid_utf8


def skill_bytes(plan: PlannedSkill, rng: random.Random, paragraphs: _Paragraphs) -> bytes:
    """The SKILL.md of one planned skill."""
    body = paragraphs.body(rng, int(rng.triangular(1024, 20 * 1024, 3 * 1024)), plan.key)
    if plan.kind in INVALID_KINDS:
        delimiter, front = _invalid_frontmatter(plan.kind, plan.key, rng)
        if plan.kind == "unclosed":
            return f"---\n{front}\n{body}".encode()
        data = f"{delimiter}\n{front}{delimiter}\n\n{body}".encode()
        if plan.kind == "invalid_utf8":
            data = data.replace(b"description: ", b"description: \xff\xfe ", 1)
        return data
    fields = _fields(rng, plan.key)
    if plan.fmt == "none":
        return body.encode()
    if plan.fmt == "toml":
        text = f"+++\n{_render_toml(fields)}+++\n\n{body}"
    else:
        text = f"---\n{_render_yaml(fields, rng)}---\n\n{body}"
    roll = rng.random()
    if roll < 0.01:
        text = text.replace("\n", "\r\n")
    elif roll < 0.015:
        text = "\ufeff" + text
    return text.encode()


def _supporting_files(rng: random.Random) -> Iterator[tuple[str, bytes]]:
    choices = (("scripts/run.sh", "#!/bin/sh\nset -eu\n"), ("references/guide.md", "# Guide\n"),
               ("templates/config.json", "{}\n"), ("examples/example.md", "# Example\n"))
    for rel, head in rng.sample(choices, rng.randint(1, 3)):
        yield rel, (head + _text(rng, rng.randint(200, 4000)) + "\n").encode()


def _unique_key(rng: random.Random, used: set[str]) -> str:
    while True:
        key = "-".join(rng.sample(_WORDS, rng.choice((2, 2, 3))))
        if key in used:
            key = f"{key}-{rng.randint(2, 999)}"
        if key not in used:
            used.add(key)
            return key


def _place(rng: random.Random, key: str, layout: str) -> str:
    grouped = layout == "grouped" or (layout == "mixed" and rng.random() < 0.5)
    if grouped:
        return f"{rng.choice(_CATEGORIES)}/{rng.choice(_SUBS)}/{key}"
    return key


def plan_corpus(skills: int, layout: str, seed: int) -> list[PlannedSkill]:
    """Decide every skill's key, root, folder, kind and frontmatter format."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")
    rng = random.Random(f"plan-{seed}")
    invalid = max(len(INVALID_KINDS), round(skills * INVALID_SHARE)) if skills >= 20 else 0
    duplicates = max(2, round(skills * DUPLICATE_SHARE)) if skills >= 20 else 0
    kinds = ["valid"] * (skills - invalid - duplicates)
    kinds += [INVALID_KINDS[i % len(INVALID_KINDS)] for i in range(invalid)]
    rng.shuffle(kinds)
    root_ids = [r[0] for r in ROOTS]
    weights = [r[2] for r in ROOTS]
    used: set[str] = set()
    planned: list[PlannedSkill] = []
    for kind in kinds:
        key = _unique_key(rng, used)
        root = rng.choices(root_ids, weights)[0]
        roll = rng.random()
        fmt = "toml" if roll < TOML_SHARE else "none" if roll < TOML_SHARE + 0.003 else "yaml"
        if kind == "toml_syntax":
            fmt = "toml"
        planned.append(PlannedSkill(key, root, _place(rng, key, layout), kind, fmt))
    valid = [p for p in planned if p.kind == "valid"]
    for _ in range(duplicates):
        original = rng.choice(valid)
        root = rng.choice([r for r in root_ids if r != original.root])
        taken = {(p.root, p.key) for p in planned}
        if (root, original.key) in taken:
            root = next(r for r in root_ids if (r, original.key) not in taken)
        planned.append(PlannedSkill(original.key, root, _place(rng, original.key, layout),
                                    "duplicate", "yaml"))
    return planned


def root_dirs(dest: Path) -> list[Path]:
    """The skill roots of a corpus below ``dest``, in lemon's precedence order."""
    return [Path(dest) / rel for _, rel, _ in ROOTS]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _age(dest: Path, seconds: int) -> None:
    """Set every mtime below ``dest`` ``seconds`` into the past (children before parents)."""
    when = time.time() - seconds
    for parent, dirs, files in os.walk(dest, topdown=False):
        for name in files + dirs:
            os.utime(os.path.join(parent, name), (when, when), follow_symlinks=False)
    os.utime(dest, (when, when))


def generate(dest: Path, skills: int = 10_000, *, layout: str = "flat", seed: int = 0,
             age_seconds: int = AGE_SECONDS) -> dict[str, object]:
    """Write the corpus below ``dest`` (which must be empty or missing); returns its summary."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty; give an empty or new folder")
    planned = plan_corpus(skills, layout, seed)
    paragraphs = _Paragraphs(random.Random(f"text-{seed}"))
    root_paths = dict(zip([r[0] for r in ROOTS], root_dirs(dest)))
    (dest / "project" / ".git").mkdir(parents=True)
    (dest / "home").mkdir(parents=True, exist_ok=True)
    for root in root_paths.values():
        root.mkdir(parents=True, exist_ok=True)
        _write(root / "README.md", b"Skills for the benchmark corpus.\n")
        _write(root / ".hidden-skill" / "SKILL.md", b"---\nname: hidden\n---\nskipped\n")
    supporting = 0
    for index, plan in enumerate(planned):
        rng = random.Random(f"skill-{seed}-{index}")
        folder = root_paths[plan.root] / plan.rel_dir
        _write(folder / "SKILL.md", skill_bytes(plan, rng, paragraphs))
        if plan.kind == "valid" and rng.random() < 0.12:
            for rel, data in _supporting_files(rng):
                _write(folder / rel, data)
                supporting += 1
    summary = _summary(planned, skills, layout, seed, supporting)
    (dest / "corpus.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    _age(dest, age_seconds)
    return summary


def _summary(planned: list[PlannedSkill], skills: int, layout: str, seed: int,
             supporting: int) -> dict[str, object]:
    def rel(p: PlannedSkill) -> str:
        return f"{ {r[0]: r[1] for r in ROOTS}[p.root]}/{p.rel_dir}/SKILL.md"

    invalid = [p for p in planned if p.kind in INVALID_KINDS]
    formats = {fmt: sum(1 for p in planned if p.fmt == fmt) for fmt in ("yaml", "toml", "none")}
    return {
        "skills": skills,
        "layout": layout,
        "seed": seed,
        "roots": {root_id: rel_path for root_id, rel_path, _ in ROOTS},
        "project": "project",
        "home": "home",
        "unique_keys": len({p.key for p in planned}),
        "formats": formats,
        "supporting_files": supporting,
        "invalid": sorted([rel(p), p.kind] for p in invalid),
        "duplicates": sorted(rel(p) for p in planned if p.kind == "duplicate"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="an empty or new folder")
    parser.add_argument("--skills", type=int, default=10_000, help="SKILL.md files to write")
    parser.add_argument("--layout", choices=LAYOUTS, default="flat")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.skills < 1:
        parser.error("--skills must be at least 1")
    started = time.perf_counter()
    try:
        summary = generate(args.dest, args.skills, layout=args.layout, seed=args.seed)
    except FileExistsError as exc:
        parser.error(str(exc))
    print(f"wrote {summary['skills']} skills ({summary['unique_keys']} keys, "
          f"{len(summary['invalid'])} invalid, {len(summary['duplicates'])} duplicates) "
          f"to {args.dest} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
