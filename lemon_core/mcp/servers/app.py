"""An MCP server (the SDK's low-level ``Server``) over a :class:`~.backend.SkillBackend`.

Tools (fixed at startup, since Codex ignores ``list_changed``): ``find_skills(query)`` returns
``{"skills": [{"name", "description"}]}`` and ``load_skill(name)`` returns
``{"content", "directory", "files"}``, both as structured content and as the same JSON in a
text block. ``load_skill`` states the SKILL.md's size in the result's ``_meta``
(``size_bytes``) and, for a skill over :data:`LARGE_BYTES`, in a second text block, so a client
can decide; the text itself is always whole. An unknown name is a tool error listing up to
three close names. With ``read_tool`` (``lemon skill serve``, ``lemon mcp serve --skills``:
a backend with ``read``) a third tool, ``read_skill(key, view, section, path, ...)``, reads a
skill in the agent API's views (:mod:`.read_tool`), through the same first-load audit.

Resources, as SEP-2640 describes them (capability ``io.modelcontextprotocol/skills``):
``skill://index.json`` (every skill's name, description and URI), ``skill://<name>/SKILL.md``
for each skill, and ``skill://<name>/<relative path>`` (a template) for its other files,
read only when inside the skill folder.

Every text served (names, descriptions, a skill's text and files, directories, file lists,
error messages) passes :func:`lemon_core.text.defang` here, the one place both servers build
their answers: control, bidi, zero-width, tag and other invisible characters reach the agent
as visible escapes, with a one-line note in a skill's text, a file or a description that had
any.

The SDK is imported by :func:`build_server` only.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, unquote

from lemon_core.errors import LemonError
from lemon_core.fsio.read import FileProblem
from lemon_core.mcp.servers.backend import Found, Loaded, SkillBackend
from lemon_core.mcp.servers.descriptions import (
    INSTRUCTIONS,
    LOAD_DESCRIPTION,
    find_description,
)
from lemon_core.text import defang

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
INDEX_URI = "skill://index.json"
LARGE_BYTES = 24 * 1024
RESOURCE_PAGE = 500


def skill_uri(name: str, relative: str = "SKILL.md") -> str:
    return f"skill://{quote(name, safe='')}/{quote(relative, safe='/')}"


def parse_skill_uri(uri: str) -> tuple[str, str] | None:
    """``skill://<name>/<relative path>`` as (name, path); None for anything else."""
    if not uri.startswith("skill://"):
        return None
    name, sep, relative = uri[len("skill://"):].partition("/")
    if not sep or not name or not relative:
        return None
    return unquote(name), unquote(relative)


def find_result(backend: SkillBackend, arguments: dict[str, Any]) -> dict[str, Any]:
    query = arguments.get("query")
    if query is not None and not isinstance(query, str):
        raise ValueError("query must be a string")
    return {"skills": [_described(f) for f in backend.find(query)]}


def _described(found: Found, **extra: str) -> dict[str, str]:
    """One skill as the agent sees it: its name and description defanged."""
    return {"name": defang(found.name), "description": defang(found.description, note=True),
            **extra}


def loaded_result(loaded: Loaded) -> dict[str, Any]:
    """``load_skill``'s structured result: the text defanged (with its note), the directory
    and the file names too."""
    return {"content": defang(loaded.content, note=True), "directory": defang(loaded.directory),
            "files": [defang(f) for f in loaded.files]}


def load_result(backend: SkillBackend, arguments: dict[str, Any]) -> Loaded:
    name = arguments.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("name is required: a skill name as find_skills returns it")
    return backend.load(name)


def build_server(backend: SkillBackend, *, name: str, version: str,
                 instructions: str | None = None, read_tool: bool = False,
                 write_tool: bool = False, nudge: bool = True) -> Any:
    """The SDK server for ``backend`` (a :class:`~.backend.Deferred` one may still be
    loading: ``initialize`` is answered at once, the other requests wait for it; one not yet
    started is started by ``notifications/initialized`` or by the first request). With
    ``read_tool`` it also serves ``read_skill`` (the backend then has ``read``); with
    ``write_tool``, ``skill_manage`` (:mod:`.manage_tool`; the backend has ``ctx`` and
    ``workspace``), and the instructions carry the learning nudge unless ``nudge`` is off."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from lemon_core.mcp.servers import manage_tool as managing
    from lemon_core.mcp.servers import read_tool as reading

    if instructions is None:
        instructions = INSTRUCTIONS + (READ_INSTRUCTIONS if read_tool else "") + (
            (MANAGE_INSTRUCTIONS + (LEARNING_NUDGE if nudge else "")) if write_tool else "")
    fixed: list[Any] = []

    def tools() -> list[Any]:
        """The tools, described once (at the first ``tools/list``, right after startup):
        Codex ignores ``list_changed``, so the names in the description stay as they were."""
        if not fixed:
            fixed.extend(_tools(types, backend, read_tool, write_tool))
        return fixed

    schemas = {"find_skills": FIND_SCHEMA, "load_skill": LOAD_SCHEMA}
    if read_tool:
        schemas[reading.NAME] = reading.SCHEMA
    if write_tool:
        schemas[managing.NAME] = managing.SCHEMA
    offered = " and ".join([", ".join(list(schemas)[:-1]), list(schemas)[-1]])

    def _error(message: str) -> Any:
        return types.CallToolResult(content=[types.TextContent(text=defang(message))],
                                    is_error=True)

    def _ok(data: dict[str, Any], extra: list[str] = (), meta: dict[str, Any] | None = None
            ) -> Any:
        blocks = [types.TextContent(text=json.dumps(data, ensure_ascii=False))]
        blocks += [types.TextContent(text=note) for note in extra]
        return types.CallToolResult(content=blocks, structured_content=data, meta=meta)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools())

    async def call_tool(ctx: Any, params: Any) -> Any:
        arguments = dict(params.arguments or {})
        try:
            if params.name == "find_skills":
                return _ok(find_result(backend, arguments))
            if params.name == "load_skill":
                loaded = load_result(backend, arguments)
                notes = []
                if loaded.size > LARGE_BYTES:
                    notes.append(f"This SKILL.md is {loaded.size} bytes, returned whole.")
                return _ok(loaded_result(loaded), notes, {"size_bytes": loaded.size})
            if read_tool and params.name == reading.NAME:
                wanted = reading.read_arguments(arguments)
                read = backend.read(wanted.pop("key"), **wanted)  # type: ignore[attr-defined]
                return _ok(reading.read_result(read), meta={"size_bytes": read.size})
            if write_tool and params.name == managing.NAME:
                return _ok(await managing.call(backend, getattr(ctx, "session", None),
                                               getattr(ctx, "request_id", None), arguments))
            return _error(f"unknown tool '{params.name}'; the tools are {offered}")
        except (LemonError, ValueError, FileProblem) as exc:  # UnknownSkill is a LemonError
            return _error(_problem(exc))

    async def list_resources(ctx: Any, params: Any) -> Any:
        names = backend.names()
        start = _cursor(params)
        page = names[start:start + RESOURCE_PAGE]
        resources = [types.Resource(uri=INDEX_URI, name="index.json", mime_type=
                                    "application/json",
                                    description="Every skill's name, description and URI.")
                     ] if start == 0 else []
        resources += [types.Resource(uri=skill_uri(n), name=defang(n), mime_type="text/markdown")
                      for n in page]
        following = start + RESOURCE_PAGE
        return types.ListResourcesResult(
            resources=resources, next_cursor=str(following) if following < len(names) else None)

    async def list_templates(ctx: Any, params: Any) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template="skill://{name}/{path}", name="skill file",
            description="A file of a skill, by its path relative to the skill folder.")])

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri == INDEX_URI:
            index = {"skills": [_described(f, uri=skill_uri(f.name))
                                for f in backend.described()]}
            text, mime = json.dumps(index, ensure_ascii=False), "application/json"
        else:
            parsed = parse_skill_uri(uri)
            if parsed is None:
                raise _mcp_error(f"not a skill resource: {uri}")
            try:
                text = backend.read_file(*parsed)
            except LemonError as exc:
                raise _mcp_error(str(exc)) from None
            except FileProblem as exc:
                raise _mcp_error(f"{parsed[1]}: {_problem(exc)}") from None
            text = defang(text, note=True)
            mime = "text/markdown" if parsed[1].endswith(".md") else "text/plain"
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type=mime, text=text)])

    server = Server(name, version=version, instructions=instructions,
                    get_tool_input_schema=schemas.get, on_list_tools=list_tools,
                    on_call_tool=call_tool, on_list_resources=list_resources,
                    on_list_resource_templates=list_templates, on_read_resource=read_resource)
    server.extensions[SKILLS_EXTENSION] = {}
    start = getattr(backend, "start", None)
    if start is not None:  # a Deferred backend: build it once the handshake is done
        async def initialized(ctx: Any, params: Any) -> None:
            start()

        server.add_notification_handler("notifications/initialized", types.NotificationParams,
                                        initialized)
    return server


FIND_SCHEMA = {"type": "object", "properties": {"query": {
    "type": "string", "description": "Words describing the task; empty lists every skill."}}}
LOAD_SCHEMA = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "description": "The skill's exact name."}}}


MANAGE_INSTRUCTIONS = (
    " skill_manage writes skills (create, edit, patch, write_file, pin, archive, report, ...):"
    " every write is audited like an install."
)

#: The learning nudge (``[skills] learning_nudge = false`` in config.toml removes it).
LEARNING_NUDGE = (
    " When you finish a task that needed a non-obvious fix, a workaround, or steps you had to"
    " discover, and a future task would need them again, record the lesson with skill_manage:"
    " patch the skill that owns the topic if there is one (read it first), else create a"
    " short new skill. Do not record secrets, one-off facts or what a skill already says."
)

READ_INSTRUCTIONS = (
    " read_skill returns a skill by key in a view: its summary (outline and files), one "
    "section, or one of its files, for a part without the whole text."
)


def _tools(types: Any, backend: SkillBackend, read_tool: bool = False,
           write_tool: bool = False) -> list[Any]:
    def hints(title: str) -> Any:
        return types.ToolAnnotations(title=title, read_only_hint=True, destructive_hint=False,
                                     idempotent_hint=True, open_world_hint=False)

    from lemon_core.mcp.servers import read_tool as reading

    tools = [
        types.Tool(name="find_skills", description=find_description(backend.names()),
                   input_schema=FIND_SCHEMA, annotations=hints("Find skills")),
        types.Tool(name="load_skill", description=LOAD_DESCRIPTION, input_schema=LOAD_SCHEMA,
                   annotations=hints("Load a skill")),
    ]
    if read_tool:
        tools.append(types.Tool(name=reading.NAME, description=reading.DESCRIPTION,
                                input_schema=reading.SCHEMA,
                                annotations=hints("Read a skill, or part of it")))
    if write_tool:
        from lemon_core.mcp.servers import manage_tool as managing

        tools.append(types.Tool(name=managing.NAME, description=managing.DESCRIPTION,
                                input_schema=managing.SCHEMA,
                                annotations=types.ToolAnnotations(
                                    title="Write a skill", read_only_hint=False,
                                    destructive_hint=True, idempotent_hint=False,
                                    open_world_hint=False)))
    return tools


def _cursor(params: Any) -> int:
    cursor = getattr(params, "cursor", None) if params is not None else None
    try:
        return max(0, int(cursor)) if cursor else 0
    except ValueError:
        return 0


def _problem(exc: BaseException) -> str:
    return exc.message if isinstance(exc, FileProblem) else str(exc)


def _mcp_error(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(code=INVALID_PARAMS, message=defang(message))


async def serve_stdio(server: Any) -> None:
    """Serve ``server`` on this process's stdin and stdout until the input ends."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        # Handshake-era protocol versions carry no ``extensions`` map: SEP-2640's capability
        # is also advertised under ``experimental`` for them.
        options = server.create_initialization_options(
            experimental_capabilities={SKILLS_EXTENSION: {}})
        await server.run(read_stream, write_stream, options)


def run_stdio(server: Any) -> None:
    import anyio

    anyio.run(serve_stdio, server)


__all__ = ["INDEX_URI", "LARGE_BYTES", "SKILLS_EXTENSION", "build_server", "parse_skill_uri",
           "run_stdio", "serve_stdio", "skill_uri"]
