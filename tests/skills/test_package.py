"""``lemon_core.skills`` shows its API: ``dir()`` lists it, and a nonexistent ``cwd`` is an
error, as it is in the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

import lemon_core.skills
from lemon_core import skills
from lemon_core.context import LemonContext
from lemon_core.errors import LemonError

SPEC_NAMES = ["list", "get", "status", "enable", "disable", "refresh", "lock_record",
              "install", "uninstall", "update", "find_relevant", "read_skill", "Workspace"]
#: The functions' names in their modules: one public spelling each in lemon_core.skills.
LONG_NAMES = ["list_skills", "get_skill", "skill_status", "enable_skill", "disable_skill",
              "remove", "new"]


def test_dir_shows_the_api() -> None:
    names = dir(lemon_core.skills)
    assert set(SPEC_NAMES) <= set(names)
    assert names == sorted(names)
    for name in SPEC_NAMES:
        assert callable(getattr(skills, name))


def test_each_function_has_one_public_name() -> None:
    for name in LONG_NAMES:
        assert name not in dir(lemon_core.skills)
        with pytest.raises(AttributeError):
            getattr(skills, name)
    assert set(SPEC_NAMES) <= set(lemon_core.skills.__all__)
    for name in lemon_core.skills.__all__:
        assert getattr(skills, name) is not None


CALLS = {
    "list": lambda cwd: skills.list(cwd=cwd),
    "get": lambda cwd: skills.get("k", cwd=cwd),
    "status": lambda cwd: skills.status("k", cwd=cwd),
    "enable": lambda cwd: skills.enable("k", cwd=cwd, local=True),
    "disable": lambda cwd: skills.disable("k", cwd=cwd, local=True),
    "refresh": lambda cwd: skills.refresh(cwd=cwd),
    "lock_record": lambda cwd: skills.lock_record("k", cwd=cwd),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_nonexistent_cwd_is_an_error_naming_it(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 name: str) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    missing = tmp_path / "no-such-project"
    with pytest.raises(LemonError, match="no-such-project") as caught:
        CALLS[name](missing)
    assert caught.value.exit_code == 2
    assert not missing.exists()


def test_a_context_whose_cwd_is_a_file_is_an_error(tmp_path: Path) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x", encoding="utf-8")
    ctx = LemonContext(cwd=afile, home=tmp_path, env={"LEMON_CACHE_DIR": str(tmp_path / "c")})
    with pytest.raises(LemonError, match="file.txt"):
        skills.list(ctx)
