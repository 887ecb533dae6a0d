"""Package installs: a name one typo away from a popular package (typosquatting), a package
from a URL or an extra index, and — in scripts, which run unattended — unpinned versions."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lemon_plugins.auditors.code.packages import lookalike

from lemon_core.auditor_kit import host_class
from lemon_core.auditor_kit.lazy import lazy_compile

Hit = tuple[str, str, str, int, int]

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


INSTALL_WORDS = ("pip", "uv ", "poetry", "conda", "mamba", "npm", "pnpm", "yarn", "bun",
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
    if not any(word in lower for word in INSTALL_WORDS):
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
            similar = lookalike(name, ecosystem)
            if similar is not None:
                yield ("code.typosquat", "block",
                       (f"installs {name}, {similar.how} from the popular package "
                        f"{similar.target} and not itself a popular package"),
                       match.start(), match.end())
            elif script and not re.search(r"==|@\d|@[\^~]|===", token) and \
                    not match.group().lower().startswith(("npx", "bunx", "pnpx")) and \
                    not re.search(r"\s-(?:r|e)\s|--requirement|--editable|\s\.\s*$", args):
                yield ("code.unpinned-install", "warn",
                       f"installs {name} without pinning a version", match.start(), match.end())


__all__ = ["installs"]
