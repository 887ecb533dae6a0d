"""Which files and fenced blocks the Ruby, Perl and PHP frontends read, and reading them once
per bundle.

A file is read by suffix (``.rb``, ``.rake``, ``.gemspec``, ``.pl``, ``.pm``, ``.t``, ``.cgi``
with a perl ``#!`` line, ``.php``, ``.phtml``…), by name (``Rakefile``, ``Gemfile``…) or by its
``#!`` line (``#!/usr/bin/env perl``); a markdown fence by its info string (``ruby``, ``rb``,
``perl``, ``pl``, ``php``). Only text holding one of the frontend's trigger words is parsed
(most files have nothing the capability reading could use); sizes are capped by
:data:`~.scripting.MAX_CHARS`.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator
from typing import Any

from lemon_core.auditor_kit.capabilities import index
from lemon_core.auditor_kit.capabilities.model import FileFacts
from lemon_core.auditor_kit.lines import indexed, register_words, word_lines

#: language -> (module, suffixes, file names, fence info strings).
LANGUAGES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "ruby": ("lemon_core.auditor_kit.capabilities.ruby", (".rb", ".rake", ".gemspec", ".ru"),
             ("rakefile", "gemfile", "guardfile", "vagrantfile", "podfile", "fastfile",
              "brewfile", "capfile"), ("ruby", "rb", "irb", "rake")),
    "perl": ("lemon_core.auditor_kit.capabilities.perl", (".pl", ".pm", ".t", ".psgi", ".plx"),
             (), ("perl", "pl", "perl5", "pm")),
    "php": ("lemon_core.auditor_kit.capabilities.php", (".php", ".phtml", ".php5", ".php7",
                                                       ".phps", ".inc.php"), (), ("php",)),
}
_SHEBANG = re.compile(r"^#!\S*?(?:/env\s+(?:-\S+\s+)*)?\S*?\b(ruby|perl|php)\d*\b")
_FENCE = re.compile(
    r"^( {0,3})(`{3,}|~{3,})[ \t]*\{?\.?(ruby|rb|irb|rake|perl5?|pl|pm|php)\b[^\n]*\n(.*?)"
    r"^ {0,3}\2[`~]*[ \t]*$", re.MULTILINE | re.IGNORECASE | re.DOTALL)
_FENCE_NAMES = {info: name for name, entry in LANGUAGES.items() for info in entry[3]}


def language_of(path: str, text: str) -> str | None:
    """``ruby``, ``perl`` or ``php`` when the file at ``path`` is a program of one, else
    None."""
    lower = path.lower()
    name = lower.rpartition("/")[2]
    for language, (_, suffixes, names, _) in LANGUAGES.items():
        if name.endswith(suffixes) or name in names:
            return language
    if text.startswith("#!"):
        found = _SHEBANG.match(text.split("\n", 1)[0])
        if found is not None:
            return found.group(1)
    if text.lstrip()[:5].lower() == "<?php":
        return "php"
    return None


def _module(language: str) -> Any:
    return importlib.import_module(LANGUAGES[language][0])


def file_facts(bundle: Any, path: str, text: str, language: str) -> FileFacts | None:
    """The facts of a Ruby, Perl or PHP file (None when it holds no trigger word)."""
    module = _module(language)
    if not module.triggered(text):
        return None
    return index.derived(bundle, language, path,  # type: ignore[no-any-return]
                         lambda: module.analyse(path, text))


def fenced(bundle: Any, path: str, text: str) -> Iterator[FileFacts]:
    """The facts of the Ruby, Perl and PHP blocks of a markdown file (a block that does not
    parse, or that stands after a warning, is an example: skipped)."""
    from lemon_core.auditor_kit.markdown import document

    for match in _FENCE.finditer(text):
        language = _FENCE_NAMES.get(match.group(3).lower())
        source = match.group(4)
        if language is None or not source.strip():
            continue
        module = _module(language)
        if not module.triggered(source):
            continue
        first = text.count("\n", 0, match.start(4)) + 1
        if first > 1 and document(path, text).line(first - 1).warned:
            continue
        found: FileFacts = index.derived(
            bundle, language, (path, first),
            functools.partial(module.analyse, path, source, line_offset=first - 1))
        if found.parsed and (found.facts or found.writes or found.stdout):
            yield found


#: Openings of a Ruby, Perl or PHP fence, lower case, found in the search every auditor's
#: words share (one pass over each text).
OPENERS = frozenset(f"{fence}{space}{info}" for fence in ("```", "~~~") for space in ("", " ")
                    for info in _FENCE_NAMES)
register_words(OPENERS)


def has_fence(text: str) -> bool:
    """Whether a markdown text may hold a Ruby, Perl or PHP fence."""
    return bool(word_lines(*indexed(text), OPENERS))


__all__ = ["LANGUAGES", "OPENERS", "fenced", "file_facts", "has_fence", "language_of"]
