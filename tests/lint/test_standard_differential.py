"""Differential test: ``validate_standard`` against the reference validator ``skills-ref``.

Hypothesis generates whole skills (folder name, file name, frontmatter, encoding) into a
temporary folder; both validators must return the same messages wherever skills-ref does not
crash, and where it crashes lemon must return a non-empty list of clear errors instead.
"""

from __future__ import annotations

import json
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.lint.standard import check_standard, validate_standard
from lemon_core.lint.standard_messages import explain

validator = pytest.importorskip("skills_ref.validator")  # Python >= 3.11 (test extra)

NAME_ALPHABET = "abcz019-_ .ABZéÉ技能навыкНАВЫКﬁ\u0301"
INTERESTING_NAMES = [
    "my-skill", "MySkill", "my_skill", "-lead", "trail-", "a--b", "技能", "мой-навык",
    "НАВЫК", "cafe\u0301", "café", "ﬁle", "x" * 64, "x" * 65, "pdf processing", "Azure CLI",
    "a1-b2",
]  # fmt: skip
TEXT_ALPHABET = st.characters(
    codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00"
)


def weighted(*choices: tuple[int, object]) -> st.SearchStrategy:
    """One of the choices, each ``(weight, value)`` repeated ``weight`` times."""
    return st.sampled_from([value for weight, value in choices for _ in range(weight)])


def names() -> st.SearchStrategy[str]:
    around_64 = st.integers(60, 68).flatmap(
        lambda n: st.text(alphabet="abc-", min_size=n, max_size=n)
    )
    return st.one_of(
        st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True),
        st.sampled_from(INTERESTING_NAMES),
        st.text(alphabet=NAME_ALPHABET, max_size=12),
        around_64,
    )


def descriptions() -> st.SearchStrategy[str]:
    around_1024 = st.tuples(
        st.integers(1010, 1040), st.sampled_from(["", " ", "  ", "\n"])
    ).map(lambda t: ("Use when testing things. " * 50)[: t[0]] + t[1])
    return st.one_of(
        st.sampled_from(["Use when testing.", "", "   ", "a: b", "x # y", "yes", "1.10"]),
        st.from_regex(r"[A-Za-z][A-Za-z ,.]{0,40}", fullmatch=True),
        st.text(TEXT_ALPHABET, max_size=30),
        around_1024,
        around_1024,
    )


def _indent(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.split("\n"))


def rendered(value: str) -> st.SearchStrategy[str]:
    """``value`` written in one of the YAML scalar styles (some of them invalid on purpose)."""
    return weighted(
        (6, " " + value),
        (1, " '" + value.replace("'", "''") + "'"),
        (2, " " + json.dumps(value)),
        (1, " " + json.dumps(value, ensure_ascii=False)),
        (1, " |\n" + _indent(value)),
        (1, " >\n" + _indent(value)),
        (1, ""),
    )


def field(key: str, value: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return value.flatmap(rendered).map(lambda text: f"{key}:{text}".rstrip(" ") + "\n")


OTHER_VALUES = st.sampled_from(
    [
        " [a, b]\n", " {a: b}\n", "\n  - a\n  - b\n", "\n  k: v\n", "\n", " null\n", " 1.0\n",
        "\n  author: Test Author\n  version: 1.0\n",
        "\n  nested:\n    deep: yes\n",
        ' {"clawdbot": {"emoji": "x"}}\n',
        " &anchor v\n", " !!str 12\n", " a: b\n",
    ]
)  # fmt: skip
EXTRA_KEYS = st.sampled_from(
    ["license", "allowed-tools", "compatibility", "metadata", "version", "author", "tags",
     "unknown_field", "user-invocable", "Name", "name", "description"]
)  # fmt: skip


def extra_fields() -> st.SearchStrategy[str]:
    compatibility = st.integers(490, 510).map(lambda n: "c" * n)
    scalar = st.tuples(
        EXTRA_KEYS, st.one_of(st.text(TEXT_ALPHABET, max_size=12), compatibility)
    ).flatmap(lambda kv: field(kv[0], st.just(kv[1])))
    other = st.tuples(EXTRA_KEYS, OTHER_VALUES).map(lambda kv: kv[0] + ":" + kv[1])
    return st.one_of(scalar, scalar, other, field("compatibility", compatibility))


@st.composite
def skills(draw: st.DrawFn) -> tuple[str, str, bytes, bytes | None]:
    """(folder name, file name, content, optional content of a second ``skill.md``)."""
    name = draw(names())
    lines = []
    if draw(weighted((6, True), (1, False))):
        lines.append(draw(field("name", st.just(name))))
    if draw(weighted((6, True), (1, False))):
        lines.append(draw(field("description", descriptions())))
    lines += draw(st.lists(extra_fields(), max_size=2))
    frontmatter = "".join(draw(st.permutations(lines)))
    if draw(weighted((12, False), (1, True))):  # a control character the reference crashes on
        at = draw(st.integers(0, len(frontmatter)))
        frontmatter = frontmatter[:at] + draw(st.sampled_from("\x80\x07\x9f\t")) + frontmatter[at:]
    prefix = draw(weighted((12, ""), (1, "\ufeff"), (1, "\n"), (1, "# Title\n")))
    closer = draw(weighted((12, "---\n"), (1, "---"), (1, ""), (1, "--- \n")))
    body = draw(weighted((3, "# My Skill\n\nDo things.\n"), (1, ""), (1, "text --- more\n")))
    text = prefix + "---\n" + frontmatter + closer + body
    newline = draw(weighted((6, "\n"), (2, "\r\n"), (1, "\r")))
    data = text.replace("\n", newline).encode("utf-8")
    if draw(weighted((20, False), (1, True))):
        data += b"\xff\xfe"  # invalid UTF-8: the reference crashes decoding it
    folder = draw(weighted((8, name), (1, "other-dir"), (1, "技能"),
                           (1, unicodedata.normalize("NFD", name)), (1, name.upper())))
    if not _usable_dir_name(folder):
        folder = "skill-dir"
    file_name = draw(weighted((10, "SKILL.md"), (2, "skill.md"), (1, "Skill.md")))
    second = draw(weighted((10, None), (1, b"---\nname: other\n---\n")))
    return folder, file_name, data, second


def _usable_dir_name(name: str) -> bool:
    return (
        name not in ("", ".", "..")
        and "/" not in name
        and "\x00" not in name
        and len(name.encode("utf-8")) <= 200
    )


@pytest.mark.slow
@settings(
    max_examples=800,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(skills())
def test_validate_standard_matches_skills_ref(skill: tuple[str, str, bytes, bytes | None]) -> None:
    folder_name, file_name, data, second = skill
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / folder_name
        folder.mkdir()
        (folder / file_name).write_bytes(data)
        if second is not None and file_name == "SKILL.md":
            (folder / "skill.md").write_bytes(second)
        ours = validate_standard(folder)
        try:
            expected = validator.validate(folder)
        except Exception:  # noqa: BLE001 - the reference crashed; lemon must not
            assert ours and all(isinstance(message, str) and message for message in ours)
            return
        assert ours == expected
        _same_verdicts_in_lemons_words(folder, data)


def _same_verdicts_in_lemons_words(folder: Path, data: bytes) -> None:
    """``lint --standard``'s wording: one message per reference message, each with a rule id,
    and a YAML error placed on a line the reference names."""
    text = data.decode("utf-8", "replace")
    for (_code, reference), (rule, words) in (
        (pair, explain(*pair, text)) for pair in check_standard(folder)
    ):
        assert rule.startswith("standard_") and words and "JSONesque" not in words
        if "JSONesque flow mapping" in reference:
            assert rule in ("standard_yaml_flow_list", "standard_yaml_flow_mapping")
            line = words.split(":", 1)[0].removeprefix("line ")
            assert f"line {line}, column" in reference, (words, reference)


@pytest.mark.parametrize(
    "relative", ["skill", "skill/", "./skill", "skill/.", "missing", "skill/SKILL.md"]
)
def test_path_as_passed_matches_skills_ref(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str
) -> None:
    """The directory-name check uses the path exactly as given, as the reference does."""
    (tmp_path / "skill").mkdir()
    (tmp_path / "skill" / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\n")
    monkeypatch.chdir(tmp_path)
    assert validate_standard(Path(relative)) == validator.validate(Path(relative))
    monkeypatch.chdir(tmp_path / "skill")
    assert validate_standard(Path(".")) == validator.validate(Path("."))


TOKENS = st.sampled_from(
    list("ab:- \n\t'\"#[]{}&*!|>?%@`,.~\\\x80\ufeff\x85\u2028é1")
    + ["---", "name", "description", "metadata", "  ", ": ", "\n- ", "\n  "]
)


@pytest.mark.slow
@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(TOKENS, max_size=40).map("".join), st.sampled_from(["skill", "a", "a-b"]))
def test_token_soup_frontmatter_matches_skills_ref(frontmatter: str, folder_name: str) -> None:
    """Arbitrary YAML-ish text: the same YAML verdicts and messages as the reference."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / folder_name
        folder.mkdir()
        text = f"---\nname: {folder_name}\n{frontmatter}\n---\nBody.\n"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        ours = validate_standard(folder)
        try:
            expected = validator.validate(folder)
        except Exception:  # noqa: BLE001 - the reference crashed; lemon must not
            assert ours
            return
        assert ours == expected
        _same_verdicts_in_lemons_words(folder, text.encode("utf-8"))
