"""The destruction vocabulary: what a command destroys, and how widely."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lemon_core.auditor_kit.capabilities import destruction
from lemon_core.auditor_kit.capabilities.model import QUIET, SCOPED, WIDE
from lemon_core.auditor_kit.capabilities.values import HOLE


def scopes(words: str, **kwargs: object) -> list[tuple[str, str]]:
    return [(d.detail, d.scope) for d in destruction.command(words.split(), **kwargs)]  # type: ignore[arg-type]


def test_variables_that_may_be_empty_expand_to_nothing() -> None:
    assert destruction.expand("$DIR/*", {}, (), False) == ("/*", ["DIR"])
    assert destruction.expand("${X:-}/", {}, (), False) == ("/", ["X"])
    assert destruction.expand("$D/*", {"D": ["${Y:-}"]}, (), False)[0] == "/*"
    # set -u, a guard, a value assigned at run time, HOME: never empty
    assert destruction.expand("$DIR/*", {}, (), True)[0] == HOLE + "/*"
    assert destruction.expand("${DIR:?}/*", {}, (), False)[0] == HOLE + "/*"
    assert destruction.expand("$DIR/*", {}, ("DIR",), False)[0] == HOLE + "/*"
    assert destruction.expand("$HOME/x", {}, (), False)[0] == "~/x"
    assert destruction.expand("${R%/.git}/..", {}, ("R",), False)[0] == HOLE + "/.."


@given(st.text(max_size=60))
def test_expand_never_fails(word: str) -> None:
    text, empty = destruction.expand(word, {"A": ["$B"], "B": ["$A"]}, ("C",), False)
    assert isinstance(text, str) and all(isinstance(n, str) for n in empty)


def test_rm_by_scope() -> None:
    assert scopes("rm -rf $DIR/*") == [("rm", WIDE)]
    assert scopes("sudo rm -rf ~") == [("rm", WIDE)]
    assert scopes("rm -rf ~/projects") == [("rm", SCOPED)]
    assert scopes("rm -rf ~/.config/tool") == [("rm", QUIET)]
    assert scopes("rm -rf /opt/tool") == [("rm", QUIET)]
    assert scopes("rm -rf build dist") == []
    assert scopes("rm -f ~/notes.txt") == []  # not recursive, not a glob


def test_disks_refs_databases_and_clusters() -> None:
    assert scopes("dd if=/dev/zero of=/dev/sda") == [("dd", WIDE)]
    assert scopes("dd if=ubuntu.iso of=/dev/sdb") == [("dd", SCOPED)]
    assert scopes("dd if=a of=b.img") == []
    assert scopes("mkfs.ext4 /dev/nvme0n1") == [("mkfs.ext4", WIDE)]
    assert scopes("git push --force --all origin") == [("git-push", SCOPED)]
    assert scopes("git push --force --all origin", orphan=True) == [("git-push", WIDE)]
    assert scopes(f"git push origin --delete {HOLE}") == [("git-push", WIDE)]
    assert scopes("git push origin --delete v1.0") == []
    assert scopes("git push --force-with-lease origin f") == []
    assert scopes("git checkout --orphan x") == [("orphan", QUIET)]
    assert [(d.scope) for d in destruction.command(
        ["psql", "$DATABASE_URL", "-c", "DROP SCHEMA public CASCADE"])] == [WIDE]
    assert [(d.scope) for d in destruction.command(
        ["psql", "postgresql://localhost/x", "-c", "DROP DATABASE x"])] == [SCOPED]
    assert scopes("terraform destroy -auto-approve") == [("terraform", SCOPED)]
    assert scopes("terraform destroy") == []
    assert scopes("kubectl delete ns --all") == [("kubectl", WIDE)]
    assert scopes("kubectl delete pod web-1") == []


def test_find_and_loops_over_the_home() -> None:
    assert scopes("find ~ -delete") == [("find", WIDE)]
    assert scopes("find ~ -name *.pyc -delete") == [("find", SCOPED)]
    assert scopes("find . -name *.pyc -delete") == []
    assert scopes("find ~ -type f") == [("walk", QUIET)]
    assert scopes(f"rm -rf {HOLE}/..", walking="~") == [("rm", WIDE)]
    assert scopes("rm -rf $d", walking="~", filtered=True, assigned=("d",)) == [("rm", SCOPED)]
    assert scopes("xargs rm -rf", walking="~") == [("rm", WIDE)]


def test_sql_statements_of_programs() -> None:
    assert destruction.sql("DROP SCHEMA public CASCADE", True).scope == WIDE  # type: ignore[union-attr]
    assert destruction.sql("DROP DATABASE x", False).scope == SCOPED  # type: ignore[union-attr]
    assert destruction.sql("DROP TABLE cache", False).scope == QUIET  # type: ignore[union-attr]
    assert destruction.sql("SELECT 1", True) is None
    assert destruction.server_from_env("url = os.environ['DATABASE_URL']")
    assert not destruction.server_from_env("url = os.environ.get('DATABASE_URL', 'sqlite://')")


def test_encryption_commands() -> None:
    assert destruction.encrypts(["openssl", "enc", "-aes-256-cbc", "-in", "a", "-out", "b"])
    assert not destruction.encrypts(["openssl", "enc", "-d", "-aes-256-cbc", "-in", "b"])
    assert destruction.encrypts(["gpg", "-c", "file"])
    assert not destruction.encrypts(["gpg", "--verify", "file.sig"])
