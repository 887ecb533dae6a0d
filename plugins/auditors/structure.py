"""The ``structure`` auditor family: what a skill folder holds, before anything reads it.

Links that lead out of the skill (or whose meaning depends on where it is installed), hard links,
FIFOs and devices, set-id bits, native code and archives nobody can review, files the host could
not decode, the size of the bundle, executable bits on files that are not
scripts, and file names that are unsafe or collide with another on a case-insensitive or
normalising file system. The host's own tree problems (``bundle.problems``) become findings
here too, so nothing the scan refused is silent.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import AuditBundle, AuditFile, Finding
from lemon_core.text import identifier_reason, lookalike_form

FAMILY = "structure"

RULES: dict[str, tuple[str, str]] = {
    "structure.escaping-link": ("block", ("a link out of the skill would hand the agent a file of "
                                         "the machine (or one chosen by where it is installed)")),
    "structure.hard-link": ("block", ("a hard link shares its bytes with a file outside the "
                                     "audited folder")),
    "structure.special-file": ("block", ("FIFOs, devices and sockets are not skill content; "
                                        "reading one can hang or touch hardware")),
    "structure.setid-bit": ("block", ("a set-user/group-id bit asks to run with another "
                                     "user's rights")),
    "structure.native-binary": ("block", ("compiled code (ELF, PE, Mach-O, WebAssembly, "
                                         "bytecode) cannot be reviewed")),
    "structure.incomplete-audit": ("block", ("the scan stopped at a cap or could not read an "
                                            "entry, so part of the skill was never audited")),
    "structure.unsafe-name": ("block", ("a name with control characters, `..` or a backslash "
                                       "can escape or disguise its place in the tree")),
    "structure.name-collision": ("block", ("two names that are one file on case-insensitive or "
                                          "normalising file systems: what lands is not what "
                                          "was audited")),
    "structure.git-hook": ("block", ("a .git folder with hooks or command-running config "
                                     "runs them when git is used inside the skill")),
    "structure.archive": ("warn", ("an archive is unpacked by whoever uses it; lemon audits the "
                                   "members of ZIP and tar archives, not of 7z, RAR or zstd")),
    "structure.unanalysable": ("warn", "a file that decodes as no text cannot be searched"),
    "structure.lookalike-name": ("warn", ("two names that differ only by compatibility forms "
                                         "or invisible characters look like one")),
    "structure.exec-bit": ("warn", "an executable bit on a file that is not a script"),
    "structure.git-metadata": ("warn", ("a .git folder's config and hooks run commands when "
                                       "git runs inside the skill")),
    "structure.large-bundle": ("warn", "more files or bytes than a skill needs"),
}

#: Sizes past which a bundle is worth a second look (the host's hard caps are stricter).
MAX_FILES = 500
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 25 * 1024 * 1024

_SCRIPT_SUFFIXES = frozenset(
    (
        ".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".pyw", ".rb", ".pl", ".pm", ".php", ".js",
        ".mjs", ".cjs", ".ts", ".mts", ".cts", ".lua", ".r", ".ps1", ".psm1", ".bat", ".cmd",
        ".tcl", ".awk", ".sed", ".jl", ".swift", ".kts", ".groovy", ".exs", ".ex", ".command",
        ".applescript", ".scpt", ".osascript", ".nu", ".el", ".scm", ".clj", ".hs", ".ml", ".go",
        ".rs", ".java", ".cs", ".vbs"
    )
)

#: (magic prefix, what it is, rule): checked against a file's first bytes.
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x7fELF", "an ELF executable or library", "structure.native-binary"),
    (b"MZ", "a Windows (PE) executable or library", "structure.native-binary"),
    (b"\xfe\xed\xfa\xce", "a Mach-O binary", "structure.native-binary"),
    (b"\xfe\xed\xfa\xcf", "a Mach-O binary", "structure.native-binary"),
    (b"\xce\xfa\xed\xfe", "a Mach-O binary", "structure.native-binary"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O binary", "structure.native-binary"),
    (b"\xca\xfe\xba\xbe", "a Mach-O universal binary or Java class", "structure.native-binary"),
    (b"\x00asm", "a WebAssembly module", "structure.native-binary"),
    (b"dex\n", "an Android DEX file", "structure.native-binary"),
    (b"PK\x03\x04", "a ZIP archive", "structure.archive"),
    (b"\x1f\x8b", "a gzip archive", "structure.archive"),
    (b"BZh", "a bzip2 archive", "structure.archive"),
    (b"\xfd7zXZ\x00", "an xz archive", "structure.archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "structure.archive"),
    (b"Rar!\x1a\x07", "a RAR archive", "structure.archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive", "structure.archive"),
)
#: Media and font formats: binary data an agent shows or embeds, never runs.
_MEDIA: tuple[bytes, ...] = (
    b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00",
    b"MM\x00*", b"\x00\x00\x01\x00", b"%PDF-", b"\x00\x01\x00\x00", b"OTTO", b"true",
    b"wOFF", b"wOF2", b"ttcf", b"ID3", b"OggS", b"fLaC", b"8BPS",
)
_RIFF_MEDIA = (b"WEBP", b"WAVE", b"AVI ")
_NATIVE_SUFFIXES = frozenset((
    ".exe", ".dll", ".so", ".dylib", ".bin", ".com", ".msi", ".scr", ".sys", ".pyc", ".pyo",
    ".class", ".jar", ".wasm", ".node", ".o", ".a"
))
_ARCHIVE_SUFFIXES = frozenset((
    ".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar", ".zst", ".whl", ".egg", ".deb",
    ".rpm", ".dmg", ".pkg", ".apk", ".iso", ".cab"
))

#: git config keys whose value is a command git runs.
_GIT_COMMANDS = re.compile(r"^\s*(?:fsmonitor|hookspath|sshcommand|askpass|pager|editor|"
                           r"textconv|clean|smudge|process|gpgprogram|program|helper)\s*=",
                           re.IGNORECASE | re.MULTILINE)

#: The host's tree-problem codes and the rule each one becomes.
_PROBLEM_RULES = {
    "escaping_link": "structure.escaping-link",
    "hard_link": "structure.hard-link",
    "special_file": "structure.special-file",
    "unsafe_name": "structure.unsafe-name",
    "name_collision": "structure.name-collision",
    "too_many_entries": "structure.incomplete-audit",
    "too_deep": "structure.incomplete-audit",
    "file_too_large": "structure.incomplete-audit",
    "tree_too_large": "structure.incomplete-audit",
    "unreadable": "structure.incomplete-audit",
}


def _suffix(path: str) -> str:
    return posixpath.splitext(path.rsplit("/", 1)[-1])[1].lower()


def _head(file: AuditFile, bundle: AuditBundle) -> bytes:
    """The file's first bytes: from its text when the host decoded it as UTF-8 (lossless),
    from its Latin-1 view for an archive member (which lives in memory only: the host puts the
    byte-for-byte Latin-1 reading first, or right after a UTF-16/32 one), else read again, 16
    bytes, through the safe reader."""
    if file.text is not None and (file.encoding or "utf-8").startswith("utf-8"):
        return file.text[:16].encode("utf-8", "surrogateescape")
    if file.archive is not None:
        view = file.texts[0] if file.encoding == "latin-1" else \
            file.texts[1] if len(file.texts) > 1 else ""
        return view[:16].encode("latin-1", "replace")
    from lemon_core.fsio.read import FileProblem, read_head

    try:
        return read_head(bundle.dir / file.path, 16, nofollow=True) or b""
    except (FileProblem, OSError, ValueError):
        return b""


class StructureAuditor:
    """The ``structure`` family; see the module docstring."""

    name = "structure"
    rules_version = "structure-3"
    rules = RULES

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        seen: set[tuple[str, str | None]] = set()
        for finding in self._all(bundle):
            key = (finding.rule, finding.path)
            if key not in seen:
                seen.add(key)
                yield finding

    def _all(self, bundle: AuditBundle) -> Iterable[Finding]:
        for problem in bundle.problems:
            yield self._problem(problem)
        for file in bundle.files:
            yield from self._names(file)
            yield from self._entry(file, bundle)
        yield from self._collisions(bundle.files)
        yield from self._size(bundle.files)

    def _finding(self, rule: str, message: str, path: str | None, *,
                 excerpt: str | None = None) -> Finding:
        severity: Any = RULES[rule][0]
        return Finding(rule=rule, severity=severity, message=message, path=path,
                       auditor=self.name, family=FAMILY, excerpt=excerpt)

    def _problem(self, problem: object) -> Finding:
        code = getattr(problem, "code", "")
        rule = _PROBLEM_RULES.get(code, "structure.incomplete-audit")
        path = getattr(problem, "path", None)
        message = getattr(problem, "message", "") or code
        return self._finding(rule, f"{message} ({code or 'tree problem'})", path)

    def _names(self, file: AuditFile) -> Iterable[Finding]:
        for part in file.path.split("/"):
            reason = identifier_reason(part)  # invisible characters too: .g<ZWNJ>it
            if part in ("", ".", "..") or "\\" in part or reason is not None:
                why = reason[1] if reason else "a name that is a path step or holds a backslash"
                yield self._finding("structure.unsafe-name", f"unsafe file name: {why}",
                                    file.path, excerpt=part)
                return
            if lookalike_form(part) in (".git", "git~1"):
                yield self._git(file)
                return

    def _git(self, file: AuditFile) -> Finding:
        parts = file.path.split("/")
        at = next(i for i, part in enumerate(parts)
                  if lookalike_form(part) in (".git", "git~1"))
        inner = parts[at + 1:]
        hook = len(inner) == 2 and inner[0] == "hooks" and not inner[1].endswith(".sample")
        config = inner == ["config"] and bool(_GIT_COMMANDS.search(file.text or ""))
        if hook or config:
            what = "a git hook" if hook else "git config that runs a command"
            return self._finding("structure.git-hook",
                                 f"{what}: git runs it when used inside the skill", file.path)
        return self._finding("structure.git-metadata",
                             "a .git folder inside the skill; its config and hooks can run "
                             "commands; install from the repository instead",
                             "/".join(parts[:at + 1]))

    def _entry(self, file: AuditFile, bundle: AuditBundle) -> Iterable[Finding]:
        if file.kind == "symlink":
            yield from self._link(file)
            return
        if file.kind != "file":
            yield self._finding("structure.special-file",
                                f"a {file.kind}, not a regular file, folder or link", file.path)
            return
        if file.nlink > 1:
            yield self._finding("structure.hard-link",
                                f"a hard link ({file.nlink} names for one file); copy the file "
                                "so it stands alone", file.path)
        if file.mode & 0o6000:
            yield self._finding("structure.setid-bit",
                                f"mode {file.mode:04o} sets a set-user/group-id bit", file.path)
        suffix = _suffix(file.path)
        head = _head(file, bundle)
        kind = self._binary(file, head, suffix)
        if kind is not None:
            rule, what = kind
            if rule == "structure.archive" and file.members is not None:
                yield self._finding(rule, f"{what}; its {file.members} members were audited "
                                          f"as {file.path}!/…, but unpacked they are files "
                                          "no one reviews where they land", file.path)
            else:
                yield self._finding(rule, f"{what}; its contents cannot be audited", file.path)
        elif file.text is None and not self._media(head):
            yield self._finding("structure.unanalysable",
                                "decodes as no text (UTF-8, UTF-16), so no rule could search it",
                                file.path)
        if file.mode & 0o111 and kind is None and not self._script(file, suffix):
            yield self._finding("structure.exec-bit",
                                f"mode {file.mode & 0o7777:04o}: executable but not a script "
                                "(no #! line, no script suffix)", file.path)

    def _link(self, file: AuditFile) -> Iterable[Finding]:
        target = file.link_target or ""
        folder = posixpath.dirname(file.path)
        lexical = posixpath.normpath(posixpath.join(folder, target)) if target else ""
        if file.link_inside is False:
            why = "resolves outside the skill"
        elif target.startswith("/"):
            why = "is absolute, so what it reaches depends on where the skill is installed"
        elif lexical == ".." or lexical.startswith("../"):
            why = "climbs out of the skill folder (it resolves inside only by its folder name)"
        else:
            return
        yield self._finding("structure.escaping-link", f"a symbolic link that {why}",
                            file.path, excerpt=target[:200])

    @staticmethod
    def _media(head: bytes) -> bool:
        if head.startswith(b"RIFF"):
            return head[8:12] in _RIFF_MEDIA
        return head.startswith(_MEDIA) or head[4:8] == b"ftyp"

    @staticmethod
    def _shebang(file: AuditFile) -> bool:
        return file.text is not None and file.text.startswith("#!")

    def _script(self, file: AuditFile, suffix: str) -> bool:
        return suffix in _SCRIPT_SUFFIXES or self._shebang(file)

    @staticmethod
    def _binary(file: AuditFile, head: bytes, suffix: str) -> tuple[str, str] | None:
        for magic, what, rule in _MAGIC:
            # "MZ", "BZh" and "dex" can start a line of prose: binary only when not text
            if head.startswith(magic) and (file.text is None or not magic[:2].isalpha()):
                return rule, what
        if file.members is not None:  # the host opened it: an archive, whatever it decodes as
            return "structure.archive", f"a {suffix} archive" if suffix else "an archive"
        if file.text is None and suffix in _NATIVE_SUFFIXES:
            return "structure.native-binary", f"a {suffix} file"
        if file.text is None and suffix in _ARCHIVE_SUFFIXES:
            return "structure.archive", f"a {suffix} archive"
        return None

    def _collisions(self, files: Iterable[AuditFile]) -> Iterable[Finding]:
        folded: dict[str, str] = {}
        looks: dict[str, str] = {}
        for file in files:
            key = unicodedata.normalize("NFC", file.path).casefold()
            twin = folded.setdefault(key, file.path)
            if twin != file.path:
                yield self._finding("structure.name-collision",
                                    f"the same file as {twin!r} on case-insensitive or "
                                    "normalising file systems", file.path)
                continue
            look = lookalike_form(file.path)
            other = looks.setdefault(look, file.path)
            if other != file.path:
                rule = ("structure.name-collision" if look == "skill.md"
                        else "structure.lookalike-name")
                yield self._finding(rule, f"looks like {other!r} (compatibility forms or "
                                          "invisible characters)", file.path)

    def _size(self, files: tuple[AuditFile, ...]) -> Iterable[Finding]:
        regular = [f for f in files if f.kind == "file"]
        if len(regular) > MAX_FILES:
            yield self._finding("structure.large-bundle",
                                f"{len(regular)} files; a skill rarely needs more than "
                                f"{MAX_FILES}", None)
        total = sum(f.size for f in regular)
        if total > MAX_TOTAL_BYTES:
            yield self._finding("structure.large-bundle",
                                f"{total} bytes in all; more than {MAX_TOTAL_BYTES}", ".")
        for file in regular:
            if file.size > MAX_FILE_BYTES:
                yield self._finding("structure.large-bundle",
                                    f"{file.size} bytes; more than {MAX_FILE_BYTES}", file.path)


AUDITOR = StructureAuditor()


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    """Register the ``structure`` auditor."""
    register(AUDITOR)
