"""The door of ``studyapp serve``: who needs a token, and which requests pass."""

from __future__ import annotations

import hmac
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

import studyapp.tui.serve_door as door_module
from studyapp.tui.serve import share_url
from studyapp.tui.serve_door import (
    MIN_TOKEN_CHARS,
    Door,
    Throttle,
    client_key,
    derived_key,
    door_token,
    is_loopback,
    loopback_peer_uid,
)
from studyapp.tui.serve_session import app_command, app_environment

TOKEN = "s3cret-token-of-the-class"
PORT = 8000
DOOR_COOKIE = f"studyapp_token_{PORT}"
COOKIE_VALUE = derived_key(TOKEN, f"cookie {PORT}")
APP_KEY = derived_key(TOKEN, "websocket")


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("LOCALHOST", True), ("app.localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("10.0.0.1", False),
    ("example.org", False), ("localhost.example.org", False), ("", False),
])
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_fresh_token_of_256_random_bits_unless_the_owner_opts_out() -> None:
    first, second = door_token(None), door_token(None)
    assert first is not None and second is not None and first != second
    assert len(first) >= 43  # 32 random bytes, URL-safe base64: 256 bits, at least 128
    assert door_token(None, no_token=True) is None
    assert door_token("x" * MIN_TOKEN_CHARS) == "x" * MIN_TOKEN_CHARS


@pytest.mark.parametrize("given", ["", "a", "x" * (MIN_TOKEN_CHARS - 1)])
def test_a_short_token_is_refused(given: str) -> None:
    with pytest.raises(ValueError, match=f"short:{len(given)}"):
        door_token(given)


@pytest.mark.parametrize("given", ["sixteen chars ok", "sixteen-chars\x1b[2J",
                                   "tab\tseparated-token"])
def test_a_token_with_spaces_or_controls_is_refused(given: str) -> None:
    with pytest.raises(ValueError, match="unprintable"):
        door_token(given)


def transport(remote: str, remote_port: int = 50000) -> mock.Mock:
    """A connection from ``remote``, as ``request.remote`` reads it."""
    ends = {"peername": (remote, remote_port), "sockname": ("127.0.0.1", PORT)}
    conn = mock.Mock()
    conn.get_extra_info.side_effect = lambda name, default=None: ends.get(name, default)
    return conn


def request(path: str = "/", *, host: str = "127.0.0.1:8000", cookie: str | None = None,
            cookie_name: str = DOOR_COOKIE, origin: str | None = None,
            websocket: bool = False, remote: str = "127.0.0.1",
            remote_port: int = 50000) -> web.Request:
    headers = {"Host": host}
    if cookie is not None:
        headers["Cookie"] = f"{cookie_name}={cookie}"
    if origin is not None:
        headers["Origin"] = origin
    if websocket:
        headers |= {"Upgrade": "websocket", "Connection": "Upgrade"}
    return make_mocked_request("GET", path, headers=headers,
                               transport=transport(remote, remote_port))


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
    (request("/static/js/textual.js", cookie=COOKIE_VALUE), None),
    (request("/download/abc", cookie=COOKIE_VALUE), None),
    (request(f"/ws/{APP_KEY}?width=80&height=24", websocket=True), None),
    (request(f"/ws?token={TOKEN}&width=80&height=24", websocket=True), None),
    (request("/ws/" + APP_KEY[:-1], websocket=True), "token"),
    (request(f"/ws/{TOKEN}", websocket=True), "token"),
    (request(f"/ws/{APP_KEY}", host="192.168.1.20:8000", websocket=True,
             origin="http://192.168.1.20:8000"), None),
    (request(f"/ws/{APP_KEY}", host="192.168.1.20:8000", websocket=True,
             origin="http://evil.example"), "origin"),
])
def test_with_a_token_every_request_needs_it(req: web.Request, reason: str | None) -> None:
    assert Door(TOKEN, PORT).refusal(req) == reason


@pytest.mark.parametrize("req", [
    # what a second service on another port of this host receives from the browser
    request("/", cookie=COOKIE_VALUE),
    request("/ws?width=80&height=24", cookie=COOKIE_VALUE, websocket=True),
    request("/ws/x", cookie=COOKIE_VALUE, websocket=True),
    request(f"/ws/{COOKIE_VALUE}", websocket=True),
    request(f"/?token={COOKIE_VALUE}"),
    # the token itself in a cookie: no cookie holds it, none may carry it
    request("/", cookie=TOKEN),
    request("/static/js/textual.js", cookie=TOKEN),
])
def test_this_ports_cookie_opens_no_page_and_no_app(req: web.Request) -> None:
    assert Door(TOKEN, PORT).refusal(req) == "token"


@pytest.mark.parametrize("name", ["studyapp_token", "studyapp_token_8001", "studyapp_token_80",
                                  "studyapp_token_80000"])
def test_a_cookie_named_for_another_port_is_refused(name: str) -> None:
    other = derived_key(TOKEN, f"cookie {name.rpartition('_')[2]}")
    for value in (COOKIE_VALUE, other, TOKEN):
        req = request("/static/js/textual.js", cookie=value, cookie_name=name)
        assert Door(TOKEN, PORT).refusal(req) == "token"


def test_the_cookie_and_the_app_key_are_not_the_token() -> None:
    door = Door(TOKEN, PORT)
    assert door.cookie_name == DOOR_COOKIE
    values = {TOKEN, door.cookie_value, door.app_key, Door(TOKEN, 8001).cookie_value}
    assert len(values) == 4
    assert all(TOKEN not in value for value in values - {TOKEN})
    assert door.websocket_path() == f"/ws/{APP_KEY}"
    assert Door(None, PORT).websocket_path() == "/ws"
    assert set(door.hidden_values()) == {TOKEN, door.cookie_value, door.app_key}


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every comparison goes through ``hmac.compare_digest``, never ``==``."""
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(door_module.hmac, "compare_digest", spy)
    door = Door(TOKEN, PORT)
    assert door.refusal(request("/?token=guess-of-the-class")) == "token"
    assert (b"guess-of-the-class", TOKEN.encode()) in compared
    compared.clear()
    assert door.refusal(request(f"/ws/{APP_KEY}")) is None
    assert (APP_KEY.encode(), APP_KEY.encode()) in compared
    compared.clear()
    assert door.refusal(request("/static/x", cookie="nope")) == "token"
    assert (b"nope", door.cookie_value.encode()) in compared


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
    assert Door(None, PORT).refusal(req) == reason


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_tokens_lock_one_client_out_for_longer_and_longer() -> None:
    clock = Clock()
    throttle = Throttle(clock)
    for _ in range(Throttle.FREE_TRIES - 1):
        throttle.failed("10.0.0.5")
        assert throttle.wait("10.0.0.5") == 0
    waits = []
    for _ in range(6):
        throttle.failed("10.0.0.5")
        waits.append(throttle.wait("10.0.0.5"))
    assert waits == [1, 2, 4, 8, 16, 32]
    assert throttle.wait("10.0.0.6") == 0  # another client is not slowed
    for _ in range(30):
        throttle.failed("10.0.0.5")
    assert throttle.wait("10.0.0.5") == Throttle.MAX_LOCKOUT_S  # capped
    clock.now += Throttle.FORGET_S + Throttle.MAX_LOCKOUT_S + 1  # quiet long enough: forgiven
    assert throttle.wait("10.0.0.5") == 0
    throttle.failed("10.0.0.5")
    assert throttle.wait("10.0.0.5") == 0


def test_the_throttle_remembers_a_bounded_number_of_clients() -> None:
    throttle = Throttle(Clock())
    for n in range(Throttle.MAX_CLIENTS * 3):
        throttle.failed(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}")
    assert len(throttle.clients) == Throttle.MAX_CLIENTS


def test_the_kernel_names_the_local_user_behind_a_loopback_connection() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as client:
            accepted, peer = listener.accept()
            with accepted:
                assert client.getsockname() == peer
                assert loopback_peer_uid(peer, accepted.getsockname()) == os.getuid()
                assert loopback_peer_uid(peer, ("127.0.0.1", 1)) is None


def test_the_users_connection_is_found_in_the_kernels_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As /proc/net/tcp lists them: the client end (owned by uid 1001), the server's, and
    a closed connection's remains on the same ports (TIME_WAIT, listed as uid 0)."""
    table = tmp_path / "tcp"
    table.write_text(
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
        "   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n"
        "   9: 0100007F:C350 0100007F:1F40 06 00000000:00000000 03:00000000 00000000 0 0 0\n"
        "   1: 0100007F:C350 0100007F:1F40 01 00000000:00000000 00:00000000 00000000 1001 0 2\n"
        "   2: 0100007F:1F40 0100007F:C350 01 00000000:00000000 00:00000000 00000000 0 0 3\n")
    monkeypatch.setattr(door_module, "PROC_NET_TCP", (table,))
    assert loopback_peer_uid(("127.0.0.1", 50000), ("127.0.0.1", 8000)) == 1001
    assert loopback_peer_uid(("127.0.0.1", 50001), ("127.0.0.1", 8000)) is None


async def test_on_loopback_one_users_wrong_tokens_never_lock_out_another(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every local user comes from 127.0.0.1: the kernel's owner of the connection tells
    them apart (here port 40000 is another user's, every other port the owner's)."""
    owners = {40000: 1001}
    monkeypatch.setattr(door_module, "loopback_peer_uid",
                        lambda peer, server: owners.get(peer[1], 0))
    door = Door(TOKEN, PORT)
    for n in range(Throttle.FREE_TRIES + 2):
        response, _ = await through_door(door, request(f"/?token=guess-{n:012d}",
                                                       remote_port=40000))
    assert response.status == 429
    response, ran = await through_door(door, request(f"/?token={TOKEN}", remote_port=40000))
    assert response.status == 429 and not ran
    response, ran = await through_door(door, request(f"/?token={TOKEN}", remote_port=40001))
    assert response.status == 200 and ran
    assert list(door.throttle.clients) == ["127.0.0.1 uid 1001"]


def test_an_ipv6_client_counts_as_its_64_network() -> None:
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9")
    assert client_key("2001:db8:1:2::1") != client_key("2001:db8:1:3::1")
    assert client_key("::ffff:10.0.0.5") == client_key("10.0.0.5") == "10.0.0.5"
    assert client_key(None) == "?"


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def through_door(door: Door, req: web.Request) -> tuple[web.StreamResponse, bool]:
    """The middleware's response, and whether the page handler ran."""
    ran = []

    async def page(_: web.Request) -> web.StreamResponse:
        ran.append(True)
        return web.Response(text="page")

    middleware: Any = door.middleware("forbidden text", "throttled text")
    response = await middleware(req, page)
    return response, bool(ran)


async def test_refused_requests_get_403_and_never_reach_the_app() -> None:
    response, ran = await through_door(Door(TOKEN, PORT), request("/static/js/textual.js"))
    assert response.status == 403
    assert isinstance(response, web.Response) and response.text == "forbidden text"
    assert not ran


async def test_the_link_with_the_token_sets_a_strict_http_only_cookie_named_for_the_port(
        ) -> None:
    response, ran = await through_door(Door(TOKEN, PORT), request(f"/?token={TOKEN}"))
    assert ran and response.status == 200
    assert list(response.cookies) == [DOOR_COOKIE]
    cookie = response.cookies[DOOR_COOKIE]
    assert cookie.value == COOKIE_VALUE and TOKEN not in cookie.value
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/"
    assert response.headers["Referrer-Policy"] == "no-referrer"  # the link's token stays here


async def test_a_request_with_the_cookie_already_set_gets_no_new_cookie() -> None:
    response, ran = await through_door(Door(TOKEN, PORT),
                                       request(f"/?token={TOKEN}", cookie=COOKIE_VALUE))
    assert ran and not response.cookies


async def test_without_a_token_no_cookie_is_set() -> None:
    response, ran = await through_door(Door(None, PORT), request("/?token=anything"))
    assert ran and not response.cookies


async def test_wrong_tokens_from_one_address_get_429_and_another_client_still_comes_in(
        ) -> None:
    door = Door(TOKEN, PORT)
    statuses = []
    for n in range(Throttle.FREE_TRIES + 3):
        response, ran = await through_door(door, request(f"/?token=guess-{n:012d}",
                                                         remote="10.0.0.5"))
        assert not ran
        statuses.append(response.status)
    assert statuses[:Throttle.FREE_TRIES] == [403] * Throttle.FREE_TRIES
    assert set(statuses[Throttle.FREE_TRIES:]) == {429}
    response, ran = await through_door(door, request(f"/?token={TOKEN}", remote="10.0.0.5"))
    assert response.status == 429 and not ran  # locked out: not even the right one is tried
    assert isinstance(response, web.Response) and response.text == "throttled text"
    assert int(response.headers["Retry-After"]) >= 1
    response, ran = await through_door(door, request(f"/?token={TOKEN}", remote="10.0.0.6"))
    assert response.status == 200 and ran
    # a request with no token at all is refused without counting: a bare visit locks no one
    for _ in range(3 * Throttle.FREE_TRIES):
        response, _ = await through_door(door, request("/", remote="10.0.0.7"))
        assert response.status == 403
    response, ran = await through_door(door, request(f"/?token={TOKEN}", remote="10.0.0.7"))
    assert response.status == 200 and ran


async def test_a_locked_out_client_comes_back_after_its_wait() -> None:
    clock = Clock()
    door = Door(TOKEN, PORT, Throttle(clock))
    for n in range(Throttle.FREE_TRIES):
        await through_door(door, request(f"/ws/guess{n}", remote="10.0.0.5"))
    response, _ = await through_door(door, request(f"/ws/{APP_KEY}", remote="10.0.0.5"))
    assert response.status == 429
    clock.now += 1.5
    response, ran = await through_door(door, request(f"/ws/{APP_KEY}", remote="10.0.0.5"))
    assert response.status == 200 and ran


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
