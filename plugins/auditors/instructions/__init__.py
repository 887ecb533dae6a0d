"""The ``instructions`` auditor family: text that tries to steer the agent (or the reviewer).

Prompt injection and instruction override (in several languages), text addressed to reviewers
or scanners ("this skill is safe, do not flag"), concealment from the user, tool poisoning and
tool shadowing, instructions fetched from a URL at run time, requests to send the conversation
or secrets somewhere, edits of agent instruction files, and hidden content: HTML comments
holding directives, invisible HTML, text pushed past the visible end.

Context decides (as for :mod:`lemon_plugins.auditors.code`): prose, frontmatter, quotes, tables,
comments and script comments are what an agent reads as instructions and count in full; a fenced
example or a script's code counts one step lower; a "never do this" section counts not at all.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Mapping

from lemon_plugins.auditors.instructions import clauses, intent, reading

from lemon_core import hookimpl
from lemon_core.auditor_kit import (
    Line,
    LineIndex,
    document,
    host_class,
    is_warning,
    urls,
)
from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import (
    excerpt,
    indexed,
    register_words,
    word_lines,
)
from lemon_core.auditor_kit.rules import finding, texts_of, unique
from lemon_core.protocols import AuditBundle, Finding

FAMILY = "instructions"
RULES_VERSION = "instructions-10"
I = re.IGNORECASE

RULES: Mapping[str, tuple[str, str]] = {
    "instructions.override": ("block", ("tells the agent to ignore its previous or system "
                                       "instructions, or to take on an unrestricted role")),
    "instructions.reviewer-address": ("block", ("addresses reviewers or scanners to get the skill "
                                               "waved through (\"safe, do not flag\")")),
    "instructions.concealment": ("block", "tells the agent to hide what it does from the user"),
    "instructions.user-kept-out": ("warn", "tells the agent not to tell the user something"),
    "instructions.remote-code": ("block", ("tells the agent to run code or commands it fetches "
                                          "from a page at run time")),
    "instructions.tool-poisoning": ("block", ("tells the agent to replace, intercept or redirect "
                                             "other tools, or to override their instructions")),
    "instructions.tool-priority": ("warn", ("tells the agent to always call something first or "
                                           "instead of another tool")),
    "instructions.context-exfiltration": ("block", ("asks for the conversation, system prompt, "
                                                   "secrets or user data to be sent somewhere")),
    "instructions.secret-exfiltration": ("block", ("asks for a secret (from the user, or "
                                                  "collected from the machine) and to send it "
                                                  "to a destination outside the machine that "
                                                  "the secret's own name does not name")),
    "instructions.secret-request": ("warn", ("asks the user for a secret (a token, key, "
                                            "password or PIN) in the conversation")),
    "instructions.tool-shadowing": ("block", ("changes how another server's tools behave: rules "
                                             "for them that hold for every task while the "
                                             "skill is installed, or a call that also sends, "
                                             "copies or adds someone (doing more on every "
                                             "call warns)")),
    "instructions.remote-instructions": ("warn", ("tells the agent to fetch instructions from a "
                                                 "URL at run time and follow them")),
    "instructions.agent-config-edit": ("warn", ("tells the agent to edit an agent's instruction "
                                               "or settings file (CLAUDE.md, AGENTS.md, …)")),
    "instructions.hidden-comment": ("block", ("an HTML comment, invisible when rendered, tells "
                                             "the agent to override, hide, send or fetch, or "
                                             "names secrets (a comment that only addresses the "
                                             "agent warns; a template note is no finding)")),
    "instructions.hidden-html": ("block", ("text styled to be invisible (display:none, zero "
                                          "size, white on white) holds directives")),
    "instructions.hidden-text": ("warn", ("content is hidden from a reader (styled invisible, "
                                         "past many blank lines or far to the right)")),
    "instructions.after-end": ("block", ("directives placed past the visible end of the "
                                        "document (after many blank lines or padding)")),
}

_OVERRIDE = lazy_compile(
    r"\b(?:ignore|disregard|forget|skip|bypass|override|overrule|discard|drop)\s+(?:all\s+|any\s+|"
    r"the\s+|your\s+|every\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|"
    r"initial|system|developer|safety|existing|other|old)\s+(?:instructions?|rules?|directions?|"
    r"directives?|prompts?|guidelines?|messages?|context|commands?|constraints?|policies|"
    r"guardrails|programming)\b"
    r"|\bforget\s+(?:everything|all)\s+(?:you|that|above|before|previous)"
    r"|\b(?:your|the)\s+(?:new|real|true|actual|updated)\s+(?:instructions?|rules?|task|"
    r"objective|goal|purpose|role)\s+(?:is|are)\b"
    r"|\byou\s+are\s+(?:now|no\s+longer)\s+(?:a\s+|an\s+|in\s+)?(?:DAN|free|unrestricted|"
    r"jailbroken|developer\s+mode|unfiltered|uncensored|bound|limited|restricted|an?\s+AI)"
    r"|\b(?:enter|enable|activate|switch\s+to)\s+(?:god|DAN|jailbreak|unrestricted|"
    r"uncensored)\s+mode\b|\bdo\s+anything\s+now\b"
    r"|</?(?:system|sys|system_prompt)>|<\|im_start\|>\s*system|<\|system\|>|\[/?INST\]"
    r"|\bBEGIN\s+(?:NEW\s+)?SYSTEM\s+PROMPT|\bnew\s+system\s+prompt\s*:"
    r"|\boverride\s+(?:your|the)\s+(?:system\s+prompt|guidelines|safety(?!\s+(?:guards?|checks?|"
    r"nets?|valves?|switch(?:es)?|flags?|locks?|interlocks?|limits?|margins?|features?|"
    r"mechanisms?|timeouts?|catch(?:es)?|pins?|belts?|factors?|rails?|stops?|thresholds?)\b))"
    r"|\bignore[rz]?\s+(?:toutes\s+)?(?:les\s+)?instructions\s+(?:précédentes|antérieures|"
    r"ci-dessus)|\boublie[rz]?\s+(?:toutes\s+)?(?:les\s+)?instructions"
    r"|\bignora(?:r)?\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)"
    r"|\bolvida\s+(?:todas\s+)?las\s+instrucciones"
    r"|\bignore\s+(?:todas\s+)?as\s+instruções\s+(?:anteriores|prévias)"
    r"|\besqueça\s+(?:todas\s+)?as\s+instruções"
    r"|\b(?:ignoriere|ignorier|vergiss)\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen|vorigen)\s+"
    r"(?:Anweisungen|Instruktionen|Regeln)"
    r"|\bignora\s+(?:tutte\s+)?le\s+istruzioni\s+(?:precedenti|sopra)"
    r"|\bnegeer\s+(?:alle\s+)?(?:vorige|eerdere)\s+instructies"
    r"|(?:игнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?(?:предыдущие|прежние)\s+(?:инструкции|указания)"
    r"|(?:忽略|无视|忘记|忽视|忘掉)(?:之前|以上|先前|前面|上面|所有)(?:的)?(?:所有)?(?:指令|指示|说明|规则|提示)"
    r"|(?:以前|前|上記)の(?:すべての)?(?:指示|命令|指令)を(?:すべて)?(?:無視|忘れ)"
    r"|이전\s*(?:의\s*)?(?:모든\s*)?(?:지시|명령|지침)(?:을|를|사항을)?\s*(?:무시|잊)"
    r"|تجاهل\s+(?:جميع\s+)?(?:التعليمات|الأوامر)\s+السابقة"
    r"|önceki\s+(?:tüm\s+)?talimatları\s+(?:yok\s+say|görmezden\s+gel|unut)", I)
_REVIEWER = lazy_compile(
    r"\b(?:note|message|instructions?|attention)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:(?:ai|llm|"
    r"automated|security)\s+)+(?:reviewers?|scanners?|auditors?|analy[sz]ers?|moderators?|"
    r"graders?|evaluators?|classifiers?)\b"
    r"|\b(?:note|message|instructions?|attention)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:scanners?|"
    r"auditors?|analy[sz]ers?|classifiers?)\b"
    r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|automated|security)\b[^.\n]{0,80}\b"
    r"(?:ignore|skip|approve|mark|classify|report|say|respond|treat|consider|pass|rate)\b"
    r"|\b(?:this|the)\s+(?:skill|file|code|script|package|repository|repo|content|plugin|tool|"
    r"extension)\s+(?:is|has\s+been)\s+(?:completely\s+|totally\s+|100%\s+|fully\s+)?(?:safe|"
    r"benign|harmless|trusted|verified|approved|audited|whitelisted|allow-?listed)\b[^\n]{0,80}"
    r"\b(?:do\s+not|don'?t|no\s+need\s+to|never|not\s+to)\s+(?:flag|report|scan|analy[sz]e|audit|"
    r"review|block|warn|check|inspect)"
    r"|\b(?:do\s+not|don'?t|never)\s+flag\s+(?:this|it|these|the\s+following)\b"
    r"|\b(?:scanners?|auditors?|reviewers?|security\s+tools?|static\s+analy[sz]ers?|"
    r"classifiers?|moderators?)\s+(?:should|must|can|may|will|are\s+to)\s+(?:safely\s+)?(?:ignore|"
    r"skip|not\s+flag|pass|approve|whitelist|disregard)"
    r"|\b(?:mark|classify|rate|label|report|treat)\s+(?:this|it)\s+(?:skill\s+|file\s+)?as\s+(?:safe|"
    r"benign|clean|harmless|low[- ]risk|trusted|passing)", I)
_CONCEAL = lazy_compile(
    r"\bkeep\s+(?:this|these|it|the\s+following)\s+(?:secret|hidden|confidential)\s+from\s+"
    r"(?:the\s+)?(?:user|human)"
    r"|\b(?:the\s+)?user\s+(?:must|should)\s+(?:not|never)\s+(?:know|find\s+out|be\s+told|"
    r"notice|learn)"
    r"|\b(?:hide|conceal)\s+(?:this|these|it|the\s+\w+)\s+from\s+(?:the\s+)?(?:user|human)"
    r"|\b(?:secretly|covertly)\s+(?:send|upload|post|forward|copy|exfiltrate|transmit|run|execute|"
    r"install|add|include|append|collect|read)\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human|operator)"
    r"[^.\n]{0,40}\b(?:send|upload|post|forward|copy|transmit|install|delete)"
    r"|\bnever\s+(?:reveal|mention|disclose)\s+(?:these|this|the(?:se)?)\s+(?:instructions|"
    r"steps|actions)\s+to", I)
#: Milder: a user kept out of the loop (often a UX choice, sometimes cover).
_QUIET = lazy_compile(
    r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert)\s+(?:the\s+)?(?:user|human|"
    r"operator)\b(?!s?\s+to\b)"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human|operator)",
    I)
_POISON = lazy_compile(
    r"(?-i:<IMPORTANT>|</IMPORTANT>)"
    r"|\b(?:replace|override|shadow|intercept|hijack|redefine|supersede)\s+(?:the\s+)?(?:other|"
    r"existing|built-?in|default|original|all|every)\s+(?:[\w`.-]+\s+)?(?:tools?|servers?|skills?|"
    r"plugins?|functions?)\b"
    r"|\b(?:ignore|disregard|override)\s+(?:the\s+)?(?:instructions|descriptions?|rules|"
    r"guidance)\s+(?:of|from|in|given\s+by)\s+(?:the\s+)?(?:other|all\s+other|any\s+other)\s+"
    r"(?:tools?|servers?|skills?|plugins?)"
    r"|\b(?:when(?:ever)?|every\s+time|each\s+time)\s+(?:the\s+user|you|anyone|any\s+(?:other\s+)?"
    r"tool)\s+(?:calls?|uses?|invokes?|runs?|sends?)\b[^.\n]{0,80}\b(?:also|secretly|silently|"
    r"additionally)\s+(?:send|forward|include|bcc|cc|copy)\b"
    r"|\b(?:bcc|cc|forward|redirect|send\s+a\s+copy\s+of)\b[^.\n]{0,40}\b(?:all|every|each)\s+"
    r"(?:emails?|messages?|requests?|files?|results?|responses?)\s+to\b"
    r"|\b(?:all|every)\s+(?:emails?|messages?|payments?|transfers?)\s+(?:must|should)\s+(?:also\s+)?"
    r"(?:go|be\s+sent|be\s+forwarded)\s+to\b", I)
_PRIORITY = lazy_compile(
    r"\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?(?:other|built-?in|default|original|"
    r"real|regular|standard)\s+`?[\w.-]+`?\s+(?:tool|server|skill)\b"
    r"|\b(?:always|must|first)\s+(?:call|use|invoke|run)\s+(?:the\s+)?`?[\w.-]+`?\s+(?:tool\s+)?"
    r"(?:before|prior\s+to)\s+(?:any|every|all)\s+(?:other\s+)?(?:tools?|tool\s+calls?|actions?|"
    r"responses?)", I)
_EXFIL = lazy_compile(
    r"\b(?:send|post|upload|forward|transmit|submit|leak|email|exfiltrate|append|include|embed|"
    r"encode|put|add)\b[^.\n]{0,60}?\b(?:the\s+|your\s+|all\s+|any\s+|entire\s+|full\s+|user'?s?\s+)*"
    r"(?:conversation|chat\s+history|chat\s+log|message\s+history|previous\s+messages|system\s+"
    r"prompt|context\s+window|memory|memories|api\s+keys?|secrets?|credentials?|passwords?|"
    r"environment\s+variables|env\s+vars|ssh\s+keys?|private\s+keys?|\.env\s+file|session\s+"
    r"cookies?)\b[^.\n]{0,80}?\b(?:to|into|in|as|via)\s+(?:https?://|the\s+(?:url|image|link|"
    r"endpoint|webhook|query)|an?\s+(?:image|url|link|webhook|query\s+parameter|markdown\s+image)"
    r"|[\w.+-]+@[\w-]+\.[\w.]+)", I)
_NEGATED = lazy_compile(r"\b(?:never|do\s+not|don'?t|must\s+not|should\s+not|avoid)\b", I)
_REMOTE = lazy_compile(
    r"\b(?:fetch|download|curl|wget|retrieve|read|load|get|visit|open|grab|pull)\b[^.\n]{0,60}?"
    r"(https?://\S+)[^\n]{0,80}?\b(?:follow|execute|obey|apply|do\s+what|carry\s+out|perform|"
    r"comply|run)\b"
    r"|\b(?:follow|obey|execute|apply|carry\s+out)\s+(?:the\s+)?(?:latest\s+|current\s+|updated\s+|"
    r"new\s+|remote\s+)?(?:instructions?|steps|rules|directives|commands|orders|tasks?)\s+(?:at|"
    r"from|in|found\s+at|hosted\s+at|published\s+at|on)\s+<?(https?://\S+)"
    r"|\b(?:instructions?|rules|directives|prompt|system\s+prompt|commands)\s+(?:are|is)\s+(?:hosted|"
    r"located|available|kept|published|maintained)\s+(?:at|on)\s+<?(https?://\S+)", I)
_AGENT_FILES = (r"(?:~/)?(?:\.claude/settings(?:\.local)?\.json|CLAUDE\.md|AGENTS\.md|GEMINI\.md|"
                r"\.cursorrules|\.cursor/rules|\.clinerules|\.windsurfrules|\.codex/config\.toml|"
                r"\.mcp\.json|\.gemini/settings\.json|copilot-instructions\.md)")
_CONFIG_EDIT = lazy_compile(
    r"\b(?:add|append|write|insert|put|save|inject|overwrite|replace|prepend)\b[^.\n]{0,60}?\b"
    r"(?:to|into|in|inside)\s+(?:your\s+|the\s+|a\s+|every\s+)?(?:global\s+|user\s+|project\s+)?"
    rf"`?{_AGENT_FILES}", I)
_DIRECTIVE = lazy_compile(
    r"\byou\s+(?:must|should|will|need\s+to|are\s+to|have\s+to)\b|\bignore\s+(?:all\s+|any\s+)?"
    r"(?:previous|prior|above|these|the\s+user)\b|\bdisregard\b|\bsystem\s+prompt\b|"
    r"\b(?:the\s+)?(?:agent|assistant|ai|model|llm|claude|copilot)\s*(?:should|must|will|needs?\s+to|"
    r"is\s+to|,|:)\s|\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|inform)\b|"
    r"\bsecretly\b|\bwithout\s+(?:telling|asking)\b|\bexfiltrat\w*\s+(?:the|all|any|your)\b|"
    r"\b(?:curl|wget)\s+\S|\b(?:send|upload|post)\s+(?:the|all|your|any)\s+\w+\s+(?:to|at)\b|"
    r"\b(?:output|print|reveal|list)\s+(?:all\s+)?(?:the\s+)?(?:api\s+keys?|tokens|secrets|"
    r"credentials|environment\s+variables)", I)
#: What makes a hidden comment more than a note: secrecy, tool use over the network, secrets.
_STRONG = lazy_compile(
    r"\bsecretly\b|\bcovertly\b|\bsilently\s+(?:send|upload|post|run|execute|add|install|read)"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|inform|disclose|show)\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\b|\bexfiltrat"
    r"|\b(?:curl|wget|nc|netcat|scp|iwr|Invoke-WebRequest)\s+\S"
    r"|\b(?:send|upload|post|forward|email|transmit)\b[^.\n]{0,60}\b(?:to|at)\s+(?:https?://|"
    r"[\w.+-]+@|[\w-]+\.[a-z]{2,}\b)"
    r"|\b(?:api[\s_-]?keys?|(?:access|auth|bearer|github|gh|npm|pypi|aws|personal\s+access)\s+"
    r"tokens?|secret\s+(?:keys?|tokens?)|credentials?|passwords?|private\s+keys?|ssh\s+keys?|"
    r"session\s+cookies?|system\s+prompt|environment\s+variables)\b"
    r"|~/\.(?:ssh|aws|netrc|config/gh|docker|kube)|(?<![\w.])\.env\b", I)
#: A comment that explains a template to whoever fills it in (``e.g.``, placeholders,
#: "keep it short", "add more rows", questions to the author): a note, not an order.
_TEMPLATE_NOTE = lazy_compile(
    r"\be\.g\.|\{\{|\{[\w .-]{1,40}\}|\[[A-Z][\w .-]{1,40}\]|\bplaceholders?\b|\btemplate\b"
    r"|\bfill\s+(?:in|out)\b|\breplace\s+(?:this|these|the|every|each|with)\b|\badd\s+more\b"
    r"|\bkeep\s+(?:it|them|this|these|each)\b|\?\s*$"
    r"|^\s*(?:what|when|how|who|which|where|why)\b", I)
_TOOLING_COMMENT = lazy_compile(
    r"^\s*(?:prettier|markdownlint|eslint|cspell|vale|toc|omit|end|begin|start|region|endregion|"
    r"textlint|lint|spell|alex|remark|docs?:|@|#|[-=*_ ]*$)", I)
_HIDDEN_STYLE = lazy_compile(
    r"<(?:div|span|p|section|font|small|sub|sup|a)\b"
    # up to the tag's end, or to the next such tag (each '<div' read to the line's end was
    # quadratic in a line of them); the last tag before the style still matches
    r"(?:(?!<(?:div|span|p|section|font|small|sub|sup|a)\b)[^>])*(?:style\s*=\s*[\"'][^\"']*(?:display\s*:"
    r"\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|em|rem|pt)?\s*[;\"']|opacity\s*"
    r":\s*0(?:\.0+)?\s*[;\"']|color\s*:\s*(?:transparent|rgba\([^)]*,\s*0\))|"
    r"height\s*:\s*0|width\s*:\s*0|(?:left|top|text-indent)\s*:\s*-\d{3,}px)|\shidden(?=\s*/?>|\s+[\w-]+=|"
    r"\s*=\s*[\"']?(?:hidden|true|until-found)))", I)

#: (rule, pattern, groups of lower-case words): a line is tried only when it holds a word of
#: every group (a substring search over the whole file finds those lines).
_LINE_RULES: tuple[tuple[str, re.Pattern[str], tuple[tuple[str, ...], ...]], ...] = (
    ("instructions.override", _OVERRIDE, ((
        "ignor", "disregard", "forget", "bypass", "overr", "discard", "skip all", "skip the",
        "skip your", "skip previous", "skip prior", "drop all", "drop your", "drop the",
        "drop previous", "instruction", "task is", "tasks are", "rules are", "role is",
        "goal is", "objective is", "purpose is", "you are now", "you are no longer", " mode",
        "anything now", "<system", "</system", "<sys", "im_start", "<|system", "[inst]",
        "[/inst]", "system prompt", "oubli", "olvida", "instrucc", "instruç", "vergiss",
        "negeer", "istruzioni", "игнор", "Игнор", "забуд", "Забуд", "忽略", "无视", "忘记",
        "忽视", "忘掉", "無視", "忘れ", "무시", "잊", "تجاهل", "talimat"),)),
    ("instructions.reviewer-address", _REVIEWER, ((
        "reviewer", "scanner", "auditor", "analyzer", "analyser", "moderator", "grader",
        "evaluator", "classifier", "if you are a", "flag this", "flag it", "flag these",
        "flag the", "as safe", "as benign", "as clean", "as harmless", "as low", "as trusted",
        "as passing", "not to flag", "no need to"),)),
    ("instructions.concealment", _CONCEAL, ((
        "keep this", "keep these", "keep it", "keep the following", "must not", "should not",
        "must never", "should never", "hide ", "conceal", "secretly", "covertly", "without tell",
        "without inform", "without notify", "without alert", "never reveal", "never mention",
        "never disclose"),)),
    ("instructions.user-kept-out", _QUIET, ((
        "tell the", "inform the", "notify the", "alert the", "tell user", "inform user",
        "notify user", "alert user", "telling", "informing", "notifying", "alerting"),
        ("user", "human", "operator"))),
    ("instructions.tool-poisoning", _POISON, ((
        "<important>", "</important>", "replace the", "override the", "shadow", "intercept",
        "hijack", "redefine", "supersede", "ignore the", "disregard the", "override",
        "whenever", "every time", "each time", "when the user", "when you", "when anyone",
        "when any", "bcc", " cc", "forward", "redirect", "send a copy", "all email",
        "every email", "all message", "every message", "all payment", "every payment",
        "all transfer", "every transfer"),)),
    ("instructions.tool-priority", _PRIORITY, (("instead of", "before any", "before every",
                                                 "before all", "prior to"),)),
    ("instructions.agent-config-edit", _CONFIG_EDIT, ((
        "claude.md", "agents.md", "gemini.md", ".cursorrules", ".cursor/rules", ".clinerules",
        ".windsurfrules", "codex/config", ".mcp.json", "gemini/settings", "copilot-instructions",
        "claude/settings"),)),
)
_EXFIL_WORDS = (("conversation", "history", "prompt", "context", "memor", "key", "secret",
                 "credential", "password", "env", "cookie"),
                ("send", "post", "upload", "forward", "transmit", "submit", "leak", "email",
                 "exfiltrat", "append", "include", "embed", "encode", "put ", "add "))
_REMOTE_WORDS = (("http",), ("follow", "execute", "obey", "apply", "carry out", "perform",
                             "comply", "run"))


@functools.lru_cache(maxsize=64)
def _as_set(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(words)


def _candidates(index: LineIndex, lower: str, groups: tuple[tuple[str, ...], ...],
                found_words: Mapping[str, frozenset[int]]) -> set[int]:
    """The lines holding a word of every group; ``found_words`` the lines of each word
    present in the text (:func:`_all_words`, found at once: the few present are gone through,
    not every word of a group)."""
    found: set[int] = set()
    for position, group in enumerate(groups):
        if position and not found:
            break
        wanted = _as_set(group)
        lines: set[int] = set()
        for word, held in found_words.items():
            if word in wanted:
                lines |= held
        found = lines if not position else found & lines
    return found


@functools.lru_cache(maxsize=1)
def _all_words() -> frozenset[str]:
    """Every word of :data:`_LINE_RULES`, :data:`_REMOTE_WORDS` and :data:`_EXFIL_WORDS`."""
    groups = [group for _, _, groups in _LINE_RULES for group in groups]
    return frozenset(word for group in [*groups, *_REMOTE_WORDS, *_EXFIL_WORDS]
                     for word in group)


register_words(_all_words())  # searched with the other auditors' words, once per text


_FULL = frozenset({"prose", "heading", "frontmatter", "quote", "table", "comment",
                   "script-comment", "data"})
_LOWER = {"block": "warn", "warn": None}


def _weigh(severity: str, line: Line) -> str | None:
    """Instructions count in full where an agent reads them as text, one step lower in a
    fenced example or a script's code, not at all in a warning context."""
    if line.warned:
        return None
    return severity if line.context in _FULL else _LOWER[severity]


#: Rules whose phrase, governed by a negator or a "detect" word, is not said but warned about.
_NEGATABLE = frozenset({"instructions.override", "instructions.tool-poisoning"})
#: A script that defines tools for an agent (an MCP server): its strings are what the agent
#: reads as tool and parameter descriptions.
_TOOL_TEXT = lazy_compile(r"@mcp\.tool|\.tool\(|\bFastMCP\b|\bMcpServer\b|\.describe\(|"
                          r"\binputSchema\b|\bregisterTool\b|\blist_tools\b", I)


def _in_string(line: Line, start: int) -> bool:
    """Whether ``start`` on a code line falls inside a string literal (an odd number of one
    kind of quote before it, or the line continues a string: it opens with a quote)."""
    before = line.text[:start]
    stripped = line.text.lstrip()
    return any(before.count(quote) % 2 for quote in ("'", '"', "`")) or \
        stripped[:1] in ("'", '"', "`")


_WIDE_GAP = lazy_compile(r"\S {150,}\S")
_QUOTED = lazy_compile(r"\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|„[^“”\n]*[“”]|「[^」\n]*」|`[^`\n]*`|"
                       r"'[^'\n]{6,}'")


#: A word that turns what follows into the thing warned against or looked for ("never ignore
#: previous instructions", "flag text that says ignore previous instructions"), at most five
#: words before it in the same clause.
_WARNS_AGAINST = lazy_compile(
    r"\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|avoid|refuse|reject|detect|detects|"
    r"flag|flags|block|blocks|catch|catches|warn(?:s|ing)?\s+(?:about|against|on)|such\s+as|"
    r"(?:phrases?|text|strings?|messages?|inputs?)\s+like|"
    r"e\.g\.|for\s+example|phrases?|patterns?|attempts?\s+to|requests?\s+to)"
    r"(?:\s+[\w'’-]+){0,5}\s*$", I)
_CLAUSE_END = lazy_compile(r"[.;:!?,—–]|\s-\s|\b(?:and|then|but|so|instead|now)\b", I)


def _warned_against(text: str, start: int) -> bool:
    """Whether the phrase starting at ``start`` is named to be refused or detected rather
    than said: a negator or a "detect/such as" word governs it from the same clause."""
    before = text[max(0, start - 120):start]
    cut = None
    for cut in _CLAUSE_END.finditer(before):  # noqa: B007 - the last one is wanted
        pass
    clause = before[cut.end():] if cut is not None else before
    return _WARNS_AGAINST.search(clause) is not None or _warns(clause)


_LIST_ITEM = lazy_compile(r"\s*(?:[-*+]|\d+[.)])\s")


def _lead_warns(lines: tuple[Line, ...], index: int) -> bool:
    """Whether the list item at ``index`` (0-based) stands under a lead line that warns
    against what follows ("do not put these phrases in a prompt:")."""
    if not _LIST_ITEM.match(lines[index].text):
        return False
    for at in range(index - 1, max(-1, index - 16), -1):
        text = lines[at].text
        if not text.strip() or _LIST_ITEM.match(text) or text[:1] in (" ", "\t"):
            continue
        if lines[at].context not in ("prose", "quote"):
            return False
        paragraph = [text]  # the lead paragraph, back to its first line
        for before in range(at - 1, max(-1, at - 6), -1):
            if not lines[before].text.strip() or lines[before].context != lines[at].context:
                break
            paragraph.insert(0, lines[before].text)
        return is_warning(" ".join(paragraph)) or _warns(" ".join(paragraph))
    return False


def _warns(text: str) -> bool:
    """Whether ``text`` warns or detects in any of the clause reading's languages
    ("attackers hide phrases such as", "标记以下可疑短语")."""
    return bool(clauses.find_all(text).get("warning"))


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` sits inside quotes or a code span: a phrase quoted as an
    example (\"detect phrases like 'ignore previous instructions'\"), not said."""
    return any(m.start() <= start and end <= m.end() for m in _QUOTED.finditer(text))


def _line_findings(doc_lines: tuple[Line, ...], text: str) -> Iterator[tuple[str, str, str,
                                                                           Line, int, int]]:
    """Every directive on a line of ``text``, the lines found by word first."""
    index, lower = indexed(text)
    found_words = word_lines(index, lower, _all_words())
    for rule, pattern, groups in _LINE_RULES:
        for number in sorted(_candidates(index, lower, groups, found_words)):
            line = doc_lines[number - 1]
            match = pattern.search(line.text)
            if match:
                severity = RULES[rule][0]
                if rule in _NEGATABLE and _warned_against(line.text, match.start()):
                    continue
                if _quoted(line.text, match.start(), match.end()):
                    if _lead_warns(doc_lines, number - 1) or _warns(line.text):
                        continue  # a phrase quoted in a list of things not to write, or
                        # named in a sentence that warns against it
                    if severity == "block":
                        severity = "warn"
                yield rule, severity, RULES[rule][1], line, match.start(), match.end()
    for number in sorted(_candidates(index, lower, _REMOTE_WORDS, found_words)):
        line = doc_lines[number - 1]
        for found in _remote(line.text):
            yield (*found[:3], line, *found[3:])
    for number in sorted(_candidates(index, lower, _EXFIL_WORDS, found_words)):
        line = doc_lines[number - 1]
        match = _EXFIL.search(line.text)
        if match and not _NEGATED.search(line.text[: match.start() + 12]):
            yield ("instructions.context-exfiltration", "block",
                   ("asks for the conversation, system prompt, secrets or user data to be sent "
                   "out"), line, match.start(), match.end())


def _remote(text: str) -> Iterator[tuple[str, str, str, int, int]]:
    match = _REMOTE.search(text)
    if match is None or _NEGATED.search(text[: match.start() + 12]):
        return
    url = next((g for g in match.groups() if g), None) or next((u for *_, u in urls(text)), "")
    kind = host_class(url) if url else "unknown"
    if kind in ("docs", "loopback"):
        return
    if re.search(r"\b(?:execute|run)\b", match.group(), I):
        yield ("instructions.remote-code", "block",
               f"tells the agent to run what it fetches from {url[:100]}", match.start(),
               match.end())
        return
    severity = "block" if kind == "collector" else "warn"
    yield ("instructions.remote-instructions", severity,
           f"tells the agent to fetch instructions from {url[:100]} and follow them",
           match.start(), match.end())


def _judge_comment(body: str) -> tuple[str, str] | None:
    """How much an HTML comment's ``body`` weighs: a directive to the agent that asks for
    secrecy, an override, secrets or a send over the network blocks; one that only addresses
    the agent warns; a note to whoever fills in a template (``e.g.``, placeholders, "keep it
    short") or no directive at all is no finding."""
    override = _OVERRIDE.search(body)
    directive = _DIRECTIVE.search(body)
    strong = _STRONG.search(body)
    dangerous = override or _CONCEAL.search(body) or _EXFIL.search(body) or \
        _POISON.search(body) or _REMOTE.search(body)
    if dangerous or (directive and strong):
        return "block", ("an HTML comment (invisible when rendered) tells the agent: "
                         f"{excerpt((dangerous or directive).group(), limit=80)}")
    if directive is None or _TEMPLATE_NOTE.search(body):
        return None
    return "warn", ("an HTML comment (invisible when rendered) addresses the agent; read it: "
                    f"{excerpt(body, limit=80)}")


def _comments(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, body)`` of each HTML comment of ``text``."""
    for match in re.finditer(r"<!--(.*?)(?:-->|$)", text, re.DOTALL):
        yield match.start(), match.end(), match.group(1)


def _hidden(path: str, text: str, lines: tuple[Line, ...]) -> Iterator[tuple[str, str, str, Line,
                                                                              int, int | None]]:
    index = indexed(text)[0]  # its line starts are those of ``lines``

    def line_at(offset: int) -> Line:
        return lines[index.line_of(offset) - 1]

    if "<!--" in text:
        for start, _, body in _comments(text):
            line = line_at(start)
            if len(body.strip()) < 12 or len(body) < 60 and _TOOLING_COMMENT.match(body) or \
                    line.section_warned or line.context == "fence":
                continue
            judged = _judge_comment(body)
            if judged is not None:
                severity, message = judged
                yield ("instructions.hidden-comment", severity, message,
                       line, start - line.start, start - line.start + 120)
    if "<" in text:
        for match in _HIDDEN_STYLE.finditer(text):
            line = line_at(match.start())
            if line.context == "fence" or line.section_warned:
                continue
            body = text[match.end(): match.end() + 600]
            inner = re.split(r"</(?:div|span|p|section|font|small|sub|sup|a)>", body, maxsplit=1)[0]
            if not inner.strip(" >\n"):
                continue
            rule = "instructions.hidden-html" if _DIRECTIVE.search(inner) else \
                "instructions.hidden-text"
            yield (rule, RULES[rule][0], "text styled to be invisible when rendered"
                   + (" holds directives" if rule.endswith("html") else ""),
                   line, match.start() - line.start, None)
    for line, blank in _out_of_sight(text, lines, index):
        pad = len(line.text) - len(line.text.lstrip(" \t"))
        if blank >= 25 or pad >= 150 or (len(line.text) > 160 and " " * 150 in line.text and _WIDE_GAP.search(line.text)):
            directive = bool(_DIRECTIVE.search(line.text) or _OVERRIDE.search(line.text))
            where = f"after {blank} blank lines" if blank >= 25 else "pushed far to the right"
            if directive:
                yield ("instructions.after-end", "block",
                       f"directives placed past the visible end ({where})", line, pad, None)
            else:
                yield ("instructions.hidden-text", "warn",
                       f"content placed where a reader will not see it ({where})", line, pad,
                       None)


#: 25 or more blank lines (whitespace only) after a line's end, or at the start of a text.
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n){25,}")
_BLANK_START = re.compile(r"(?:[^\S\n]*\n){25,}")
#: A line opening with 150 spaces or tabs.
_PADDED = re.compile(r"\n[ \t]{150}")


def _out_of_sight(text: str, lines: tuple[Line, ...],
                  index: LineIndex | None = None) -> Iterator[tuple[Line, int]]:
    """Each non-blank line outside tables and fences that follows 25 or more blank lines,
    opens with 150 spaces or tabs, or holds a run of 150 spaces, with the number of blank
    lines right before it: the lines a reader may not see. Found by searching the text
    (blank runs, padding) rather than reading every line; what a count of blank lines line
    by line found, in the same order."""
    index = index if index is not None else indexed(text)[0]
    starts = index.starts
    after_blanks: dict[int, int] = {}  # line index -> blank lines before it
    head = _BLANK_START.match(text)
    runs = [(head.end(), head.group().count("\n"))] if head else []
    runs += [(run.end(), run.group().count("\n") - 1)
             for run in _BLANK_RUN.finditer(text, head.end() if head else 0)]
    for end, count in runs:
        after_blanks[bisect.bisect_right(starts, end) - 1] = count
    wide = set(after_blanks)
    # in "\n" + text, a padded line's "\n" stands at the offset where the line starts
    wide.update(bisect.bisect_right(starts, match.start()) - 1
                for match in _PADDED.finditer("\n" + text))
    gap = " " * 150
    at = text.find(gap)
    while at != -1:
        index = bisect.bisect_right(starts, at) - 1
        wide.add(index)
        at = text.find(gap, starts[index + 1]) if index + 1 < len(starts) else -1
    for index in sorted(wide):
        if index >= len(lines):
            continue
        line = lines[index]
        if not line.text.strip() or line.context in ("table", "fence"):
            continue
        yield line, after_blanks.get(index, 0)


POLICY = (
    "The prose an agent reads (SKILL.md and every text file, HTML comments, frontmatter, data "
    "files such as package descriptions and plugin manifests, the tool and parameter "
    "descriptions of a bundled server) is read clause by clause for what an instruction does, "
    "in the twenty most used languages (English, Chinese, Hindi, Spanish, French, Arabic, "
    "Bengali, Portuguese, Russian, Urdu, Indonesian, German, Japanese, Turkish, Vietnamese, "
    "Korean, Italian, Persian, Polish, Ukrainian, Dutch, Thai): an act, its object and its "
    "manner or destination, each a concept with a lexicon in every one of them. Four kinds "
    "block: a secret (a token, key, password, PIN, card number, seed phrase, `.env`, private "
    "key, cookies) asked of the user or read from the machine and sent to a destination "
    "outside the machine that the secret's own name does not name (a GitHub token sent to "
    "api.github.com is GitHub used; a secret sent to a messaging service it does not belong "
    "to leaves); acting out of the user's sight (silently, \"do not tell the user\") while "
    "moving data, or a lie prepared for the user's question (\"if asked, say no\"); a rule "
    "for every tool, any server's tools or the built-in tools that changes what they do (a "
    "recipient added, the tool replaced, every argument passed on); the earlier or system "
    "instructions set aside or declared void. The text is read as an agent reads it: "
    "zero-width, bidi and tag characters dropped, full-width letters and Cyrillic or Greek "
    "look-alikes inside Latin words folded, runs of white space read as one, base64 in prose "
    "decoded. One signal alone warns at most (a secret asked of the user, a step kept from "
    "the user, doing more on every call of another server's tool). What an honest skill "
    "writes to explain itself does not block: a phrase in quotes, a sentence that warns or "
    "detects (\"attackers write …\", \"flag phrases such as …\"), a clause under a negator "
    "(\"never send the token anywhere\"), a fenced example (read one step lower), a tool "
    "that documents its own parameters, a template note in an HTML comment (`e.g.`, "
    "placeholders, questions to the author) and a request for the key of the API the skill "
    "calls (it warns).")


class InstructionsAuditor:
    """Text that tries to steer the agent or its reviewer (see the module docstring)."""

    name = "instructions"
    rules_version = RULES_VERSION
    rules = RULES
    policy = POLICY

    def audit(self, bundle: AuditBundle) -> Iterator[Finding]:
        for file in bundle.files:
            if file.kind != "file":
                continue
            found = []
            for text in texts_of(file):
                doc = document(file.path, text)
                for rule, severity, message, line, start, end in _line_findings(doc.lines,
                                                                                text):
                    weighed = _weigh(severity, line)
                    if weighed is not None:
                        found.append(finding(RULES, rule, weighed, message, file.path, line,
                                             start, end, family=FAMILY, auditor=self.name))
                tools = doc.kind == "script" and _TOOL_TEXT.search(text) is not None
                read = list(intent.judge_text(doc.lines, text))
                first = len(read)
                read += reading.read(doc.lines, text, code=tools,
                                     prose=doc.kind in ("markdown", "text"))
                blocked: set[int] = set()  # lines a block of the patterns stands on
                for at, (rule, severity, message, line, start, end) in enumerate(read):
                    if at == first:  # the clause reading adds what the patterns missed
                        blocked = {item.line for item in found if item.severity == "block"
                                   and item.path == file.path and item.line is not None}
                    if end is not None and _quoted(line.text, start, end) and \
                            _lead_warns(doc.lines, line.number - 1):
                        continue  # a phrase quoted in a list of things not to write
                    if at >= first and (line.number in blocked or
                                        _lead_warns(doc.lines, line.number - 1)):
                        continue  # said by the patterns, or a list of things not to write
                    weighed = severity if tools and _in_string(line, start) and \
                        not line.warned else _weigh(severity, line)
                    if weighed is not None:
                        found.append(finding(RULES, rule, weighed, message, file.path, line,
                                             start, end, family=FAMILY, auditor=self.name))
                if doc.kind in ("markdown", "text", "data"):
                    for rule, severity, message, line, start, end in _hidden(file.path, text,
                                                                            doc.lines):
                        found.append(finding(RULES, rule, severity, message, file.path, line,
                                             start, end, family=FAMILY, auditor=self.name))
            yield from unique(_worst_first(found))


def _worst_first(found: list[Finding]) -> list[Finding]:
    """``found`` with, of the findings of one rule on one line, the worst where the first
    stood (a phrase the old patterns saw quoted warns; read as said, it blocks)."""
    best: dict[tuple[str, str | None, int | None], Finding] = {}
    for item in found:
        key = (item.rule, item.path, item.line)
        if key not in best or (item.severity == "block" and best[key].severity != "block"):
            best[key] = item
    return [item for item in found if best[(item.rule, item.path, item.line)] is item]


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    register(InstructionsAuditor())


__all__ = ["RULES", "RULES_VERSION", "InstructionsAuditor", "lemon_register_auditors"]
