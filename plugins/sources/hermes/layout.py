"""Hermes identifiers, settings and repository layout: what ``hermes:`` ids mean, where the
catalog lives, and how a checkout's folders or a SKILL.md's frontmatter are read."""

from __future__ import annotations

import os
import re
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.errors import LemonError
from lemon_core.text import unsafe_reason

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

PREFIX = "hermes:"
FOLDERS = {"bundled": "skills", "optional": "optional-skills"}
ALIASES = {"skills": "bundled", "optional-skills": "optional", **{c: c for c in FOLDERS}}
API_URL = "https://api.github.com/repos/NousResearch/hermes-agent"
RAW_URL = "https://raw.githubusercontent.com/NousResearch/hermes-agent"
TREE_MAX_BYTES = 64 * 1024 * 1024
MANIFEST_MAX_BYTES = 256 * 1024
#: How long one listing of the repository answers every question (catalog, upstream hashes).
LISTING_SECONDS = 60.0
SEGMENT = re.compile(r"[A-Za-z0-9._-]+\Z")
SHA = re.compile(r"[0-9a-f]{40}\Z")


@attrs.frozen
class Settings:
    api: str
    raw: str
    ref: str
    checkout: Path | None
    token: str | None = attrs.field(default=None, repr=False)


def settings(ctx: LemonContext) -> Settings:
    checkout = ctx.getenv("LEMON_HERMES_REPO")
    api = (ctx.getenv("LEMON_HERMES_API_URL") or API_URL).rstrip("/")
    token = ctx.getenv("GITHUB_TOKEN") if urllib.parse.urlsplit(api).hostname == (
        "api.github.com") else None
    return Settings(api, (ctx.getenv("LEMON_HERMES_RAW_URL") or RAW_URL).rstrip("/"),
                    ctx.getenv("LEMON_HERMES_REF") or "main",
                    ctx.expand_path(checkout) if checkout else None, token)


def segments_reason(parts: list[str]) -> str | None:
    for part in parts:
        if part in (".", ".."):
            return f"'{part}' steps are not allowed"
        if not SEGMENT.match(part):
            unsafe = unsafe_reason(part)
            if unsafe is not None:
                return f"a part {unsafe[1]}"
            return (f"the part {part!r} is not letters, digits, '.', '_' or '-'" if part
                    else "a part is empty")
    return None


@attrs.frozen
class Entry:
    """One skill of the catalog."""

    collection: str
    folder: str  # below the collection's repository folder: <category…>/<key>
    sha: str | None = None

    @property
    def key(self) -> str:
        return self.folder.rsplit("/", 1)[-1]

    @property
    def category(self) -> str:
        return self.folder.rpartition("/")[0] or "other"

    @property
    def path(self) -> str:
        return f"{FOLDERS[self.collection]}/{self.folder}"

    @property
    def id(self) -> str:
        return f"{PREFIX}{self.collection}/{self.folder}"


def raw_url(conf: Settings, commit: str, path: str) -> str:
    return f"{conf.raw}/{commit}/{urllib.parse.quote(path)}"


def checkout_entries(root: Path) -> list[Entry]:
    """Every ``SKILL.md`` below the checkout's collection folders (links not followed,
    hidden folders skipped, at most 20,000 folders)."""
    found: list[Entry] = []
    budget = 20_000
    for collection, folder in FOLDERS.items():
        base = root / folder
        for current, dirs, files in os.walk(base, followlinks=False):
            budget -= 1
            if budget < 0:
                raise LemonError(f"hermes: the checkout {root} holds more than 20000 folders")
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel = os.path.relpath(current, base)
            if "SKILL.md" in files and rel != "." and os.path.isfile(
                    os.path.join(current, "SKILL.md")):
                rel = rel.replace(os.sep, "/")
                if segments_reason(rel.split("/")) is None:
                    found.append(Entry(collection, rel))
    return found


def frontmatter(data: bytes, key: str) -> tuple[str, str]:
    import yaml

    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.startswith("---"):
        return key, ""
    block = text[3:].split("\n---", 1)[0]
    try:
        meta = yaml.safe_load(block)
    except yaml.YAMLError:
        return key, ""
    if not isinstance(meta, dict):
        return key, ""
    name, description = meta.get("name"), meta.get("description")
    return (name if isinstance(name, str) and name else key,
            " ".join(description.split()) if isinstance(description, str) else "")


def checkout_head(root: Path) -> str | None:
    """The commit a local checkout is at (read by dulwich, which runs nothing), or None."""
    try:
        from dulwich.repo import Repo

        with Repo(str(root)) as repo:
            head = repo.head().decode("ascii")
    except Exception:  # noqa: BLE001 - not a repository, a detached oddity: no commit to tell
        return None
    return head if SHA.match(head) else None
