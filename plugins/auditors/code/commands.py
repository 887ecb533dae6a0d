"""Line patterns of the ``code`` family: remote code execution, reverse shells, obfuscated
execution, destructive commands, privilege escalation, persistence and agent-config writes.

Each detector takes one line's text (raw, or de-obfuscated by the scanner) and yields
``Hit`` tuples ``(rule, severity, message, start, end)``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from lemon_core.auditor_kit import host_class, urls
from lemon_core.auditor_kit.gates import Gated
from lemon_core.auditor_kit.lazy import lazy_compile

Hit = tuple[str, str, str, int, int]
I = re.IGNORECASE


def _then(prev: str, stop: str = "") -> str:
    r"""``prev``, then the gap to what follows it on the line: any characters but newlines (and
    ``stop``), and no other ``prev``.

    ``A[^\n]*B`` makes the engine scan to the end of the line from every ``A`` and back:
    quadratic (cubic with two gaps) in a long line full of ``A``s, which a hostile skill can
    write to stall its audit. A gap that ends at the next ``A`` finds the same lines (the last
    ``A`` before ``B`` matches whenever any ``A`` does) and reads each character a bounded
    number of times. What follows a gap is an anchor, never an open-ended ``\S*``.
    """
    return rf"{prev}(?:(?!{prev})[^{stop}\n])*"


_FETCHER = (r"(?:curl|wget|fetch|aria2c|https?(?=\s)|xh|iwr|irm|Invoke-WebRequest|"
            r"Invoke-RestMethod|lwp-download)")
_INTERP = (r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:/usr)?(?:/bin/|/usr/local/bin/)?"
           r"(?:ba|z|k|da|fi|a)?sh|python[\d.]*|perl|ruby|node|php|bun|deno|iex|"
           r"Invoke-Expression|pwsh|powershell|osascript|tclsh|lua|source|\.")
PIPE_TO_SHELL = lazy_compile(
    _then(rf"\b{_FETCHER}\b", "|") + rf"\|\s*(?:{_INTERP})(?=\s|$|;|&|\)|\"|'|`)", I)
SUBST_EXEC = lazy_compile(
    rf"(?:\b(?:(?:ba|z|da|k)?sh|python[\d.]*|perl|ruby|node|eval|source)|(?:^|[;&|(]\s*)\.)\s+"
    rf"(?:-c\s+)?(?:[\"']?\$\(|<\()\s*{_FETCHER}\b", I)
PS_DOWNLOAD_EXEC = lazy_compile(
    _then(r"\b(?:iex|Invoke-Expression)\b") + r"(?:DownloadString|DownloadData|iwr|irm|"
    r"Invoke-WebRequest|Invoke-RestMethod|Net\.WebClient)"
    r"|" + _then(r"(?:DownloadString|Invoke-RestMethod|irm|iwr)\b")
    + r"\|\s*(?:iex|Invoke-Expression)\b", I)
LANG_DOWNLOAD_EXEC = lazy_compile(
    r"\b(?:exec|eval)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?(?:requests\.get|urllib\.request\."
    r"urlopen|urlopen|httpx\.get|fetch|urllib2\.urlopen|open-uri|Net::HTTP\.get|URI\.open|"
    r"file_get_contents\s*\(\s*[\"']https?:)"
    r"|" + _then(r"\bnew\s+Function\s*\(") + r"\bfetch\("
    r"|\b(?:exec|eval)\s*\([^\n]{0,80}" + _then(r"\b(?:urlopen|requests\.get|httpx\.get)\(")
    + r"\)\s*(?:\.read\(\)|\.text|\.content)", I)
DOWNLOAD_THEN_RUN = lazy_compile(
    _then(rf"\b{_FETCHER}\b", ";&|")
    + r"\s(?:-o|-O|--output(?:-document)?|>)\s*[\"']?(\S+?)[\"']?"
    r"\s*(?:&&|;|\|\|)\s*(?:chmod\s+[+\w]+\s+\S+\s*(?:&&|;)\s*)?"
    r"(?:(?:sudo\s+)?(?:ba|z)?sh\s+|python[\d.]*\s+|node\s+|\./|/tmp/)\S*", I)

#: What each remote-execution pattern needs besides its family's words (see
#: :class:`~lemon_core.auditor_kit.gates.Gated`): a fetcher and a pipe, a ``$(``, both halves
#: of PowerShell's download-and-run, an ``exec``/``eval`` and a download call, a separator
#: after the download.
FETCHER_WORDS = ("curl", "wget", "fetch", "aria2c", "http", "xh", "iwr", "irm",
                 "invoke-webrequest", "invoke-restmethod", "lwp-download")
PIPE_TO_SHELL_GATE = Gated(PIPE_TO_SHELL, FETCHER_WORDS, ("|",))
SUBST_EXEC_GATE = Gated(SUBST_EXEC, ("$(", "<("), FETCHER_WORDS)
PS_DOWNLOAD_EXEC_GATE = Gated(PS_DOWNLOAD_EXEC, ("iex", "invoke-expression"), (
    "downloadstring", "downloaddata", "iwr", "irm", "invoke-webrequest", "invoke-restmethod",
    "net.webclient"))
LANG_DOWNLOAD_EXEC_GATE = Gated(LANG_DOWNLOAD_EXEC, ("exec", "eval", "function"), (
    "requests.get", "urlopen", "httpx.get", "fetch", "open-uri", "net::http", "uri.open",
    "file_get_contents"))
DOWNLOAD_THEN_RUN_GATE = Gated(DOWNLOAD_THEN_RUN, FETCHER_WORDS, ("&&", ";", "||"))

REVERSE_SHELL = lazy_compile(
    r"/dev/(?:tcp|udp)/[^\s/]+/\d+"
    r"|" + _then(r"\b(?:nc|ncat|netcat)\b", "|;") + r"\s-[a-z]*[ec]\s+\S*(?:sh|cmd|powershell)\b"
    r"|" + _then(r"\b(?:nc|ncat|netcat|telnet)\b\s+\S+\s+\d+") + r"\|\s*(?:/bin/)?(?:ba)?sh\b"
    r"|" + _then(r"\bmkfifo\b") + r"\b(?:nc|ncat|netcat|telnet|openssl)\b"
    r"|" + _then(r"\bsocat\b") + r"\b(?:exec|system):"
    r"|\b(?:ba)?sh\s+-i\s*(?:>&|&>|<&|>\s*&)"
    r"|\bpty\.spawn\s*\(\s*[\"'](?:/bin/)?(?:ba)?sh"
    r"|\bos\.dup2\s*\(\s*\w+\.fileno\(\)"
    r"|" + _then(r"\bfsockopen\s*\(") + r"\b(?:exec|shell_exec|system|proc_open|passthru)\b"
    r"|\bNet\.Sockets\.TCPClient\b"
    r"|" + _then(r"\bsocket\.socket\(") + _then(r"\bconnect\(")
    + r"\b(?:subprocess|/bin/(?:ba)?sh|pty)\b"
    r"|" + _then(r"\brequire\([\"']child_process[\"']\)") + _then(r"\bnet\b") + r"connect"
    r"|" + _then(r"-rsocket\b") + r"\b(?:exec|spawn|system)\b"
    r"|" + _then(r"\buse\s+Socket\b") + r"\bexec\b", I)

_DECODE = (r"(?:base64\s+(?:-d|--decode|-D)\b|base64\s+-[a-z]*d|openssl\s+(?:enc\s+)?-?base64\s+-d|"
           r"xxd\s+-r(?:\s+-p)?|\brev\b|uudecode|gunzip|gzip\s+-d|zcat|b64decode)")
DECODE_PIPE_EXEC = lazy_compile(
    _then(_DECODE, "|") + rf"\|\s*(?:{_INTERP})(?=\s|$|;|&|\)|\"|'|`)", I)
DECODE_EVAL = lazy_compile(
    _then(r"\b(?:eval|exec|source|(?:ba)?sh\s+-c)\s+[\"']?\$\(", ")") + _DECODE +
    r"|\b(?:exec|eval|compile)\s*\(\s*(?:[\w.]*\.)?(?:b64decode|a2b_base64|b32decode|b85decode|"
    r"a85decode|decodebytes|unhexlify|fromhex|decompress|loads|decode)\s*\("
    r"|\b(?:exec|eval)\s*\(\s*(?:bytes\.fromhex|bytearray\.fromhex|codecs\.decode|"
    r"__import__\s*\(\s*[\"'](?:base64|zlib|codecs|marshal|binascii)[\"']\))"
    r"|\b(?:exec|eval)\s*\(\s*[\"']{2}\.join\s*\("
    r"|\b(?:exec|eval)\s*\(\s*(?:[\"'][^\"']*[\"']\s*)?\.?\s*(?:chr|map\(\s*chr)\s*\("
    r"|\beval\s*\(\s*(?:atob|unescape|decodeURIComponent|String\.fromCharCode|"
    r"Buffer\.from\s*\([^)]*(?:base64|hex))"
    r"|\bnew\s+Function\s*\(\s*(?:atob|Buffer\.from|String\.fromCharCode|unescape)"
    r"|" + _then(r"\bprintf\s+[\"'](?:\\x[0-9a-f]{2}|\\[0-7]{3}){4,}", "|") + r"\|\s*(?:ba|z)?sh\b"
    r"|" + _then(r"\b(?:iex|Invoke-Expression)\b") + r"FromBase64String"
    r"|" + _then(r"FromBase64String") + r"\|\s*(?:iex|Invoke-Expression)\b"
    r"|" + _then(r"\b(?:powershell|pwsh)(?:\.exe)?\b")
    + r"\s-(?:e|ec|en|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}"
    r"|\bgetattr\s*\(\s*__import__\s*\(\s*[\"']os[\"']\s*\)\s*,\s*[\"']system[\"']"
    r"|\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?)|subprocess\.(?:run|call|check_call|"
    r"check_output|Popen|getoutput|getstatusoutput)|pty\.spawn)\s*\(\s*\[?\s*(?:[\w.]*\.)?"
    r"(?:b64decode|a2b_base64|b32decode|b85decode|a85decode|decodebytes|unhexlify|fromhex|"
    r"decompress)\s*\(|\b(?:os\.system|subprocess\.\w+)\s*\(\s*codecs\.decode\s*\(", I)
#: Every decode-and-run pattern holds something that runs (``eval``, ``exec``, ``$(``, ``|``
#: into ``sh`` after ``printf``, ``iex``, ``powershell -enc``, ``os.system``…) and something
#: that decodes or builds the payload (``base64``, ``decode``, ``fromhex``, ``chr``,
#: ``.join``, ``atob``, a ``|``, ``-e``, ``system``…).
_DECODE_WORDS = ("base64", "xxd", "rev", "uudecode", "gunzip", "gzip", "zcat", "b64decode")
DECODE_PIPE_EXEC_GATE = Gated(DECODE_PIPE_EXEC, _DECODE_WORDS, ("|",))
DECODE_EVAL_GATE = Gated(
    DECODE_EVAL,
    ("$(", "exec", "eval", "compile", "function", "printf", "iex", "invoke-expression",
     "frombase64string", "powershell", "pwsh", "getattr", "os.", "subprocess", "pty.spawn"),
    (*_DECODE_WORDS, "decode", "unhexlify", "fromhex", "decompress", "loads", "__import__",
     ".join", "chr", "atob", "unescape", "fromcharcode", "buffer.from", "|", "-e", "system"))

_HOME = r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/\w+|/Users/\w+)"
_ROOTS = (rf"(?:/|/\*|{_HOME}/?\*?|/home/?\*?|/Users/?\*?|/etc/?|/usr/?|/var/?|/boot/?|/bin/?|"
          r"/lib/?|/opt/?|/root/?|/System/?|C:\\\\?|C:/)")
DESTRUCTIVE = lazy_compile(
    rf"\brm\s+(?:-[a-zA-Z-]+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z-]+\s+)*[\"']?{_ROOTS}[\"']?"
    r"(?=\s|$|;|&|\||\))"
    r"|" + _then(r"\brm\s") + r"--no-preserve-root"
    r"|\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/"
    r"|" + _then(r"\bdd\b") + r"\bof=/dev/(?:sd|hd|nvme|disk|rdisk|mmcblk|xvd|vd)"
    r"|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d|rdisk\d|mmcblk\d)"
    r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"
    r"|" + _then(r"\b(?:shred|wipefs)\b") + r"/dev/"
    r"|\bchmod\s+-R\s+0?777\s+/(?=\s|$)"
    r"|" + _then(rf"\bfind\s+(?:/|{_HOME})\s") + r"-delete\b"
    r"|\bshutil\.rmtree\s*\(\s*(?:[\"']/[\"']|[\"']~[\"']|os\.path\.expanduser\(\s*[\"']~/?[\"']\s*\)|"
    r"Path\.home\(\)|os\.environ\[[\"']HOME[\"']\])\s*[,)]"
    r"|" + _then(r"\bRemove-Item\b") + _then(r"-Recurse")
    + r"(?:C:\\\\?(?:\s|$|\")|\$env:USERPROFILE|~(?:\s|$))"
    r"|\bformat\s+c:", I)

PRIVILEGE = lazy_compile(
    r"\bNOPASSWD\b"
    r"|\bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+[rwx]*s[rwx]*|[0-7]?[4-7][0-7]{3})\s+\S"
    r"|>>?\s*/etc/(?:sudoers|passwd|shadow)\b"
    r"|" + _then(r"\btee\b") + r"/etc/(?:sudoers|passwd|shadow)\b"
    r"|" + _then(r"\bvisudo\b") + r"-f"
    r"|/etc/sudoers\.d/", I)
PRIVILEGE_CHANGE = lazy_compile(
    r"\bsetcap\s+\S*cap_|\busermod\s+(?:-\w+\s+)*-a?G\s+(?:sudo|wheel|admin|root|docker)\b", I)

#: Writing a file: at once (``>``, ``tee``: the path follows) or somewhere later on the line
#: (``cp``, ``mv``, ``ln -s``, ``sed -i``, ``install``: the path is one of the arguments).
_WRITE_NOW = r"(?:>>?|\btee\b(?:\s+-a)?)\s*[\"']?"
_WRITE_LATER = _then(r"\b(?:cp|mv|ln\s+-s\w*|sed\s+-i\S*|install)\b")
#: The rest of a path written at once, up to the name that matters: a path holds no ``>``
#: (so a run of ``>`` is not read again from each one).
_PATH = r"[^\s>]*"
SSH_BACKDOOR = lazy_compile(
    rf"{_WRITE_NOW}{_PATH}authorized_keys\b|{_WRITE_LATER}authorized_keys\b"
    r"|" + _then(r"\bopen\s*\(") + _then(r"authorized_keys") + r"[\"'][aw]\+?[\"']"
    r"|" + _then(r"\bssh-copy-id\b") + r"\b(?:root|\w+)@[\w.-]+\.(?:invalid|example)\b", I)
_RC_FILES = (r"\.(?:bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|zlogin|profile|kshrc|"
             r"config/fish/config\.fish)\b")
PERSISTENCE = lazy_compile(
    r"\bcrontab\s+(?:-[a-z]*e\b|-\s|-$|[\w./~-]+\.(?:txt|cron)\b)|\|\s*crontab\b"
    r"|>>?\s*[\"']?/etc/cron|" + _then(r"\btee\b") + r"/etc/cron|/var/spool/cron"
    rf"|{_WRITE_NOW}{_HOME}?/?{_RC_FILES}|{_WRITE_LATER}{_RC_FILES}"
    r"|" + _then(r"\bopen\s*\(") + _then(r"\.(?:bashrc|zshrc|bash_profile|profile|zprofile)\b")
    + r"[\"']a\+?[\"']"
    r"|\bsystemctl\s+(?:--user\s+)?enable\b|/etc/systemd/system/|\.config/systemd/user"
    r"|Library/Launch(?:Agents|Daemons)|\blaunchctl\s+(?:load|bootstrap|submit)\b"
    rf"|{_WRITE_NOW}{_PATH}\.git/hooks/|{_WRITE_LATER}\.git/hooks/|\bcore\.hooksPath\b"
    r"|\bschtasks\s+/create\b|CurrentVersion\\\\?Run\b|\bRegister-ScheduledTask\b", I)
#: Shell start-up lines every installer adds: not persistence worth a warning.
_BENIGN_RC = lazy_compile(
    r"^\s*(?:echo|printf)\s+[\"']?(?:export\s+PATH=|export\s+[A-Z_]+_HOME=|eval\s+\"?\$\(|"
    r"source\s|\.\s|alias\s|fpath=|path=|PATH=|\[\s*-s\s)", I)

_AGENT_FILES = (r"(?:\.claude/settings(?:\.local)?\.json|\.claude\.json|\.claude/(?:commands|agents|"
                r"hooks)/|CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|\.cursor/rules|"
                r"\.cursor/mcp\.json|\.clinerules|\.windsurfrules|\.codex/config\.toml|"
                r"\.codex/AGENTS\.md|\.mcp\.json|\.gemini/settings\.json|copilot-instructions\.md|"
                r"\.vscode/mcp\.json|\.config/opencode/|\.omp/|\.lemon/mcp\.json|"
                r"claude_desktop_config\.json)")
AGENT_CONFIG = lazy_compile(
    rf"{_WRITE_NOW}[^\s\"'>]*{_AGENT_FILES}|{_WRITE_LATER}{_AGENT_FILES}"
    r"|" + _then(r"\bopen\s*\(") + _then(_AGENT_FILES) + r"[\"'][aw]\+?[\"']"
    r"|" + _then(r"\b(?:write_text|writeFileSync|appendFileSync|writeFile|appendFile)\s*\(")
    + _AGENT_FILES
    + r"|" + _then(_AGENT_FILES) + r"\.(?:write_text|write)\s*\(", I)
AGENT_AUTONOMY = lazy_compile(
    r"\bbypassPermissions\b|approval_policy\s*=\s*[\"']never|"
    r"sandbox_mode\s*=\s*[\"']danger-full-access|\"autoApprove\"\s*:\s*\[\s*\"\*\"", I)
#: Command-line switches that turn prompts off: counted in scripts only (run unattended).
AUTONOMY_FLAGS = lazy_compile(
    r"--dangerously-skip-permissions|--yolo\b|--full-auto\b|--dangerously-bypass-approvals", I)


def _hosts_verdict(text: str, start: int) -> tuple[str, str]:
    """The most dangerous class among the URLs from ``start`` on (``unknown`` when the host is
    not written out), and the URL."""
    found = [(host_class(url), url) for s, _, url in urls(text) if s >= start - 200]
    if not found:
        return "unknown", ""
    order = {"collector": 0, "unknown": 1, "docs": 2, "api": 3, "vendor": 4, "loopback": 5}
    return min(found, key=lambda pair: order[pair[0]])


def _own_project(url: str, names: frozenset[str]) -> bool:
    """Whether ``url`` is the skill's own project (its host or path names the skill)."""
    if not url or not names:
        return False
    lower = re.sub(r"[-_.]", "", url.lower())
    return any(len(name) >= 4 and name in lower for name in names)


#: ``| python3 -c '…'``, ``| node -e …``, ``| python -m json.tool``: the interpreter runs its own
#: code and reads the download as data.
_OWN_CODE = lazy_compile(r"\|\s*(?:sudo\s+)?(?:python[\d.]*|perl|ruby|node|php|bun|deno)\s+-[cmenpE]",
                       I)


def remote_execution(text: str, names: frozenset[str] = frozenset(),
                     lower: str | None = None) -> Iterator[Hit]:
    lower = text.lower() if lower is None else lower
    for gate in (PIPE_TO_SHELL_GATE, SUBST_EXEC_GATE, PS_DOWNLOAD_EXEC_GATE):
        for match in gate.finditer(text, lower):
            if gate is PIPE_TO_SHELL_GATE and _OWN_CODE.search(text, match.start()):
                continue
            kind, url = _hosts_verdict(text[: match.end() + 200], match.start())
            shown = url or "a host held in a variable or not written out"
            if kind in ("vendor", "loopback"):
                continue
            if kind == "unknown" and _own_project(url, names) and url.startswith("https://"):
                yield ("code.unvetted-installer", "warn",
                       (f"pipes the install script of the skill's own project ({url}) into an "
                       "interpreter"), match.start(), match.end())
            elif kind in ("docs", "api"):
                yield ("code.unvetted-installer", "warn",
                       (f"pipes a script from {shown} into an interpreter; it is not a known "
                       "vendor installer"), match.start(), match.end())
            else:
                yield ("code.pipe-to-shell", "block",
                       f"pipes a script from {shown} straight into an interpreter",
                       match.start(), match.end())
    for gate in (LANG_DOWNLOAD_EXEC_GATE, DOWNLOAD_THEN_RUN_GATE):
        for match in gate.finditer(text, lower):
            kind, url = _hosts_verdict(text, match.start())
            if kind in ("vendor", "loopback"):
                continue
            yield ("code.download-exec", "block",
                   f"runs code downloaded from {url or 'a host not written out'}",
                   match.start(), match.end())


def _simple(pattern: re.Pattern[str], rule: str, severity: str, message: str):  # type: ignore[no-untyped-def]
    def detect(text: str) -> Iterator[Hit]:
        for match in pattern.finditer(text):
            yield rule, severity, message, match.start(), match.end()

    return detect


reverse_shell = _simple(REVERSE_SHELL, "code.reverse-shell", "block",
                        "connects a shell to a network socket (reverse or bind shell)")
destructive = _simple(DESTRUCTIVE, "code.destructive", "block",
                      "deletes or overwrites a home folder, the root file system or a disk")
privilege = _simple(PRIVILEGE, "code.privilege-escalation", "block",
                    "grants password-less sudo, sets setuid or edits sudoers/passwd")
privilege_change = _simple(PRIVILEGE_CHANGE, "code.privilege-change", "warn",
                           "changes capabilities or adds a user to a privileged group")
_KEY_LITERAL = lazy_compile(r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+|sk-ssh-\S+)\s+AAAA|"
                          r"\b(?:curl|wget)\b|\$\(", I)


def ssh_backdoor(text: str) -> Iterator[Hit]:
    """A key written into authorized_keys: the user's own ``.pub`` is key set-up; a key
    written out literally or fetched blocks; anything else warns."""
    for match in SSH_BACKDOOR.finditer(text):
        if ".pub" in text and not _KEY_LITERAL.search(text.replace("$(cat", "")):
            continue
        if _KEY_LITERAL.search(text):
            yield ("code.ssh-backdoor", "block", ("adds a key that is not the user's own to an "
                   "authorized_keys file"), match.start(), match.end())
        else:
            yield ("code.authorized-keys", "warn", "writes an authorized_keys file",
                   match.start(), match.end())
agent_config = _simple(AGENT_CONFIG, "code.agent-config", "warn",
                       "writes an agent's configuration or instruction file")
agent_autonomy = _simple(AGENT_AUTONOMY, "code.agent-autonomy", "warn",
                         "turns off an agent's permission prompts or sandbox")


def persistence(text: str) -> Iterator[Hit]:
    if _BENIGN_RC.search(text) and not re.search(r"\b(?:curl|wget|nc|base64)\b", text, I):
        return
    for match in PERSISTENCE.finditer(text):
        yield ("code.persistence", "warn",
               "sets up something that runs again later (cron, shell rc, service, git hook)",
               match.start(), match.end())


def obfuscation(text: str, lower: str | None = None) -> Iterator[Hit]:
    lower = text.lower() if lower is None else lower
    for gate, message in ((DECODE_EVAL_GATE, "decodes a payload and executes it"),
                          (DECODE_PIPE_EXEC_GATE,
                           "decodes a payload and pipes it into an interpreter")):
        for match in gate.finditer(text, lower):
            yield "code.obfuscated-exec", "block", message, match.start(), match.end()


#: The detectors a line goes through, with the lower-case words one of which must appear on
#: the line for the detector to run (a substring test: cheap, and every pattern needs one).
LINE_DETECTORS = (
    (("curl", "wget", "fetch", "aria2c", "http ", "https ", "xh ", "iwr", "irm ", "irm(",
      "invoke-", "downloadstring", "downloaddata", "urlopen", "requests.get", "httpx.get",
      "open-uri", "net::http", "uri.open", "file_get_contents", "lwp-download"),
     remote_execution),
    (("/dev/tcp", "/dev/udp", "nc -", " nc ", "|nc", "ncat", "netcat", "socat", "sh -i",
      "pty.", "dup2", "fsockopen", "tcpclient", "mkfifo", "socket", "rsocket"), reverse_shell),
    (("base64", "xxd", "| rev", "|rev", "atob", "eval", "exec", "new function", "printf",
      "frombase64", "-enc", "-e ", "getattr(", "uudecode", "zcat", "gunzip", "compile(",
      "b64decode", "b32decode", "85decode", "decodebytes", "unhexlify", "fromhex", "decompress",
      "codecs.decode"),
     obfuscation),
    (("rm -", "mkfs", "of=/dev", "> /dev/", ">/dev/", ":()", "shred", "wipefs", "chmod -r",
      "find /", "find ~", "find $", "rmtree", "remove-item", "format c"), destructive),
    (("nopasswd", "chmod", "sudoers", "/etc/passwd", "/etc/shadow", "visudo"), privilege),
    (("setcap", "usermod"), privilege_change),
    (("authorized_keys", "ssh-copy-id"), ssh_backdoor),
    (("cron", "bashrc", "zshrc", "kshrc", ".profile", "zprofile", "bash_profile", "bash_login",
      "zshenv", "zlogin", "config.fish", "systemctl", "systemd/", "launchctl", "launchagents",
      "launchdaemons", ".git/hooks", "hookspath", "schtasks", "currentversion",
      "scheduledtask"), persistence),
    (("claude/settings", ".claude.json", "claude/commands", "claude/agents", "claude/hooks",
      "claude.md", "agents.md", "gemini.md", ".cursorrules", ".cursor/", ".clinerules",
      ".windsurfrules", ".codex/", "mcp.json", ".gemini/", "copilot-instructions",
      "opencode/", ".omp/", ".lemon/", "claude_desktop_config"), agent_config),
    (("bypass", "approval_policy", "sandbox_mode", "autoapprove"), agent_autonomy),
)


def detect_line(text: str, names: frozenset[str] = frozenset(), *, script: bool = False,
                only: Collection[int] | None = None) -> Iterator[Hit]:
    """Every command hit on one line of text; ``names`` are the skill's own names (its
    project's installer is not an unknown host's), ``script`` says the line runs unattended,
    ``only`` the indexes of :data:`LINE_DETECTORS` whose words the caller already found."""
    lower = text.lower()
    for position, (words, detector) in enumerate(LINE_DETECTORS):
        if position in only if only is not None else any(word in lower for word in words):
            if detector is remote_execution:
                yield from remote_execution(text, names, lower)
            elif detector is obfuscation:
                yield from obfuscation(text, lower)
            else:
                yield from detector(text)
    if script and "--" in text:
        for match in AUTONOMY_FLAGS.finditer(text):
            yield ("code.agent-autonomy", "warn", ("starts an agent with its permission prompts "
                   "off"), match.start(), match.end())


__all__ = ["LINE_DETECTORS", "Hit", "detect_line"]
