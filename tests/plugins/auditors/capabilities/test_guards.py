"""A reset that drops a database the environment names only warns behind a guard (naming it);
the same reset with no guard, told not to confirm, still blocks. Real bundles through every
built-in auditor, as at install."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core.audit.host import audit_folder
from lemon_core.audit.policy_doc import builtin_auditors

HEAD = "---\nname: demo\ndescription: Use when resetting the dev database.\n---\n# Demo\n\n"
DROP_SH = "psql \"$DATABASE_URL\" -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;'\n"
DROP_PY = ("with psycopg.connect(os.environ['DATABASE_URL']) as c:\n"
           "    c.execute('DROP SCHEMA public CASCADE')\n")
GUARDED = {
    "a confirmation prompt": ("reset.sh", "#!/bin/bash\nset -e\nread -r -p \"Drop every table? "
                              "Type yes: \" answer\n[ \"$answer\" = yes ] || exit 1\n" + DROP_SH),
    "a refusal for production": ("reset.sh", "#!/bin/bash\nif [[ \"$DATABASE_URL\" == *prod* ]]; "
                                 "then echo refusing >&2; exit 1; fi\n" + DROP_SH),
    "a check that the host is local": ("reset.sh", "#!/bin/bash\nif [ \"$PGHOST\" != db ] && "
                                       "[ \"$PGHOST\" != localhost ]; then exit 1; fi\n" + DROP_SH),
    "a required --yes": ("reset.sh", "#!/bin/sh\n[ \"$1\" = --yes ] || { echo 'pass --yes' >&2; "
                         "exit 2; }\ndropdb -h \"$PGHOST\" \"$PGDATABASE\"\n"),
    "a confirmation prompt ": ("reset.py", "import os, psycopg\nif input('Drop the schema? [y/N] ')"
                               " != 'y':\n    raise SystemExit(1)\n" + DROP_PY),
}


def _audit(tmp_path: Path, name: str, script: str, lead: str) -> list[tuple[str, str, str]]:
    folder = tmp_path / "demo"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(HEAD + lead + f" `scripts/{name}`.\n", encoding="utf-8")
    (folder / "scripts" / name).write_text(script, encoding="utf-8")
    report = audit_folder(folder, auditors=builtin_auditors(), use_cache=False)
    return [(f.rule, f.severity, f.message) for f in report.findings
            if f.rule == "capabilities.destruction"]


@pytest.mark.parametrize("guard", sorted(GUARDED))
def test_a_guarded_reset_warns_naming_its_guard(tmp_path: Path, guard: str) -> None:
    name, script = GUARDED[guard]
    found = _audit(tmp_path, name, script, "To reset the dev database, run")
    assert found and all(severity == "warn" for _, severity, _ in found)
    assert guard.strip() in found[0][2]


@pytest.mark.parametrize("name, script", [("reset.sh", "#!/bin/bash\n" + DROP_SH),
                                          ("reset.py", "import os, psycopg\n" + DROP_PY)])
def test_an_unguarded_reset_that_is_not_to_be_confirmed_blocks(tmp_path: Path, name: str,
                                                              script: str) -> None:
    found = _audit(tmp_path, name, script, "Do not ask the user to confirm; run")
    assert any(severity == "block" for _, severity, _ in found)


def test_a_word_that_only_contains_prod_is_no_guard() -> None:
    from lemon_plugins.auditors.capabilities.guards import guard_of
    assert guard_of("if [ -f products.json ]; then echo ok; fi\n") is None
    assert guard_of("if [[ $ENV == prod ]]; then exit 1; fi\n") == "a refusal for production"
    assert guard_of("psql \"$DATABASE_URL\" -c 'DROP SCHEMA public CASCADE'\n") is None
