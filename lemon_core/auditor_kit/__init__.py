"""What auditor plugins build on (public; plugins may import it): where a line sits in a
markdown document or a script (:mod:`.markdown`, :mod:`.scripts`), line numbers and bounded,
escaped excerpts (:mod:`.lines`), undoing cheap obfuscation (:mod:`.decode`) and what a
network destination is (:mod:`.hosts`).

It imports nothing of lemon above the contract layer (``lemon_core.text`` only), so a
plugin that imports it gets none of lemon's services with it.
"""

from __future__ import annotations

from lemon_core.auditor_kit.decode import (
    Decoded,
    assignments,
    decoded_payloads,
    deobfuscate,
    join_strings,
    normalise_shell,
    substitute,
)
from lemon_core.auditor_kit.hosts import (
    host_class,
    is_loopback,
    names_host,
    split_url,
    urls,
)
from lemon_core.auditor_kit.lines import EXCERPT_CHARS, LineIndex, excerpt
from lemon_core.auditor_kit.markdown import (
    Document,
    Line,
    code_spans,
    document,
    in_code_span,
    is_warning,
    table_cells,
)
from lemon_core.auditor_kit.scripts import fence_language, file_kind, is_comment


def clear_caches() -> None:
    """Forget every text the kit has seen (parsed documents, line indexes, the token memory,
    host classes, warning tests), so the next audit runs as the first one of a process."""
    from lemon_core.auditor_kit import hosts, lines, markdown

    lines.forget()
    markdown.document.cache_clear()
    markdown.is_warning.cache_clear()
    hosts.host_class.cache_clear()


__all__ = [
    "EXCERPT_CHARS", "Decoded", "Document", "Line", "LineIndex", "assignments", "clear_caches",
    "code_spans",
    "decoded_payloads", "deobfuscate", "document", "excerpt", "fence_language", "file_kind",
    "host_class", "in_code_span", "is_comment", "is_loopback", "is_warning", "join_strings",
    "names_host", "normalise_shell", "split_url", "substitute", "table_cells", "urls",
]
