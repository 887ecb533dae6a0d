"""An SDK Streamable HTTP MCP server that requires a bearer token:
``python resource_server.py PORT AUTH_SERVER_URL LOGFILE``.

Tokens are checked by asking the authorization server's introspection endpoint (real HTTP);
an unauthenticated request gets the SDK's 401 with a ``WWW-Authenticate`` naming the
protected-resource metadata, which the SDK serves too. Every request's path and headers are
appended to LOGFILE as one JSON line, so a test can check what the client sent here.
"""

import json
import sys
from pathlib import Path

import httpx2
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

port, issuer, log = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
resource = f"http://127.0.0.1:{port}/mcp"


class Introspect:
    async def verify_token(self, token: str) -> AccessToken | None:
        async with httpx2.AsyncClient(trust_env=False) as client:
            answer = (await client.post(f"{issuer}/introspect", data={"token": token})).json()
        if not answer.get("active"):
            return None
        return AccessToken(token=token, client_id=answer["client_id"],
                           scopes=answer["scope"].split(), expires_at=answer.get("exp"))


server = MCPServer("lemon-oauth-server", version="1.0", token_verifier=Introspect(),
                   auth=AuthSettings(issuer_url=issuer, resource_server_url=resource))


@server.tool()
def echo(text: str, times: int = 1) -> str:
    """Say it back (``times`` over: a large answer from a small request)."""
    return text * times


app = server.streamable_http_app()


async def logged(scope, receive, send):  # type: ignore[no-untyped-def]
    if scope["type"] == "http":
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with log.open("a") as out:  # noqa: ASYNC230 (a test log line)
            out.write(json.dumps({"path": scope["path"], "headers": headers}) + "\n")
    await app(scope, receive, send)


uvicorn.run(logged, host="127.0.0.1", port=port, log_level="error")
