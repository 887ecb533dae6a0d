"""The ``manifest`` auditor family: abuse of SKILL.md's frontmatter.

It reads the raw text of SKILL.md, not only the parsed manifest (a frontmatter that lemon's
parser refuses has no manifest, and that is exactly the one to look at): the YAML is walked as
a stream of parser events, so nothing is ever built or expanded, and it reports

- YAML bombs (aliases that expand past a bound, recursive aliases), excessive nesting, tags that
  ask other tools' loaders to construct objects, aliases at all (parsers disagree on them);
- duplicate keys (which one wins differs between parsers, so the listing, the reviewer and the
  agent can each see a different description);
- control characters in keys and values (only escapes can put them there), and invisible or
  bidi characters spelled as escapes, which no reader of the raw text sees;
- oversized fields and frontmatter (they land in every prompt listing);
- a name that impersonates a built-in or a well-known vendor skill: a lookalike (confusable
  letters, digits for letters, compatibility forms, other separators), a one-letter typo of a
  long name, or a built-in's exact name.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import AuditBundle, Finding
from lemon_core.text import escape

FAMILY = "manifest"
SKILL_FILE = "SKILL.md"

RULES: dict[str, tuple[str, str]] = {
    "manifest.invalid": ("block", ("a SKILL.md that lemon's manifest reader refuses (install "
                                   "refuses it with the same reason); other tools' parsers "
                                   "may read it differently, or crash on it")),
    "manifest.yaml-bomb": ("block", ("aliases that expand to a huge or endless document "
                                     "exhaust any tool that loads the frontmatter")),
    "manifest.yaml-depth": ("block", "nesting this deep crashes recursive YAML loaders"),
    "manifest.yaml-tag": ("block", ("a YAML tag asks other tools' loaders to construct an "
                                    "object (code execution in unsafe loaders)")),
    "manifest.duplicate-key": ("block", ("a key given twice with different values: parsers "
                                         "disagree on which one the agent sees")),
    "manifest.control-character": ("block", ("control, bidi or invisible characters spelled "
                                             "as escapes hide or rewrite what a field shows")),
    "manifest.path-name": ("block", ("a name that is a path (a `/` or `\\`, a `..` step, an "
                                     "absolute or drive path, a leading `.` or `~`, NUL or "
                                     "control characters): an installer or agent that "
                                     "makes a folder of it writes outside the skills root")),
    "manifest.impersonation": ("block", ("a name that looks like a built-in or well-known "
                                         "skill without being it")),
    "manifest.oversized-frontmatter": ("block", ("frontmatter larger than lemon reads is not a "
                                                 "manifest; it is a payload")),
    "manifest.yaml-alias": ("warn", "aliases in frontmatter are unusual and parsed differently"),
    "manifest.repeated-key": ("warn", "a key given twice with the same value"),
    "manifest.oversized-field": ("warn", ("a field far longer than a listing needs stuffs "
                                          "every prompt it is shown in")),
    "manifest.builtin-name": ("warn", ("a skill from elsewhere with a built-in's exact name "
                                       "takes its place in listings")),
    "manifest.typosquat": ("warn", "a name one letter away from a well-known skill's"),
    "manifest.vendor-claim": ("warn", ("a description claiming to be an official vendor "
                                       "skill")),
}

#: Bounds: frontmatter bytes (lemon's parser reads 64 KiB), nodes after alias expansion,
#: nesting, and field lengths: twice the Agent Skills specification's (name 64, description
#: 1024), since lint already reports a field over the standard and this is about abuse.
MAX_FRONTMATTER = 64 * 1024
LARGE_FRONTMATTER = 16 * 1024
MAX_EXPANDED = 10_000
MAX_DEPTH = 64
MAX_NAME = 128
MAX_DESCRIPTION = 2048
MAX_VALUE = 4096

#: Well-known skills: the reference lemon's built-ins and the vendors' (anthropics/skills,
#: openai/skills, vercel-labs). The skills shipped with this lemon are read at run time.
VENDOR_NAMES = frozenset({
    "github", "tmux", "pinata", "summarize", "runtime-remsh", "peekaboo", "session-logs",
    "algorithmic-art", "brand-guidelines", "canvas-design", "claude-api", "doc-coauthoring",
    "docx", "frontend-design", "internal-comms", "mcp-builder", "pdf", "pptx", "skill-creator",
    "slack-gif-creator", "template-skill", "theme-factory", "web-artifacts-builder",
    "webapp-testing", "xlsx", "create-plan", "gh-address-comments", "gh-fix-ci", "linear",
    "notion-knowledge-capture", "notion-meeting-intelligence", "notion-research-documentation",
    "notion-spec-to-implementation", "skill-installer", "deploy-to-vercel",
    "vercel-cli-with-tokens", "vercel-composition-patterns", "vercel-react-best-practices",
    "vercel-react-native-skills", "vercel-react-view-transitions", "web-design-guidelines",
    "find-skills",
})

#: Letters of other scripts that pass for Latin letters in a name, then digits, symbols and
#: Latin letters that pass for one another (applied in that order).
_TO_LATIN = str.maketrans({
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r",
    "ѕ": "s", "т": "t", "у": "y", "ѵ": "v", "ԝ": "w", "х": "x", "ү": "y", "ѡ": "w", "ɡ": "g",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ɩ": "i", "ı": "i", "ℓ": "l", "ǀ": "l",
})
_FOLD = str.maketrans({
    "0": "o", "1": "l", "!": "l", "|": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b",
    "@": "a", "$": "s", "i": "l", "_": "-", ".": "-", " ": "-", "–": "-", "—": "-", "‐": "-",
    "‑": "-", "·": "-",
})
_INVISIBLE = re.compile("[\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
                        "\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_VENDOR = r"(?:anthropic|openai|claude|codex|vercel|lemon|github|google|microsoft)"
_VENDOR_CLAIM = re.compile(
    rf"\b(?:official|verified|authentic|genuine|certified)\s+{_VENDOR}\s+"
    rf"(?:skill|plugin|extension|release)s?\b|\b{_VENDOR}(?:'s|’s)?\s+(?:own\s+)?"
    r"(?:official|verified)\s+(?:skill|plugin|extension)s?\b",
    re.IGNORECASE,
)
_CLOSE = {"yaml": re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE),
          "toml": re.compile(r"^\+\+\+[ \t]*\r?$", re.MULTILINE)}
_TOP = object()


def skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded, invisibles dropped, case folded,
    confusable letters and digits mapped to the Latin letter they pass for, separators one."""
    if name.isascii():
        text = name.lower().translate(_FOLD)
    else:
        text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", name)).casefold()
        text = text.translate(_TO_LATIN).translate(_FOLD)
        text = "".join(c for c in unicodedata.normalize("NFKD", text)
                       if not unicodedata.combining(c))
    text = re.sub("-+", "-", text.replace("rn", "m").replace("vv", "w")).strip("-")
    return text


def _emoji_part(value: str, pos: int) -> bool:
    """A joiner between two pictographs, or one variation selector after one (👩‍💻, ❤️)."""
    char = value[pos]
    before = value[pos - 1] if pos else ""
    after = value[pos + 1] if pos + 1 < len(value) else ""
    picture = ("So", "Sk", "Mn")
    if char == "\u200d":
        return bool(before and after) and unicodedata.category(before) in picture and (
            unicodedata.category(after) in picture)
    return char in "\ufe0e\ufe0f" and bool(before) and unicodedata.category(before) == "So"


def _one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one insertion, deletion, substitution or swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (a[i:i + 2] == b[i:i + 2][::-1] and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]


def _frontmatter(text: str) -> tuple[str, int, str] | None:
    """(frontmatter text, the file line it starts on, "yaml" or "toml"), or None."""
    text = text.removeprefix("\ufeff")
    for fence, kind in (("---", "yaml"), ("+++", "toml")):
        if text.startswith(fence) and text[3:4] in ("\n", "\r"):
            body_start = text.index("\n") + 1
            match = _CLOSE[kind].search(text, body_start, body_start + 4 * MAX_FRONTMATTER)
            end = match.start() if match else min(len(text), body_start + 4 * MAX_FRONTMATTER)
            return text[body_start:end], 2, kind
    return None


class _Frame:
    __slots__ = ("anchor", "index", "key", "keys", "line", "mapping", "start")


    def __init__(self, anchor: str | None, start: int, mapping: bool) -> None:
        self.anchor, self.start, self.mapping = anchor, start, mapping
        self.index = 0
        self.keys: dict[str, tuple[object, int]] = {}
        self.key: str | None = None
        self.line = 0


class ManifestAuditor:
    """The ``manifest`` family; see the module docstring."""

    name = "manifest"
    rules_version = "manifest-5"
    rules = RULES
    policy = (
        "The frontmatter is data an installer and an agent use. A `name` that is a path (a "
        "`/` or `\\`, a `..` or `.` step, an absolute or drive path, a leading `.` or `~`, NUL "
        "or control characters) blocks, naming the field. A name unlike its folder's is no "
        "finding: vendors publish that way (vercel-labs/agent-skills' `react-best-practices` "
        "holds `vercel-react-best-practices`) and install uses the name.")

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        skill = next((f for f in bundle.files if f.path == SKILL_FILE and f.kind == "file"),
                     None)
        fields: dict[str, object] = {}
        if skill is not None and skill.text is not None:
            found = _frontmatter(skill.text)
            if found is not None:
                text, first_line, kind = found
                size = len(text.encode("utf-8", "surrogatepass"))
                if size > MAX_FRONTMATTER:
                    yield self._finding("manifest.oversized-frontmatter",
                                        f"{size} bytes of frontmatter; lemon reads at most "
                                        f"{MAX_FRONTMATTER}", first_line)
                    text = text[:MAX_FRONTMATTER]
                elif size > LARGE_FRONTMATTER:
                    yield self._finding("manifest.oversized-field",
                                        f"{size} bytes of frontmatter", first_line)
                if kind == "yaml":
                    yield from self._yaml(text, first_line, fields)
        reason = getattr(bundle, "manifest_error", None)
        if reason is not None:
            yield self._finding("manifest.invalid", f"lemon cannot load this SKILL.md and "
                                f"install refuses it: {reason}", 1)
        manifest = bundle.manifest
        if manifest is not None:
            fields.setdefault("name", getattr(manifest, "name", None))
            fields.setdefault("description", getattr(manifest, "description", None))
        yield from self._fields(fields)
        yield from self._path_name(fields.get("name"))
        shipped_copy = _shipped_copy(bundle.bundle_hash)
        yield from (f for f in self._names(bundle.key, fields.get("name"))
                    if not (shipped_copy and f.rule == "manifest.builtin-name"))

    def _finding(self, rule: str, message: str, line: int | None = None,
                 excerpt: str | None = None, path: str | None = SKILL_FILE) -> Finding:
        severity: Any = RULES[rule][0]
        return Finding(rule=rule, severity=severity, message=message, path=path,
                       auditor=self.name, family=FAMILY, line=line,
                       excerpt=None if excerpt is None else excerpt[:120])

    # -- the YAML event stream ---------------------------------------------------------------

    def _yaml(self, text: str, first_line: int, fields: dict[str, object]) -> Iterable[Finding]:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        stack: list[_Frame] = []
        sizes: dict[str, int] = {}
        expanded = aliases = 0
        reported: set[str] = set()
        try:
            skip = (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentStartEvent,
                    yaml.DocumentEndEvent)
            ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
            for event in yaml.parse(text, Loader=loader):
                kind = type(event)
                if kind in skip:
                    continue
                line = first_line + event.start_mark.line
                if kind in ends:
                    frame = stack.pop()
                    if frame.anchor:
                        sizes[frame.anchor] = expanded - frame.start + 1
                    continue
                tag = getattr(event, "tag", None)
                if tag and not self._plain_tag(tag) and "tag" not in reported:
                    reported.add("tag")
                    yield self._finding("manifest.yaml-tag", f"the YAML tag {tag!r}", line,
                                        tag)
                if kind is yaml.AliasEvent:
                    aliases += 1
                    if any(frame.anchor == event.anchor for frame in stack):
                        yield self._finding("manifest.yaml-bomb",
                                            f"the alias *{event.anchor} refers to a node that "
                                            "contains it (endless expansion)", line)
                        return
                    expanded += sizes.get(event.anchor or "", 1)
                    yield from self._node(stack, ("*", event.anchor), line, fields)
                elif kind is yaml.ScalarEvent:
                    expanded += 1
                    if event.anchor:
                        sizes[event.anchor] = 1
                    yield from self._scalar(event, text, line)
                    yield from self._node(stack, event.value, line, fields)
                else:  # a mapping or sequence starts
                    expanded += 1
                    yield from self._node(stack, _TOP, line, fields)
                    stack.append(_Frame(event.anchor, expanded,
                                        kind is yaml.MappingStartEvent))
                    if len(stack) > MAX_DEPTH:
                        yield self._finding("manifest.yaml-depth",
                                            f"collections nest more than {MAX_DEPTH} deep", line)
                        return
                if expanded > MAX_EXPANDED:
                    yield self._finding("manifest.yaml-bomb",
                                        f"the frontmatter expands to more than {MAX_EXPANDED} "
                                        f"nodes through {aliases} alias(es)", line)
                    return
        except yaml.YAMLError:
            return  # not YAML: lint reports it, and lemon's parser refuses it
        if aliases:
            yield self._finding("manifest.yaml-alias",
                                f"{aliases} alias(es); plain values say the same thing",
                                first_line)

    @staticmethod
    def _plain_tag(tag: str) -> bool:
        return tag == "!" or tag.startswith("tag:yaml.org,2002:") and tag[18:] in (
            "str", "int", "float", "bool", "null", "seq", "map", "timestamp")

    def _node(self, stack: list[_Frame], value: object, line: int,
              fields: dict[str, object]) -> Iterable[Finding]:
        """A node starts inside the innermost collection: in a mapping, a key or its value
        (``value`` is the scalar's text, ``("*", anchor)`` for an alias, ``_TOP`` for a
        collection)."""
        if not stack or not stack[-1].mapping:
            return
        frame = stack[-1]
        frame.index += 1
        if frame.index % 2 == 1:  # a key; a complex key (a collection, an alias) is not compared
            frame.key, frame.line = (value if isinstance(value, str) else None), line
            return
        key = frame.key
        if key is None:
            return
        if len(stack) == 1:
            fields.setdefault(key, value if isinstance(value, str) else None)
        earlier = frame.keys.get(key)
        if earlier is None:
            frame.keys[key] = (value, frame.line)
            return
        same = earlier[0] == value and value is not _TOP
        rule = "manifest.repeated-key" if same else "manifest.duplicate-key"
        where = "at the top level" if len(stack) == 1 else f"at depth {len(stack)}"
        yield self._finding(rule, f"the key {key!r} appears twice {where} (first on line "
                                  f"{earlier[1]}); parsers disagree on which value counts",
                            frame.line, key)

    def _scalar(self, event: Any, text: str, line: int) -> Iterable[Finding]:
        value = event.value
        if value.isascii() and value.isprintable():
            return
        bad = _CONTROL.search(value.replace("\n", "").replace("\t", "").replace("\r", ""))
        if bad is None and event.style == '"':
            bad = next((m for m in _INVISIBLE.finditer(value)
                        if m.group() not in text and not _emoji_part(value, m.start())), None)
        if bad is not None:
            char = bad.group()
            yield self._finding("manifest.control-character",
                                f"a value holds U+{ord(char):04X} "
                                f"{unicodedata.name(char, 'a control character')}"
                                f" (written as an escape)", line, value)

    # -- fields and names --------------------------------------------------------------------

    def _fields(self, fields: dict[str, object]) -> Iterable[Finding]:
        limits = {"name": MAX_NAME, "description": MAX_DESCRIPTION}
        for key, value in fields.items():
            if not isinstance(value, str):
                continue
            limit = limits.get(key, MAX_VALUE)
            if len(value) > limit:
                yield self._finding("manifest.oversized-field",
                                    f"{key} is {len(value)} characters; at most {limit} "
                                    "expected", None, value[:60])
        description = fields.get("description")
        if isinstance(description, str):
            claim = _VENDOR_CLAIM.search(description)
            if claim:
                yield self._finding("manifest.vendor-claim",
                                    f"the description claims {claim.group()!r}; where a "
                                    "skill comes from is the source's to say", None,
                                    claim.group())

    def _path_name(self, value: object) -> Iterable[Finding]:
        """The ``name`` field read as what installers and agents use it for: a folder name.
        A name unlike its folder's is not a finding (install uses the name); a path is."""
        if not isinstance(value, str) or not value:
            return
        why = path_name_reason(value)
        if why is not None:
            yield self._finding("manifest.path-name",
                                f"the name '{escape(value)}' is a path ({why}); an installer "
                                "that makes a folder of it writes outside the skills root",
                                None, escape(value))

    def _names(self, key: str, manifest_name: object) -> Iterable[Finding]:
        names = [key]
        if isinstance(manifest_name, str) and manifest_name and manifest_name != key:
            names.append(manifest_name)
        builtins = _shipped()
        known = builtins | VENDOR_NAMES
        shapes = _shapes(known)
        for name in names:
            plain = unicodedata.normalize("NFKC", name).casefold()
            if plain in builtins and plain == name.lower():
                yield self._finding("manifest.builtin-name",
                                    f"{name!r} is the name of a skill built into lemon; a "
                                    "built-in is never installed from elsewhere", None, name)
                continue
            if name.lower() in known:
                continue  # the name itself: a fork or the real one, the source tells
            shape = skeleton(name)
            twin = shapes.get(shape)
            if twin is not None:
                yield self._finding("manifest.impersonation",
                                    f"{name!r} looks like the well-known skill {twin!r}",
                                    None, name)
                continue
            near = next((k for s, k in _by_length(known).get(len(shape), ())
                         if _one_edit(shape, s)), None)
            if near is not None:
                yield self._finding("manifest.typosquat",
                                    f"{name!r} is one letter away from the well-known skill "
                                    f"{near!r}", None, name)


_DRIVE = re.compile(r"[A-Za-z]:")


def path_name_reason(name: str) -> str | None:
    """Why ``name`` is a path rather than a folder name, or None."""
    if any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in name):
        return "a NUL or control character" if "\0" in name else "a control character"
    if name.startswith(("/", "\\")):
        return "absolute"
    if _DRIVE.match(name):
        return "a drive letter"
    steps = re.split(r"[/\\]", name)
    if any(step in (".", "..") for step in steps):
        return "a '..' step" if ".." in steps else "a '.' step"
    if len(steps) > 1:
        return "a '/' or '\\' separator"
    if name.startswith("~"):
        return "a home folder"
    if name.startswith("."):
        return "a hidden folder"
    return None


@functools.lru_cache(maxsize=4)
def _by_length(known: frozenset[str]) -> dict[int, tuple[tuple[str, str], ...]]:
    """Skeletons of the known names of at least 8 letters (short ones are too easy to hit by
    accident), by every length one edit away from them."""
    table: dict[int, list[tuple[str, str]]] = {}
    for shape, name in _shapes(known).items():
        if len(name) >= 8:
            for size in (len(shape) - 1, len(shape), len(shape) + 1):
                table.setdefault(size, []).append((shape, name))
    return {size: tuple(rows) for size, rows in table.items()}


@functools.lru_cache(maxsize=4)
def _shapes(known: frozenset[str]) -> dict[str, str]:
    return {skeleton(k): k for k in sorted(known)}


@functools.lru_cache(maxsize=1)
def _shipped() -> frozenset[str]:
    """The skills built into this lemon (``lemon_core.builtin_skills``)."""
    try:
        from lemon_core.builtin_skills import names

        return frozenset(names())
    except (ImportError, OSError):  # pragma: no cover - an older or broken installation
        return frozenset()


def _shipped_copy(digest: str | None) -> bool:
    """The bundle is byte for byte a skill shipped with lemon (what the builtin source
    installs), so its built-in name is its own."""
    return digest is not None and digest in _shipped_hashes()


@functools.lru_cache(maxsize=1)
def _shipped_hashes() -> frozenset[str]:
    from lemon_core.fsio.read import FileProblem

    try:
        from lemon_core.builtin_skills import FOLDER, names
        from lemon_core.fsio.tree import bundle_hash, scan_tree

        return frozenset(bundle_hash(FOLDER / n, scan_tree(FOLDER / n).entries) for n in names())
    except (ImportError, OSError, FileProblem):  # pragma: no cover - a broken installation
        return frozenset()


AUDITOR = ManifestAuditor()


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    """Register the ``manifest`` auditor."""
    register(AUDITOR)
