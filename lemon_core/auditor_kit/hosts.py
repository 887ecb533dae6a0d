"""What a network destination is: loopback, a documentation or placeholder host, a well-known
vendor installer, a well-known API, a service known for collecting data (webhook catchers,
paste sites, tunnels), or unknown. A host held in a variable is unknown."""

from __future__ import annotations

import functools
import ipaddress
import re

from lemon_core.auditor_kit.lazy import lazy_compile

_URL = lazy_compile(
    r"""(?i)\b(?:https?|ftp|wss?)://((?:[^\s"'`<>()\[\]{}|\\^@/]*@)?\[[0-9a-f:.]+\]"""
    r"""[^\s"'`<>()\[\]{}|\\^]*|[^\s"'`<>()\[\]{}|\\^]+)""")

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost",
                            "host.docker.internal"})

#: Hosts (or host + path prefix) whose install scripts are the vendor's documented way.
VENDOR_INSTALLERS = (
    "sh.rustup.rs", "static.rust-lang.org/rustup", "rustup.rs",
    "raw.githubusercontent.com/homebrew/install/", "brew.sh",
    "astral.sh/uv/", "astral.sh/ruff/", "astral.sh/", "bun.sh/install", "bun.com/install",
    "deno.land/install.sh", "deno.land/x/install", "dl.deno.land",
    "install.python-poetry.org", "raw.githubusercontent.com/nvm-sh/nvm/", "get.pnpm.io",
    "sdk.cloud.google.com", "get.docker.com", "test.docker.com", "claude.ai/install.sh",
    "ollama.com/install.sh", "pyenv.run", "fnm.vercel.app/install", "starship.rs/install.sh",
    "raw.githubusercontent.com/helm/helm/", "get.helm.sh", "get.volta.sh",
    "install.determinate.systems", "nixos.org/nix/install", "tailscale.com/install.sh",
    "get.k3s.io", "mise.run", "mise.jdx.dev", "opencode.ai/install", "cursor.com/install",
    "foundry.paradigm.xyz", "dot.net/v1/dotnet-install", "dotnet.microsoft.com",
    "cli.github.com", "sh.vector.dev", "get.rvm.io", "rye.astral.sh", "pixi.sh/install",
    "raw.githubusercontent.com/ohmyzsh/ohmyzsh/", "install.ohmyz.sh", "get.sdkman.io",
    "cli.doppler.com/install", "supabase.com", "fly.io/install.sh", "deb.nodesource.com",
    "rpm.nodesource.com", "install.pulumi.com", "get.pulumi.com", "sh.brew.sh",
    "code-server.dev/install.sh", "raw.githubusercontent.com/pyenv/pyenv-installer/",
    "github.com/cli/cli", "downloads.claude.ai", "gh.io/copilot-install",
    "raw.githubusercontent.com/golangci/golangci-lint/", "golang.org/dl", "go.dev/dl",
    "bootstrap.pypa.io/get-pip.py", "getcomposer.org/installer", "install.julialang.org",
    "micro.mamba.pm/install.sh", "repo.anaconda.com", "github.com/conda-forge/miniforge",
    "zed.dev/install.sh", "wasmtime.dev/install.sh", "get.wasmer.io", "sh.rustup.sh",
    "tea.xyz", "pkgx.sh", "mise.jdx.dev/install.sh", "aider.chat/install.sh", "aka.ms",
    "aspire.dev/install", "install.cline.bot", "gemini.google.com", "get.jetify.com",
    "get.trunk.io", "sh.flox.dev", "downloads.nordcdn.com", "install.duckdb.org",
    "raw.githubusercontent.com/anthropics/", "raw.githubusercontent.com/openai/",
    "raw.githubusercontent.com/microsoft/", "raw.githubusercontent.com/vercel/",
    "raw.githubusercontent.com/github/", "raw.githubusercontent.com/google/",
    "raw.githubusercontent.com/aws/", "raw.githubusercontent.com/astral-sh/",
    "raw.githubusercontent.com/oven-sh/", "raw.githubusercontent.com/denoland/",
    # Windows package managers' documented PowerShell installers
    "community.chocolatey.org/install.ps1", "chocolatey.org/install.ps1", "get.scoop.sh",
    "raw.githubusercontent.com/scoopinstaller/", "win.rustup.rs", "deno.land/install.ps1",
    "ollama.com/install.ps1",
)

#: Hosts that document things, or that RFC 2606 reserves as placeholders (never reached).
DOC_HOSTS = (
    "example.com", "example.org", "example.net", "readthedocs.io", "readthedocs.org",
    "developer.mozilla.org", "learn.microsoft.com", "docs.microsoft.com", "wikipedia.org",
    "python.org", "pypi.org", "npmjs.com", "www.npmjs.com", "stackoverflow.com", "github.com",
    "gitlab.com", "agentskills.io", "modelcontextprotocol.io", "shields.io", "img.shields.io",
    "w3.org", "ietf.org", "rfc-editor.org", "schema.org", "json-schema.org", "crates.io",
    "docs.rs", "pkg.go.dev", "nodejs.org", "rust-lang.org", "mozilla.org", "apple.com",
    "opensource.org", "creativecommons.org", "spdx.org", "semver.org", "keepachangelog.com",
)

#: Well-known APIs: a credential sent here is the API being used, not exfiltration.
API_HOSTS = (
    "api.openai.com", "api.anthropic.com", "api.github.com", "uploads.github.com",
    "googleapis.com", "api.stripe.com", "slack.com", "api.notion.com", "api.linear.app",
    "api.mistral.ai", "api.cohere.ai", "api.cohere.com", "huggingface.co", "api.groq.com",
    "openrouter.ai", "api.vercel.com", "api.cloudflare.com", "amazonaws.com", "azure.com",
    "api.atlassian.com", "atlassian.net", "api.twilio.com", "api.sendgrid.com",
    "api.pagerduty.com", "datadoghq.com", "sentry.io", "api.figma.com", "api.airtable.com",
    "api.hubapi.com", "api.elevenlabs.io", "api.replicate.com", "api.perplexity.ai",
    "api.together.xyz", "api.deepseek.com", "api.x.ai", "graph.microsoft.com",
    "api.spotify.com", "api.dropboxapi.com", "api.search.brave.com", "api.exa.ai",
    "api.firecrawl.dev", "api.tavily.com", "serpapi.com", "api.gitlab.com", "gitlab.com",
    "api.bitbucket.org", "api.digitalocean.com", "api.heroku.com", "api.netlify.com",
    "api.supabase.com", "supabase.co", "api.resend.com", "api.mailgun.net", "api.zoom.us",
    "api.shopify.com", "myshopify.com", "api.salesforce.com", "salesforce.com",
    "api.intercom.io", "api.asana.com", "api.trello.com", "api.clickup.com", "api.monday.com",
    "api.todoist.com", "api.pinecone.io", "api.weaviate.io", "api.voyageai.com",
    "api.assemblyai.com", "api.deepgram.com", "api.fireworks.ai", "api.cerebras.ai",
    "generativelanguage.googleapis.com", "api.jina.ai", "r.jina.ai", "s.jina.ai",
    "api.ncbi.nlm.nih.gov", "eutils.ncbi.nlm.nih.gov", "api.semanticscholar.org",
    "api.crossref.org", "export.arxiv.org", "api.openalex.org", "rest.uniprot.org",
    "www.ebi.ac.uk", "api.fda.gov", "clinicaltrials.gov", "api.census.gov",
    "registry.npmjs.org", "upload.pypi.org", "hub.docker.com", "api.cloudinary.com",
    "api.mapbox.com", "maps.googleapis.com", "api.openweathermap.org", "api.nasa.gov",
    "api.coingecko.com", "api.polygon.io", "www.alphavantage.co", "api.sec.gov",
    "efts.sec.gov", "data.sec.gov", "api.stackexchange.com", "api.reddit.com",
    "oauth.reddit.com", "api.twitter.com", "api.x.com", "graph.facebook.com",
    "api.linkedin.com", "api.youtube.com", "www.googleapis.com", "api.wolframalpha.com",
    "api.langsmith.com", "api.smith.langchain.com", "api.wandb.ai", "api.modal.com",
    "api.runpod.io", "api.lambdalabs.com", "api.browserbase.com", "api.apify.com",
    "api.telegram.org", "discord.com", "discordapp.com", "hooks.slack.com",
    "pypi.nvidia.com", "pypi.ngc.nvidia.com", "download.pytorch.org", "data.pyg.org",
    "files.pythonhosted.org", "conda.anaconda.org",
)

#: Services known for catching data or tunnelling out: never a legitimate API destination.
COLLECTOR_HOSTS = (
    "webhook.site", "requestbin.com", "requestbin.net", "pipedream.net", "pipedream.com",
    "ngrok.io", "ngrok-free.app", "ngrok.app", "trycloudflare.com", "pastebin.com",
    "paste.ee", "hastebin.com", "transfer.sh", "interact.sh", "oast.fun", "oast.me",
    "oast.pro", "oast.live", "oast.site", "oast.online", "burpcollaborator.net",
    "oastify.com", "requestcatcher.com", "hookbin.com", "beeceptor.com", "0x0.st",
    "dnslog.cn", "ceye.io", "canarytokens.com", "serveo.net", "localtunnel.me", "loca.lt",
    "bashupload.com", "file.io", "temp.sh", "termbin.com", "ix.io", "sprunge.us",
)


def urls(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, url)`` of every URL in ``text``, trailing punctuation dropped."""
    out = []
    for match in _URL.finditer(text):
        url = match.group().rstrip(".,;:!?*_")
        out.append((match.start(), match.start() + len(url), url))
    return out


def split_url(url: str) -> tuple[str, str]:
    """``(host, path)`` of ``url`` in lower case (port and credentials dropped)."""
    rest = url.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    host = host.rsplit("@", 1)[-1]
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.lower().rstrip("."), "/" + path.lower()


@functools.lru_cache(maxsize=8)
def _by_host(entries: tuple[str, ...]) -> dict[str, tuple[str | None, ...]]:
    """``entries`` (host or host/path-prefix) by host: the path prefixes of each host, None
    for a whole host."""
    found: dict[str, list[str | None]] = {}
    for entry in entries:
        entry_host, slash, entry_path = entry.partition("/")
        found.setdefault(entry_host, []).append("/" + entry_path if slash else None)
    return {host: tuple(paths) for host, paths in found.items()}


def _matches(host: str, path: str, entries: tuple[str, ...]) -> bool:
    """Whether ``host`` (or a parent domain of it) and ``path`` are one of ``entries``: the
    host and each name it ends with after a dot are looked up (one dictionary look-up per
    label, not a comparison per entry)."""
    table = _by_host(entries)
    name = host
    while True:
        paths = table.get(name)
        if paths is not None and any(prefix is None or path.startswith(prefix)
                                     for prefix in paths):
            return True
        dot = name.find(".")
        if dot == -1:
            return False
        name = name[dot + 1:]


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


@functools.lru_cache(maxsize=4096)
def host_class(url_or_host: str) -> str:
    """``loopback``, ``collector``, ``vendor`` (a known installer), ``api``, ``docs`` or
    ``unknown`` for a URL or bare host name. Anything with a variable or template in the host
    (``$H``, ``${HOST}``, ``{host}``) is ``unknown``."""
    text = url_or_host if "://" in url_or_host else "https://" + url_or_host
    host, path = split_url(text)
    if not host or re.search(r"[${}%<>]", host):
        return "unknown"
    if is_loopback(host):
        return "loopback"
    if _matches(host, path, COLLECTOR_HOSTS):
        return "collector"
    if _matches(host, path, VENDOR_INSTALLERS):
        return "vendor"
    if _matches(host, path, API_HOSTS):
        return "api"
    if _matches(host, path, DOC_HOSTS) or host.startswith(("docs.", "doc.", "developer.",
                                                           "developers.", "learn.", "wiki.")):
        return "docs"
    return "unknown"


def names_host(credential: str, url_or_host: str) -> bool:
    """Whether a credential's name names the host it is sent to (``ACME_API_KEY`` to
    ``api.acme.io``, ``GH_TOKEN`` to ``api.github.com``): using an API, not leaking a key."""
    host, _ = split_url(url_or_host if "://" in url_or_host else "https://" + url_or_host)
    labels = {label for label in re.split(r"[.-]", host) if len(label) >= 3}
    labels -= {"api", "www", "com", "net", "org", "app", "dev", "cloud", "io"}
    words = {w for w in re.split(r"[^a-z0-9]+", credential.lower()) if len(w) >= 2}
    words -= {"api", "key", "token", "secret", "access", "auth", "bearer", "pat", "id", "env"}
    aliases = {"gh": "github", "hf": "huggingface", "aws": "amazonaws", "gcp": "googleapis",
               "google": "googleapis", "gemini": "googleapis", "claude": "anthropic",
               "az": "azure", "do": "digitalocean"}
    words |= {aliases[w] for w in words if w in aliases}
    return any(w in label or label in w for w in words for label in labels if len(w) >= 3)


__all__ = ["API_HOSTS", "COLLECTOR_HOSTS", "DOC_HOSTS", "VENDOR_INSTALLERS", "host_class",
           "is_loopback", "names_host", "split_url", "urls"]
