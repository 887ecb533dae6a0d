"""Publish a folder of skills as a well-known skill index (``lemon skill index DIR --out SITE``).

:func:`publish_index` writes, below ``SITE``, what any static web server or CDN can serve:

- ``.well-known/agent-skills/index.json`` (v0.2, ``$schema`` and a ``sha256:`` digest per
  skill): a skill that is only ``SKILL.md`` as ``<name>/SKILL.md`` (type ``skill-md``), any
  other as ``<name>.tar.gz`` (type ``archive``: the skill folder at the archive's root,
  built byte for byte the same from the same files, so an unchanged skill keeps its digest);
- ``.well-known/skills/index.json`` (v0.1, for today's ``skills`` CLI) with each skill's
  ``files``, served as ``.well-known/skills/<name>/<path>``.

Artifact URLs are relative to the index, so the site works at any path. A skill is published
under its manifest ``name``, which must be an Agent Skills name; a skill that does not load,
holds a link, a special file or a name a web server could not serve, or is over the skill caps
is refused with the reason (nothing is written then). Files are read with the safe reader and
written atomically.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from collections.abc import Sequence
from pathlib import Path

import attrs

from lemon_core.errors import LemonError, UsageError


@attrs.frozen
class PublishedSkill:
    name: str
    description: str
    kind: str
    digest: str
    files: tuple[str, ...]
    folder: str


@attrs.frozen
class PublishReport:
    out: Path
    skills: tuple[PublishedSkill, ...]
    written: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"out": str(self.out), "count": len(self.skills),
                "skills": [attrs.asdict(s) for s in self.skills],
                "written": list(self.written)}


def _tarball(files: Sequence[tuple[str, bytes, bool]]) -> bytes:
    """A .tar.gz of ``files`` (path, bytes, executable) that depends on nothing else."""
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as zipped, \
            tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, data, executable in sorted(files):
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.uid, info.gid = len(data), 0, 0, 0
            info.uname = info.gname = ""
            info.mode = 0o755 if executable else 0o644
            archive.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def _read_skill(root: Path, rel: str) -> tuple[PublishedSkill, list[tuple[str, bytes, bool]]]:
    from lemon_core.fsio.read import read_bytes
    from lemon_core.fsio.tree import DEFAULT_LIMITS, scan_tree
    from lemon_core.manifest.load import load_manifest
    from lemon_core.source_kit.wellknown import NAME, file_path_problem

    folder = root / rel if rel else root
    shown = rel or "."
    scan = scan_tree(folder)
    if scan.problems or not scan.complete:
        first = scan.problems[0].message if scan.problems else "too large to read whole"
        raise LemonError(f"{shown}: not a safe skill folder ({first}); nothing was published")
    result = load_manifest(folder / "SKILL.md", key=folder.name)
    if result.manifest is None:
        raise LemonError(f"{shown}/SKILL.md does not load: {result.reason}; nothing was "
                         "published")
    name = result.manifest.name or folder.name
    if not NAME.match(name):
        raise LemonError(f"{shown}: the name {name!r} is not an Agent Skills name (a-z, 0-9 "
                         "and single '-', at most 64), which an index requires; nothing was "
                         "published")
    if not result.manifest.description.strip():
        raise LemonError(f"{shown}: no description; an index requires one")
    files: list[tuple[str, bytes, bool]] = []
    for entry in scan.entries:
        if entry.kind == "dir":
            continue
        if entry.kind != "file":
            raise LemonError(f"{shown}/{entry.path} is a {entry.kind}; a site serves files "
                             "only (replace it by the file); nothing was published")
        problem = file_path_problem(entry.path)
        if problem is not None:
            raise LemonError(f"{shown}/{entry.path}: the path {problem} for an index; nothing "
                             "was published")
        data = read_bytes(folder / entry.path, DEFAULT_LIMITS.max_file_bytes,
                          missing_ok=False, nofollow=True) or b""
        files.append((entry.path, data, entry.executable))
    files.sort(key=lambda f: (f[0] != "SKILL.md", f[0]))
    only_manifest = [f[0] for f in files] == ["SKILL.md"]
    artifact = files[0][1] if only_manifest else _tarball(files)
    skill = PublishedSkill(name, " ".join(result.manifest.description.split())[:1024],
                           "skill-md" if only_manifest else "archive",
                           "sha256:" + hashlib.sha256(artifact).hexdigest(),
                           tuple(f[0] for f in files), shown)
    return skill, files


def publish_index(folder: Path | str, out: Path | str) -> PublishReport:
    """Publish every skill below ``folder`` (a skill folder, or folders of them) into ``out``.

    :raises UsageError: ``folder`` holds no skill, two skills share a name, or ``out`` lies
        inside ``folder``.
    :raises LemonError: a skill that cannot be published (the message says why and what).
    """
    from lemon_core.fsio.write import atomic_write_bytes
    from lemon_core.install.select import find_skills
    from lemon_core.source_kit.wellknown import SCHEMA_V2, V1_PATH, V2_PATH

    root, site = Path(folder).resolve(), Path(out).resolve()
    if not root.is_dir():
        raise UsageError(f"{folder} is not a folder of skills")
    if site == root or root in site.parents:
        raise UsageError(f"--out {out} lies inside {folder}; publish to another folder")
    found = find_skills(root)
    if not found:
        raise UsageError(f"{folder} holds no skill (no SKILL.md below it)")
    read = [_read_skill(root, rel) for rel in found]
    names: dict[str, str] = {}
    for skill, _files in read:
        if skill.name in names:
            raise UsageError(f"two skills are named {skill.name!r} ({names[skill.name]} and "
                             f"{skill.folder}); an index holds each name once")
        names[skill.name] = skill.folder
    read.sort(key=lambda pair: pair[0].name)
    writes: dict[str, bytes] = {}
    v2, v1 = [], []
    for skill, files in read:
        if skill.kind == "skill-md":
            url = f"{skill.name}/SKILL.md"
            writes[f"{V2_PATH}/{url}"] = files[0][1]
        else:
            url = f"{skill.name}.tar.gz"
            writes[f"{V2_PATH}/{url}"] = _tarball(files)
        v2.append({"name": skill.name, "type": skill.kind, "description": skill.description,
                   "url": url, "digest": skill.digest})
        v1.append({"name": skill.name, "description": skill.description,
                   "files": list(skill.files)})
        for path, data, _executable in files:
            writes[f"{V1_PATH}/{skill.name}/{path}"] = data
    writes[f"{V2_PATH}/index.json"] = _json({"$schema": SCHEMA_V2, "skills": v2})
    writes[f"{V1_PATH}/index.json"] = _json({"skills": v1})
    site.mkdir(parents=True, exist_ok=True)
    for rel, data in sorted(writes.items()):  # never through a link planted in the site
        atomic_write_bytes(site.joinpath(*rel.split("/")), data, mode=0o644, root=site)
    return PublishReport(site, tuple(s for s, _f in read), tuple(sorted(writes)))


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


__all__ = ["PublishReport", "PublishedSkill", "publish_index"]
