"""Which folder names can be keys, and which keys look alike."""

from __future__ import annotations

from types import SimpleNamespace

from lemon_core.catalog.keys import MAX_KEY_BYTES, key_problem, lookalike_warnings


def test_plain_names_are_keys() -> None:
    for name in ("deploy", "k8s-rollout", "déploiement", "配置"):
        assert key_problem(name) is None


def test_invisible_control_and_long_names_are_not_keys() -> None:
    assert "U+200B" in key_problem("de\u200bploy")
    assert not key_problem("de\u200bploy").endswith("remove it")  # the caller says: rename
    assert key_problem("a\nb") == "must be a single line"
    assert key_problem("x" * (MAX_KEY_BYTES + 1)) == f"is longer than {MAX_KEY_BYTES} bytes"


def test_lookalike_keys_are_warned_once_each_and_shadowing_is_not() -> None:
    skills = [SimpleNamespace(key=k, dir=f"/r/{k}") for k in
              ("deploy", "Deploy", "deploy", "\uff44eploy", "other")]
    warnings = lookalike_warnings(skills)
    assert [w.path for w in warnings] == ["/r/Deploy", "/r/\uff44eploy"]
    assert all(w.code == "lookalike_keys" and "'deploy'" in w.message for w in warnings)
