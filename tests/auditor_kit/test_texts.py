"""The audit host's one text index per bundle (:mod:`lemon_core.auditor_kit.texts`): every
auditor of a bundle shares it, nothing outlives the bundle, two bundles share nothing."""

from __future__ import annotations

import threading
from pathlib import Path

from lemon_core.audit.host import audit_folder
from lemon_core.auditor_kit import lines
from lemon_core.auditor_kit.texts import SLOT, TextIndex, audited, texts_of
from lemon_core.protocols import AuditBundle, AuditFile, Finding

WORDS = frozenset({"curl", "token"})


class _Asking:
    """An auditor that asks for every text's index and word lines, and keeps what it got."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[tuple[object, dict[str, frozenset[int]], object]] = []

    def audit(self, bundle: AuditBundle) -> list[Finding]:
        for file in bundle.files:
            if file.text is not None:
                index, lower = lines.indexed(file.text)
                self.seen.append((index, lines.word_lines(index, lower, WORDS),
                                  bundle.index.get(SLOT)))
        return []


def _skill(root: Path, body: str) -> Path:
    root.mkdir(parents=True)
    (root / "SKILL.md").write_text(f"---\nname: {root.name}\ndescription: d\n---\n{body}",
                                   encoding="utf-8")
    return root


def test_the_auditors_of_one_bundle_share_one_index(tmp_path: Path) -> None:
    folder = _skill(tmp_path / "one", "run curl\nsend the token\n")
    first, second = _Asking("a"), _Asking("b")
    audit_folder(folder, auditors=[first, second])
    (index_a, found_a, texts_a), = first.seen
    (index_b, found_b, texts_b), = second.seen
    assert index_a is index_b  # indexed once, for both auditors
    assert isinstance(texts_a, TextIndex) and texts_a is texts_b
    assert found_a == found_b == {"curl": frozenset({5}), "token": frozenset({6})}
    assert lines.CURRENT.get() is None  # the hand-off ends with the audit


def test_two_bundles_share_nothing_and_nothing_outlives_them(tmp_path: Path) -> None:
    body = "curl the token\n"
    one, two = _Asking("a"), _Asking("a")
    audit_folder(_skill(tmp_path / "same", body), auditors=[one])
    audit_folder(_skill(tmp_path / "same2", body), auditors=[two])
    assert one.seen[0][2] is not two.seen[0][2]
    assert one.seen[0][0] is not two.seen[0][0]
    # the module keeps no text: outside an audit each call makes its own
    text = "a curl\n"
    assert lines.indexed(text)[0] is not lines.indexed(text)[0]
    assert not any(isinstance(v, dict) and text in v for v in vars(lines).values())


def test_an_index_answers_words_registered_after_a_text_was_searched() -> None:
    bundle = AuditBundle("k", Path("."), (AuditFile("a.md", "x\ncurl\nzebra\n", 13),))
    with audited(bundle) as texts:
        index, lower = lines.indexed("x\ncurl\nzebra\n")
        assert lines.word_lines(index, lower, frozenset({"curl"})) == {"curl": frozenset({2})}
        assert lines.word_lines(index, lower, frozenset({"zebra"})) == {"zebra": frozenset({3})}
    assert texts_of(bundle) is texts


def test_two_audits_in_two_threads_each_see_their_own_index() -> None:
    seen: dict[str, object] = {}
    ready = threading.Barrier(2)

    def run(name: str) -> None:
        bundle = AuditBundle(name, Path("."), ())
        with audited(bundle):
            ready.wait(timeout=10)
            seen[name] = lines.CURRENT.get()
            ready.wait(timeout=10)

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["a"] is not seen["b"] and None not in seen.values()
