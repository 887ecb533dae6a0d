"""Which files the PowerShell, Makefile, Dockerfile, awk and Go readers take, and that none of
them raises on arbitrary text (property tests)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.auditor_kit.capabilities import (
    awk,
    build_files,
    dockerfile,
    golang,
    makefile,
    powershell,
)
from tests.plugins.auditors.bundles import bundle_of

#: Text made of the characters these languages give meaning to, so the generator reaches the
#: readers' branches rather than plain words.
_ALPHABET = st.sampled_from(list("$(){}[]|&;:'\"`\\/=+-,.%<>#@!~ \t\nabcirexlvhwsu0123456789")
                            + ["iex ", "-enc ", "$(shell ", "RUN ", "ARG ", "ENV ", "\t",
                               "/inet/tcp/0/h/1", "system(", "getline", "http://", "define ",
                               "func ", "os.Getenv(", "exec.Command(", "-f ", "-join ",
                               "[char]", "Remove-Item ", "| "])
_TEXT = st.lists(_ALPHABET, max_size=80).map("".join)


@settings(max_examples=150, deadline=None)
@given(_TEXT)
def test_no_reader_raises_on_arbitrary_text(text: str) -> None:
    powershell.analyse("a.ps1", text)
    makefile.analyse("Makefile", text)
    dockerfile.analyse("Dockerfile", text)
    awk.analyse("a.awk", text)
    golang.analyse("a.go", text)
    awk.analyse_inline(text, "a.sh", 1, frozenset())
    powershell.analyse_inline(text, "a.sh", 1, frozenset())


def test_files_are_chosen_by_name_and_read_when_triggered() -> None:
    assert build_files.language_of("scripts/Run.PS1", "") == "powershell"
    assert build_files.language_of("GNUmakefile", "") == "make"
    assert build_files.language_of("build/rules.mk", "") == "make"
    assert build_files.language_of("Dockerfile.dev", "") == "dockerfile"
    assert build_files.language_of("Containerfile", "") == "dockerfile"
    assert build_files.language_of("tools/x.awk", "") == "awk"
    assert build_files.language_of("bin/report", "#!/usr/bin/gawk -f\n") == "awk"
    assert build_files.language_of("main.go", "") == "go"
    assert build_files.language_of("main_test.go", "") is None
    assert build_files.language_of("README.md", "") is None
    quiet = bundle_of({"a.ps1": "Write-Host 'hello'\n"})
    assert build_files.file_facts(quiet, "a.ps1", "Write-Host 'hello'\n", "powershell") is None
    assert "build-files" not in quiet.index  # not even parsed
    big = "iex $x\n" * (build_files.MAX_CHARS["powershell"] // 7 + 1)
    assert build_files.file_facts(bundle_of({"a.ps1": big}), "a.ps1", big, "powershell") is None
