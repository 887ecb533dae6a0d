"""Capabilities of a skill's code, derived from parsed programs (public; plugins may import it).

:mod:`.model` the facts; :mod:`.values`, :mod:`.python` and :mod:`.python_calls` the abstract
interpreter for Python (``ast``, constant folding, taint; the calls it knows);
:mod:`.javascript` the same for JavaScript and TypeScript (tree-sitter grammars);
:mod:`.scripting` the reader Ruby, Perl and PHP share (tree-sitter grammars), with :mod:`.ruby`,
:mod:`.perl` and :mod:`.php` for each language's syntax, :mod:`.ruby_calls`, :mod:`.perl_calls`
and :mod:`.php_calls` for what its calls do, and :mod:`.languages` for which files and fences
they read; :mod:`.inline` the interpreters reached from shell lines (``perl -e``);
:mod:`.package_json` npm install hooks; :mod:`.shell` commands and pipelines; :mod:`.vocab`
what paths, commands and callables mean; :mod:`.index` the per-bundle parse index; :mod:`.bundle` the facts of every file of a bundle.
"""

from __future__ import annotations

from lemon_core.auditor_kit.capabilities.model import Fact, FileFacts, Source, Write

__all__ = ["Fact", "FileFacts", "Source", "Write"]
