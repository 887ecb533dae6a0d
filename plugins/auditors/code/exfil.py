"""Exfiltration: data that should stay on the machine (environment variables, credential files,
SSH keys and the whole ``~/.ssh`` or ``~/.aws`` folder, shell and agent history) sent to a
network destination (``git push`` of such a folder included) — on one line, or read in one
place and sent in another of the same script or fenced block — and the two side channels
scanners forget: DNS lookups of names built from data, and image URLs carrying data.

Loopback is never exfiltration; a named credential sent to the API its name names
(``ACME_API_KEY`` to ``api.acme.io``) or to a well-known API is that API being used.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence

from lemon_core.auditor_kit import host_class, names_host, urls
from lemon_core.auditor_kit.hosts import split_url
from lemon_core.auditor_kit.lazy import lazy_compile

Hit = tuple[str, str, str, int, int]
I = re.IGNORECASE

NET_TOOL = lazy_compile(
    r"\b(?:curl|wget|nc|ncat|netcat|socat|xh|scp|sftp|rsync|ftp|tftp|telnet|sendmail|mutt|"
    r"Invoke-WebRequest|Invoke-RestMethod|iwr|irm|openssl\s+s_client)\b"
    r"|\bgit\s+(?:-C\s+\S+\s+)?push\b"
    r"|\bhttps?\s+(?:post|put|get|-f|--form)\b"
    r"|\brequests\.(?:post|put|patch|get|request)\s*\(|\bhttpx\.(?:post|put|patch|get|request|"
    r"AsyncClient|Client)\b|\burlopen\s*\(|\burllib\.request\.Request\s*\(|\bhttp\.client\."
    r"|\baiohttp\.ClientSession\b|\bsession\.(?:post|put)\s*\(|\bfetch\s*\(|\baxios(?:\.\w+)?\s*\("
    r"|\bXMLHttpRequest\b|\bsendBeacon\s*\(|\bsmtplib\b|\bsocket\.create_connection\s*\("
    r"|\.connect\s*\(\s*\(|\bNet::HTTP\b|\bHTTParty\b|\bcurl_exec\s*\(|\bUpload(?:String|File|"
    r"Data)\s*\(|\bWebClient\b|\bhttp\.(?:post|get|request)\s*\(|\bgot\.(?:post|put)\s*\(", I)
_HEADER = lazy_compile(
    r"(?:-H|--header|headers\s*[=:]|\.setRequestHeader\()\s*[\[{(]?\s*[\"']?(?:Authorization|"
    r"X-[\w-]*(?:Key|Token|Auth)[\w-]*|Api-?Key|Token|Cookie|PRIVATE-TOKEN)\b|"
    r"[\"'](?:Authorization|X-[\w-]*(?:Key|Token)|Api-?Key)[\"']\s*:|\bauth\s*=\s*\(|"
    r"\bBearer\s|--oauth2-bearer|\s-u\s+\S+:\$|\bapi_key\s*=|\bapiKey\s*:|token\s*=", I)

BULK_ENV = lazy_compile(
    r"\$\(\s*(?:env|printenv|set|export\s+-p|declare\s+-x)\s*\)|`\s*(?:env|printenv)\s*`"
    r"|(?:^|[|;&(]\s*)(?:env|printenv)\s*(?:\||>)"
    r"|\bjson\.dumps\(\s*(?:dict\()?os\.environ|\bstr\(\s*os\.environ|\brepr\(\s*os\.environ"
    r"|\burlencode\(\s*(?:dict\()?os\.environ|\bdict\(\s*os\.environ\s*\)\s*[,)]"
    r"|\bos\.environ(?:\.copy\(\))?\s*[,)}](?![^\n]*\benv\s*=)"
    r"|\bJSON\.stringify\(\s*process\.env\b|\bObject\.(?:entries|keys|assign)\(\s*process\.env\b"
    r"|\bprocess\.env\s*[,)}]|\bGet-ChildItem\s+env:|\bgci\s+env:|\$env:\*|\bENV\.to_[ha]\b", I)
_SENSITIVE = (
    r"\.ssh(?:/|[\"']\s*[,/]\s*[\"'])(?:id_[\w-]+(?<!\.pub)(?![\w.])|[\w-]*_key\b(?!\.pub))"
    r"|\.aws(?:/|[\"']\s*[,/]\s*[\"'])(?:credentials|config)\b|(?<![\w$])\.netrc\b"
    r"|(?<![\w$])\.npmrc\b|(?<![\w$])\.pypirc\b|\.git-credentials\b|\.docker/config\.json"
    r"|\.kube/config\b|\.gnupg\b|\.config/gh/hosts\.yml|\.config/gcloud\b"
    r"|application_default_credentials\.json|\.vault-token\b|(?<![\w$])\.pgpass\b"
    r"|\.terraform\.d/credentials|\.claude/\.credentials\.json|(?<![\w$])\.claude\.json\b"
    r"|\.codex/auth\.json|/etc/shadow\b|wallet\.dat\b|\.ethereum/keystore|\.solana/id\.json"
    r"|(?<![\w$])\.(?:bash|zsh|python|node_repl)_history\b|\.claude/(?:projects|history)"
    r"|\bhistory\.jsonl\b|(?<![\w$/.-])\.env(?![\w.-])"
    r"|\$\(\s*(?:gh\s+auth\s+token|security\s+find-(?:generic|internet)-password|"
    r"aws\s+configure\s+get|gcloud\s+auth\s+print-access-token|op\s+read|pass\s+show)"
    r"|\bsecurity\s+dump-keychain\b"
)
SENSITIVE_FILE = lazy_compile(_SENSITIVE, I)
#: The whole ``~/.ssh`` or ``~/.aws`` folder: read only by a command that packs or copies a tree
#: (``tar czf - ~/.ssh``, ``zip -r - ~/.aws``, ``rsync -a ~/.ssh/ host:``, ``git -C ~/.ssh
#: push``); ``cd ~/.ssh`` or a container mount (``-v ~/.aws:/root/.aws``) is not a read.
SENSITIVE_DIR = lazy_compile(r"(?<![\w$])\.(?:ssh|aws)/?(?=[\s\"'`|;&)>,\]]|$)", I)
_TREE_READER = lazy_compile(r"\s*(?:sudo\s+)?(?:tar|bsdtar|zip|7z|7za|rar|cpio|pax|rsync|rclone|"
                            r"scp|sftp|cp|git|find|base64|gzip|xz|zstd|gpg|openssl)\s", I)
#: A key file named as an identity, created or secured: not read to be sent.
_IDENTITY = lazy_compile(r"(?:\s-i\s+|IdentityFile\s*=?\s*|-e\s+[\"']?ssh\s[^\n]*-i\s+)\S*\.ssh/|"
                       r"\b(?:ssh-keygen|ssh-add|chmod|chown|ls|mkdir|touch|stat|test)\b", I)
_SECRET_WORD = r"(?:TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASS|CREDENTIALS?|COOKIE|SESSION|PAT|AUTH)"
NAMED_SECRET = lazy_compile(
    rf"\$\{{?([A-Z][A-Z0-9_]*{_SECRET_WORD}[A-Z0-9_]*)\}}?"
    rf"|\bos\.environ\[\s*[\"']([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*)[\"']\s*\]"
    rf"|\bos\.(?:environ\.get|getenv)\(\s*[\"']([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*)[\"']"
    rf"|\bprocess\.env\.([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*)"
    rf"|\bprocess\.env\[\s*[\"']([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*)[\"']\s*\]"
    rf"|\$env:([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*)", I)
_HOSTISH = lazy_compile(r"(?<![\w@/.-])(?:[a-z0-9-]+\.)+(?:[a-z]{2,})(?=[:/\s\"']|$)", I)
_FILEISH = lazy_compile(r"\.(?:json|md|txt|ya?ml|py|sh|js|ts|toml|log|csv|pub|pem|key|cfg|conf|"
                      r"ini|lock|env|html|xml|tar|gz|zip)$", I)
_SENDS_DATA = lazy_compile(
    r"\s(?:-d|--data[\w-]*|-F|--form|-T|--upload-file|--post-data|--post-file|--json)\b|"
    r"-X\s*(?:POST|PUT|PATCH)\b|\.(?:post|put|patch)\s*\(|method\s*[:=]\s*[\"'](?:POST|PUT)|"
    r"\bsendBeacon\b|\|\s*(?:curl|nc|ncat)\b", I)
_ORDER = {"collector": 0, "unknown": 1, "docs": 2, "api": 3, "vendor": 4, "loopback": 5}


def destinations(text: str) -> list[tuple[str, str]]:
    """``(class, url-or-host)`` of every destination written on ``text`` (URLs, then bare host
    names like ``nc host 443``); an unresolved ``$VAR`` host is ``unknown``."""
    found = [(host_class(url), url) for _, _, url in urls(text)]
    if not found:
        for match in _HOSTISH.finditer(text):
            name = match.group()
            if not _FILEISH.search(name) and not name.startswith(("os.", "process.", "sys.")):
                found.append((host_class(name), name))
    if not found and re.search(r"://\$|@\$|\s\$\{?\w*(?:HOST|URL|SERVER|ENDPOINT|ADDR)", text, I):
        found.append(("unknown", "a host held in a variable"))
    return found


def _worst(dests: Sequence[tuple[str, str]]) -> tuple[str, str]:
    return min(dests, key=lambda pair: _ORDER[pair[0]]) if dests else ("unknown", "")


def _secret_name(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


#: Every NET_TOOL match holds one of these (lower case): the cheap test before the pattern.
NET_WORDS = ("curl", "wget", "nc ", "ncat", "netcat", "socat", "xh ", "scp", "sftp", "rsync",
             "ftp", "telnet", "sendmail", "mutt", "invoke-", "iwr", "irm", "openssl", "http",
             "urlopen", "request", "session.", "fetch", "axios", "sendbeacon", "smtplib",
             "socket", "connect", "curl_exec", "upload", "webclient", "got.", "push")


def sends(text: str) -> re.Match[str] | None:
    """The first network send on ``text``, if any."""
    lower = text.lower()
    if not any(word in lower for word in NET_WORDS):
        return None
    return NET_TOOL.search(text)


#: A vendor's command-line tool that prints its own credential, and the domains of that vendor's
#: own hosts: the token sent only there is the vendor's API being used.
_CLI_VENDORS = (
    (lazy_compile(r"\bgh\s+auth\s+(?:token|status)\b"), ("github.com", "githubusercontent.com")),
    (lazy_compile(r"\bglab\s+auth\b"), ("gitlab.com",)),
    (lazy_compile(r"\bgcloud\s+(?:auth|config)\b"), ("googleapis.com", "google.com")),
    (lazy_compile(r"\bnpm\s+token\b"), ("npmjs.org", "npmjs.com")),
    (lazy_compile(r"\baws\s+(?:ecr|ecr-public|codeartifact|sts)\b"), ("amazonaws.com",)),
    (lazy_compile(r"\baz\s+account\s+get-access-token\b"),
     ("azure.com", "windows.net", "microsoft.com", "azure.net")),
    (lazy_compile(r"\bhuggingface-cli\b|\bhf\s+auth\b"), ("huggingface.co",)),
)


def own_vendor(source: str, dests: Sequence[tuple[str, str]]) -> bool:
    """Whether ``source`` is a vendor CLI's credential (``gh auth token``) and every destination
    is a host of that vendor (``api.github.com``, not ``api.github.com.example.xyz``)."""
    if not dests:
        return False
    for pattern, domains in _CLI_VENDORS:
        if pattern.search(source) is None:
            continue
        hosts = [split_url(d if "://" in d else "https://" + d)[0] for _, d in dests]
        return all(any(h == dom or h.endswith("." + dom) for dom in domains) for h in hosts)
    return False


def line_exfiltration(text: str) -> Iterator[Hit]:
    """Data and a network send written on one line."""
    net = sends(text)
    if net is None:
        return
    dests = destinations(text)
    kind, where = _worst(dests)
    if kind == "collector" and (_SENDS_DATA.search(text) or sources_in(text) or
                                NAMED_SECRET.search(text)):
        yield ("code.collector-host", "block",
               f"sends data to {where}, a service known for catching requests or tunnelling",
               net.start(), net.end())
        return
    if dests and all(k == "loopback" for k, _ in dests):
        return
    shown = where or "a destination not written out"
    source = sources_in(text)
    if source is not None and not own_vendor(source.group(), dests):
        yield ("code.exfiltration", "block",
               f"sends {source.group().strip()} to {shown}", source.start(), source.end())
        return
    lower = text.lower()
    if not any(word in lower for word in ("token", "secret", "key", "pass", "credential",
                                           "cookie", "session", "pat", "auth")):
        return
    for match in NAMED_SECRET.finditer(text):
        name = _secret_name(match)
        if not dests or "PUB" in name.upper():
            continue  # the destination is elsewhere, or a public key: nothing to judge
        allowed = [d for k, d in dests if k in ("api", "docs", "loopback") or names_host(name, d)]
        if allowed:
            continue
        if _HEADER.search(text):
            yield ("code.secret-to-host", "warn",
                   f"sends the credential {name} to {shown}, a host its name does not name",
                   match.start(), match.end())
        else:
            yield ("code.exfiltration", "block",
                   f"sends the credential {name} to {shown}", match.start(), match.end())
        return


DNS_LOOKUP = lazy_compile(
    r"\b(?:nslookup|dig|host|drill|ping|getent\s+hosts|resolvectl\s+query|Resolve-DnsName)\b"
    r"[^\n|;]*?(?:\$\([^)]*\)|`[^`]*`|\$\{?\w+\}?|\{\})[\w.-]*\.[a-z0-9-]+\.[a-z]{2,}"
    r"|\b(?:gethostbyname(?:_ex)?|getaddrinfo|resolver\.(?:resolve|query)|dns\.(?:lookup|"
    r"resolve\w*))\s*\(\s*(?:f[\"'][^\"'\n]*\{|[^)\n]*\+\s*[\"']\.|[^)\n]*\.format\(|"
    r"`[^`\n]*\$\{)", I)
IMAGE_URL = lazy_compile(
    r"!\[[^\]\n]*\]\(\s*<?(https?://[^)\s>]+)|<img\b[^>\n]*\bsrc\s*=\s*[\"']?(https?://[^\"'\s>]+)",
    I)
_DATA_WORDS = (r"(?:data|payload|secret|token|key|history|conversation|context|memory|chat|"
               r"prompt|creds?|credentials?|password|env|dump|leak|exfil|summary|content|message|"
               r"answer|response|output|user|info|notes?|file|query)")
#: A placeholder for data an agent would fill in (``{conversation}``, ``<summary>``, ``$TOKEN``,
#: ``?d=…``); identifiers of a documented URL template (``{org}``, ``{repoId}``) are not.
_PLACEHOLDER = lazy_compile(
    rf"\$\{{|\{{\{{|\{{[\w.]*{_DATA_WORDS}[\w.]*\}}|%7B|<[\w ]*{_DATA_WORDS}[\w ]*>|"
    rf"\[[A-Z_ ]*(?:DATA|SECRET|TOKEN|KEY|HISTORY|CONVERSATION|CONTEXT|SUMMARY|CONTENT)[A-Z_ ]*\]|"
    r"\$[A-Z_]*(?:TOKEN|SECRET|KEY|PASS|DATA|ENV|HISTORY)[A-Z_]*|"
    r"[?&][\w-]*=(?:\{|<|\[|\$|%7B|INSERT|DATA|SECRET|YOUR_|CONTEN|SUMMARY|HISTORY)|"
    rf"[?&]{_DATA_WORDS}=", I)
#: A placeholder naming where a resource lives, not data: ``{owner}``, ``{username}``,
#: ``{{repo}}``, ``<branch>``, ``{file_name}`` (a documented URL template).
_IDENTIFIER = lazy_compile(
    r"(?:[{<\[]|\$\{|%7B)*\s*(?:user(?:[_-]?(?:name|id|login|handle))?|owner|org(?:anization)?|repo(?:sitory)?|"
    r"(?:repo|project|org)[_-]?name|branch|ref|tag|sha|commit|path|dir|folder|file[_-]?(?:name|path)?|"
    r"filename|id|slug|version|lang|locale|width|height|size|project|team|workspace|account|"
    r"image|img|name|title|alt|style|theme|color|label|issue|number|page)\s*[}>\]]*", I)


def _carries_data(url: str) -> bool:
    """Whether an image ``url`` has a placeholder for data (``{conversation}``, ``$TOKEN``,
    ``?d=…``) that is not merely an identifier of where the image lives (``{username}``)."""
    for match in _PLACEHOLDER.finditer(url):
        piece = match.group()
        if piece in ("${", "{{", "%7B", "%7b"):  # an opening: read the name after it
            rest = url[match.end():match.end() + 42]
            name = re.split(r"[}\]>%]", rest, maxsplit=1)[0]
            if _IDENTIFIER.fullmatch(name.strip(" .")):
                continue
            return True
        if piece[0] in "{<[" and _IDENTIFIER.fullmatch(piece):
            continue
        return True
    return False


DNS_WORDS = ("nslookup", "dig ", "host ", "drill", "ping", "getent", "resolvectl",
              "resolve-dnsname", "gethostbyname", "getaddrinfo", "resolver.", "dns.")
IMAGE_WORDS = ("![", "<img")


def dns_exfiltration(text: str) -> Iterator[Hit]:
    lower = text.lower()
    if not any(word in lower for word in DNS_WORDS):
        return
    for match in DNS_LOOKUP.finditer(text):
        yield ("code.dns-exfiltration", "block",
               "looks up a DNS name built from data, which leaks it through the resolver",
               match.start(), match.end())


def image_exfiltration(text: str) -> Iterator[Hit]:
    if not any(word in text for word in IMAGE_WORDS):
        return
    for match in IMAGE_URL.finditer(text):
        url = match.group(1) or match.group(2)
        if host_class(url) == "loopback" or not _carries_data(url):
            continue
        yield ("code.image-exfiltration", "block",
               f"an image URL ({url[:80]}) carries data or a placeholder for it",
               match.start(), match.end())


#: For the flow rule: what reads data worth stealing, and what sends.
SOURCE_WORDS = ("env", ".ssh", ".aws", "netrc", "npmrc", "pypirc", "credentials", ".docker",
                 ".kube", "gnupg", "gh/hosts", "gcloud", "vault-token", "pgpass", ".claude",
                 ".codex", "shadow", "wallet", "keystore", "solana", "history", "auth token",
                 "password", "configure get", "access-token", "op read", "pass show",
                 "keychain", "gci ")


#: A file named to be left out (``tar --exclude='.env'``, ``rsync --exclude .env``, ``find !
#: -name .env``) is not read.
_EXCLUDED = lazy_compile(r"(?:--exclude(?:-dir|-from)?|--ignore|-not\s+-(?:name|path)|"
                         r"!\s*-(?:name|path))(?:=|\s+)[\"']?[^\s\"']*$", I)


def sources_in(text: str) -> re.Match[str] | None:
    """The first thing on ``text`` that reads data which should stay on the machine."""
    lower = text.lower()
    if not any(word in lower for word in SOURCE_WORDS):
        return None
    commands = _Commands(text)
    for match in BULK_ENV.finditer(text):
        if not commands.identity_use(match):
            return match
    for match in SENSITIVE_FILE.finditer(text):
        if not commands.excluded(match) and not commands.identity_use(match) \
                and not commands.copied_into(match):
            return match
    for match in SENSITIVE_DIR.finditer(text):
        if commands.reads_tree(match) and not commands.excluded(match) \
                and not commands.identity_use(match) and not commands.copied_into(match):
            return match
    return None


#: What separates two commands on a line, and two words of one.
_SEPARATOR = re.compile(r"[;&|]")
_SPACE = re.compile(r"\s")
#: Copy commands whose last argument is where they write.
_COPY = lazy_compile(r"\s*(?:sudo\s+)?(?:scp|rsync|cp|install|mv)\s", I)


class _Commands:
    """The commands of one line (split at ``;``, ``&`` and ``|``) and what each one does to
    a match inside it. Each command is judged once however many matches it holds, and a
    match finds its command by bisection, so a line packed with matches costs linear time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.separators: list[int] | None = None
        self.spaces: list[int] | None = None
        self.judged: dict[tuple[str, int], bool] = {}

    def span(self, match: re.Match[str]) -> tuple[int, int]:
        """The command around ``match``: from after the separator before it to the next."""
        if self.separators is None:
            self.separators = [m.start() for m in _SEPARATOR.finditer(self.text)]
        seps = self.separators
        before = bisect_left(seps, match.start())
        after = bisect_left(seps, match.end())
        return (seps[before - 1] + 1 if before else 0,
                seps[after] if after < len(seps) else len(self.text))

    def _once(self, what: str, begin: int, judge: Callable[[], bool]) -> bool:
        key = (what, begin)
        if key not in self.judged:
            self.judged[key] = judge()
        return self.judged[key]

    def identity_use(self, match: re.Match[str]) -> bool:
        """Whether ``match``'s command names a key file as an identity, or creates, lists or
        secures it: only that command is excused, so ``cat ~/.ssh/id_rsa | curl … ; ls``
        still reads the key."""
        begin, stop = self.span(match)
        return self._once("identity", begin,
                          lambda: _IDENTITY.search(self.text, begin, stop) is not None)

    def reads_tree(self, match: re.Match[str]) -> bool:
        """Whether ``match``'s command packs or copies a whole tree (``tar``, ``zip``,
        ``rsync``, ``git``...)."""
        begin, _ = self.span(match)
        return self._once("tree", begin,
                          lambda: _TREE_READER.match(self.text, begin) is not None)

    def copied_into(self, match: re.Match[str]) -> bool:
        """Whether ``match`` is the destination of a copy (``scp host:key ~/.ssh/``,
        ``rsync -a backup/ ~/.ssh/``): the last argument of ``scp``/``rsync``/``cp`` is
        written, not read."""
        begin, stop = self.span(match)
        if not self._once("copy", begin, lambda: _COPY.match(self.text, begin) is not None):
            return False
        end = stop
        while end > begin and self.text[end - 1].isspace():
            end -= 1
        return self._word_start(end - 1) <= match.start()

    def excluded(self, match: re.Match[str]) -> bool:
        """Whether ``match`` is named to be left out (``tar --exclude='.env'``): the option
        is at most one word before it."""
        start = self._word_start(self._word_start(match.start()) - 1)
        return _EXCLUDED.search(self.text, start, match.start()) is not None

    def _word_start(self, at: int) -> int:
        """Where the word holding ``at`` begins (after the whitespace before it)."""
        if at <= 0:
            return 0
        if self.spaces is None:
            self.spaces = [m.start() for m in _SPACE.finditer(self.text)]
        before = bisect_left(self.spaces, at)
        return self.spaces[before - 1] + 1 if before else 0


__all__ = ["BULK_ENV", "NAMED_SECRET", "NET_TOOL", "SENSITIVE_FILE", "destinations",
           "dns_exfiltration", "image_exfiltration", "line_exfiltration", "sources_in"]
