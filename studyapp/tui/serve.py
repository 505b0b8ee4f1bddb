"""The TUI in a browser: textual-serve with a token at the door.

Each browser tab (each WebSocket) runs its own ``studyapp`` process on the
same database, in a session of its own so a Ctrl+C in the server's terminal
reaches only the server; the server then asks every app to quit, and an app
closes its study service only after the answer in flight is committed.

Every address, loopback included, needs a token unless the owner opts out
with ``--no-token`` on loopback: every local user can reach 127.0.0.1. The
printed link carries the token as ``?token=``; the page (``/``) and the app
(the WebSocket, at ``/ws/<key>``, a key the page learns from the server) need
it, never a cookie. Browsers send a host's cookies to every port of that host,
so the cookie the page sets (named for this port) opens only the static files
and downloads, and holds a value derived from the token, not the token: a
second service on another port that receives it can start no app with it.
Wrong tokens are throttled per client address and, on loopback, per local
user (the kernel's owner of the connection). Built on
``textual_serve.Server`` (pinned in pyproject.toml): its aiohttp application
gains a middleware, its page our own template, and its WebSocket handler
starts :class:`AppProcess` instead of a shell command.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import ceil
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from studyapp.i18n import t
from studyapp.text import one_line

if TYPE_CHECKING:
    from studyapp.config import Settings

log = logging.getLogger("studyapp.serve")

TEMPLATES = Path(__file__).parent / "web"
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
QUIT_GRACE_S = 10.0
"""How long an app may take to commit and close after being asked to quit."""
WILDCARD_HOSTS = {"", "0.0.0.0", "::"}
MAX_COLUMNS = 500
MAX_ROWS = 200
"""The largest window a tab may ask for: a 20000×20000 screen is gigabytes, not a study."""
MAX_MESSAGE_BYTES = 1 << 20
"""The largest WebSocket message the server reads; aiohttp closes the socket on more."""
MAX_INPUT_BYTES = 8 << 10
"""The largest keyboard input (a paste) passed to an app at once; more is dropped."""
INPUT_BYTES_PER_S = 2 << 10
"""Input a tab may send each second after a first ``MAX_INPUT_BYTES``; more is dropped.

An app queues the keys it has not handled yet and handles a few thousand a second
on a busy machine (one 60 KB paste: over 10 s), so an unbounded stream (3 MB of
pastes) kept it busy for a minute after its tab closed. Typing and the mouse send
well under 1 KB a second; a pasted answer fits in the first allowance."""
TAB_MEMORY_BYTES = 100 * 10**6
"""What one tab's app process holds, rounded up (about 80 MB measured on Linux)."""
MEDIA_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self' data:; "
                               "style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Referrer-Policy": "no-referrer",
}
"""Headers of a card's image handed to a tab: whatever its bytes, a browser shows it with
the type the server read from them (no sniffing) in a sandbox where no script runs, so a
file that is not an image can neither reach this origin nor open an app of its own."""


def page_policy(nonce: str) -> str:
    """The app page's Content-Security-Policy: its own scripts (textual-serve's, served here,
    and the page's one inline script, carrying ``nonce``), its WebSocket, nothing else."""
    return ("default-src 'none'; "
            f"script-src 'self' 'nonce-{nonce}'; "
            "connect-src 'self'; "
            "style-src 'self' 'unsafe-inline'; "
            "font-src 'self'; "
            "img-src 'self' data:; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'")


def default_max_sessions() -> int:
    """Open tabs allowed at once: a quarter of this machine's memory, 1 to 64 tabs."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return 8
    return max(1, min(64, total // 4 // TAB_MEMORY_BYTES))


def window_size(width: object, height: object) -> tuple[int, int]:
    """A tab's terminal size, within what one app may draw (1×1 to 500×200)."""
    def bounded(value: object, default: int, top: int) -> int:
        number = to_int(value, default) if isinstance(value, str) else value
        if not isinstance(number, int) or isinstance(number, bool):
            number = default
        return max(1, min(top, number))

    return bounded(width, 80, MAX_COLUMNS), bounded(height, 24, MAX_ROWS)


@dataclass
class InputAllowance:
    """A tab's input allowance: ``MAX_INPUT_BYTES`` at first, refilled at
    ``INPUT_BYTES_PER_S`` (a token bucket), so its app is never far behind its tab."""

    available: float = MAX_INPUT_BYTES
    at: float = field(default_factory=lambda: time.monotonic())

    def take(self, size: int) -> bool:
        """May ``size`` more bytes go to the app now? They are taken from the allowance."""
        now = time.monotonic()
        self.available = min(MAX_INPUT_BYTES,
                             self.available + (now - self.at) * INPUT_BYTES_PER_S)
        self.at = now
        if size > self.available:
            return False
        self.available -= size
        return True


QUERY_TOKEN = re.compile(rf"([?&]{TOKEN_PARAM}=)[^&\s]*")


class PrintableFormatter(logging.Formatter):
    """Every log record one printable line: a request's path or header never drives the
    terminal, and a malformed request (aiohttp logs its parser's error with a traceback)
    is one line naming the error, not a screenful an anonymous client can repeat.

    No line shows a token: ``?token=`` values are cut, and each of ``hidden`` (the
    token and the keys derived from it) is replaced wherever it appears."""

    def __init__(self, fmt: str | None = None, hidden: Sequence[str] = ()) -> None:
        super().__init__(fmt)
        self.hidden = tuple(value for value in hidden if value)

    def format(self, record: logging.LogRecord) -> str:
        record.msg = one_line(record.getMessage())
        record.args = None
        line = super().format(record)
        line = QUERY_TOKEN.sub(r"\1…", line.replace("\n", " "))
        for value in self.hidden:
            line = line.replace(value, "…")
        return one_line(line)

    def formatException(self, ei: Any) -> str:
        """``ExceptionType: its message`` on one line instead of the traceback."""
        error = ei[1]
        words = " ".join(str(error).split())
        return f"({type(error).__name__}: {words})" if words else f"({type(error).__name__})"

    def formatStack(self, stack_info: str) -> str:
        return ""


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


def reachable_host(host: str) -> str:
    """The host to print in the link: a wildcard address becomes this machine's LAN address."""
    if host not in WILDCARD_HOSTS:
        return host
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        address: str = probe.getsockname()[0]
        return address
    return socket.gethostname()


def share_url(host: str, port: int, token: str | None) -> str:
    """The link to print: host, port and, when needed, the token."""
    shown = reachable_host(host)
    if ":" in shown:
        shown = f"[{shown}]"
    url = f"http://{shown}:{port}/"
    return f"{url}?{urlencode({TOKEN_PARAM: token})}" if token else url


def app_command(*, profile: str, lang: str | None) -> list[str]:
    """The command each tab runs: this Python, this studyapp, the same profile and language."""
    argv = [sys.executable, "-m", "studyapp", "--profile", profile]
    if lang is not None:
        argv += ["--lang", lang]
    return argv


def app_environment(db_url: str | None) -> dict[str, str]:
    """The database travels in the environment, never in ``ps`` output."""
    return {"STUDYAPP_DB": db_url} if db_url else {}


class AppProcess(AppService):
    """One tab's app: exec'd (no shell), in its own session, stopped with a grace period."""

    def __init__(self, argv: Sequence[str], extra_env: Mapping[str, str],
                 **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = list(argv)
        self.extra_env = dict(extra_env)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        environment = self._build_environment(width=width, height=height)
        environment.pop(TOKEN_ENV, None)  # an app needs no token: it is behind the door
        environment.update(self.extra_env)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=environment, start_new_session=True)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the app to quit; it commits and closes. Only a hung app is terminated."""
        task, self._task = self._task, None
        process = self._process
        if task is None or process is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        try:
            # an app still busy with earlier input may not read this soon: the grace period
            # covers sending the request as well as quitting
            async with asyncio.timeout(QUIT_GRACE_S):
                await self.send_meta({"type": "quit"})
                await asyncio.shield(process.wait())
        except TimeoutError:
            log.warning("app process %s did not quit; terminating it", process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.terminate()  # the web driver turns SIGTERM into a clean exit too
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), QUIT_GRACE_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _no_sniffing(request: web.Request, response: web.StreamResponse) -> None:
    """Every response is read as the type it says, never guessed from its bytes."""
    response.headers["X-Content-Type-Options"] = "nosniff"


class StudyServer(Server):
    """textual-serve's server for studyapp: the door, our page, our app processes."""

    def __init__(self, *, argv: Sequence[str], extra_env: Mapping[str, str], host: str,
                 port: int, token: str | None, lang: str,
                 max_sessions: int | None = None) -> None:
        super().__init__(" ".join(argv), host=host, port=port, title=t("serve.title", lang),
                         templates_path=TEMPLATES)
        self.argv = list(argv)
        self.extra_env = dict(extra_env)
        self.door = Door(token, port)
        self.lang = lang
        self.sessions: dict[AppProcess, web.WebSocketResponse] = {}
        self.max_sessions = max_sessions if max_sessions is not None else default_max_sessions()
        self._stop_requested: asyncio.Event | None = None

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.router.add_get(APP_PATH + "/{key}", self.handle_websocket, name="app")
        app.middlewares.insert(0, self.door.middleware(t("serve.forbidden", self.lang),
                                                       t("serve.throttled", self.lang)))
        app.on_response_prepare.append(_no_sniffing)
        return app

    def initialize_logging(self) -> None:
        """Warnings only: one printable line per refused request, none per static file."""
        logging.basicConfig(level=logging.WARNING, format="%(message)s")
        for handler in logging.getLogger().handlers:
            handler.setFormatter(PrintableFormatter("%(message)s", self.door.hidden_values()))

    @property
    def full(self) -> bool:
        """Is every allowed tab in use?"""
        return len(self.sessions) >= self.max_sessions

    def full_page(self) -> web.HTTPServiceUnavailable:
        """What a tab past the cap gets: a plain page that says why, and to try later."""
        return web.HTTPServiceUnavailable(text=t("serve.full", self.lang, n=self.max_sessions),
                                          headers={"Retry-After": "30"})

    async def on_startup(self, app: web.Application) -> None:
        """The command line prints the link once the port is bound."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Every open tab's app quits (committing its last answer), then its socket closes."""
        sessions = list(self.sessions.items())
        await asyncio.gather(*(service.stop() for service, _ in sessions),
                             return_exceptions=True)
        for _, websocket in sessions:
            await websocket.close()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, or the full page when every allowed tab is in use."""
        if self.full:
            raise self.full_page()
        nonce = secrets.token_urlsafe(18)
        response = aiohttp_jinja2.render_template("app_index.html", request,
                                                  self._page_context(request, nonce))
        response.headers["Content-Security-Policy"] = page_policy(nonce)
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def _page_context(self, request: web.Request, nonce: str) -> dict[str, Any]:
        """The page's values, with URLs on the host the browser used (not the bind address)
        and its inline script's ``nonce``."""
        base = f"{request.scheme}://{request.host}"
        ws_scheme = "wss" if request.scheme == "https" else "ws"
        words = {key: t(f"serve.{key}", self.lang)
                 for key in ("starting", "session_ended", "restart", "start")}
        return {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{ws_scheme}://{request.host}{self.door.websocket_path()}",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
            "lang": self.lang,
            "words": words,
            "script_nonce": nonce,
        }

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A card's image for a tab (``/download/KEY``, the address textual-serve's page opens).

        The content type comes from the image's first bytes, never from its
        name or from what the app said; anything that does not start as a PNG,
        JPEG, GIF or WebP image is refused, and what is served carries
        ``MEDIA_HEADERS``: no sniffing, a sandbox without script.
        """
        from studyapp.decks.media import IMAGE_TYPES, MAX_IMAGE_BYTES, raster_type

        key = request.match_info["key"]
        try:
            await self.download_manager.get_download_metadata(key)
        except KeyError:
            raise web.HTTPNotFound(text=t("serve.media_gone", self.lang)) from None
        chunks = self.download_manager.download(key)
        first = await anext(chunks, b"")
        mime_type = raster_type(first) if isinstance(first, bytes) else None
        if mime_type is None:
            async for _ in chunks:  # let the app finish its side of the delivery
                pass
            log.warning("refused to serve a file that is not an image")
            raise web.HTTPUnsupportedMediaType(text=t("serve.media_refused", self.lang))
        extension = next(ext for ext, kind in IMAGE_TYPES.items() if kind == mime_type)
        response = web.StreamResponse(headers={
            **MEDIA_HEADERS, "Content-Type": mime_type,
            "Content-Disposition": f'inline; filename="image.{extension}"'})
        await response.prepare(request)
        sent = len(first)
        await response.write(first)
        async for chunk in chunks:
            sent += len(chunk)
            if sent > MAX_IMAGE_BYTES or not isinstance(chunk, bytes):
                break  # never more than an image may be; the tab gets a cut-off file
            await response.write(chunk)
        await response.write_eof()
        return response

    async def _process_messages(self, websocket: web.WebSocketResponse,
                                app_service: AppService) -> None:
        """Relay a tab's messages to its app: sizes bounded, malformed messages dropped,
        input past the tab's allowance dropped (said once per flood)."""
        allowance, dropping = InputAllowance(), False
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
            if kind == "stdin" and isinstance(data, str):
                payload = data.encode("utf-8", "replace")
                if len(payload) > MAX_INPUT_BYTES or not allowance.take(len(payload)):
                    if not dropping:
                        log.warning("dropping input from a tab: more than %d bytes at once "
                                    "or %d a second", MAX_INPUT_BYTES, INPUT_BYTES_PER_S)
                    dropping = True
                    continue
                dropping = False
                await app_service.send_bytes(payload)
            elif kind == "resize" and isinstance(data, dict):
                width, height = window_size(data.get("width"), data.get("height"))
                await app_service.set_terminal_size(width, height)
            elif kind == "ping":
                await websocket.send_json(["pong", data if isinstance(data, str) else ""])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: start its app, relay both ways, and stop the app when the tab goes."""
        if self.full:
            log.warning("refused a tab: %d of %d in use", len(self.sessions), self.max_sessions)
            raise self.full_page()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
        width, height = window_size(request.query.get("width", "80"),
                                    request.query.get("height", "24"))
        service: AppProcess | None = None
        try:
            await websocket.prepare(request)
            if self.full:  # another tab took the last place while this one connected
                await websocket.close(code=1013, message=b"full")
                return websocket
            service = AppProcess(self.argv, self.extra_env, write_bytes=websocket.send_bytes,
                                 write_str=websocket.send_str, close=websocket.close,
                                 download_manager=self.download_manager, debug=self.debug)
            self.sessions[service] = websocket
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception:
            log.exception("a browser session failed")
        finally:
            if service is not None:
                await service.stop()
                self.sessions.pop(service, None)
        return websocket

    def request_exit(self) -> None:
        if self._stop_requested is not None:
            self._stop_requested.set()

    async def run(self, on_ready: Callable[[int], None]) -> None:
        """Serve until SIGINT or SIGTERM; ``on_ready`` gets the bound port."""
        self._stop_requested = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(signum, self.request_exit)
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None,
                               shutdown_timeout=QUIT_GRACE_S)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            port = self.port
            for address in runner.addresses:
                port = int(address[1])
                break
            self.door.port = port  # before any request is read: the cookie's name
            self.initialize_logging()  # the cookie's value, derived from the port, is hidden too
            on_ready(port)
            await self._stop_requested.wait()
        finally:
            await runner.cleanup()


def serve(settings: Settings, *, host: str, port: int, token: str | None,
          on_ready: Callable[[int], None], max_sessions: int | None = None) -> None:
    """Run the server until Ctrl+C. Raises OSError when the address cannot be bound."""
    lang = settings.lang if settings.lang_chosen else None
    server = StudyServer(argv=app_command(profile=settings.profile, lang=lang),
                         extra_env=app_environment(settings.db_url), host=host, port=port,
                         token=token, lang=settings.lang, max_sessions=max_sessions)
    server.initialize_logging()
    asyncio.run(server.run(on_ready))

