"""The ``unicode`` auditor family: characters that change what a reader sees.

Tag characters (ASCII smuggling), bidirectional controls that reorder a line (Trojan Source),
zero-width and other invisible characters that split words or carry hidden data, terminal
control sequences that rewrite what ``cat`` shows, and names that mix lookalike scripts.

Legitimate text is not a finding: emoji ZWJ sequences, one variation selector after an emoji
or ideograph, subdivision flags (🏴 + tag letters + cancel tag), joiners in Arabic and Indic
words, word-break spaces in Thai or Japanese, and bidi controls that are balanced inside a
line holding right-to-left text. Every file the host could decode is searched, whatever its
extension.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import AuditBundle, AuditFile, Finding
from lemon_core.text import escape, identifier_reason

FAMILY = "unicode"

RULES: dict[str, tuple[str, str]] = {
    "unicode.tag-characters": ("block", ("Unicode tag characters are invisible ASCII: text an "
                                        "agent reads and a person does not see")),
    "unicode.bidi-control": ("block", ("bidirectional controls outside right-to-left text "
                                      "reorder a line so it reads differently than it runs")),
    "unicode.hidden-data": ("block", "runs of invisible characters encode a hidden message"),
    "unicode.word-split": ("block", ("an invisible character inside a word hides the word "
                                    "from readers and scanners")),
    "unicode.invisible-in-code": ("block", ("an invisible character in a script can be an "
                                           "identifier or string nobody sees")),
    "unicode.terminal-control": ("block", ("escape sequences that move the cursor, erase, hide "
                                          "text or set the title, backspaces and bare "
                                          "carriage returns rewrite what a terminal shows")),
    "unicode.invisible-name": ("block", ("a name holding invisible characters looks like "
                                        "another name")),
    "unicode.mixed-script-name": ("block", ("a skill name mixing lookalike scripts (Latin "
                                           "with Cyrillic or Greek) impersonates another")),
    "unicode.mixed-script-words": ("block", ("several words mixing Latin and Cyrillic letters "
                                             "hide words from scanners")),
    "unicode.mixed-script-file": ("warn", "a file name mixing lookalike scripts"),
    "unicode.mixed-script-word": ("warn", "a word mixing Latin and Cyrillic letters"),
    "unicode.invisible": ("warn", "a stray invisible character (often pasted from the web)"),
    "unicode.control-character": ("warn", ("a control character in text (a colour escape or "
                                          "a stray escape byte included)")),
}

_SUSPECT = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_BRAILLE = re.compile("[\u2800-\u28ff]+")
_BARE_CR = re.compile("\r(?!\n|$)")
#: A CSI sequence (``ESC [`` parameters, intermediates, a final byte).
_CSI = re.compile(r"\x1b\[([0-?]{0,32})[ -/]{0,4}([@-~])")
#: What ESC followed by one character does that rewrites or hides what a terminal shows:
#: OSC (title, clipboard, hyperlinks), DCS/SOS/PM/APC strings (never shown), reset, save and
#: restore cursor, index and reverse index, a character set swap.
_ESC_REWRITES = frozenset("]PX^_c78DEM()*+#")


def _escape_kind(text: str, pos: int) -> str:
    """``overwrite`` for an escape sequence that moves the cursor, erases, hides text or sets
    the title (and every string or control sequence but colours); ``control`` for a colour
    (SGR without the conceal attribute) or a stray escape byte that starts no sequence (an
    arrow mangled by an old editor: ``OE \x1b R/W``)."""
    follower = text[pos + 1:pos + 2]
    if follower == "[":
        csi = _CSI.match(text, pos)
        if csi is None:
            return "control"
        params, final = csi.groups()
        if final == "m" and "8" not in [p.lstrip("0") or "0" for p in re.split("[;:]", params)]:
            return "control"
        return "overwrite"
    return "overwrite" if follower and follower in _ESC_REWRITES else "control"
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_MARKS = frozenset("\u200e\u200f\u061c")
_VS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180d\u180f]")
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff"
                  "\U0001e800-\U0001efff]")
#: Scripts whose words legitimately hold joiners (Arabic, Syriac, Indic, Tibetan, Myanmar...).
_JOINING = re.compile("[\u0590-\u08ff\u0900-\u0dff\u0f00-\u0fff\u1000-\u109f\u1780-\u18af"
                      "\ua8e0-\ua8ff\ufb1d-\ufdff\ufe70-\ufefc]")
#: Scripts written without spaces, where a zero-width space marks a word break.
_NO_SPACE = re.compile("[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3000-\u30ff"
                       "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
#: A word of letters; one holding both an ASCII Latin and a Cyrillic letter is a mixed word.
#: (Checking each word after finding it is linear; lookaheads at every position of a long
#: word were quadratic.)
_LETTER_RUN = re.compile("[^\\W\\d_]+")
_LATIN_LETTER = re.compile("[a-zA-Z]")
_CYRILLIC_LETTER = re.compile("[\u0400-\u04ff]")
#: UTF-8 lead bytes of U+0400-U+04FF (Cyrillic).
_CYRILLIC_LEADS = (b"\xd0", b"\xd1", b"\xd2", b"\xd3")
_LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})
_SCRIPT_SUFFIXES = frozenset(
    (
        ".sh", ".bash", ".zsh", ".fish", ".py", ".rb", ".pl", ".php", ".js", ".mjs", ".cjs", ".ts",
        ".mts", ".cts", ".jsx", ".tsx", ".lua", ".ps1", ".psm1", ".bat", ".cmd", ".go", ".rs",
        ".java", ".cs", ".swift", ".kt", ".r", ".jl"
    )
)
_CONTROL_NAMES = {"\x1b": "an escape sequence", "\x08": "a backspace"}
#: Invisible characters in a file past which they are data, not accidents.
MAX_STRAY = 20
#: Suspect characters examined in one file (legitimate ones included) before it is refused:
#: a file of nothing but joiners costs a bounded time, and what was not examined is not passed.
MAX_SUSPECTS = 200_000
#: Stray or control characters kept per file: far past what decides the verdict.
MAX_KEPT = 1_000
EXCERPT = 60


_ASCII_CONTROLS = tuple(chr(c) for c in (*range(0x09), 0x0B, *range(0x0E, 0x20), 0x7F))
#: The suspects that ``str.isprintable`` accepts (combining marks, fillers, variation
#: selectors), as UTF-8 bytes grouped by a common prefix searched first: a bytes search is a
#: memchr, a regex costs ~50 ns a character.
_PRINTABLE_SUSPECTS: tuple[tuple[bytes, tuple[bytes, ...]], ...] = (
    (b"\xe1", tuple(c.encode() for c in "\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f")),
    (b"\xef", (b"\xef\xb8", "\uffa0".encode())),
    (b"\xcd\x8f", ()), ("\u2800".encode(), ()), ("\u3164".encode(), ()), (b"\xf3\xa0", ()),
)


def _suspect_bytes(data: bytes) -> bool:
    return any(prefix in data and (not inner or any(s in data for s in inner))
               for prefix, inner in _PRINTABLE_SUSPECTS)


def _astral(text: str) -> bool:
    """Whether ``text`` holds a character beyond the BMP (emoji, tags), in one C-level pass."""
    return not text.isascii() and len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def _plain(text: str) -> bool:
    """True when ``text`` cannot hold anything this family looks for, found with C-level scans
    only: an ordinary file costs a fraction of a millisecond (a regex over 200 KB, ~10 ms)."""
    if "\r" in text and "\n" in text and _BARE_CR.search(text):
        return False
    if text.isascii():
        return not any(c in text for c in _ASCII_CONTROLS)
    if not text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
        return False
    data = text.encode("utf-8", "surrogatepass")
    return not _suspect_bytes(data) and not _cyrillic(data)


def _cyrillic(data: bytes) -> bool:
    return any(lead in data for lead in _CYRILLIC_LEADS)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _excerpt(text: str, start: int, end: int) -> str:
    left = text.rfind("\n", max(0, start - EXCERPT), start) + 1 or max(0, start - EXCERPT)
    right = text.find("\n", end, end + EXCERPT)
    right = right if right != -1 else min(len(text), end + EXCERPT)
    return text[max(left, start - EXCERPT):right]


def _around(text: str, pos: int, end: int) -> tuple[str, str]:
    return (text[pos - 1] if pos > 0 else "", text[end] if end < len(text) else "")


def _emoji_like(char: str) -> bool:
    return bool(char) and char > "\u00a0" and unicodedata.category(char) in ("So", "Sk", "Mn",
                                                                             "Sm", "Me")


def _letter(char: str) -> bool:
    return bool(char) and char.isalpha()


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else ""


class UnicodeAuditor:
    """The ``unicode`` family; see the module docstring."""

    name = "unicode"
    rules_version = "unicode-5"
    rules = RULES

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        yield from self._names(bundle)
        for file in bundle.files:
            if file.text and not _plain(file.text):
                yield from self._text(file)

    def _finding(self, rule: str, message: str, path: str | None, line: int | None = None,
                 excerpt: str | None = None) -> Finding:
        severity: Any = RULES[rule][0]
        return Finding(rule=rule, severity=severity, message=message,
                       path=path, auditor=self.name, family=FAMILY, line=line, excerpt=excerpt)

    # -- names -------------------------------------------------------------------------------

    def _names(self, bundle: AuditBundle) -> Iterable[Finding]:
        manifest_name = getattr(bundle.manifest, "name", None)
        names = {bundle.key: "the skill's folder name"}
        if isinstance(manifest_name, str) and manifest_name not in names:
            names[manifest_name] = "the manifest name"
        for value, what in names.items():
            if not value or value.isascii():
                continue
            reason = identifier_reason(value)
            if reason is not None:
                yield self._finding("unicode.invisible-name", f"{what} {reason[1]}",
                                    "SKILL.md" if what == "the manifest name" else None,
                                    excerpt=value)
            mixed = self._mixed(value)
            if mixed:
                yield self._finding("unicode.mixed-script-name",
                                    f"{what} mixes {mixed} letters in one word", None,
                                    excerpt=value)
        for file in bundle.files:
            base = posixpath.basename(file.path)
            if base.isascii():
                continue
            reason = identifier_reason(base)
            if reason is not None and reason[0] == "unsafe_characters" and "invisible" in reason[1]:
                yield self._finding("unicode.invisible-name", f"the file name {reason[1]}",
                                    file.path, excerpt=base)
            mixed = self._mixed(posixpath.splitext(base)[0])
            if mixed:
                yield self._finding("unicode.mixed-script-file",
                                    f"the file name mixes {mixed} letters in one word",
                                    file.path, excerpt=base)

    @staticmethod
    def _mixed(value: str) -> str | None:
        """The lookalike scripts one word of ``value`` mixes ("LATIN and CYRILLIC"), if any."""
        for word in re.findall(r"[^\W\d_]+", value):
            if word.isascii():
                continue
            scripts = {_script(c) for c in word} & _LOOKALIKE_SCRIPTS
            if len(scripts) > 1:
                return " and ".join(sorted(s.title() for s in scripts))
        return None

    # -- text --------------------------------------------------------------------------------

    def _text(self, file: AuditFile) -> Iterable[Finding]:
        text = file.text or ""
        if "\0" in text and text.count("\0") * 4 > len(text):
            text = text.replace("\0", "")  # text spread between NULs: read it without them
        suffix = posixpath.splitext(file.path)[1].lower()
        is_code = suffix in _SCRIPT_SUFFIXES or text.startswith("#!")
        if _astral(text):
            yield from self._tags(file, text)
        yield from self._bidi(file, text, is_code)
        yield from self._mixed_words(file, text)
        stray: list[int] = []
        run_start, run_len, reported_run = -2, 0, False
        controls: list[tuple[str, int, str]] = []
        if "\r" in text and "\n" in text:  # CR line ends alone are an old Mac file
            controls.extend(("overwrite", m.start(), "\r") for m in _BARE_CR.finditer(text))
        for count, match in enumerate(_SUSPECT.finditer(text)):
            char, pos = match.group(), match.start()
            if count >= MAX_SUSPECTS:
                yield self._finding("unicode.hidden-data",
                                    f"more than {MAX_SUSPECTS} invisible or control characters; "
                                    "the rest were not checked", file.path, _line(text, pos))
                break
            if len(stray) > MAX_KEPT or len(controls) > MAX_KEPT:
                break  # the verdict is decided; the rest adds nothing
            if "\U000e0000" <= char <= "\U000e007f" or char in _BIDI:
                continue
            if char < "\xa0" and char != "\xad":
                kind = self._control(text, pos, char)
                if kind:
                    controls.append((kind, pos, char))
                continue
            if self._legitimate(text, pos, char):
                continue
            run_len = run_len + 1 if pos == run_start + run_len else 1
            run_start = pos if run_len == 1 else run_start
            if run_len >= 3 and not reported_run:
                reported_run = True
                yield self._finding("unicode.hidden-data",
                                    f"{run_len}+ invisible characters in a row (a hidden "
                                    "message encoded in zero-width characters)", file.path,
                                    _line(text, run_start), _excerpt(text, run_start, pos))
            stray.append(pos)
        yield from self._controls(file, text, controls)
        yield from self._strays(file, text, stray, is_code, reported_run)

    def _mixed_words(self, file: AuditFile, text: str) -> Iterable[Finding]:
        """Words mixing Latin and Cyrillic letters ("іgnore" with a Cyrillic і): spelled so
        that a reader sees a word a scanner does not. Greek is left out (μm, Δx, 2πr)."""
        if text.isascii() or not _cyrillic(text.encode("utf-8", "surrogatepass")):
            return
        words = [m for m in _LETTER_RUN.finditer(text)
                 if _CYRILLIC_LETTER.search(m.group()) and _LATIN_LETTER.search(m.group())]
        if not words:
            return
        first = words[0]
        rule = "unicode.mixed-script-words" if len(words) >= 3 else "unicode.mixed-script-word"
        yield self._finding(rule, f"{len(words)} word(s) mixing Latin and Cyrillic letters, "
                                  f"the first {first.group()!r}", file.path,
                            _line(text, first.start()), _excerpt(text, first.start(),
                                                                 first.end()))

    def _tags(self, file: AuditFile, text: str) -> Iterable[Finding]:
        for run in _TAG_RUN.finditer(text):
            pos = run.start()
            if pos > 0 and text[pos - 1] == "\U0001f3f4" and _FLAG_TAGS.fullmatch(run.group()):
                continue  # a subdivision flag: 🏴 + region letters + cancel tag
            hidden = "".join(chr(ord(c) - 0xE0000) for c in run.group()
                             if "\U000e0020" <= c <= "\U000e007e")
            shown = escape(hidden[:80]) + ("…" if len(hidden) > 80 else "")
            yield self._finding("unicode.tag-characters",
                                f"{len(run.group())} invisible tag characters; they spell "
                                f"{shown!r}" if hidden else
                                f"{len(run.group())} invisible tag characters",
                                file.path, _line(text, pos), _excerpt(text, pos, run.end()))
            return

    def _bidi(self, file: AuditFile, text: str, is_code: bool) -> Iterable[Finding]:
        if not any(c in text for c in _BIDI):
            return
        start, fenced = 0, False
        for line_no, line in enumerate(text.split("\n"), 1):
            if not is_code and line.lstrip(" ").startswith(("```", "~~~")):
                fenced = not fenced
            elif any(c in line for c in _BIDI):
                pos = next(i for i, c in enumerate(line) if c in _BIDI)
                code = is_code or fenced or line.count("`", 0, pos) % 2 == 1
                why = self._bidi_problem(line, code)
                if why:
                    yield self._finding("unicode.bidi-control", why, file.path, line_no,
                                        _excerpt(text, start + pos, start + pos + 1))
                    return
            start += len(line) + 1

    @staticmethod
    def _bidi_problem(line: str, is_code: bool) -> str | None:
        if is_code:
            return ("bidirectional controls in code: the code shown is not the code that "
                    "runs (Trojan Source)")
        if "\u202d" in line or "\u202e" in line:
            return ("a bidirectional override: the characters after it are shown in reverse "
                    "of the order they are read in")
        embeds = sum(line.count(c) for c in "\u202a\u202b\u202d\u202e") - line.count("\u202c")
        isolates = sum(line.count(c) for c in "\u2066\u2067\u2068") - line.count("\u2069")
        if embeds or isolates:
            return ("an unterminated bidirectional override, embedding or isolate: the rest "
                    "of the line is shown reordered (Trojan Source)")
        if not _RTL.search(line):
            return ("bidirectional controls in a line with no right-to-left text: what is "
                    "shown is not the order it is read in (Trojan Source)")
        return None

    @staticmethod
    def _control(text: str, pos: int, char: str) -> str | None:
        if char == "\x1b":
            return _escape_kind(text, pos)
        if char == "\x08":
            return "overwrite"
        if char >= "\x80" and pos > 0 and "\x80" <= text[pos - 1] <= "\xff":
            return None  # mojibake (UTF-8 read as Latin-1 and saved again): "â\x94\x9c"
        return "control"

    @staticmethod
    def _legitimate(text: str, pos: int, char: str) -> bool:
        before, after = _around(text, pos, pos + 1)
        if char == "\u200d":
            return (_emoji_like(before) and _emoji_like(after)) or bool(
                _JOINING.match(before) or _JOINING.match(after))
        if char == "\u200c":
            return bool(_JOINING.match(before) or _JOINING.match(after)
                        or (before and "\u0600" <= before <= "\u06ff"))
        if char == "\u200b":
            return bool(_NO_SPACE.match(before) or _NO_SPACE.match(after))
        if char in _MARKS:
            start = text.rfind("\n", 0, pos) + 1
            end = text.find("\n", pos)
            return bool(_RTL.search(text, start, end if end != -1 else len(text)))
        if char == "\ufeff":
            return pos == 0
        if char == "\u2800":  # the blank braille pattern: legitimate inside braille art
            start = pos
            while start > max(0, pos - 200) and "\u2800" <= text[start - 1] <= "\u28ff":
                start -= 1
            run = _BRAILLE.match(text, start, pos + 200)
            return bool(run) and run.group().strip("\u2800") != ""
        if char in "\u115f\u1160\u3164\uffa0":
            return bool(_HANGUL.match(before) or _HANGUL.match(after))
        if _VS.match(char):
            if not before or _VS.match(before) or before.isspace():
                return False
            if "\u180b" <= char <= "\u180f":
                return "\u1800" <= before <= "\u18af"
            if before.isascii():
                return before in "#*0123456789" or (char in "\ufe0e\ufe0f" and not before.isalpha())
            return True
        return False

    def _controls(self, file: AuditFile, text: str,
                  controls: list[tuple[str, int, str]]) -> Iterable[Finding]:
        overwrite = [(pos, char) for kind, pos, char in controls if kind == "overwrite"]
        if overwrite:
            pos, char = overwrite[0]
            what = _CONTROL_NAMES.get(char, "a bare carriage return")
            yield self._finding("unicode.terminal-control",
                                f"{what} (and {len(overwrite) - 1} more) can hide or rewrite text "
                                "on a terminal" if len(overwrite) > 1 else
                                f"{what} can hide or rewrite text on a terminal",
                                file.path, _line(text, pos), _excerpt(text, pos, pos + 1))
        others = [(pos, char) for kind, pos, char in controls if kind == "control"]
        if others:
            pos, char = others[0]
            note = (" (an escape byte starting a colour or no sequence: it moves, erases and "
                    "hides nothing)") if char == "\x1b" else ""
            yield self._finding("unicode.control-character",
                                f"{len(others)} control character(s), the first "
                                f"U+{ord(char):04X}{note}",
                                file.path, _line(text, pos), _excerpt(text, pos, pos + 1))

    def _strays(self, file: AuditFile, text: str, stray: list[int], is_code: bool,
                reported_run: bool) -> Iterable[Finding]:
        if not stray:
            return
        first = stray[0]
        label = self._label(text[first])
        for pos in stray:
            before, after = _around(text, pos, pos + 1)
            if text[pos] != "\xad" and _letter(before) and _letter(after) and not (
                    _JOINING.match(before) or _NO_SPACE.match(before)):
                yield self._finding("unicode.word-split",
                                    f"{self._label(text[pos])} inside a word", file.path,
                                    _line(text, pos), _excerpt(text, pos, pos + 1))
                return
        if reported_run:
            return
        if len(stray) >= MAX_STRAY:
            yield self._finding("unicode.hidden-data",
                                f"{len(stray)} invisible characters, the first {label}",
                                file.path, _line(text, first), _excerpt(text, first, first + 1))
        elif is_code:
            yield self._finding("unicode.invisible-in-code",
                                f"{len(stray)} invisible character(s) in a script, the first "
                                f"{label}", file.path, _line(text, first),
                                _excerpt(text, first, first + 1))
        else:
            yield self._finding("unicode.invisible",
                                f"{len(stray)} invisible character(s), the first {label}",
                                file.path, _line(text, first), _excerpt(text, first, first + 1))

    @staticmethod
    def _label(char: str) -> str:
        name = unicodedata.name(char, "")
        return f"U+{ord(char):04X}" + (f" {name}" if name else "")


AUDITOR = UnicodeAuditor()


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    """Register the ``unicode`` auditor."""
    register(AUDITOR)
