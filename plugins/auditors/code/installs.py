"""Package installs: a name one typo away from a popular package (typosquatting), a package
from a URL or an extra index, and — in scripts, which run unattended — unpinned versions."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from lemon_core.auditor_kit import host_class
from lemon_core.auditor_kit.lazy import lazy_compile


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())

Hit = tuple[str, str, str, int, int]

POPULAR = {
    "pypi": _words("""requests numpy pandas scipy matplotlib seaborn scikit-learn tensorflow
        torch torchvision keras flask django fastapi uvicorn pydantic httpx aiohttp urllib3 boto3
        botocore pyyaml pillow beautifulsoup4 selenium playwright openai anthropic langchain
        transformers datasets click typer rich pytest black ruff mypy setuptools jinja2
        sqlalchemy psycopg2 pymongo redis celery cryptography paramiko colorama python-dotenv
        openpyxl xlsxwriter python-docx pypdf pdfplumber reportlab lxml jsonschema networkx
        sympy plotly streamlit gradio jupyter ipython notebook opencv-python moviepy pydub
        librosa markdown pyjwt python-dateutil pytz attrs websockets grpcio protobuf kubernetes
        docker ansible paramiko pexpect psutil watchdog loguru tenacity tiktoken
        sentence-transformers chromadb faiss-cpu llama-index fastmcp httplib2 certifi
        charset-normalizer idna pyopenssl numba polars pyarrow duckdb pymupdf python-pptx
        tabulate termcolor google-generativeai huggingface-hub accelerate"""),
    "npm": _words("""react react-dom vue express lodash axios moment dayjs chalk commander
        yargs typescript webpack vite next nuxt svelte jquery underscore request node-fetch
        dotenv eslint prettier jest mocha vitest tailwindcss postcss esbuild rollup socket.io
        mongoose sequelize prisma puppeteer playwright cheerio debug cross-env nodemon zod
        openai electron discord.js body-parser jsonwebtoken bcrypt mysql graphql three
        chart.js marked sharp pdf-lib xlsx pptxgenjs docx inquirer ora execa glob rimraf
        minimist semver uuid colors"""),
}
#: Real packages one typo away from a popular one.
LEGIT_NEIGHBOURS = _words("""boto jinja preact color colour chart openapi pytest-cov httpie
    typed types panda pyyml yaml docx2 mysql2 marko arrow pillow-heif jest-cli redis-py ruff-lsp
    dotenv-cli flask-cors torchaudio requests-oauthlib pydantic-core faiss-gpu polars-lts-cpu
    pyarrow-hotfix httpx-sse""")

_INSTALL = lazy_compile(
    r"\b(?:(?:python[\d.]*\s+-m\s+)?pip[\d.]*\s+install|uv\s+pip\s+install|uv\s+add|poetry\s+add|"
    r"pipx\s+install|conda\s+install|mamba\s+install)\b(?P<py>[^\n;&|#`\"')\]]*)"
    r"|\b(?:npm\s+(?:i|install|add)|pnpm\s+(?:add|i|install)|yarn\s+(?:global\s+)?add|"
    r"bun\s+(?:add|i|install)|(?P<runner>npx|bunx|pnpx))\b(?P<js>[^\n;&|#`\"')\]]*)",
    re.IGNORECASE)
#: Package indexes and hosts that publish real packages outside PyPI/npm.
_KNOWN_INDEXES = ("github.com", "gitlab.com", "pypi.nvidia.com", "pypi.ngc.nvidia.com",
                  "download.pytorch.org", "data.pyg.org", "files.pythonhosted.org",
                  "conda.anaconda.org", "registry.npmjs.org", "npm.pkg.github.com")
_TAKES_VALUE = frozenset({"-r", "--requirement", "-c", "--constraint", "-e", "--editable",
                          "-t", "--target", "--prefix", "--root", "-f", "--find-links",
                          "--python", "-p", "--registry", "--cache", "-w", "--workspace"})
_INDEX = lazy_compile(r"(?:--index-url|--extra-index-url|-i|--registry)[=\s]+(\S+)", re.IGNORECASE)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def _distance_one(a: str, b: str) -> bool:
    """Damerau distance exactly 1 (one insertion, deletion, substitution or swap)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


_BY_LENGTH = {ecosystem: {n: tuple(sorted(name for name in names if abs(len(name) - n) <= 1))
                          for n in range(1, 40)} for ecosystem, names in POPULAR.items()}


@functools.lru_cache(maxsize=4096)
def lookalike(name: str, ecosystem: str) -> str | None:
    """The popular package ``name`` imitates, or None."""
    norm = _norm(name)
    popular = POPULAR[ecosystem]
    if norm in popular or norm in LEGIT_NEIGHBOURS or len(norm) < 5 or len(norm) >= 40:
        return None
    for target in _BY_LENGTH[ecosystem][len(norm)]:
        if _distance_one(norm, target):
            return target
    for prefix in ("python-", "py-", "node-"):
        if norm.startswith(prefix) and norm[len(prefix):] in popular and norm not in popular:
            return None  # python-foo wrappers are common and real
    return None


def _packages(args: str) -> Iterator[tuple[str, str]]:
    """``(token, bare name)`` of each package argument."""
    tokens = args.split()
    skip = False
    for token in tokens:
        if skip:
            skip = False
            continue
        if token.startswith("-"):
            skip = token.split("=")[0] in _TAKES_VALUE and "=" not in token
            continue
        clean = token.strip("\"'`")
        if not clean or clean.startswith(("$", ".", "/", "<", "{")):
            continue
        yield clean, re.split(r"[\[=<>~!;@ ]", clean.lstrip("@"), maxsplit=1)[0] if not \
            clean.startswith("@") else "@" + re.split(r"[@\[=<>~!;]", clean[1:], maxsplit=1)[0]


_INSTALL_WORDS = ("pip", "uv ", "poetry", "conda", "mamba", "npm", "pnpm", "yarn", "bun",
                  "npx", "bunx", "pnpx")


def _known(url: str, script: bool) -> bool:
    """Whether installing from ``url`` needs no warning: loopback always; well-known package
    hosts in documents (a script installing from a URL always warns)."""
    kind = host_class(url)
    if kind == "loopback":
        return True
    if script:
        return False
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return any(host == k or host.endswith("." + k) for k in _KNOWN_INDEXES) or kind == "api"


def installs(text: str, *, script: bool) -> Iterator[Hit]:
    lower = text.lower()
    if not any(word in lower for word in _INSTALL_WORDS):
        return
    for match in _INSTALL.finditer(text):
        ecosystem = "pypi" if match.group("py") is not None else "npm"
        args = match.group("py") if ecosystem == "pypi" else match.group("js")
        for index in _INDEX.finditer(args):
            if not _known(index.group(1), script):
                yield ("code.remote-package", "warn",
                       f"installs packages from the extra index {index.group(1)}",
                       match.start(), match.end())
        packages = list(_packages(_INDEX.sub(" ", args)))
        if match.group("runner"):
            packages = packages[:1]  # what follows is the command's own arguments
        for token, name in packages:
            if "://" in token or token.startswith(("git+", "git@")):
                if not _known(token.split("+", 1)[-1], script):
                    yield ("code.remote-package", "warn",
                           f"installs a package straight from {token[:100]}",
                           match.start(), match.end())
                continue
            target = lookalike(name, ecosystem)
            if target is not None:
                yield ("code.typosquat", "block",
                       f"installs {name}, one typo away from the popular package {target}",
                       match.start(), match.end())
            elif script and not re.search(r"==|@\d|@[\^~]|===", token) and \
                    not match.group().lower().startswith(("npx", "bunx", "pnpx")) and \
                    not re.search(r"\s-(?:r|e)\s|--requirement|--editable|\s\.\s*$", args):
                yield ("code.unpinned-install", "warn",
                       f"installs {name} without pinning a version", match.start(), match.end())


__all__ = ["LEGIT_NEIGHBOURS", "POPULAR", "installs", "lookalike"]
