"""Who may come into the served app: the token, the keys derived from it, and the
throttle on wrong tokens.

Every address, loopback included, needs a token unless the owner opts out
with ``--no-token`` on loopback. The page and the app's WebSocket need the
token (or the app key the page learns); this port's cookie, holding a value
derived from the token, opens only static files and downloads. Wrong tokens
are throttled per client address and, on loopback, per local user (the
kernel's owner of the connection).
"""

from __future__ import annotations

import base64
import hmac
import ipaddress
import logging
import secrets
import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from math import ceil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

log = logging.getLogger("studyapp.serve")


TOKEN_PARAM = "token"
TOKEN_COOKIE = "studyapp_token"
"""The cookie's name before its port: ``studyapp_token_8000``."""
TOKEN_ENV = "STUDYAPP_TOKEN"
"""Where the token may come from besides ``--token-file``; never passed to an app process."""
MIN_TOKEN_CHARS = 16
"""A given token's fewest characters; a generated one has 43 (256 random bits)."""
GENERATED_TOKEN_BYTES = 32
APP_PATH = "/ws"
COOKIE_PATHS = ("/static/", "/download/", "/favicon.ico")
"""What this port's cookie opens: files the page loads and the app delivers, no app
(and the icon a browser asks for, which is not there: a 404, not a refusal logged)."""


def is_loopback(host: str) -> bool:
    """Is ``host`` (an address or a name) one only this machine can reach?"""
    host = host.strip().strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def door_token(given: str | None, *, no_token: bool = False) -> str | None:
    """The token the server asks for: the given one (checked), none when the owner opted
    out, else a fresh one of 256 random bits.

    Raises ``ValueError`` for a given token that is too short or not printable.
    """
    if given is not None:
        if len(given) < MIN_TOKEN_CHARS:
            raise ValueError(f"short:{len(given)}")
        if not given.isprintable() or any(char.isspace() for char in given):
            raise ValueError("unprintable")
        return given
    if no_token:
        return None
    return secrets.token_urlsafe(GENERATED_TOKEN_BYTES)


def _same(candidate: str | None, expected: str) -> bool:
    """Constant-time comparison, so timing tells nothing about the token."""
    if candidate is None:
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "surrogatepass"),
                               expected.encode("utf-8", "surrogatepass"))


def derived_key(token: str, purpose: str) -> str:
    """A value derived from the token for one purpose (the app's WebSocket path, one
    port's cookie): whoever learns it learns nothing of the token or of the other keys."""
    digest = hmac.new(token.encode("utf-8"), f"studyapp {purpose}".encode(), "sha256")
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


def _host_name(netloc: str) -> str:
    """``host`` of ``host:port`` or ``[v6]:port``."""
    return urlsplit(f"//{netloc}").hostname or ""


def client_key(remote: str | None) -> str:
    """Whose tries are counted together: one IPv4 address, or one IPv6 /64 (what one
    machine is given), so a client cannot reset its count by changing address."""
    if not remote:
        return "?"
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


PROC_NET_TCP = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))


def _proc_address(field: str) -> tuple[str, int]:
    """``0100007F:1F90`` (/proc/net/tcp: 32-bit words in host order) as ``(address, port)``."""
    hex_address, _, hex_port = field.partition(":")
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)) \
        if sys.byteorder == "little" else raw
    address = ipaddress.ip_address(words)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address), int(hex_port, 16)


def _endpoint(address: str, port: int) -> tuple[str, int]:
    """An address and port as /proc/net/tcp reads back (IPv4-mapped IPv6 as IPv4)."""
    parsed = ipaddress.ip_address(address.split("%")[0])
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return str(parsed), port


TCP_ESTABLISHED = "01"


def loopback_peer_uid(peer: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The user who owns the client end of an open TCP connection on this machine, as
    the kernel lists it: every local user reaches 127.0.0.1 from the same address, and
    this tells them apart. None when it cannot be found (not Linux, the client gone)."""
    try:
        wanted = (_endpoint(*peer), _endpoint(*server))
    except ValueError:
        return None
    for table in PROC_NET_TCP:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 8 or fields[3] != TCP_ESTABLISHED:
                continue  # a closed connection's remains (TIME_WAIT) belong to no user
            try:
                if (_proc_address(fields[1]), _proc_address(fields[2])) == wanted:
                    return int(fields[7])
            except ValueError:
                continue
    return None


@dataclass
class Strikes:
    """One client's wrong tokens: how many, the last one, and when it may try again."""

    count: int = 0
    last: float = 0.0
    locked_until: float = 0.0


class Throttle:
    """Wrong tokens per client address: ``FREE_TRIES`` at once, then each wrong one locks
    that client out for twice as long as the one before (1 s, 2 s, ... up to
    ``MAX_LOCKOUT_S``). A client quiet for ``FORGET_S`` starts again; at most
    ``MAX_CLIENTS`` are remembered (the least recent is forgotten first), so memory stays
    bounded whatever an attacker sends. Other clients are never slowed."""

    FREE_TRIES = 5
    MAX_LOCKOUT_S = 300.0
    FORGET_S = 900.0
    MAX_CLIENTS = 4096

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.clients: OrderedDict[str, Strikes] = OrderedDict()

    def _strikes(self, client: str) -> Strikes | None:
        strikes = self.clients.get(client)
        if strikes is not None and self.clock() - strikes.last > self.FORGET_S:
            del self.clients[client]
            return None
        return strikes

    def wait(self, client: str) -> float:
        """Seconds before ``client`` may try a token again (0: now)."""
        strikes = self._strikes(client)
        return 0.0 if strikes is None else max(0.0, strikes.locked_until - self.clock())

    def failed(self, client: str) -> None:
        """``client`` gave a wrong token."""
        now = self.clock()
        strikes = self._strikes(client) or Strikes()
        strikes.count += 1
        strikes.last = now
        if strikes.count >= self.FREE_TRIES:
            strikes.locked_until = now + min(self.MAX_LOCKOUT_S,
                                             2.0 ** (strikes.count - self.FREE_TRIES))
        self.clients[client] = strikes
        self.clients.move_to_end(client)
        while len(self.clients) > self.MAX_CLIENTS:
            self.clients.popitem(last=False)


@dataclass(frozen=True)
class Verdict:
    """What the door says of one request: refused (and why), or let in."""

    reason: str | None
    wrong_token: bool = False
    retry_after: float = 0.0


class Door:
    """Who may come in: the token (None: the owner opted out, loopback only), the port
    this server listens on (its cookie's name), and the throttle for wrong tokens."""

    def __init__(self, token: str | None, port: int = 0,
                 throttle: Throttle | None = None) -> None:
        self.token = token
        self.port = port
        self.throttle = throttle or Throttle()

    @property
    def cookie_name(self) -> str:
        """This server's cookie: named for its port, so a studyapp on another port of
        the same host never reads or overwrites it."""
        return f"{TOKEN_COOKIE}_{self.port}"

    @property
    def cookie_value(self) -> str:
        assert self.token is not None
        return derived_key(self.token, f"cookie {self.port}")

    @property
    def app_key(self) -> str:
        """The WebSocket path's key: the page learns it, the browser sends it to this
        port only."""
        assert self.token is not None
        return derived_key(self.token, "websocket")

    def websocket_path(self) -> str:
        """Where the page opens its app: ``/ws/<key>`` behind a token, else ``/ws``."""
        return f"{APP_PATH}/{self.app_key}" if self.token is not None else APP_PATH

    def hidden_values(self) -> tuple[str, ...]:
        """Every value a log line must never show."""
        if self.token is None:
            return ()
        return (self.token, self.app_key, self.cookie_value)

    def verdict(self, request: web.BaseRequest) -> Verdict:
        """Whether ``request`` may pass; a refused wrong token is counted by the caller."""
        if self.token is None:
            # No token: only this machine. A page from another site that
            # resolves its name to 127.0.0.1 still sends its own Host.
            if not is_loopback(_host_name(request.host)):
                return Verdict("host")
        else:
            client = self.client(request)
            wait = self.throttle.wait(client)
            if wait > 0:
                return Verdict("throttled", retry_after=wait)
            presented, passed = self._credentials(request)
            if not passed:
                return Verdict("token", wrong_token=presented)
        origin = request.headers.get("Origin")
        if (origin is not None and request.headers.get("Upgrade", "").lower() == "websocket"
                and urlsplit(origin).netloc.lower() != request.host.lower()):
            return Verdict("origin")  # another site's page driving a learner's app
        return Verdict(None)

    def client(self, request: web.BaseRequest, *, looked_up: bool = False) -> str:
        """Whose tries a request counts among: its address, and on loopback also the
        local user behind it, so one local user's wrong tokens never lock out another.
        The user is looked up only for a wrong token or while some client has strikes."""
        key = client_key(request.remote)
        if not (looked_up or self.throttle.clients) or not is_loopback(request.remote or ""):
            return key
        transport = request.transport
        peer = transport.get_extra_info("peername") if transport is not None else None
        server = transport.get_extra_info("sockname") if transport is not None else None
        if not (isinstance(peer, tuple) and isinstance(server, tuple)):
            return key
        uid = loopback_peer_uid((str(peer[0]), int(peer[1])), (str(server[0]), int(server[1])))
        return key if uid is None else f"{key} uid {uid}"

    def refusal(self, request: web.BaseRequest) -> str | None:
        """Why ``request`` is refused, or None when it may pass."""
        return self.verdict(request).reason

    def _credentials(self, request: web.BaseRequest) -> tuple[bool, bool]:
        """(was a credential presented, did one pass) for this request's path: the token
        in the query opens everything; the app's key opens the app; this port's cookie
        opens only static files and downloads."""
        assert self.token is not None
        presented = passed = False
        query_token = request.query.get(TOKEN_PARAM)
        if query_token is not None:
            presented, passed = True, _same(query_token, self.token)
        path = request.path
        if path.startswith(APP_PATH + "/"):
            presented = True
            passed = passed or _same(path[len(APP_PATH) + 1:], self.app_key)
        elif path.startswith(COOKIE_PATHS):
            cookie = request.cookies.get(self.cookie_name)
            if cookie is not None:
                presented = True
                passed = passed or _same(cookie, self.cookie_value)
        return presented, passed

    def middleware(self, forbidden_text: str, throttled_text: str) -> Any:
        """An aiohttp middleware: 403 for refused requests, 429 while a client is locked
        out; the link with the token sets this port's cookie."""

        @web.middleware
        async def check(request: web.Request,
                        handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                        ) -> web.StreamResponse:
            verdict = self.verdict(request)
            if verdict.reason == "throttled":
                return web.Response(status=429, text=throttled_text,
                                    headers={"Retry-After": str(ceil(verdict.retry_after))})
            if verdict.reason is not None:
                if verdict.wrong_token:
                    client = self.client(request, looked_up=True)
                    self.throttle.failed(client)
                    if (wait := self.throttle.wait(client)) > 0:
                        log.warning("wrong tokens from %s: it waits %d s", client, ceil(wait))
                log.warning("refused %s %s (%s)", request.method, loggable_path(request.path),
                            verdict.reason)
                # the formatter escapes the decoded path (ESC, BEL, CR/LF) before it is shown
                return web.Response(status=403, text=forbidden_text)
            response = await handler(request)
            if (self.token is not None and not response.prepared
                    and _same(request.query.get(TOKEN_PARAM), self.token)
                    and not _same(request.cookies.get(self.cookie_name), self.cookie_value)):
                response.set_cookie(self.cookie_name, self.cookie_value, httponly=True,
                                    samesite="Strict", path="/")
            if not response.prepared:
                response.headers.setdefault("Referrer-Policy", "no-referrer")
            return response

        return check


def loggable_path(path: str) -> str:
    """A request's path as a log line may show it: an app key is never written out."""
    if path.startswith(APP_PATH + "/"):
        return f"{APP_PATH}/…"
    return path
