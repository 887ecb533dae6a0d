"""A ``package.json``'s install hooks as capability facts.

npm runs ``scripts.preinstall``, ``install`` and ``postinstall`` by itself on ``npm install``.
Each hook is read as a shell command line through :mod:`.shell` (``curl … | sh``, ``node -e``,
``node scripts/x.js``: the last an invocation, so the judge joins the script's own facts); the
code of an inline ``node -e``/``--eval`` hook is also read as JavaScript through
:mod:`.javascript`.
"""

from __future__ import annotations

import json

from lemon_core.auditor_kit.capabilities import shell
from lemon_core.auditor_kit.capabilities.model import FileFacts

HOOKS = ("preinstall", "install", "postinstall")
MAX_CHARS = 262_144


def _line_of(text: str, hook: str) -> int:
    at = text.find(f'"{hook}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _inline_code(command: str) -> str | None:
    words = shell.tokens(command) or []
    for index, word in enumerate(words[:-1]):
        if word in ("-e", "--eval", "-p", "--print") and index > 0 and any(
                w.rpartition("/")[2] in ("node", "nodejs", "bun", "deno") for w in words[:index]):
            return words[index + 1]
    return None


def hook_facts(path: str, text: str) -> FileFacts | None:
    """The facts of the install hooks of ``package.json`` ``text``, or None when it has none
    (or is not a JSON object)."""
    if len(text) > MAX_CHARS or '"scripts"' not in text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return None
    facts, writes, invocations = [], [], []
    for hook in HOOKS:
        command = scripts.get(hook)
        if not isinstance(command, str) or not command.strip():
            continue
        line = _line_of(text, hook)
        result = shell.analyse(command[:MAX_CHARS], path, line)
        facts.extend(result.facts)
        writes.extend(result.writes)
        invocations.extend(result.invocations)
        code = _inline_code(command)
        if code:
            from lemon_core.auditor_kit.capabilities import javascript

            inline = javascript.analyse(path + ".js", code, line_offset=line - 1)
            facts.extend(f.__class__(**{**_fields(f), "path": path}) for f in inline.facts)
    if not (facts or writes or invocations):
        return None
    return FileFacts(path=path, language="shell", facts=tuple(facts), writes=tuple(writes),
                     invocations=tuple(invocations))


def _fields(fact: object) -> dict[str, object]:
    import attrs

    return attrs.asdict(fact, recurse=False)  # type: ignore[arg-type]


__all__ = ["HOOKS", "hook_facts"]
