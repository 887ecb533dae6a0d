"""What kind of file a bundle entry is: markdown an agent reads, a script something runs, a
data/config file, or plain text. Decided by extension, then by a ``#!`` line, never by what
the file says about itself."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".mdown", ".mkd", ".rst", ".txt"})

#: Extension -> language of scripts and program sources.
SCRIPT_SUFFIXES = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell", ".dash": "shell",
    ".fish": "shell", ".command": "shell", ".bats": "shell",
    ".ps1": "powershell", ".psm1": "powershell", ".psd1": "powershell",
    ".bat": "batch", ".cmd": "batch",
    ".py": "python", ".pyw": "python", ".pyi": "python", ".ipynb": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "javascript", ".mts": "javascript", ".cts": "javascript", ".tsx": "javascript",
    ".rb": "ruby", ".pl": "perl", ".pm": "perl", ".php": "php", ".lua": "lua",
    ".r": "r", ".jl": "julia", ".go": "go", ".rs": "rust", ".swift": "swift",
    ".kt": "kotlin", ".java": "java", ".cs": "csharp", ".c": "c", ".cpp": "c", ".h": "c",
    ".applescript": "applescript", ".scpt": "applescript", ".vbs": "vbscript",
    ".groovy": "groovy", ".tcl": "tcl", ".awk": "awk", ".nu": "shell",
}

#: Files named without a telling extension that tools run.
SCRIPT_NAMES = {
    "makefile": "shell", "gnumakefile": "shell", "dockerfile": "shell", "justfile": "shell",
    "containerfile": "shell", "rakefile": "ruby", "procfile": "shell",
}

DATA_SUFFIXES = frozenset({".json", ".jsonc", ".json5", ".yaml", ".yml", ".toml", ".ini", ".cfg",
                           ".conf", ".env", ".xml", ".plist", ".csv", ".tsv", ".lock"})

_INTERPRETERS = {
    "sh": "shell", "bash": "shell", "zsh": "shell", "dash": "shell", "ksh": "shell",
    "fish": "shell", "python": "python", "node": "javascript", "deno": "javascript",
    "bun": "javascript", "ruby": "ruby", "perl": "perl", "php": "php", "pwsh": "powershell",
    "powershell": "powershell", "osascript": "applescript", "lua": "lua", "tsx": "javascript",
    "ts-node": "javascript", "uv": "python", "Rscript": "r", "julia": "julia",
}

#: Info strings of fenced blocks -> language.
FENCE_LANGUAGES = {
    "sh": "shell", "bash": "shell", "zsh": "shell", "shell": "shell", "console": "shell",
    "shell-session": "shell", "fish": "shell", "terminal": "shell", "ps1": "powershell",
    "powershell": "powershell", "pwsh": "powershell", "bat": "batch", "cmd": "batch",
    "python": "python", "py": "python", "python3": "python", "ipython": "python",
    "javascript": "javascript", "js": "javascript", "node": "javascript", "ts": "javascript",
    "typescript": "javascript", "jsx": "javascript", "tsx": "javascript", "ruby": "ruby",
    "rb": "ruby", "perl": "perl", "php": "php", "lua": "lua", "r": "r", "go": "go",
    "rust": "rust", "dockerfile": "shell", "makefile": "shell", "applescript": "applescript",
}


def _interpreter(first_line: str) -> str | None:
    tokens = first_line[2:].split()
    if not tokens:
        return None
    program = PurePosixPath(tokens[0]).name
    if program == "env":
        rest = [t for t in tokens[1:] if not t.startswith("-") and "=" not in t]
        program = rest[0] if rest else ""
    program = re.sub(r"[\d.]+$", "", program) or program
    return _INTERPRETERS.get(program, "shell" if program else None)


def file_kind(path: str, text: str | None = None) -> tuple[str, str | None]:
    """``(kind, language)`` of the bundle entry at ``path`` (POSIX, relative): kind is
    ``markdown``, ``script``, ``data`` or ``text``; language is the script's (``shell``,
    ``python``, ``javascript``…) or None. A ``#!`` first line makes any file a script."""
    name = path.rpartition("/")[2]
    if name in ("", "."):  # a path to normalise first: let pathlib name it
        name = PurePosixPath(path).name
    lower = name.lower()
    if text is not None and text.startswith("#!"):
        language = _interpreter(text.split("\n", 1)[0])
        if language is not None:
            return "script", language
    dot = lower.rfind(".")  # PurePosixPath(lower).suffix, without building a path
    suffix = lower[dot:] if 0 < dot < len(lower) - 1 else ""
    if suffix in SCRIPT_SUFFIXES:
        return "script", SCRIPT_SUFFIXES[suffix]
    if lower in SCRIPT_NAMES:
        return "script", SCRIPT_NAMES[lower]
    if lower.startswith("dockerfile") or lower.endswith(".mk"):
        return "script", "shell"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown", None
    if suffix in DATA_SUFFIXES or lower.startswith(".env"):
        return "data", None
    return "text", None


def fence_language(info: str) -> str | None:
    """The language of a fenced block from its info string (```` ```bash title=x ````)."""
    word = info.strip().split(maxsplit=1)[0].strip("{}.").lower() if info.strip() else ""
    return FENCE_LANGUAGES.get(word)


#: Comment starts per language, for whole-line comments of scripts.
_COMMENT = {
    "shell": ("#",), "python": ("#",), "ruby": ("#",), "perl": ("#",), "r": ("#",),
    "powershell": ("#",), "julia": ("#",), "tcl": ("#",), "awk": ("#",),
    "javascript": ("//", "/*", "*"), "go": ("//", "/*", "*"), "rust": ("//", "/*", "*"),
    "java": ("//", "/*", "*"), "kotlin": ("//", "/*", "*"), "swift": ("//", "/*", "*"),
    "csharp": ("//", "/*", "*"), "c": ("//", "/*", "*"), "php": ("//", "#", "/*", "*"),
    "groovy": ("//", "/*", "*"), "lua": ("--",), "applescript": ("--", "#"),
    "batch": ("rem ", "::"), "vbscript": ("'", "rem "),
}


def comment_starts(language: str | None) -> tuple[str, ...]:
    """What a whole-line comment of ``language`` begins with (lower case)."""
    return _COMMENT.get(language or "", ("#",))


def is_comment(line: str, language: str | None) -> bool:
    """Whether ``line`` is a whole-line comment in ``language`` (a ``#!`` line is not)."""
    stripped = line.lstrip()
    if not stripped or stripped.startswith("#!"):
        return False
    return stripped.lower().startswith(comment_starts(language))


__all__ = ["DATA_SUFFIXES", "FENCE_LANGUAGES", "MARKDOWN_SUFFIXES", "SCRIPT_SUFFIXES",
           "comment_starts", "fence_language", "file_kind", "is_comment"]
