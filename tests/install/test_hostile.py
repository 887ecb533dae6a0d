"""The pipeline is the last line of defence: whatever a source puts in the staging folder, a
hostile tree ends with a clear error and no change on disk."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core import hookimpl
from lemon_core.errors import LemonError
from lemon_core.install import pipeline
from lemon_core.install.pipeline import InstallRequest
from lemon_core.protocols import FetchResult, SourceRef
from lemon_core.testing import inline_plugins
from tests.install.support import MarkerPlugin, snapshot

SKILL = "---\nname: hostile\ndescription: Use when testing.\n---\nBody.\n"


class RawSource:
    """Writes whatever ``build(dest)`` makes: a source that does no checking of its own."""

    name = "raw"
    order = 5

    def __init__(self, build: Callable[[Path], None]) -> None:
        self.build = build

    def parse(self, identifier: str) -> SourceRef | None:
        if identifier.startswith("raw:"):
            return SourceRef(self.name, identifier, identifier, identifier[4:])
        return None

    def trust_level(self, ref: SourceRef) -> str:
        return "community"

    def fetch(self, ref, dest, ctx, progress) -> FetchResult:
        (dest / "SKILL.md").write_text(SKILL)
        self.build(dest)
        return FetchResult(revision="0" * 40)

    def upstream_hash(self, ref, ctx) -> None:
        return None

    def search(self, query, ctx, limit) -> list:
        return []


def _plugins(build: Callable[[Path], None]):
    source = RawSource(build)

    class Plugin:
        @hookimpl
        def lemon_register_sources(self, register):
            register(source)

    return inline_plugins(("sources.raw", Plugin()), ("auditors.marker", MarkerPlugin()))


def _many(dest: Path) -> None:
    """2.5 times the entry cap (100,000 files take minutes to create on a slow disk; the scan
    stops at the cap either way, see tests/fsio/test_tree.py)."""
    folder = dest / "many"
    folder.mkdir()
    fd = os.open(folder, os.O_RDONLY)
    try:
        for i in range(5_000):
            os.close(os.open(str(i), os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def _sparse(dest: Path) -> None:
    with open(dest / "big.bin", "wb") as handle:
        handle.truncate(1 << 30)


def _hard_link(dest: Path) -> None:
    (dest / "a.md").write_text("x")
    os.link(dest / "a.md", dest / "b.md")


HOSTILE = {
    "link-to-passwd": (lambda d: (d / "passwd").symlink_to("/etc/passwd"), "escaping_link"),
    "link-to-sibling": (lambda d: (d / "up").symlink_to("../.."), "escaping_link"),
    "skill-md-link": (lambda d: (os.unlink(d / "SKILL.md"),
                                 (d / "SKILL.md").symlink_to("/etc/passwd")), "escaping_link"),
    "control-name": (lambda d: (d / "x\x1b[2J.md").write_text("x"), "unsafe_name"),
    "dotdot-like": (lambda d: (d / "..\\evil").write_text("x"), "unsafe_name"),
    "windows-reserved": (lambda d: [(d / f"a{c}b").write_text("x") for c in '<>"|?*'],
                         "unsafe_name"),
    "zero-width-git": (lambda d: ((d / ".g\u200cit").mkdir(),
                                  (d / ".g\u200cit" / "config").write_text("[core]\n")),
                       "unsafe_name"),
    "tag-characters": (lambda d: (d / "run\U000e0041.sh").write_text("x"), "unsafe_name"),
    "device-name": (lambda d: ((d / "docs").mkdir(), (d / "docs" / "nul.md").write_text("x")),
                    "unsafe_name"),
    "hard-link": (_hard_link, "hard_link"),
    "fifo": (lambda d: os.mkfifo(d / "pipe"), "special_file"),
    "sparse-1gb": (_sparse, "file_too_large"),
    "5k-files": (_many, "too_many_entries"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_tree_is_refused_and_nothing_changes(make_ctx, home, project, case) -> None:
    build, code = HOSTILE[case]
    plugins = _plugins(build)
    ctx = make_ctx()
    agent = home / ".lemon" / "agent"
    before = snapshot(agent, project)
    with pytest.raises(LemonError) as caught:
        pipeline.install(InstallRequest("raw:hostile", approve=True), ctx, plugins)
    assert code in str(caught.value) and "nothing was changed" in str(caught.value)
    after = snapshot(agent, project)
    assert {p: v for p, v in after.items() if v[0] != "dir"} == {
        p: v for p, v in before.items() if v[0] != "dir"}
    skills_dir = agent / "skill"
    assert not skills_dir.exists() or list(skills_dir.iterdir()) == []
    assert not (agent / "skills.lock.json").exists()


def test_a_bad_file_name_is_named_in_the_refusal(make_ctx, home, project) -> None:
    plugins = _plugins(lambda d: ((d / ".g\u200cit").mkdir(),
                                  (d / ".g\u200cit" / "config").write_text("[core]\n")))
    with pytest.raises(LemonError) as caught:
        pipeline.install(InstallRequest("raw:hostile", approve=True), make_ctx(), plugins)
    assert ".g\u200cit/config" in str(caught.value) or ".g\u200cit" in str(caught.value)
    assert "U+200C" in str(caught.value)
    assert not (home / ".lemon" / "agent" / "skill" / "hostile").exists()
