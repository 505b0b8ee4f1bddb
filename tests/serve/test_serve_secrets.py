"""A real ``studyapp serve`` and its secrets: the token on loopback, the port's cookie,
wrong tokens throttled, and no token or database password in any process's command
line (what ``ps`` shows every local user) or in the server's log."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import aiohttp
import pytest
from backends import PG_URL
from deck_cache import with_checked_decks
from serve_processes import child_pids, interrupt

from studyapp.tui.serve_door import Throttle, derived_key

pytestmark = pytest.mark.slow

GIVEN_TOKEN = "owner-token-from-a-file-0123456789"
ENV_TOKEN = "owner-token-from-the-environment-42"


class Server:
    """``studyapp serve`` on a free loopback port; its terminal output kept in files."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.out, self.err = tmp_path / "serve.out", tmp_path / "serve.err"
        home = with_checked_decks(tmp_path / "home")  # the built-in decks checked, as in every home
        environment = os.environ | {"STUDYAPP_HOME": str(home),
                                    "PYTHONUNBUFFERED": "1"} | (env or {})
        environment.setdefault("STUDYAPP_DB", f"sqlite:///{tmp_path / 's.sqlite3'}")
        if not env or "STUDYAPP_TOKEN" not in env:
            environment.pop("STUDYAPP_TOKEN", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "studyapp", "--lang", "en", "serve", "--port", "0", *args],
            stdout=self.out.open("wb"), stderr=self.err.open("wb"), env=environment)
        deadline = time.monotonic() + 60
        while "http://" not in self.out.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no link: {self.out.read_text()} {self.err.read_text()}")
            time.sleep(0.1)
        link = re.search(r"http://\S+", self.out.read_text())
        assert link is not None
        self.link = link.group(0)
        parts = urlsplit(self.link)
        self.port = parts.port or 80
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = unquote(parts.query.removeprefix("token=")) if parts.query else None

    def stop(self) -> tuple[str, str]:
        """Ctrl+C; what the server printed to stdout and to stderr."""
        interrupt(self.process, timeout=40)
        return self.out.read_text(), self.err.read_text()


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Server]]:
    servers: list[Server] = []
    yield servers
    for server in servers:
        interrupt(server.process, timeout=40)


def raw(port: int, target: str, headers: dict[str, str] | None = None,
        source: str = "127.0.0.1") -> tuple[int, dict[str, list[str]], str]:
    """One request from the client address ``source``: status, headers, body."""
    with socket.socket() as conn:
        conn.settimeout(20)
        conn.bind((source, 0))
        conn.connect(("127.0.0.1", port))
        lines = [f"GET {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
                 *(f"{name}: {value}" for name, value in (headers or {}).items())]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
            if b"".join(chunks).startswith(b"HTTP/1.1 101 ") and b"\r\n\r\n" in b"".join(chunks):
                break  # an opened WebSocket stays open: its head is the whole answer
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found: dict[str, list[str]] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        found.setdefault(name.strip().lower(), []).append(value.strip())
    return int(status_line.split()[1]), found, body.decode("utf-8", "replace")


WS_HEADERS = {"Upgrade": "websocket", "Connection": "Upgrade",
              "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"}


def test_loopback_needs_the_token_and_the_ports_cookie_opens_no_app(
        tmp_path: Path, started: list[Server]) -> None:
    server = Server(tmp_path)
    started.append(server)
    assert server.token is not None and re.fullmatch(r"[A-Za-z0-9_-]{43,}", server.token)
    assert raw(server.port, "/")[0] == 403
    assert raw(server.port, "/ws?width=80&height=24", WS_HEADERS)[0] == 403

    status, headers, page = raw(server.port, f"/?token={server.token}")
    assert status == 200
    (set_cookie,) = headers["set-cookie"]
    name, _, rest = set_cookie.partition("=")
    value = rest.split(";")[0]
    attributes = {part.strip().lower() for part in rest.split(";")[1:]}
    assert name == f"studyapp_token_{server.port}"
    assert {"httponly", "path=/", "samesite=strict"} <= attributes
    assert value == derived_key(server.token, f"cookie {server.port}")
    assert server.token not in set_cookie
    app_path = re.search(r'data-session-websocket-url="ws://[^/"]+(/ws/[^"]+)"', page)
    assert app_path is not None and server.token not in app_path.group(1)

    cookie = {"Cookie": f"{name}={value}"}
    assert raw(server.port, "/static/js/textual.js", cookie)[0] == 200
    # what a service on another port of this host receives from the browser opens no app
    assert raw(server.port, "/", cookie)[0] == 403
    assert raw(server.port, f"/?token={value}")[0] == 403
    assert raw(server.port, "/ws?width=80&height=24", WS_HEADERS | cookie)[0] == 403
    assert raw(server.port, f"/ws/{value}", WS_HEADERS | cookie)[0] == 403
    # nor does a cookie named for another port, whatever it holds
    for other in (f"studyapp_token_{server.port + 1}", "studyapp_token"):
        for held in (value, server.token):
            assert raw(server.port, "/static/js/textual.js",
                       {"Cookie": f"{other}={held}"})[0] == 403
    assert not child_pids(server.process.pid)  # nothing was started for a refused socket
    # the page's own app path opens the app
    assert raw(server.port, app_path.group(1) + "?width=80&height=24", WS_HEADERS)[0] == 101


def test_no_token_warns_and_serves_loopback_without_one(tmp_path: Path,
                                                        started: list[Server]) -> None:
    server = Server(tmp_path, "--no-token")
    started.append(server)
    assert server.token is None and "token" not in server.link
    assert raw(server.port, "/")[0] == 200
    _, err = server.stop()
    assert "Warning: no token (--no-token): every user of this machine can open studyapp" \
        in err


def test_wrong_tokens_are_throttled_per_client_and_the_owner_still_comes_in(
        tmp_path: Path, started: list[Server]) -> None:
    server = Server(tmp_path)
    started.append(server)
    statuses = [raw(server.port, f"/?token=guess-{n:040d}", source="127.0.0.2")[0]
                for n in range(Throttle.FREE_TRIES + 20)]
    assert statuses[:Throttle.FREE_TRIES] == [403] * Throttle.FREE_TRIES
    assert set(statuses[Throttle.FREE_TRIES:]) == {429}  # 20 fast tries: none checked
    status, headers, _ = raw(server.port, f"/?token={server.token}", source="127.0.0.2")
    assert status == 429 and int(headers["retry-after"][0]) >= 1
    assert raw(server.port, f"/?token={server.token}", source="127.0.0.1")[0] == 200


def secret_free(text: str, secrets: list[str]) -> bool:
    return not any(secret in text for secret in secrets)


def test_no_token_or_password_in_any_command_line_or_log_line(
        tmp_path: Path, started: list[Server], db_url: str) -> None:
    """The token comes from a file (another in STUDYAPP_TOKEN), the database URL (with its
    password, on PostgreSQL) from STUDYAPP_DB; a tab is open; ``ps`` and the log show
    neither, and the app process is not given the token."""
    password = "db-pass-word-of-the-class"
    if db_url.startswith("postgresql"):
        from sqlalchemy.engine import make_url

        real = urlsplit(PG_URL or "").password
        password = unquote(real) if real else password
        db_url = make_url(db_url).set(password=password).render_as_string(hide_password=False)
    token_file = tmp_path / "token"
    token_file.write_text(GIVEN_TOKEN + "\n")
    token_file.chmod(0o600)
    server = Server(tmp_path, "--token-file", str(token_file),
                    env={"STUDYAPP_DB": db_url, "STUDYAPP_TOKEN": ENV_TOKEN})
    started.append(server)
    assert server.token == GIVEN_TOKEN  # the file wins over the environment
    secrets = [GIVEN_TOKEN, derived_key(GIVEN_TOKEN, "websocket"),
               derived_key(GIVEN_TOKEN, f"cookie {server.port}"), ENV_TOKEN]
    if db_url.startswith("postgresql"):
        secrets += [db_url, f":{password}@"]  # CI's password is "studyapp", as the command
        if "studyapp" not in password:
            secrets.append(password)

    async def tab_open() -> list[int]:
        async with aiohttp.ClientSession() as client:
            async with client.get(f"{server.base}/?token={GIVEN_TOKEN}") as page:
                html = await page.text()
            app_url = re.search(r'data-session-websocket-url="([^"]+)"', html)
            assert app_url is not None
            tab = await client.ws_connect(app_url.group(1) + "?width=80&height=24")
            deadline = time.monotonic() + 30
            while not child_pids(server.process.pid) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            await tab.receive(timeout=30)  # the app has started and drawn
            children = sorted(child_pids(server.process.pid))
            for pid in children:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().replace("\0", " ")
                assert "studyapp" in argv and secret_free(argv, secrets), argv
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                assert not any(item.startswith(b"STUDYAPP_TOKEN=") for item in environ)
                assert f"STUDYAPP_DB={db_url}".encode() in environ  # what it needs, unseen
            await tab.close()
            return children

    assert len(asyncio.run(tab_open())) == 1
    server_argv = Path(f"/proc/{server.process.pid}/cmdline").read_bytes().decode()
    assert secret_free(server_argv.replace("\0", " "), secrets)
    # refused requests that carry the token or keys somewhere: each is logged, none shows them
    raw(server.port, f"/nowhere?token={GIVEN_TOKEN}")  # right token, unknown page: 404
    raw(server.port, f"/ws/{secrets[1]}x?token=wrong{GIVEN_TOKEN}")
    raw(server.port, f"/%3Ftoken%3D{GIVEN_TOKEN}")
    raw(server.port, "/static/x", {"Cookie": f"studyapp_token_{server.port}={secrets[2]}x"})
    out, err = server.stop()
    assert err.count("refused GET") == 3, err
    assert secret_free(err, secrets), err
    assert out.count(GIVEN_TOKEN) == 1  # the owner's link, printed once to the terminal
    assert secret_free(out.replace(server.link, ""), secrets)
