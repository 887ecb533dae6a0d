"""What paths, commands and callables mean."""

from __future__ import annotations

from lemon_core.auditor_kit.capabilities import vocab
from lemon_core.auditor_kit.capabilities.values import HOLE


def test_credential_stores() -> None:
    for path in ("~/.ssh/id_rsa", "$HOME/.aws/credentials", "~/.netrc", "~/.git-credentials",
                 "/home/u/.config/google-chrome/Default/Login Data", "x/Cookies",
                 "~/Library/Keychains/login.keychain-db", "~/.config/gcloud/credentials.db",
                 "~/.electrum/wallets", "~/.kube/config", "~/.docker/config.json"):
        assert vocab.secret_path(path) is not None, path
    for path in ("~/.ssh/known_hosts", "~/.ssh/config", "~/.ssh/id_rsa.pub", "README.md",
                 "config.json", "~/.aws/cli/alias-not"):
        assert vocab.secret_path(path) is None, path
    assert vocab.secret_path(".env") == (".env", "low")
    assert vocab.secret_path("~/.env") == (".env", "high")


def test_credential_commands() -> None:
    assert vocab.secret_command(["gh", "auth", "token"])
    assert vocab.secret_command(["aws", "configure", "export-credentials", "--format", "env"])
    assert vocab.secret_command(["gcloud", "auth", "print-access-token"])
    assert vocab.secret_command(["security", "find-generic-password", "-w", "-s", "x"])
    assert vocab.secret_command(["/usr/bin/env"])
    assert vocab.secret_command(["gh", "pr", "list"]) is None
    assert vocab.secret_command(["aws", "s3", "ls"]) is None


def test_environment_names() -> None:
    assert vocab.secret_env("AWS_SECRET_ACCESS_KEY") == "high"
    assert vocab.secret_env("NOTION_API_KEY") == "low"
    assert vocab.secret_env("HOME") is None


def test_persistence_and_agent_configuration() -> None:
    assert vocab.persistence_path("~/.bashrc")[1] == "rc"
    assert vocab.persistence_path("~/.config/autostart/x.desktop")[1] == "autostart"
    assert vocab.persistence_path(".git/hooks/pre-commit")[1] == "git-hook"
    assert vocab.persistence_path("~/.claude/settings.json")[1] == "agent-config"
    assert vocab.persistence_path("AGENTS.md")[1] == "agent-config"
    assert vocab.persistence_path("docs/index.md") is None


def test_destructive_targets() -> None:
    assert vocab.destructive_target("~")
    assert vocab.destructive_target("/")
    assert vocab.destructive_target("/dev/sda")
    assert vocab.destructive_target("~/project/build") is None
    assert vocab.destructive_target(f"~/{HOLE}") is None
    assert vocab.destructive_target(f"~/{HOLE}", children=True) == "everything under ~"
    assert vocab.destructive_target(HOLE, children=True) is None
    assert vocab.destructive_target(f"build/{HOLE}", children=True) is None


def test_python_callables() -> None:
    assert vocab.network_call("requests.post") == "http"
    assert vocab.network_call("requests.Session.get") == "http"
    assert vocab.network_call("socket.gethostbyname") == "dns"
    assert vocab.network_call("requests.exceptions.HTTPError") is None
    assert vocab.exec_call("os.system") == "shell"
    assert vocab.exec_call("os.execvp") == "process"
    assert vocab.exec_call("os.path.join") is None
    assert vocab.decoder_call("base64.b64decode") == ("b64decode", "base64")
    assert vocab.decoder_call("zlib.decompress") == ("decompress", "zlib")
