"""source_kit.web: bounded GETs, same-host redirects only, clear errors, no token in messages."""

from __future__ import annotations

import pytest

from lemon_core.context import LemonContext
from lemon_core.source_kit.web import MAX_REDIRECTS, WebError, get, get_json, shown
from tests.registry_server import (
    Answer,
    json_answer,
    web_server,  # noqa: F401 - the fixture
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def test_get_and_get_json(web_server):
    web_server.route("/a", json_answer({"x": 1}))
    assert get_json(web_server.url + "/a") == {"x": 1}
    assert get(web_server.url + "/a").status == 200


def test_a_timeout_says_so(web_server):
    web_server.route("/slow", Answer(200, b"{}", delay=1.0))
    with pytest.raises(WebError, match=r"no answer within 0.2 s"):
        get(web_server.url + "/slow", timeout=0.2)


def test_redirect_chains_are_bounded(web_server):
    for i in range(MAX_REDIRECTS + 2):
        web_server.route(f"/r{i}", Answer(302, headers={"Location": f"/r{i + 1}"}))
    with pytest.raises(WebError, match=f"more than {MAX_REDIRECTS} redirects"):
        get(web_server.url + "/r0")


def test_a_redirect_to_another_port_is_another_host(web_server):
    web_server.route("/r", Answer(307, headers={"Location": "http://127.0.0.1:9/x"}))
    with pytest.raises(WebError, match="refused a redirect to another host"):
        get(web_server.url + "/r")


def test_a_status_error_keeps_the_status_and_never_the_token(web_server):
    web_server.route("/x", json_answer({}, 403))
    with pytest.raises(WebError) as info:
        get(web_server.url.replace("http://", "http://user:s3cret@") + "/x",
            headers={"Authorization": "token s3cret"})
    assert info.value.status == 403
    assert "s3cret" not in str(info.value)


def test_shown_drops_credentials():
    assert shown("https://u:p@h.example/x?q=1#f") == "https://h.example/x?q=1"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://h/x", "https:///x", "h.example/x",
                                 "http://h.example/a b"])
def test_only_http_urls_with_a_host(url):
    with pytest.raises(WebError):
        get(url)


def test_the_context_proxy_is_never_used_for_loopback(web_server):
    web_server.route("/a", json_answer([]))
    ctx = LemonContext(cwd="/", home="/", env={"http_proxy": "http://127.0.0.1:9"})
    assert get_json(web_server.url + "/a", ctx=ctx) == []
