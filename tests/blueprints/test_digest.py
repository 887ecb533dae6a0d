"""The digest: canonical order, stable, moved by any byte, name, file or plan change."""

from __future__ import annotations

from lemon_core.blueprints.digest import digest
from lemon_core.blueprints.model import BundleFile


def test_the_digest_is_stable_and_moves_with_any_byte_or_name() -> None:
    files = (BundleFile("a", 1, "0" * 64), BundleFile("b", 2, "1" * 64))
    first = digest(files, {"x": [1, 2]})
    assert first == digest(tuple(reversed(files)), {"x": [1, 2]})  # order is canonical
    assert first.startswith("sha256:") and len(first) == 71
    assert first != digest((files[0], BundleFile("b", 2, "2" * 64)), {"x": [1, 2]})
    assert first != digest((files[0], BundleFile("c", 2, "1" * 64)), {"x": [1, 2]})
    assert first != digest(files, {"x": [2, 1]})
    assert first != digest(files[:1], {"x": [1, 2]})
