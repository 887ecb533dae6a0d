"""OAuth failures, said without a token, a secret or the authorization server's own text.

They are :class:`~lemon_core.mcp.client.errors.McpConnectionError` subclasses, so the client's
``classify`` and the tool host report them as they are (a fixed ``kind``), whatever SDK task
group they surface through.
"""

from __future__ import annotations

from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.names import show

#: kind -> what happened; ``{login}`` is the command that fixes it.
MESSAGES = {
    "auth_required": "an interactive OAuth login is needed: run '{login}'",
    "auth_declined": "the operator did not approve the OAuth login (declined or "
                     "unanswered); approve it when asked, or run '{login}' on a terminal",
    "auth_failed": "the OAuth authorization failed (the authorization server refused the "
                   "client, the grant or the login; check oauth.client_id and its secret, or "
                   "run '{login}')",
    "auth_timeout": "no authorization redirect arrived within {detail} s "
                    "(oauth.authorization_timeout_ms); run '{login}' again",
    "auth_config": "the oauth block cannot be used: {detail}",
    "auth_cache": "{detail}",
    "auth_request_timeout": "the authorization server did not answer a {detail} (the "
                            "entry's timeout_ms); check that it is reachable and try again",
    "auth_response_too_large": "the authorization server's answer to a {detail} was too large "
                               "to be an OAuth answer; lemon stopped reading it",
}


class OAuthError(McpConnectionError):
    """``kind`` is a key of :data:`MESSAGES`; ``detail`` a fixed text lemon wrote (never a
    configuration value other than a variable name or lemon's own cache path)."""

    def __init__(self, name: str | None, kind: str, detail: str = "") -> None:
        super().__init__(name, "http", kind, phase="authorization")
        login = f"lemon mcp login {name}" if name else "lemon mcp login NAME"
        label = f"server {show(name)}" if name else "the server"
        what = MESSAGES[kind].format(login=login, detail=detail)
        self.args = (f"{label} (http): {what}",)


__all__ = ["MESSAGES", "OAuthError"]
