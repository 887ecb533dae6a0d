import os

from lemon_core.mcp.servers.lazy_sources import (
    expand,
    resolve_skip_dirs,
    resolve_sources,
)

HOME = "/home/tester"


def test_flags_win_over_the_variable_in_order() -> None:
    env = {"HOME": HOME, "LAZY_SKILLS_MCP_SKILLS_DIR": "/v1:/v2"}
    assert resolve_sources(["/b", "/a"], env) == ["/b", "/a"]


def test_variable_is_a_path_style_list_with_empty_values_ignored() -> None:
    env = {"HOME": HOME, "LAZY_SKILLS_MCP_SKILLS_DIR": f"/v1{os.pathsep}{os.pathsep}~/v2"}
    assert resolve_sources([], env) == ["/v1", f"{HOME}/v2"]


def test_empty_flags_fall_through_to_the_variable() -> None:
    env = {"HOME": HOME, "LAZY_SKILLS_MCP_SKILLS_DIR": "/v1"}
    assert resolve_sources(["", ""], env) == ["/v1"]


def test_xdg_data_home_only_when_absolute() -> None:
    assert resolve_sources([], {"HOME": HOME, "XDG_DATA_HOME": "/xdg"}) == [
        "/xdg/lazy-skills-mcp/skills"]
    assert resolve_sources([], {"HOME": HOME, "XDG_DATA_HOME": "relative/xdg"}) == [
        f"{HOME}/.local/share/lazy-skills-mcp/skills"]


def test_default_is_under_home() -> None:
    assert resolve_sources([], {"HOME": HOME}) == [f"{HOME}/.local/share/lazy-skills-mcp/skills"]


def test_leading_tilde_expanded_in_flags_and_skip_dirs() -> None:
    env = {"HOME": HOME}
    assert resolve_sources(["~/src/skills", "~"], env) == [f"{HOME}/src/skills", HOME]
    assert resolve_skip_dirs(["~/.agents/skills", ""], env) == [f"{HOME}/.agents/skills"]
    assert expand("/a/~b", env) == "/a/~b"  # only a leading ~


def test_relative_paths_made_absolute(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_sources(["skills"], {"HOME": HOME}) == [str(tmp_path / "skills")]
