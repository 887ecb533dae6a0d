"""The values of the PowerShell reading (:mod:`.powershell`): folded text, the sources of its
data, and the small helpers over tree-sitter nodes its modules share."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities.model import Source
from lemon_core.auditor_kit.capabilities.values import HOLE

MAX_CHARS = 500_000
MAX_DEPTH = 3


@attrs.frozen
class Val:
    """A folded value: ``text`` (with :data:`HOLE` for unknown parts; None when nothing is
    known), the sources of its data, the items of an array, the bytes of a byte array, the
    kind of object it is (``webclient``, ``socket``, ``scriptblock``), and ``built`` when it
    was assembled from fragments, character codes or a decoder."""

    text: str | None = None
    taint: frozenset[Source] = frozenset()
    items: tuple[Val, ...] | None = None
    data: bytes | None = None
    obj: str = ""
    built: bool = False

    def s(self) -> str:
        if self.text is not None:
            return self.text
        if self.items is not None:
            return " ".join(i.s() for i in self.items)
        return HOLE


UNKNOWN = Val()


def union(*vals: Val) -> frozenset[Source]:
    out: frozenset[Source] = frozenset()
    for v in vals:
        out |= v.taint
        if v.items:
            for item in v.items:
                out |= item.taint
    return out


#: Windows folders spelled as the home paths the vocabulary knows.
ENV_PATHS = {
    "userprofile": "~", "home": "~", "homepath": "~", "localappdata": "~/AppData/Local",
    "appdata": "~/AppData/Roaming", "temp": "~/AppData/Local/Temp", "tmp": "~/AppData/Local/Temp",
    "systemdrive": "C:", "systemroot": "C:/Windows", "windir": "C:/Windows",
    "programdata": "C:/ProgramData", "onedrive": "~/OneDrive",
    "comspec": "C:\\WINDOWS\\system32\\cmd.exe",
}
AUTOMATIC = {"home": "~", "profile": "~/Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
             # what obfuscators index into (``$pshome[4]+$pshome[30]+'x'`` is ``iex``)
             "pshome": "C:\\Windows\\System32\\WindowsPowerShell\\v1.0",
             "shellid": "Microsoft.PowerShell", "verbosepreference": "SilentlyContinue",
             "true": "True", "false": "False", "null": ""}

def decode_encoded_command(text: str) -> str | None:
    """The script of ``-EncodedCommand``: base64 of UTF-16LE (None when it does not decode)."""
    raw = text.strip().strip("'\"")
    if not raw or len(raw) > MAX_CHARS:
        return None
    try:
        data = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    try:
        return data.decode("utf-16-le")
    except UnicodeDecodeError:
        return None


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _first(node: Any, kind: str) -> Any:
    if node is None:
        return None
    for child in node.named_children:
        if child.type == kind:
            return child
    return None


def _descendant(node: Any, kind: str) -> Any:
    """The first node of ``kind`` down a chain of single children (``$x`` under the
    grammar's precedence levels)."""
    while node is not None and node.type != kind:
        named = node.named_children
        if len(named) != 1:
            return _first(node, kind)
        node = named[0]
    return node


__all__ = ["AUTOMATIC", "ENV_PATHS", "HOLE", "MAX_CHARS", "MAX_DEPTH", "UNKNOWN", "Val",
           "decode_encoded_command", "union"]
