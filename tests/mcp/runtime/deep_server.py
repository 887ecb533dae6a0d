"""A stdio MCP server written without the SDK (whose own server refuses to send such a list):
``python deep_server.py DEPTH``. It lists ``ok`` (a flat schema) and ``deep`` (an
``inputSchema`` of DEPTH nested objects) and answers ``tools/call`` with the tool's name; the
tool ``deep_result`` answers with a result nested 5000 levels deep."""

import json
import sys

DEPTH = int(sys.argv[1])


def nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def send(message: dict | str) -> None:
    sys.stdout.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    sys.stdout.flush()


FLAT = {"type": "object", "properties": {"x": {"type": "string"}}}
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method, ident = request.get("method"), request["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "deep", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
            {"name": "ok", "description": "A flat schema.", "inputSchema": FLAT},
            {"name": "deep", "description": "A deep schema.", "inputSchema": nested(DEPTH)},
            {"name": "deep_result", "description": "A deep answer.", "inputSchema": FLAT}]}})
    elif method == "tools/call" and request["params"]["name"] == "deep_result":
        # deeper than any JSON parser's recursion: only the id can be read (it comes last)
        send('{"jsonrpc": "2.0", "result": {"content": [], "structuredContent": {"a": '
             + "[" * 5000 + "]" * 5000 + f'}}}}, "id": {json.dumps(ident)}}}')
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [
            {"type": "text", "text": "called " + request["params"]["name"]}]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
