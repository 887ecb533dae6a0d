"""Every file of a bundle read once: the per-bundle index, fences, and the parse trigger."""

from __future__ import annotations

from pathlib import Path

from lemon_core.auditor_kit.capabilities import index
from lemon_core.auditor_kit.capabilities.bundle import fenced_blocks, file_facts
from lemon_core.protocols import AuditBundle, AuditFile


def bundle(files: dict[str, str]) -> AuditBundle:
    return AuditBundle(key="k", dir=Path("."), files=tuple(
        AuditFile(path=p, text=t, size=len(t)) for p, t in files.items()))


def test_the_index_lives_with_its_bundle() -> None:
    one = bundle({"a.py": "import os\nos.system('ls')\n"})
    two = bundle({"a.py": "import os\nos.system('ls')\n"})
    first = index.python_tree(one, "a.py", one.files[0].text or "")
    assert index.python_tree(one, "a.py", "ignored: already parsed") is first
    assert index.python_tree(two, "a.py", two.files[0].text or "") is not first
    assert file_facts(one) is file_facts(one)


def test_python_without_a_capability_word_is_not_parsed() -> None:
    plain = bundle({"a.py": "import json\nprint(json.dumps({'a': 1}))\n"})
    assert file_facts(plain) == ()
    assert "python-ast" not in plain.index
    # one word in one file is enough to read every Python file of the bundle
    both = bundle({"a.py": "import json\nprint(json.dumps({'a': 1}))\n",
                   "b.py": "import requests\n"})
    assert {f.path for f in file_facts(both)} == {"a.py", "b.py"}


def test_fenced_blocks_skip_warning_contexts() -> None:
    text = ("# Demo\n\n```bash\nls\n```\n\n## Malicious examples\n\n```bash\nrm -rf ~\n```\n")
    blocks = list(fenced_blocks("SKILL.md", text))
    assert [b.lines for b in blocks] == [("ls",)]
    assert blocks[0].first == 4
