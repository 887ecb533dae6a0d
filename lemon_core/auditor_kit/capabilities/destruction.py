"""What a command destroys, and how widely: the destruction vocabulary every frontend shares.

:func:`command` reads one simple command (its words as the shell split them, wrappers such as
``sudo`` or ``xargs`` still in front) and says what it would delete, wipe or tear down, each as
a :class:`Destroys`: a recursive deletion of the home folder, the root, a system folder or a
disk (also when the path is built from a variable that is empty or unset, ``"$DIR/"*``), a
force-push or mirror of every ref of a remote or a deletion of every tag, ``DROP
SCHEMA``/``DATABASE`` on a server the environment names, every namespace of a cluster: all
*wide* (the judge blocks them). Operations a cleanup skill may need are *scoped* (it warns,
naming the target): ``terraform destroy -auto-approve``, one namespace, a local database, a
folder of the home. Deletions of an absolute path outside the home are *quiet*: nothing alone,
but blocked when fetched data or the clock decides whether they run. Encrypting files and
walking the user's files are recorded for the ransomware combination.

A frontend of another language emits the same facts: ``Fact(DESTRUCTION, …, value=<what would
be deleted, in words>, detail=<operation>, scope=WIDE|SCOPED|QUIET)``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

import attrs

from lemon_core.auditor_kit.capabilities import vocab
from lemon_core.auditor_kit.capabilities.model import QUIET, SCOPED, WIDE
from lemon_core.auditor_kit.capabilities.values import HOLE

#: Variables every shell has set: never empty.
ALWAYS_SET = frozenset({"HOME", "PWD", "USER", "LOGNAME", "SHELL", "PATH", "HOSTNAME", "UID",
                        "RANDOM", "OLDPWD", "BASH_SOURCE", "SECONDS", "PPID", "BASHPID"})
_REF = re.compile(r"\$\{([A-Za-z_]\w*)(?:(:?[-=?+]|[%#/^,:]+)([^}]*))?\}|\$([A-Za-z_]\w*)")
#: Folders of the home that are caches or build output: deleting them loses nothing.
_DISPOSABLE = re.compile(
    r"(?:^|/)(?:\.cache|Caches|\.npm|\.yarn|\.pnpm-store|\.gradle/caches|\.m2/repository|"
    r"\.cargo/registry|\.rustup/tmp|__pycache__|node_modules|\.Trash|tmp|\.tmp|temp|"
    r"\.local/share/Trash|DerivedData|\.ivy2|\.nuget/packages|\.conda/pkgs|\.pyenv/cache|"
    r"\.bun/install/cache|\.deno|\.vscode-server|\.docker/buildx)(?:/|$)", re.IGNORECASE)
_SQL_WIDE = re.compile(r"\bDROP\s+(?:SCHEMA|DATABASE)\b|\bdropDatabase\s*\(", re.IGNORECASE)
_SQL_SCOPED = re.compile(r"\bDROP\s+(?:TABLE|VIEW|OWNED)\b|\bTRUNCATE\b", re.IGNORECASE)
_SQL_CLIENTS = frozenset({"psql", "mysql", "mariadb", "sqlcmd", "sqlite3", "mongo", "mongosh",
                          "cockroach", "clickhouse-client", "duckdb", "redis-cli"})
_LOCAL = re.compile(r"localhost|127\.0\.0\.1|::1|\.db\b|\.sqlite3?\b|/tmp/|:memory:",
                    re.IGNORECASE)


@attrs.frozen
class Destroys:
    """``target``: what would be deleted, in words; ``detail``: the operation; ``scope``:
    :data:`WIDE`, :data:`SCOPED` or :data:`QUIET`."""

    target: str
    detail: str
    scope: str


def expand(word: str, values: Mapping[str, Sequence[str]], assigned: Collection[str],
           strict: bool, depth: int = 0) -> tuple[str, list[str]]:
    """``word`` with its variables replaced: a known text (recursively), ``""`` where the
    variable may be empty (never assigned and no ``set -u``, an empty value, an empty
    default ``${X:-}``), :data:`HOLE` where it holds something unknown; and the names taken
    as empty."""
    empty: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        operator, default = match.group(2), match.group(3) or ""
        if name == "HOME":
            return "~"
        if operator and operator.lstrip(":") not in ("-", "=", "?", "+", ""):
            # ${X%/.git}, ${X#./}, ${X/a/b}: X transformed; empty when X is
            text, inner = one_plain(name)
            return text if text == "" else HOLE
        if name in ALWAYS_SET or (operator or "").lstrip(":") in ("?", "+"):
            return HOLE
        known = values.get(name)
        if known and depth < 4:
            text, inner = expand(known[0], values, assigned, strict, depth + 1)
            if text == "" and operator and operator.lstrip(":") in ("-", "="):
                text, inner = expand(default, values, assigned, strict, depth + 1)
            if text == "":
                empty.append(name)
            empty.extend(inner)
            return text
        if name in assigned:
            return HOLE
        if operator and operator.lstrip(":") in ("-", "="):
            text, inner = expand(default, values, assigned, strict, depth + 1)
            empty.extend(inner)
            if text == "":
                empty.append(name)
            return text
        if strict:
            return HOLE
        empty.append(name)
        return ""

    def one_plain(name: str) -> tuple[str, list[str]]:
        known = values.get(name)
        if known and depth < 4:
            return expand(known[0], values, assigned, strict, depth + 1)
        if name in assigned or strict or name in ALWAYS_SET:
            return HOLE, []
        empty.append(name)
        return "", [name]

    if "$" not in word:
        return word, []
    return _REF.sub(one, word), empty


def path_scope(text: str) -> str | None:
    """SCOPED for a folder of the home that holds the user's data (``~/projects``, a visible
    folder right under the home), QUIET for a disposable one, an application's own folder
    (``~/.config/app``, ``~/.app/cache``) or an absolute path elsewhere, None for a path of
    the project."""
    if vocab.in_home(text):
        rest = vocab.normal_path(text)
        parts = [p for p in rest.split("/")[1:] if p]
        if rest.startswith("~") and len(parts) == 1 and not parts[0].startswith(".") and (
                HOLE not in parts[0] and not _DISPOSABLE.search(rest)):
            return SCOPED
        return QUIET
    if text.startswith("/") and not text.startswith(("/tmp/", "/var/tmp/", "/dev/null")):
        return QUIET
    return None


def _paths(words: Sequence[str], values: Mapping[str, Sequence[str]],
           assigned: Collection[str], strict: bool, glob_only: bool,
           walking: str | None = None, filtered: bool = False) -> list[Destroys]:
    out = []
    for word in words:
        if word.startswith("-") or not word:
            continue
        text, empty = expand(word, values, assigned, strict)
        if walking and not glob_only and (HOLE in text or text in ("", "{}")):
            # an entry a filtered search found, deleted itself, is what the filter asked for;
            # anything else (its parent, every entry) is the user's files
            itself = filtered and re.fullmatch(r"\$\{?\w+\}?|\{\}", word) is not None
            out.append(Destroys(f"every folder or file that the search of {walking} lists "
                                f"({word.replace(HOLE, '…')})", "rm",
                                SCOPED if itself else WIDE))
            continue
        if glob_only and not text.endswith("*"):
            continue
        shown = vocab.normal_path(text).replace(HOLE, "…") or "/"
        found = vocab.destructive_target(text, children=True)
        if found is not None:
            note = (f" ({word} with {', '.join(sorted(set(empty)))} empty or unset)"
                    if empty else "")
            out.append(Destroys(f"{found}{note}", "rm", WIDE))
            continue
        scope = path_scope(text)
        if scope is not None:
            out.append(Destroys(shown, "rm", scope))
    return out


def _strip(words: Sequence[str]) -> tuple[list[str], bool]:
    """The command after its wrappers, and whether ``xargs`` fed it its arguments."""
    plain = list(words)
    fed = False
    while plain and re.match(r"^[A-Za-z_]\w*=", plain[0]) and len(plain) > 1:
        plain.pop(0)
    while plain and vocab.tool_name(plain[0]) in vocab.WRAPPERS and len(plain) > 1:
        fed = fed or vocab.tool_name(plain[0]) == "xargs"
        plain.pop(0)
        while plain and (plain[0].startswith("-") or plain[0].isdigit()) and len(plain) > 1:
            option = plain.pop(0)
            if option in ("-n", "-I", "-P", "-L", "-d", "-u", "-s", "-k") and plain[1:]:
                plain.pop(0)
    return plain, fed


def command(words: Sequence[str], *, values: Mapping[str, Sequence[str]] | None = None,
            assigned: Collection[str] = (), strict: bool = False, orphan: bool = False,
            walking: str | None = None, filtered: bool = False) -> list[Destroys]:
    """What the simple command ``words`` destroys. ``values`` are the known texts of shell
    variables, ``assigned`` the names assigned somewhere (their value unknown), ``strict``
    says ``set -u`` is on, ``orphan`` that the script made an orphan branch, ``walking`` the
    folder (the home, the root) whose search feeds the loop or ``xargs`` the command runs
    in: a path chosen at run time there is every entry the search lists (``filtered``: the
    search picks entries by name, size or age)."""
    plain, fed = _strip(words)
    if not plain:
        return []
    values = values or {}
    tool = vocab.tool_name(plain[0])
    args = plain[1:]
    flags = {a for a in args if a.startswith("-")}
    if tool in ("rm", "rmdir", "remove-item", "del", "rd", "ri"):
        recursive = any(f.startswith("--recursive") or (not f.startswith("--") and "r" in f.lower())
                        for f in flags) or "-Recurse" in args or tool == "rd"
        if "--no-preserve-root" in flags:
            return [Destroys("/ (--no-preserve-root)", "rm", WIDE)]
        if fed and walking and not [a for a in args if not a.startswith("-")]:
            return [Destroys(f"every folder or file that the search of {walking} lists",
                             "rm", SCOPED if filtered else WIDE)]
        return _paths(args, values, assigned, strict, glob_only=not recursive,
                      walking=walking, filtered=filtered)
    if tool == "find":
        return _find(args, values, assigned, strict)
    if tool == "dd" or tool in ("mkfs", "wipefs", "shred", "blkdiscard", "sgdisk", "fdisk",
                                "parted") or tool.startswith("mkfs."):
        out = []
        for word in args:
            target = word.partition("of=")[2] if tool == "dd" else word
            if tool == "dd" and not word.startswith("of="):
                continue
            found = vocab.destructive_target(target)
            if found is not None and found.startswith("/dev/"):
                image = next((a[3:] for a in args if a.startswith("if=") and re.search(
                    r"\.(?:iso|img|raw|dmg|bin)(?:\.\w+)?$", a, re.IGNORECASE)), None)
                if image is not None:  # flashing an image onto a stick the user chose
                    out.append(Destroys(f"the disk {found}, erased and replaced by {image}",
                                        tool, SCOPED))
                else:
                    out.append(Destroys(f"the disk {found}", tool, WIDE))
        return out
    if tool == "git" and args[:1] == ["push"]:
        return _git_push(args[1:], fed, orphan)
    if tool == "git" and args[:1] in (["checkout"], ["switch"]) and "--orphan" in args:
        return [Destroys("an empty orphan branch", "orphan", QUIET)]
    if tool in _SQL_CLIENTS or tool in ("dropdb", "mysqladmin"):
        return _sql_command(tool, args)
    if tool in ("terraform", "tofu", "terragrunt") and (
            "destroy" in args or ("apply" in args and "-destroy" in args)):
        if any(a in ("-auto-approve", "--auto-approve", "-auto-approve=true") for a in args):
            return [Destroys("every resource of the Terraform configuration", tool, SCOPED)]
        return []
    if tool == "pulumi" and "destroy" in args and ({"--yes", "-y", "--skip-preview"} & flags):
        return [Destroys("every resource of the Pulumi stack", tool, SCOPED)]
    if tool in ("kubectl", "oc") and args[:1] == ["delete"]:
        return _kubectl(args[1:], flags)
    if tool == "aws" and args[:2] in (["s3", "rm"], ["s3", "rb"]) and (
            "--recursive" in args or "--force" in args):
        bucket = next((a for a in args if a.startswith("s3://")), "a bucket")
        return [Destroys(f"everything in {bucket.replace(HOLE, '…')}", "aws", SCOPED)]
    return []


_FIND_FILTERS = frozenset({"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-newer",
                           "-mtime", "-mmin", "-atime", "-ctime", "-size", "-empty", "-user",
                           "-wholename", "-lname", "-perm"})


def _find(args: list[str], values: Mapping[str, Sequence[str]], assigned: Collection[str],
          strict: bool) -> list[Destroys]:
    starts = [a for a in args[:3] if not a.startswith("-")][:1] or ["."]
    text, _ = expand(starts[0], values, assigned, strict)
    wide = vocab.destructive_target(text) or (text if vocab.in_home(text) else None)
    deletes = "-delete" in args or any(
        a in ("-exec", "-execdir", "-ok") and i + 1 < len(args)
        and vocab.tool_name(args[i + 1]) in ("rm", "shred", "unlink")
        for i, a in enumerate(args))
    if not deletes:
        return [Destroys(f"the files under {vocab.normal_path(text)}", "walk", QUIET)] if (
            wide) else []
    found = _paths(starts, values, assigned, strict, glob_only=False)
    filters = [a for a in args if a in _FIND_FILTERS]
    out = []
    for item in found:
        if item.scope == WIDE and filters:
            picked = " ".join(args[args.index(filters[0]):][:2]).replace(HOLE, "…")
            out.append(Destroys(f"the files under {item.target} that find picks ({picked}…)",
                                "find", SCOPED))
        else:
            out.append(attrs.evolve(item, target=f"every file under {item.target}",
                                    detail="find"))
    return out


def _git_push(args: list[str], fed: bool, orphan: bool) -> list[Destroys]:
    flags = {a for a in args if a.startswith("-")}
    refs = [a for a in args if not a.startswith("-")][1:]
    force = bool(flags & {"-f", "--force"}) or any(r.startswith("+") for r in refs)
    every = bool(flags & {"--all", "--branches", "--tags"})
    # rewriting history (git filter-repo) needs a forced push of every branch: a warning,
    # unless the script first made an empty orphan branch to push over them
    if "--mirror" in flags:
        return [Destroys("every branch and tag of the remote, replaced by the local ones "
                         "(git push --mirror)" + (" from an empty orphan branch" if orphan
                                                  else ""), "git-push",
                         WIDE if orphan else SCOPED)]
    if force and every:
        return [Destroys("every branch of the remote, overwritten (git push --force --all)"
                         + (" from an empty orphan branch" if orphan else ""), "git-push",
                         WIDE if orphan else SCOPED)]
    deleting = bool(flags & {"--delete", "-d"}) or any(r.startswith(":") for r in refs)
    if deleting and (fed or any(HOLE in r or "*" in r for r in refs)):
        return [Destroys("every tag or branch a listing names, deleted on the remote",
                         "git-push", WIDE)]
    if force and orphan:
        return [Destroys("the remote's history, replaced by an empty orphan branch "
                         f"({' '.join(refs).replace(HOLE, '…') or 'the current branch'})",
                         "git-push", WIDE)]
    if force:  # one branch rewritten: wide only beside an orphan branch (the judge)
        return [Destroys(f"the remote branch {' '.join(refs).replace(HOLE, '…') or 'pushed'}, "
                         "overwritten (git push --force)", "git-push", QUIET)]
    return []


def _sql_command(tool: str, args: list[str]) -> list[Destroys]:
    text = " ".join(args)
    server_from_env = any("$" in a or HOLE in a for a in args
                          if not _SQL_WIDE.search(a) and not _SQL_SCOPED.search(a))
    local = bool(_LOCAL.search(text)) or tool in ("sqlite3", "duckdb")
    if tool in ("dropdb", "mysqladmin") and (tool == "dropdb" or "drop" in args):
        statement = f"the database ({tool} {' '.join(args[-1:])})"
        return [Destroys(statement, "sql", WIDE if server_from_env and not local else SCOPED)]
    found = _SQL_WIDE.search(text)
    if found is not None:
        where = "a server named by the environment" if server_from_env and not local else (
            "a local database")
        return [Destroys(f"{_statement(text, found.start())} on {where}", "sql",
                         WIDE if server_from_env and not local else SCOPED)]
    found = _SQL_SCOPED.search(text)
    if found is not None:
        return [Destroys(_statement(text, found.start()), "sql", SCOPED)]
    return []


def _statement(text: str, start: int) -> str:
    return text[start:start + 60].split(";")[0].strip().replace(HOLE, "…")


#: Methods of database clients that run a statement (Python and JavaScript).
SQL_METHODS = frozenset({"execute", "executescript", "executemany", "exec_driver_sql", "query",
                         "run_sql", "sql", "command", "exec", "raw", "$executeRawUnsafe",
                         "$executeRaw", "none", "any", "unsafe"})
#: An environment variable naming a database server.
_DB_ENV = re.compile(r"(?:DATABASE|DB|PG|POSTGRES\w*|MYSQL|MONGO\w*|REDIS|SQL\w*)_?(?:URL|URI|"
                     r"DSN|HOST|CONN\w*)\b|\bPGHOST\b|\bPGDATABASE\b", re.IGNORECASE)
_LOCAL_SOURCE = re.compile(r"localhost|127\.0\.0\.1|sqlite|:memory:|duckdb", re.IGNORECASE)


def server_from_env(source: str) -> bool:
    """Whether a program's source connects to a database server the environment names,
    with no sign of a local one (a host check, SQLite)."""
    source = source[:500_000]
    return bool(_DB_ENV.search(source)) and not _LOCAL_SOURCE.search(source)


def sql(statement: str, server_from_env: bool) -> Destroys | None:
    """What an SQL statement a program runs destroys (``DROP SCHEMA`` on a connection the
    environment names is wide)."""
    found = _SQL_WIDE.search(statement)
    if found is not None:
        where = " on a server named by the environment" if server_from_env else ""
        return Destroys(_statement(statement, found.start()) + where, "sql",
                        WIDE if server_from_env else SCOPED)
    found = _SQL_SCOPED.search(statement)
    if found is not None:  # a program's own tables (a cache, a test database): quiet
        return Destroys(_statement(statement, found.start()), "sql",
                        SCOPED if server_from_env else QUIET)
    return None


def _kubectl(args: list[str], flags: set[str]) -> list[Destroys]:
    kinds = [a for a in args if not a.startswith("-")]
    every = "--all" in flags
    everywhere = bool(flags & {"-A", "--all-namespaces"})
    first = (kinds[:1] or [""])[0].lower()
    if first in ("namespace", "namespaces", "ns") or first.startswith(("namespace/", "ns/")):
        if every:
            return [Destroys("every namespace of the cluster (and everything in them)",
                             "kubectl", WIDE)]
        names = " ".join(kinds[1:]) or first.partition("/")[2] or "a namespace"
        return [Destroys(f"the namespace {names.replace(HOLE, '…')} and everything in it",
                         "kubectl", SCOPED)]
    if every and everywhere:
        return [Destroys(f"every {first or 'resource'} in every namespace", "kubectl", WIDE)]
    return []


#: Commands that encrypt a file (``openssl enc``, ``gpg -c``, ``age``).
def encrypts(words: Sequence[str]) -> bool:
    plain, _ = _strip(words)
    if not plain:
        return False
    tool = vocab.tool_name(plain[0])
    args = plain[1:]
    if tool == "openssl":
        return bool(args) and args[0] in ("enc", "aes-256-cbc", "aes-128-cbc", "aes-256-gcm") \
            and "-d" not in args
    if tool in ("gpg", "gpg2"):
        return bool({"-c", "--symmetric", "-e", "--encrypt"} & set(args))
    return tool in ("age", "ccrypt", "7z") and ("-p" in args or tool == "ccrypt" or any(
        a.startswith("-p") for a in args) and tool == "7z")


__all__ = ["ALWAYS_SET", "SQL_METHODS", "Destroys", "command", "encrypts", "expand",
           "path_scope", "server_from_env", "sql"]
