"""What paths, commands, environment names and callables mean as capabilities.

Pure look-ups on folded text: a path is a credential store, an autostart location or an agent's
configuration; a command word is a network client, an interpreter or a credential command; a
Python callable is a network sink, an executor or a decoder.
"""

from __future__ import annotations

import re

from lemon_core.auditor_kit.lazy import lazy_compile

HOME_PREFIXES = ("~", "$HOME", "${HOME}", "%USERPROFILE%", "$env:USERPROFILE", "/root",
                 "/home/", "/Users/", "C:\\Users\\")


def normal_path(path: str) -> str:
    """``path`` with home spelled ``~`` and separators ``/`` (for matching and messages)."""
    text = path.strip().strip("\"'").replace("\\", "/")
    for prefix in ("$HOME", "${HOME}", "%USERPROFILE%", "$env:USERPROFILE", "%HOMEPATH%"):
        if text.startswith(prefix):
            return "~" + text[len(prefix):]
    return text


def in_home(path: str) -> bool:
    text = normal_path(path)
    return text.startswith(("~", "/root", "/home/", "/Users/", "C:/Users/", "c:/users/"))


# -- credential stores ------------------------------------------------------------------------

#: (pattern over a normalised path, label, grade). Searched, not anchored.
_SECRET_PATHS = [(lazy_compile(p, re.IGNORECASE), label, grade) for p, label, grade in (
    (r"(?:^|/)\.ssh(?:/(?!known_hosts\b|config\b|[^/]*\.pub\b)[^/]*)?/?$", "SSH keys", "high"),
    (r"(?:^|/)\.aws(?:/(?:credentials|config|sso/cache[^/]*|cli/cache[^/]*))?/?$",
     "AWS credentials", "high"),
    (r"(?:^|/)\.config/gcloud(?:/|$)|application_default_credentials\.json",
     "Google Cloud credentials", "high"),
    (r"(?:^|/)\.azure(?:/|$)", "Azure credentials", "high"),
    (r"(?:^|/)\.kube/config$", "Kubernetes credentials", "high"),
    (r"(?:^|/)\.docker/config\.json$", "Docker registry credentials", "high"),
    (r"(?:^|/)[._]netrc$", ".netrc", "high"),
    (r"(?:^|/)\.git-credentials$", ".git-credentials", "high"),
    (r"(?:^|/)\.config/gh/hosts\.ya?ml$", "GitHub CLI token", "high"),
    ((r"(?:^|/)\.config/(?:hub|glab-cli/config\.ya?ml|doctl/config\.ya?ml|rclone/rclone\.conf|"
      r"op/config|heroku)$|(?:^|/)\.(?:vault-token|pgpass|my\.cnf|boto|s3cfg)$|"
      r"(?:^|/)\.terraform\.d/credentials\.tfrc\.json$|(?:^|/)\.cargo/credentials(?:\.toml)?$|"
      r"(?:^|/)\.gem/credentials$|(?:^|/)\.oci/config$|(?:^|/)\.fly/config\.ya?ml$|"
      r"(?:^|/)\.password-store(?:/|$)|(?:^|/)\.config/rclone/"), "a tool's stored credentials",
     "high"),
    (r"(?:^|/)\.(?:npmrc|pypirc)$", "package registry tokens", "high"),
    (r"(?:^|/)\.gnupg(?:/|$)", "GnuPG keys", "high"),
    (r"(?:^|/)(?:Login Data|Cookies|Web Data|Local State)(?: For Account)?(?:-journal)?$",
     "browser credential store", "high"),
    ((r"(?:^|/)(?:key[34]\.db|logins\.json|cookies\.sqlite|signons\.sqlite|"
     r"Cookies\.binarycookies|formhistory\.sqlite)$"), "browser credential store", "high"),
    ((r"Local Extension Settings/|IndexedDB/chrome-extension_|"
      r"nkbihfbeogaeaoehlefnkodbefgpgknn|bfnaelmomeimhlpmgjnjophhpkkoljpa|"
      r"ibnejdfjmmkpcnlpebklmnkoeoihofec|hnfanknocfeofbddgcijnmhnfnkdnaad|"
      r"(?:^|/)(?:wallet\.dat|\.solana/id\.json)$|\.ethereum/keystore|\.bitcoin/(?:wallets?|"
      r"wallet\.dat)|Exodus/(?:exodus\.wallet|.*\.seco$)|MetaMask|\.electrum(?:/|$)|"
      r"Electrum/wallets|atomic/Local Storage|Ledger Live|Guarda|Coinomi|Armory|"
      r"(?:^|/)\.?(?:monero|litecoin|dogecoin|dashcore|zcash)/"),
     "cryptocurrency wallet", "high"),
    ((r"Google/Chrome|google-chrome|chromium|Chromium/User Data|BraveSoftware|Microsoft/Edge|"
      r"microsoft-edge|\.mozilla/firefox|Firefox/Profiles|Mozilla/Firefox|Library/Cookies|"
      r"Opera Software|(?:^|/)\.config/opera|Vivaldi|vivaldi/|Arc/User Data|Yandex/YandexBrowser|"
      r"com\.apple\.Safari|Library/Safari|\.thunderbird/|Thunderbird/Profiles"),
     "browser profile", "high"),
    (r"Microsoft/(?:Credentials|Protect|Vault)(?:/|$)", "the Windows credential store", "high"),
    ((r"(?:^|/)Library/Keychains|\.keychain(?:-db)?$|(?:^|/)\.local/share/(?:keyrings|kwalletd)"
      r"(?:/|$)|\.kwl$"), "keychain", "high"),
    ((r"(?:^|/)\.claude/\.credentials\.json$|(?:^|/)\.codex/auth\.json$|"
     r"(?:^|/)\.config/(?:github-copilot|openai|anthropic)/"), "an agent's credentials", "high"),
    (r"(?:^|/)\.(?:bash|zsh|sh|python|psql|mysql)_history$|(?:^|/)\.history$",
     "shell history", "high"),
    (r"^/etc/(?:shadow|gshadow|sudoers)$", "system password file", "high"),
    (r"(?:^|/)\.env(?:\.[\w.-]+)?$", ".env", "low"),
    (r"(?:^|/)(?:id_rsa|id_dsa|id_ecdsa|id_ed25519)$", "SSH keys", "high"),
)]


def secret_path(path: str) -> tuple[str, str] | None:
    """``(label, grade)`` when ``path`` names a credential store, else None. A ``.env`` under
    the home folder is high grade; one beside the skill is its own configuration (low)."""
    text = normal_path(path)
    if not text or len(text) > 1024:
        return None
    for pattern, label, grade in _SECRET_PATHS:
        if pattern.search(text):
            if label == "browser profile" and "/" not in text.strip("/"):
                continue  # "chromium" the package, not a profile folder
            if label in (".env", "package registry tokens"):
                # a project's own file is its configuration; the user's is their credential
                return label, "high" if in_home(text) else "low"
            return label, grade
    return None


#: File names of browser, keychain and wallet stores no other file shares, quoted as literals
#: in a program that looks for them itself (``os.walk(home)`` then ``if name == "Login
#: Data"``).
_NAMED_STORE = lazy_compile(
    r"""["'`](Login Data|Web Data|Local State|logins\.json|key[34]\.db|signons\.sqlite|"""
    r"""cookies\.sqlite|Cookies\.binarycookies|wallet\.dat|login\.keychain-db|"""
    r"""exodus\.wallet)["'`]""")
_NAMED_WORDS = ("Login Data", "Web Data", "Local State", "logins.json", "key3.db", "key4.db",
                "signons.sqlite", "cookies.sqlite", "binarycookies", "wallet.dat",
                "keychain-db", "exodus.wallet")


#: What a line that uses a store's name (not one that lists it) does with it.
_USED = lazy_compile(r"\bif\b|join|open|glob|Path|path|==|endswith|includes|readFile|copy|"
                     r"\bread|\bwalk")


def named_stores(text: str) -> list[tuple[int, str, str, str]]:
    """``(line, name, label, grade)`` of each credential store's file name quoted in program
    ``text`` (at most 20)."""
    if not any(word in text for word in _NAMED_WORDS):
        return []
    out = []
    for match in _NAMED_STORE.finditer(text[:1_000_000]):
        found = secret_path(match.group(1))
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        line = text[start:end if end >= 0 else len(text)]
        if len(re.findall(r"[\"'`][^\"'`\n]{1,60}[\"'`]", line)) >= 3 and not _USED.search(line):
            continue  # a list of indicators (a scanner's keywords), not a path being built
        if found is not None:
            out.append((text.count("\n", 0, match.start()) + 1, match.group(1), *found))
        if len(out) >= 20:
            break
    return out


#: Environment names that hold a secret, and names of well-known credentials (sent to a host
#: their name does not name, they are taken).
_SECRET_NAME = lazy_compile(r"KEY|TOKEN|SECRET|PASSW|PWD|CREDENTIAL|AUTH|SESSION|COOKIE|"
                            r"PRIVATE|CERT", re.IGNORECASE)
FAMOUS_ENV = frozenset({
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN",
    "GH_TOKEN", "GITLAB_TOKEN", "GL_TOKEN", "NPM_TOKEN", "PYPI_TOKEN", "TWINE_PASSWORD",
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AZURE_CLIENT_SECRET", "AZURE_STORAGE_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
    "SLACK_TOKEN", "SLACK_BOT_TOKEN", "STRIPE_SECRET_KEY", "DIGITALOCEAN_TOKEN",
    "CLOUDFLARE_API_TOKEN", "VERCEL_TOKEN", "DOCKER_PASSWORD", "SSH_PRIVATE_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN", "GEMINI_API_KEY", "COPILOT_TOKEN"})


def secret_env(name: str) -> str | None:
    """``high`` for a well-known credential's name, ``low`` for one named like a secret,
    None for other variables (``HOME``, ``PATH``)."""
    if name in FAMOUS_ENV:
        return "high"
    return "low" if _SECRET_NAME.search(name) else None


# -- persistence and destruction --------------------------------------------------------------

_PERSISTENCE = [(lazy_compile(p, re.IGNORECASE), label, kind) for p, label, kind in (
    ((r"(?:^|/)(?:CLAUDE|AGENTS|GEMINI)\.md$|(?:^|/)\.mcp\.json$|(?:^|/)\.claude/(?:settings"
     r"[^/]*\.json|agents/|commands/|hooks/|skills/)|(?:^|/)\.claude\.json$|(?:^|/)\.cursor/"
     r"(?:mcp\.json|rules)|(?:^|/)\.codex/(?:config\.toml|AGENTS\.md)|(?:^|/)\.gemini/"
     r"settings\.json|(?:^|/)\.vscode/mcp\.json|copilot-instructions\.md$|(?:^|/)\.windsurf/|"
     r"(?:^|/)\.lemon/"), "an agent's configuration", "agent-config"),
    ((r"(?:^|/)\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|"
     r"kshrc|cshrc|tcshrc)$|(?:^|/)\.config/fish/config\.fish$|PowerShell_profile\.ps1$|"
     r"^/etc/(?:profile|bash\.bashrc|environment)"), "a shell start-up file", "rc"),
    (r"^/etc/cron|/var/spool/cron|(?:^|/)crontab$", "cron", "cron"),
    (r"(?:^|/)systemd/(?:user|system)/[^/]+\.(?:service|timer)$|^/etc/systemd/",
     "a systemd unit", "systemd"),
    ((r"(?:^|/)\.config/autostart/|(?:^|/)Library/Launch(?:Agents|Daemons)/|Start Menu/"
     r"Programs/Startup|/etc/xdg/autostart|^/etc/rc\.local$|^/etc/init\.d/"),
     "an autostart location", "autostart"),
    (r"(?:^|/)\.git/hooks/", "a git hook", "git-hook"),
    (r"(?:^|/)\.ssh/authorized_keys2?$", "authorized_keys", "ssh"),
    (r"(?:^|/)site-packages/[^/]+\.pth$|(?:^|/)sitecustomize\.py$|(?:^|/)usercustomize\.py$",
     "Python start-up hooks", "python-startup"),
)]


def persistence_path(path: str) -> tuple[str, str] | None:
    """``(label, kind)`` when writing ``path`` makes something run again later or changes
    how an agent behaves, else None."""
    text = normal_path(path)
    if not text or len(text) > 1024:
        return None
    for pattern, label, kind in _PERSISTENCE:
        if pattern.search(text):
            return label, kind
    return None


_ROOTS = frozenset({"~", "~/", "~/*", "~/.", "/", "/*", "/home", "/home/", "/Users", "/Users/",
                    "/root", "/root/", "C:/", "C:", "c:/", "/etc", "/usr", "/var", "/boot",
                    "~/Documents", "~/Desktop", "~/.config", "~/Library"})


def destructive_target(path: str, *, children: bool = False) -> str | None:
    """A label when deleting ``path`` destroys a home folder, the root or a system folder.
    With ``children``, a path whose last parts are all chosen at run time under one of them
    (``~/<each entry>`` of a listing of the home folder) counts too: the loop deletes
    everything there."""
    text = normal_path(path).rstrip()
    if children and "\ue000" in text:
        head = text
        while head.endswith(("\ue000", "/")):
            head = head[:-1]
        rest = text[len(head):]
        if rest and not rest.strip("\ue000/") and (
                (head and (head in _ROOTS or head + "/" in _ROOTS))
                or (head == "" and rest[0] == "/")):
            return f"everything under {head or '/'}"
    if text in _ROOTS or text.rstrip("/") in _ROOTS:
        return text or "/"
    if text.startswith("/dev/") and re.match(r"/dev/(?:sd|nvme|hd|disk|mmcblk|xvd|vd)", text):
        return text
    return None


# -- commands ---------------------------------------------------------------------------------

NETWORK_TOOLS = frozenset({"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh",
                           "scp", "sftp", "rsync", "ftp", "tftp", "http", "https", "httpie",
                           "xh", "invoke-webrequest", "iwr", "invoke-restmethod", "irm",
                           "aria2c", "lftp", "smbclient", "sendmail", "mail", "mutt", "openssl"})
DNS_TOOLS = frozenset({"nslookup", "dig", "host", "drill", "resolvectl", "getent",
                       "resolve-dnsname"})
INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python2",
                          "python3", "node", "nodejs", "perl", "ruby", "php", "pwsh",
                          "powershell", "osascript", "lua", "rscript", "deno", "bun", "tclsh",
                          "awk", "gawk", "iex", "invoke-expression", "source", ".", "eval",
                          "xargs", "env", "exec", "sudo", "nohup", "timeout", "time"})
#: Words that wrap a command (the command follows).
WRAPPERS = frozenset({"sudo", "nohup", "timeout", "time", "env", "exec", "command", "xargs",
                      "nice", "stdbuf", "doas"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})
#: Commands whose file arguments they read (``cp`` reads all but the last).
READERS = frozenset({"cat", "head", "tail", "less", "more", "tac", "base64", "base32", "xxd",
                     "od", "hexdump", "strings", "tar", "zip", "7z", "gzip", "bzip2", "xz",
                     "cp", "rsync", "sqlite3", "jq", "awk", "sed", "grep", "source", ".",
                     "openssl", "gpg", "zcat", "bat", "nl", "sort", "uniq", "cut", "tr"})
DECODE_TOOLS = frozenset({"base64", "base32", "basenc", "xxd", "openssl", "gunzip", "zcat",
                          "uudecode", "rev", "tr"})


def tool_name(word: str) -> str:
    """The program a command word runs (``/usr/bin/curl`` -> ``curl``, ``python3.11`` ->
    ``python3``), lower case."""
    name = word.replace("\\", "/").rstrip("/").rpartition("/")[2].lower()
    name = name.removesuffix(".exe")
    match = re.match(r"^(python|pip)(\d)?(?:\.\d+)?$", name)
    if match:
        return match.group(1) + (match.group(2) or "")
    return name


def secret_command(words: list[str]) -> str | None:
    """A label when the command prints a credential (``gh auth token``, ``aws configure
    export-credentials``, ``security find-generic-password -w``…), else None."""
    if not words:
        return None
    tool = tool_name(words[0])
    rest = [w.lower() for w in words[1:8]]
    joined = " ".join(rest)
    if tool == "gh" and rest[:2] == ["auth", "token"]:
        return "the GitHub CLI token (gh auth token)"
    if tool == "gh" and rest[:2] == ["auth", "status"] and ("-t" in rest or "--show-token" in rest):
        return "the GitHub CLI token (gh auth status --show-token)"
    if tool == "aws" and (joined.startswith(("configure export-credentials", "configure get aws_secret", "configure get aws_access", "sts get-session-token", "ecr get-login-password"))):
        return f"AWS credentials (aws {' '.join(words[1:3])})"
    if tool == "gcloud" and ("print-access-token" in joined or "print-identity-token" in joined):
        return "a Google Cloud access token (gcloud auth print-access-token)"
    if tool == "az" and "get-access-token" in joined:
        return "an Azure access token (az account get-access-token)"
    if tool == "security" and rest and rest[0] in ("find-generic-password",
                                                  "find-internet-password", "dump-keychain"):
        return f"the macOS keychain (security {rest[0]})"
    if tool in ("secret-tool",) and rest[:1] in (["lookup"], ["search"]):
        return f"the desktop keyring (secret-tool {rest[0]})"
    if tool in ("kwallet-query", "kwalletcli") or (tool == "keyring" and rest[:1] == ["get"]):
        return f"the desktop keyring ({tool})"
    if (tool, rest[:1]) in (("lpass", ["show"]), ("gopass", ["show"]), ("heroku", ["auth:token"]),
                            ("doppler", ["secrets"]), ("sops", ["-d"]), ("sops", ["--decrypt"])):
        return f"a stored secret ({tool} {rest[0]})"
    if tool == "aws" and joined.startswith(("secretsmanager get-secret-value", "ssm get-parameter",
                                            "sso get-role-credentials", "sts assume-role")):
        return f"AWS secrets (aws {' '.join(words[1:3])})"
    if tool == "gcloud" and joined.startswith("secrets versions access"):
        return "a Google Cloud secret (gcloud secrets versions access)"
    if tool == "az" and joined.startswith(("keyvault secret show", "keyvault secret download")):
        return "an Azure Key Vault secret"
    if tool == "kubectl" and (rest[:2] == ["create", "token"] or rest[:2] in (
            ["get", "secret"], ["get", "secrets"]) and any(w.startswith(("-o", "--output"))
                                                          for w in rest)):
        return f"Kubernetes secrets (kubectl {' '.join(words[1:3])})"
    if tool == "op" and rest[:1] in (["read"], ["item"]):
        return "a 1Password secret (op)"
    if tool == "bw" and rest[:1] == ["get"]:
        return "a Bitwarden secret (bw get)"
    if tool == "pass" and rest[:1] == ["show"]:
        return "a pass secret"
    if tool == "vault" and rest[:1] in (["read"], ["kv"]):
        return "a Vault secret"
    if tool == "kubectl" and "config" in rest and "--raw" in rest:
        return "Kubernetes credentials (kubectl config view --raw)"
    if tool == "git" and rest[:2] == ["credential", "fill"]:
        return "git credentials (git credential fill)"
    if tool.startswith("docker-credential-"):
        return "Docker registry credentials"
    if tool in ("printenv", "env", "set", "export") and len(words) == 1:
        return "the whole environment"
    return None


# -- Python callables -------------------------------------------------------------------------

NET_MODULES = ("requests", "httpx", "urllib.request", "urllib3", "http.client", "aiohttp",
               "socket", "smtplib", "ftplib", "telnetlib", "paramiko", "websocket", "websockets",
               "pycurl", "xmlrpc.client", "dns.resolver", "asyncio", "ssl", "poplib", "imaplib",
               "httplib2", "treq", "grequests", "niquests", "tornado.httpclient", "six.moves.urllib")
NET_SINKS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request",
                       "stream", "urlopen", "urlretrieve", "send", "sendall", "sendto",
                       "sendmail", "send_message", "connect", "create_connection",
                       "gethostbyname", "gethostbyname_ex", "getaddrinfo", "resolve", "query",
                       "storbinary", "storlines", "putrequest", "fetch", "ws_connect",
                       "open_connection", "perform", "exec_command", "put_object", "upload",
                       "upload_file", "login", "starttls", "endheaders", "putfile"})
DNS_SINKS = frozenset({"gethostbyname", "gethostbyname_ex", "getaddrinfo", "resolve", "query"})
#: Calls that run a program or code, by qualified name.
EXEC_CALLS = {
    "exec": "exec", "eval": "eval", "compile": "compile", "builtins.exec": "exec",
    "builtins.eval": "eval", "builtins.compile": "compile",
    "os.system": "shell", "os.popen": "shell", "subprocess.getoutput": "shell",
    "subprocess.getstatusoutput": "shell", "commands.getoutput": "shell",
    "asyncio.create_subprocess_shell": "shell",
    "subprocess.run": "process", "subprocess.call": "process", "subprocess.check_call": "process",
    "subprocess.check_output": "process", "subprocess.Popen": "process",
    "asyncio.create_subprocess_exec": "process", "pty.spawn": "process",
    "pickle.loads": "deserialise", "pickle.load": "deserialise", "marshal.loads": "deserialise",
    "marshal.load": "deserialise", "dill.loads": "deserialise", "cloudpickle.loads": "deserialise",
    "shelve.open": "deserialise", "yaml.unsafe_load": "deserialise",
    "runpy.run_path": "exec", "runpy.run_module": "exec", "types.FunctionType": "exec",
    "types.CodeType": "exec", "code.InteractiveInterpreter": "exec",
    "ctypes.CDLL": "native", "ctypes.cdll.LoadLibrary": "native",
}
EXEC_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
IMPORTERS = frozenset({"__import__", "builtins.__import__", "importlib.import_module",
                       "importlib.__import__"})


def network_call(qualname: str) -> str | None:
    """``http``, ``socket``, ``dns`` or ``mail`` when calling ``qualname`` sends something."""
    last = qualname.rpartition(".")[2]
    for module in NET_MODULES:
        if qualname.startswith(module + "."):
            if last not in NET_SINKS:
                return None
            if last in DNS_SINKS:
                return "dns"
            if module in ("socket", "asyncio", "ssl"):
                return "socket" if last != "create_connection" or module == "socket" else None
            if module in ("smtplib", "poplib", "imaplib"):
                return "mail"
            return "http"
    return None


def exec_call(qualname: str) -> str | None:
    """``exec``, ``shell``, ``process``, ``deserialise`` or ``native`` when calling
    ``qualname`` runs code or a program."""
    found = EXEC_CALLS.get(qualname)
    if found:
        return found
    if qualname.startswith(EXEC_PREFIXES):
        return "process"
    return None


def decoder_call(qualname: str) -> tuple[str, str] | None:
    """``(decoder, module)`` when ``qualname`` is a decoder of :mod:`.values`."""
    module, _, last = qualname.rpartition(".")
    if module in ("base64", "binascii") and (last.endswith("decode") or last.startswith("a2b")
                                             or last in ("unhexlify", "decodebytes",
                                                         "decodestring")):
        return last, module
    if last == "fromhex" and module in ("bytes", "bytearray"):
        return "fromhex", module
    if last == "decompress" and module in ("zlib", "gzip", "bz2", "lzma"):
        return "decompress", module
    if qualname == "codecs.decode":
        return "codecs", "codecs"
    return None


__all__ = [
    "DECODE_TOOLS",
    "DNS_TOOLS",
    "FAMOUS_ENV",
    "IMPORTERS",
    "INTERPRETERS",
    "NETWORK_TOOLS",
    "READERS",
    "SHELLS",
    "WRAPPERS",
    "decoder_call",
    "destructive_target",
    "exec_call",
    "in_home",
    "named_stores",
    "network_call",
    "normal_path",
    "persistence_path",
    "secret_command",
    "secret_env",
    "secret_path",
    "tool_name",
]
