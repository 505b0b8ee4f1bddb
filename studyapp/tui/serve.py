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

The door is ``serve_door``, the headers and log lines ``serve_http``, one
tab's app process and its limits ``serve_session``; here the server itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import signal
import socket
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from studyapp.i18n import t
from studyapp.tui.serve_door import APP_PATH, TOKEN_PARAM, Door
from studyapp.tui.serve_http import MEDIA_HEADERS, PrintableFormatter, no_sniffing, page_policy
from studyapp.tui.serve_session import (
    INPUT_BYTES_PER_S,
    MAX_INPUT_BYTES,
    MAX_MESSAGE_BYTES,
    QUIT_GRACE_S,
    AppProcess,
    InputAllowance,
    app_command,
    app_environment,
    default_max_sessions,
    window_size,
)

if TYPE_CHECKING:
    from studyapp.config import Settings

log = logging.getLogger("studyapp.serve")

TEMPLATES = Path(__file__).parent / "web"
WILDCARD_HOSTS = {"", "0.0.0.0", "::"}


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
        app.on_response_prepare.append(no_sniffing)
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

