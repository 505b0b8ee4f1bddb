"""The door of ``studyapp serve``: who needs a token, and which requests pass."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from studyapp.tui.serve import (
    TOKEN_COOKIE,
    Door,
    app_command,
    app_environment,
    door_token,
    is_loopback,
    share_url,
)

TOKEN = "s3cret-token"


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("LOCALHOST", True), ("app.localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("10.0.0.1", False),
    ("example.org", False), ("localhost.example.org", False), ("", False),
])
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_loopback_needs_no_token_unless_one_is_given() -> None:
    assert door_token("127.0.0.1", None) is None
    assert door_token("localhost", "given") == "given"


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "classroom.lan"])
def test_any_other_address_gets_a_fresh_random_token(host: str) -> None:
    first, second = door_token(host, None), door_token(host, None)
    assert first is not None and second is not None
    assert first != second
    assert len(first) >= 32  # 24 random bytes, URL-safe base64
    assert door_token(host, "mine") == "mine"


def request(path: str = "/", *, host: str = "127.0.0.1:8000", cookie: str | None = None,
            origin: str | None = None, websocket: bool = False) -> web.Request:
    headers = {"Host": host}
    if cookie is not None:
        headers["Cookie"] = f"{TOKEN_COOKIE}={cookie}"
    if origin is not None:
        headers["Origin"] = origin
    if websocket:
        headers |= {"Upgrade": "websocket", "Connection": "Upgrade"}
    return make_mocked_request("GET", path, headers=headers)


@pytest.mark.parametrize(("req", "reason"), [
    (request("/"), "token"),
    (request("/?token=wrong"), "token"),
    (request("/?token=" + TOKEN[:-1]), "token"),
    (request("/?token=" + TOKEN + "x"), "token"),
    (request("/static/js/textual.js"), "token"),
    (request("/ws?width=80&height=24", websocket=True), "token"),
    (request("/ws", cookie="wrong", websocket=True), "token"),
    (request("/", host="192.168.1.20:8000"), "token"),
    (request("/?token=" + TOKEN), None),
    (request("/static/js/textual.js", cookie=TOKEN), None),
    (request("/ws?width=80&height=24", cookie=TOKEN, websocket=True), None),
    (request("/ws", host="192.168.1.20:8000", cookie=TOKEN, websocket=True,
             origin="http://192.168.1.20:8000"), None),
    (request("/ws", host="192.168.1.20:8000", cookie=TOKEN, websocket=True,
             origin="http://evil.example"), "origin"),
])
def test_with_a_token_every_request_needs_it(req: web.Request, reason: str | None) -> None:
    assert Door(TOKEN).refusal(req) == reason


@pytest.mark.parametrize(("req", "reason"), [
    (request("/"), None),
    (request("/", host="localhost:8000"), None),
    (request("/", host="[::1]:8000"), None),
    (request("/ws", websocket=True, origin="http://127.0.0.1:8000"), None),
    # another site's page reaching the loopback server through its own name
    (request("/", host="rebind.example:8000"), "host"),
    (request("/ws", websocket=True, origin="http://evil.example"), "origin"),
    (request("/ws", websocket=True, origin="http://127.0.0.1:9999"), "origin"),
])
def test_without_a_token_only_this_machine_and_its_own_pages(req: web.Request,
                                                             reason: str | None) -> None:
    assert Door(None).refusal(req) == reason


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def through_door(door: Door, req: web.Request) -> tuple[web.StreamResponse, bool]:
    """The middleware's response, and whether the page handler ran."""
    ran = []

    async def page(_: web.Request) -> web.StreamResponse:
        ran.append(True)
        return web.Response(text="page")

    middleware: Any = door.middleware("forbidden text")
    response = await middleware(req, page)
    return response, bool(ran)


async def test_refused_requests_get_403_and_never_reach_the_app() -> None:
    response, ran = await through_door(Door(TOKEN), request("/static/js/textual.js"))
    assert response.status == 403
    assert isinstance(response, web.Response) and response.text == "forbidden text"
    assert not ran


async def test_the_link_with_the_token_sets_a_strict_http_only_cookie() -> None:
    response, ran = await through_door(Door(TOKEN), request(f"/?token={TOKEN}"))
    assert ran and response.status == 200
    cookie = response.cookies[TOKEN_COOKIE]
    assert cookie.value == TOKEN
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/"


async def test_a_request_with_the_cookie_already_set_gets_no_new_cookie() -> None:
    response, ran = await through_door(Door(TOKEN),
                                       request(f"/?token={TOKEN}", cookie=TOKEN))
    assert ran and TOKEN_COOKIE not in response.cookies


async def test_without_a_token_no_cookie_is_set() -> None:
    response, ran = await through_door(Door(None), request("/?token=anything"))
    assert ran and TOKEN_COOKIE not in response.cookies


def test_the_printed_link_carries_the_token() -> None:
    assert share_url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000/"
    assert share_url("192.168.1.20", 8080, "abc") == "http://192.168.1.20:8080/?token=abc"
    assert share_url("::1", 8000, None) == "http://[::1]:8000/"
    wildcard = share_url("0.0.0.0", 8000, "abc")
    assert "0.0.0.0" not in wildcard and wildcard.endswith(":8000/?token=abc")


def test_each_tab_runs_the_same_profile_language_and_database() -> None:
    argv = app_command(profile="ana", lang="es")
    assert argv[1:] == ["-m", "studyapp", "--profile", "ana", "--lang", "es"]
    assert "--lang" not in app_command(profile="ana", lang=None)
    url = "postgresql+psycopg://class:pw@db/study"
    assert app_environment(url) == {"STUDYAPP_DB": url}
    assert url not in " ".join(argv)  # the password stays out of `ps`
    assert app_environment(None) == {}
