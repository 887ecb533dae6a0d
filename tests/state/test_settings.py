import json
from pathlib import Path

import pytest

from lemon_core.errors import ConfigError
from lemon_core.state.settings import (
    SkillSettings,
    is_disabled,
    read_settings,
    set_enabled,
    settings_path,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def test_missing_file_reads_empty(tmp_path: Path) -> None:
    assert read_settings(tmp_path / "skills.json") == (SkillSettings(), None)


def test_broken_file_reads_empty_with_a_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "skills.json"
    for content in ("{nope", "[]", '{"disabled": "x"}', '{"disabled": [1]}', '{"skills": []}',
                    "\xff\xfe"):
        path.write_bytes(content.encode("latin-1"))
        settings, diagnostic = read_settings(path)
        assert settings == SkillSettings()
        assert diagnostic is not None and diagnostic.path == str(path)
        assert diagnostic.code == "invalid_settings"


def test_per_skill_enabled_flag_counts(tmp_path: Path) -> None:
    path = tmp_path / "skills.json"
    path.write_text(json.dumps({"skills": {"a": {"enabled": False}, "b": {"enabled": True}}}))
    settings, _ = read_settings(path)
    assert settings.state("a") is False and settings.state("b") is True
    assert settings.state("c") is None


def test_project_state_overrides_global_and_disabled_wins_in_one_file() -> None:
    global_ = SkillSettings(disabled=frozenset({"x", "y"}))
    project = SkillSettings(enabled=frozenset({"x"}), disabled=frozenset({"z"}))
    assert not is_disabled("x", project, global_)
    assert is_disabled("y", project, global_)
    assert is_disabled("z", project, global_)
    both = SkillSettings(disabled=frozenset({"k"}), enabled=frozenset({"k"}))
    assert is_disabled("k", both, SkillSettings())


def test_enable_disable_round_trip_preserves_unknown_fields(make_ctx) -> None:
    ctx = make_ctx()
    path = settings_path(ctx, local=False)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"disabled": ["other"], "future": {"keep": 1},
                                "skills": {"k": {"enabled": False, "note": "n"}}}))
    set_enabled(ctx, "k", False, local=False)
    set_enabled(ctx, "k", False, local=False)
    document = json.loads(path.read_text())
    assert document["disabled"] == ["other", "k"]
    assert document["future"] == {"keep": 1}
    set_enabled(ctx, "k", True, local=False)
    document = json.loads(path.read_text())
    assert document["disabled"] == ["other"]
    assert document["skills"]["k"] == {"enabled": True, "note": "n"}
    assert path.stat().st_mode & 0o777 == 0o600


def test_local_enable_records_an_explicit_override(make_ctx, project: Path) -> None:
    ctx = make_ctx()
    set_enabled(ctx, "k", False, local=False)
    set_enabled(ctx, "k", True, local=True)
    local = settings_path(ctx, local=True)
    assert local == project / ".lemon" / "skills.json"
    assert json.loads(local.read_text()) == {"disabled": [], "enabled": ["k"]}
    project_settings, _ = read_settings(local)
    global_settings, _ = read_settings(settings_path(ctx, local=False))
    assert not is_disabled("k", project_settings, global_settings)
    set_enabled(ctx, "k", False, local=True)
    assert json.loads(local.read_text()) == {"disabled": ["k"], "enabled": []}


def test_a_broken_file_is_never_overwritten(make_ctx) -> None:
    ctx = make_ctx()
    path = settings_path(ctx, local=False)
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    with pytest.raises(ConfigError, match="not valid JSON"):
        set_enabled(ctx, "k", False, local=False)
    assert path.read_text() == "{broken"


def test_a_failed_write_leaves_the_old_file_whole(make_ctx, monkeypatch) -> None:
    """Atomic: the new content goes to a temporary file renamed over the old one; when the
    rename fails, the old file is intact, no temporary file is left, and the error is one
    clear ConfigError naming the file."""
    import os

    from lemon_core.fsio import write as fsio

    ctx = make_ctx()
    path = settings_path(ctx, local=False)
    path.parent.mkdir(parents=True)
    original = json.dumps({"disabled": ["a"], "future": 1})
    path.write_text(original)

    def fail(*_args) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fsio.os, "replace", fail)
    with pytest.raises(ConfigError, match=f"cannot write {path}"):
        set_enabled(ctx, "b", False, local=False)
    monkeypatch.undo()
    assert path.read_text() == original
    assert sorted(os.listdir(path.parent)) == ["skills.json"]


@pytest.mark.slow
def test_concurrent_writers_lose_no_key(make_ctx, tmp_path: Path) -> None:
    """Several processes disabling different keys at once: every key ends up disabled."""
    import subprocess
    import sys

    ctx = make_ctx()
    script = (
        "import sys\n"
        "from lemon_core.context import LemonContext\n"
        "from lemon_core.state.settings import set_enabled\n"
        "ctx = LemonContext(cwd=sys.argv[1], home=sys.argv[2], env={})\n"
        "for key in sys.argv[3:]:\n"
        "    set_enabled(ctx, key, False, local=False)\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(ctx.cwd), str(ctx.home),
                          *(f"w{w}-k{k}" for k in range(8))])
        for w in range(4)
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0, 0, 0]
    disabled = json.loads(settings_path(ctx, local=False).read_text())["disabled"]
    assert sorted(disabled) == sorted(f"w{w}-k{k}" for w in range(4) for k in range(8))
