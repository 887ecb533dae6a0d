"""Finding a hosted tool by its model-facing name or by SERVER TOOL, with close names."""

from __future__ import annotations

import pytest

from lemon_core.errors import NotFoundError
from lemon_core.mcp.runtime.inventory import HostedTool
from lemon_core.mcp.runtime.lookup import find_tool


def _tool(server: str, raw: str, kind: str = "tool") -> HostedTool:
    return HostedTool(f"mcp_{server}_{raw}_0123456789abcdef", server, "id-" + server, raw,
                      kind, None, {}, False)


TOOLS = (_tool("calc", "add"), _tool("calc", "subtract"), _tool("files", "read_file"),
         _tool("files", "resources_list", "utility"))


def test_model_facing_and_server_tool_names() -> None:
    assert find_tool(TOOLS, "mcp_calc_add_0123456789abcdef") is TOOLS[0]
    assert find_tool(TOOLS, "calc", "add") is TOOLS[0]
    assert find_tool(TOOLS, "files", "resources_list") is TOOLS[3]


@pytest.mark.parametrize(("args", "expected"), [
    (("calc", "ad"), "server 'calc' has no tool named 'ad'; did you mean 'add'?"),
    (("calcs", "add"), "no MCP server named 'calcs' has tools in this project's inventory; "
                       "did you mean 'calc'?"),
    (("add",), "did you mean the server and the tool: 'calc add'?"),
    (("substract",), "'calc subtract'"),
    (("mcp_calc_ad",), "did you mean 'mcp_calc_add_0123456789abcdef'?"),
    (("zzz",), "list the tools again ('lemon mcp tools')"),
    (("calc", "\x1b[31mred"), "server 'calc' has no tool named '\\x1b[31mred'"),
])
def test_misses_name_the_closest(args: tuple[str, ...], expected: str) -> None:
    with pytest.raises(NotFoundError) as caught:
        find_tool(TOOLS, *args)
    assert expected in str(caught.value)
    assert "\x1b" not in str(caught.value)
