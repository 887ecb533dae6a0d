"""The dependencies a skill declares, read as data: ``requirements*.txt``, ``pyproject.toml``
(``project.dependencies``, optional dependencies, dependency groups, ``build-system.requires``,
``[[tool.uv.index]]``, Poetry sources), ``package.json`` (dependencies of every kind),
``.npmrc`` (``registry``) and ``Gemfile`` (``source``).

- A name that imitates a popular PyPI or npm package (:mod:`.packages`) warns; it blocks when
  the skill's own code imports the real package (the lookalike is installed in its place) or
  when the file also points at a package index on an unknown host.
- A package index on a host that is not a well-known one (``--extra-index-url``, ``-i``,
  ``[[tool.uv.index]]``, ``registry=``, ``source``) warns.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from lemon_plugins.auditors.code.packages import (
    import_name,
    lookalike,
    normalise,
    popular,
)

from lemon_core.auditor_kit import host_class, split_url
from lemon_core.auditor_kit.lazy import lazy_compile

#: Hosts of package indexes that publish real packages (PyPI, npm and vendors' own).
KNOWN_INDEXES = ("pypi.org", "pypi.python.org", "files.pythonhosted.org", "registry.npmjs.org",
                 "registry.yarnpkg.com", "npm.pkg.github.com", "download.pytorch.org",
                 "pypi.nvidia.com", "pypi.ngc.nvidia.com", "data.pyg.org",
                 "conda.anaconda.org", "rubygems.org", "gems.rubyonrails.org",
                 "github.com", "gitlab.com", "google-coral.github.io", "storage.googleapis.com")


class Dependency(NamedTuple):
    """One thing a file declares: a package (``name``, with the URL it comes from when it is
    given one: ``source``) or an index (``index``; ``scoped`` when it serves one scope or one
    block of gems only, ``auth`` when a credential goes with it), on ``line``."""

    ecosystem: str
    line: int
    name: str | None = None
    index: str | None = None
    source: str | None = None
    scoped: bool = False
    auth: bool = False


_REQUIREMENT_NAME = lazy_compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_REQ_INDEX = lazy_compile(r"^\s*(?:--index-url|--extra-index-url|-i|--find-links|-f)(?:\s*=\s*|\s+)"
                          r"(\S+)", re.IGNORECASE)
_NPMRC_REGISTRY = lazy_compile(r"^\s*(?:@[\w.-]+:)?registry\s*=\s*(\S+)", re.IGNORECASE)
_GEM_SOURCE = lazy_compile(r"^\s*source\s*\(?\s*[\"']([^\"']+)[\"']")
#: Python imports (``import a.b``, ``from a import b``) and JavaScript ones (``require('a')``,
#: ``from 'a'``, ``import 'a'``, ``import('a')``).
_PY_IMPORT = lazy_compile(r"^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*"
                          r"(?:\s*,\s*[A-Za-z_][\w.]*)*))", re.MULTILINE)
_JS_IMPORT = lazy_compile(r"""(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(?\s*)["']([^"'\s]+)["']""")


def _line_of(text: str, needle: str, default: int = 1) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at != -1 else default


def _requirements(text: str) -> Iterator[Dependency]:
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        index = _REQ_INDEX.match(line)
        if index is not None:
            yield Dependency("pypi", number, index=index.group(1))
            continue
        if line.startswith("-") or "://" in line.split("@", 1)[0]:
            continue  # -r other.txt, -e ., a bare URL: read elsewhere (remote-package)
        name = _REQUIREMENT_NAME.match(line)
        if name is not None:
            url = re.search(r"@\s*((?:git\+)?https?://\S+)", line)
            yield Dependency("pypi", number, name=name.group(1),
                             source=url.group(1) if url else None)


def _pep508_name(spec: object) -> str | None:
    if not isinstance(spec, str):
        return None
    match = _REQUIREMENT_NAME.match(spec)
    return match.group(1) if match else None


def _pyproject(text: str) -> Iterator[Dependency]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    specs: list[object] = list(project.get("dependencies") or [])
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        specs += [s for group in optional.values() if isinstance(group, list) for s in group]
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        specs += [s for group in groups.values() if isinstance(group, list) for s in group]
    build = data.get("build-system")
    if isinstance(build, dict):
        specs += list(build.get("requires") or [])
    for spec in specs:
        name = _pep508_name(spec)
        if name is not None:
            yield Dependency("pypi", _line_of(text, str(spec)), name=name)
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    for key in ("dependencies", "dev-dependencies"):
        table = poetry.get(key)
        if isinstance(table, dict):
            for name in table:
                if name.lower() != "python":
                    yield Dependency("pypi", _line_of(text, name), name=name)
    uv = tool.get("uv") if isinstance(tool.get("uv"), dict) else {}
    indexes: list[object] = [*(uv.get("index") or []), *(poetry.get("source") or [])]
    urls = [entry.get("url") for entry in indexes if isinstance(entry, dict)]
    urls += [uv.get("index-url"), *(uv.get("extra-index-url") or [])]
    for url in urls:
        if isinstance(url, str):
            yield Dependency("pypi", _line_of(text, url), index=url)


def _package_json(text: str) -> Iterator[Dependency]:
    try:
        data = json.loads(text)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    for key in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        table = data.get(key)
        if isinstance(table, dict):
            for name, spec in table.items():
                source = spec if isinstance(spec, str) and re.match(
                    r"(?:git\+)?(?:https?|git|ssh)://|git@", spec) else None
                yield Dependency("npm", _line_of(text, f'"{name}"'), name=name, source=source)
    publish = data.get("publishConfig")
    if isinstance(publish, dict) and isinstance(publish.get("registry"), str):
        yield Dependency("npm", _line_of(text, publish["registry"]), index=publish["registry"])


_NPMRC_AUTH = lazy_compile(r"^\s*//([^/\s:]+)[^\s=]*:_(?:authToken|auth|password)\s*=", re.IGNORECASE)


def _npmrc(text: str) -> Iterator[Dependency]:
    for number, raw in enumerate(text.splitlines(), 1):
        registry = _NPMRC_REGISTRY.match(raw)
        if registry is not None:
            yield Dependency("npm", number, index=registry.group(1),
                             scoped=raw.lstrip().startswith("@"))
            continue
        auth = _NPMRC_AUTH.match(raw)
        if auth is not None:
            yield Dependency("npm", number, index="https://" + auth.group(1), scoped=True,
                             auth=True)


def _lines(pattern: re.Pattern[str], text: str, ecosystem: str) -> Iterator[Dependency]:
    for number, raw in enumerate(text.splitlines(), 1):
        match = pattern.match(raw)
        if match is not None:
            yield Dependency(ecosystem, number, index=match.group(1))


def declared(path: str, text: str) -> list[Dependency]:
    """What the bundle file ``path`` declares, when it is a dependency file."""
    base = posixpath.basename(path).lower()
    if re.fullmatch(r"(?:.*[-_.])?requirements(?:[-_.].*)?\.(?:txt|in)|constraints\.txt", base):
        return list(_requirements(text))
    if base == "pyproject.toml":
        return list(_pyproject(text))
    if base == "package.json":
        return list(_package_json(text))
    if base == ".npmrc":
        return list(_npmrc(text))
    if base == "gemfile":
        return [dep._replace(scoped=bool(re.search(r"\bdo\s*$", text.splitlines()[dep.line - 1])))
                for dep in _lines(_GEM_SOURCE, text, "rubygems")]
    return []


def known_index(url: str) -> bool:
    """Whether ``url`` is a well-known package index (or this machine)."""
    if host_class(url) == "loopback":
        return True
    host, _ = split_url(url if "://" in url else "https://" + url)
    host = host.lower()
    return any(host == known or host.endswith("." + known) for known in KNOWN_INDEXES)


def imports(files: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The modules (Python, top level and dotted) and packages (JavaScript) the skill's code
    imports."""
    found: set[str] = set()
    for path, text in files:
        suffix = posixpath.splitext(path)[1].lower()
        if suffix in (".py", ".pyw", ".ipynb") or text.startswith("#!") and "python" in text[:80]:
            for match in _PY_IMPORT.finditer(text):
                for module in (match.group(1) or match.group(2) or "").split(","):
                    module = module.strip().split(" ")[0]
                    parts = module.split(".")
                    found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        elif suffix in (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"):
            for match in _JS_IMPORT.finditer(text):
                spec = match.group(1)
                if not spec.startswith((".", "/", "node:")):
                    parts = spec.split("/")
                    found.add("/".join(parts[:2]) if spec.startswith("@") else parts[0])
    return frozenset(found)


#: (path, line, rule, severity, message)
Hit = tuple[str, int, str, str, str]


def findings(files: list[tuple[str, str]]) -> Iterator[Hit]:
    """Every dependency finding of a bundle, given its files as ``(path, text)``."""
    per_file = [(path, declared(path, text)) for path, text in files]
    if not any(found for _, found in per_file):
        return
    imported: frozenset[str] | None = None
    popular_names = {eco: [d for _, found in per_file for d in found
                           if d.ecosystem == eco and d.name and d.source is None
                           and normalise(d.name, eco) in popular(eco)[1]]
                     for eco in ("pypi", "npm")}
    for path, found in per_file:
        unknown = [d for d in found if d.index is not None and not known_index(d.index)]
        for dep in unknown:
            served = popular_names.get(dep.ecosystem, []) if not dep.scoped else []
            if dep.auth:
                yield (path, dep.line, "code.dependency-source", "block",
                       (f"hands a registry credential to an unknown host "
                        f"({dep.index[:100]}): every install sends it there"))
            elif served:
                yield (path, dep.line, "code.dependency-source", "block",
                       (f"points at a package index on an unknown host ({dep.index[:100]}) "
                        f"that serves the skill's popular dependencies ({served[0].name}…): "
                        "what it serves under those names is what gets installed"))
            else:
                yield (path, dep.line, "code.remote-package", "warn",
                       (f"points at a package index on an unknown host ({dep.index[:100]}): "
                        "what it serves under a popular name is not what the registry holds"))
        for dep in found:
            if dep.name is None or dep.source is None or known_index(dep.source.split("+")[-1]):
                continue
            if normalise(dep.name, dep.ecosystem) in popular(dep.ecosystem)[1]:
                yield (path, dep.line, "code.dependency-source", "block",
                       (f"takes the popular package {dep.name} from an unknown host "
                        f"({dep.source[:100]}) instead of its registry"))
            else:
                yield (path, dep.line, "code.remote-package", "warn",
                       f"takes {dep.name} straight from {dep.source[:100]}")
        for dep in found:
            if dep.name is None or dep.ecosystem not in ("pypi", "npm"):
                continue
            similar = lookalike(dep.name, dep.ecosystem)
            if similar is None:
                continue
            if imported is None:
                imported = imports(files)
            real = import_name(similar.target, dep.ecosystem)
            if real in imported:
                yield (path, dep.line, "code.typosquat", "block",
                       (f"depends on {dep.name}, {similar.how} from the popular package "
                       f"{similar.target}, while the skill's code imports {real}: the "
                       "lookalike is installed in the real one's place"))
            elif unknown:
                yield (path, dep.line, "code.typosquat", "block",
                       (f"depends on {dep.name}, {similar.how} from the popular package "
                       f"{similar.target}, from a file that also names an unknown index"))
            else:
                yield (path, dep.line, "code.typosquat", "warn",
                       (f"depends on {dep.name}, {similar.how} from the popular package "
                       f"{similar.target} and not itself a popular package: check the name"))


__all__ = ["KNOWN_INDEXES", "Dependency", "declared", "findings", "imports", "known_index"]
