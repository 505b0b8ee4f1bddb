"""``studyapp serve`` against what an attacker or an unlucky tab sends.

Unit tests for the bounds, then a real server on loopback: a control
character in a refused path never reaches the operator's terminal, the
session cap answers with a page, window sizes are bounded, and a child
process goes with its tab.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from deck_cache import with_checked_decks
from serve_processes import child_pids, interrupt

from studyapp.tui.serve import share_url
from studyapp.tui.serve_http import PrintableFormatter
from studyapp.tui.serve_session import (
    INPUT_BYTES_PER_S,
    MAX_COLUMNS,
    MAX_INPUT_BYTES,
    MAX_ROWS,
    InputAllowance,
    default_max_sessions,
    window_size,
)

CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


@pytest.mark.parametrize(("width", "height", "expected"), [
    ("80", "24", (80, 24)), ("20000", "20000", (MAX_COLUMNS, MAX_ROWS)),
    ("0", "-5", (1, 1)), ("abc", "", (80, 24)), (10**9, 3, (MAX_COLUMNS, 3)),
    (None, True, (80, 24)), (1.5, [], (80, 24)),
])
def test_window_sizes_are_bounded(width: object, height: object,
                                  expected: tuple[int, int]) -> None:
    assert window_size(width, height) == expected


def test_every_log_line_is_printable_and_one_line() -> None:
    record = logging.LogRecord("studyapp.serve", logging.WARNING, __file__, 1,
                               "refused %s %s (%s)",
                               ("GET", "/\x1b]0;PWNED\x07\x1b[2J\r\nforged line\x85\u202e", "host"),
                               None)
    line = PrintableFormatter("%(message)s").format(record)
    assert CONTROLS.search(line) is None and "\n" not in line and "\r" not in line
    assert "\\x1b]0;PWNED\\x07" in line and "\\r\\n" in line and "\\u202e" in line


def test_a_tab_may_paste_once_then_type_at_the_allowance_rate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    allowance = InputAllowance()
    assert allowance.take(MAX_INPUT_BYTES)  # one big paste
    assert not allowance.take(1)  # nothing left for a second one at once
    clock[0] += 1.0
    assert allowance.take(INPUT_BYTES_PER_S)
    assert not allowance.take(1)
    clock[0] += 3600
    assert allowance.take(MAX_INPUT_BYTES) and not allowance.take(1)  # refills to the cap only


def test_the_printed_link_is_url_encoded() -> None:
    assert share_url("127.0.0.1", 8000, "a+b#c&d") == "http://127.0.0.1:8000/?token=a%2Bb%23c%26d"


def test_the_default_cap_follows_the_machine_memory() -> None:
    assert 1 <= default_max_sessions() <= 64


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Server:
    """A real ``studyapp serve`` on loopback, its stderr collected in a file."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.port = free_port()
        self.log = tmp_path / "serve.log"
        home = with_checked_decks(tmp_path / "home")  # the built-in decks checked, as in every home
        env = os.environ | {"STUDYAPP_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        env.pop("STUDYAPP_DB", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "studyapp", "--db", f"sqlite:///{tmp_path / 's.sqlite3'}",
             "--lang", "en", "serve", "--port", str(self.port), *args],
            stdout=subprocess.PIPE, stderr=self.log.open("wb"), env=env)
        assert self.process.stdout is not None
        link = self.process.stdout.readline().decode()  # the link: the port is bound
        self.token = link.rstrip().rpartition("?token=")[2]
        self.base = f"http://127.0.0.1:{self.port}"

    def children(self) -> set[int]:
        return child_pids(self.process.pid)

    def stop(self) -> None:
        interrupt(self.process, timeout=40)


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    marker = request.node.get_closest_marker("serve_args")
    started = Server(tmp_path, *(marker.args if marker else ()))
    yield started
    started.stop()


def raw_get(port: int, target: str, host: str, headers: str = "") -> bytes:
    """A request as a hostile client writes it, bytes untouched by any client library."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\n{headers}"
                     f"Connection: close\r\n\r\n".encode("latin-1"))
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def wait_for(predicate: object, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_a_refused_path_cannot_drive_the_operators_terminal(server: Server) -> None:
    for target in ("/%1b%5d0;PWNED%07%1b%5b2J", "/x%0d%0aforged%20line", "/%c2%85%c2%9b31m"):
        reply = raw_get(server.port, target, host="evil.example:80")  # no token: refused
        assert reply.startswith(b"HTTP/1.1 403")
    server.stop()
    logged = server.log.read_text("utf-8", "replace")
    assert logged.count("refused GET") == 3
    assert CONTROLS.search(logged) is None
    assert "\\x1b]0;PWNED\\x07" in logged and "\\r\\nforged line" in logged
    assert all(line.startswith("refused") for line in logged.splitlines() if line)


HOSTILE_HEADERS = [
    ("Host", "\x1b]0;PWNED\x07\x1b[2J"),
    ("User-Agent", "\x1b[2J\x07agent\x85"),
    ("Origin", "http://\x1b]0;X\x07evil\x9b2J"),
    ("X-Forged", "a\x1b[31mred\x0bvt"),
]


@pytest.mark.slow
def test_control_bytes_in_headers_and_raw_paths_log_one_printable_line_each(
        server: Server) -> None:
    for name, value in HOSTILE_HEADERS:
        host = value if name == "Host" else "127.0.0.1"
        extra = "" if name == "Host" else f"{name}: {value}\r\n"
        assert raw_get(server.port, "/", host=host, headers=extra).startswith(b"HTTP/1.")
    raw_path = raw_get(server.port, "/\x1b[2Jraw\x07", host="127.0.0.1")
    assert raw_path.startswith(b"HTTP/1.") and b" 400 " in raw_path.split(b"\r\n")[0]
    server.stop()
    logged = server.log.read_text("utf-8", "replace")
    assert CONTROLS.search(logged) is None
    lines = [line for line in logged.splitlines() if line]
    # aiohttp's parser refuses each one; each refusal is one line naming it, no traceback
    assert len(lines) == len(HOSTILE_HEADERS) + 1, logged
    assert "Traceback" not in logged and all("BadHttpMessage" in line or "InvalidURLError"
                                             in line for line in lines)
    assert "\\x1b]0;PWNED\\x07" in logged


def environ_of(pid: int) -> set[bytes]:
    try:
        return set(Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"))
    except OSError:
        return set()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.slow
@pytest.mark.serve_args("--max-sessions", "2")
def test_tabs_past_the_cap_get_a_page_and_each_tab_is_bounded(server: Server) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as client:
            tabs = [await client.ws_connect(f"{server.base}/ws?token={server.token}"
                                            "&width=20000&height=20000") for _ in range(2)]
            assert wait_for(lambda: len(server.children()) == 2)
            children = server.children()
            # a child is first the server's own fork and takes its bounded
            # environment when it execs the app, so wait for the exec
            bounded = {f"COLUMNS={MAX_COLUMNS}".encode(), f"ROWS={MAX_ROWS}".encode()}
            for pid in children:
                assert wait_for(lambda pid=pid: bounded <= environ_of(pid), timeout=20), (
                    environ_of(pid))
            await asyncio.sleep(3)  # the apps draw their first screen
            sizes = sorted(rss_kib(pid) for pid in children)
            print(f"\nmemory per tab (RSS): {', '.join(f'{k / 1024:.0f} MiB' for k in sizes)}")
            async with client.get(f"{server.base}/?token={server.token}") as page:
                assert page.status == 503
                assert "2 tabs open" in await page.text()
            async with client.get(f"{server.base}/ws?token={server.token}") as third:
                assert third.status == 503
            # a paste far past the input bound closes that tab, and its app goes with it
            await tabs[0].send_str('["stdin", "' + "x" * (2 << 20) + '"]')
            await tabs[0].receive(timeout=10)
            assert wait_for(lambda: len(server.children()) == 1, timeout=40)
            for tab in tabs:
                await tab.close()
            assert wait_for(lambda: not server.children(), timeout=40)

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_tab_flooding_its_app_with_input_takes_its_app_along_when_it_closes(
        server: Server) -> None:
    """3 MB of pastes in 3 KB pieces: the app kept working through them for a minute
    after the tab had gone; now input past the tab's allowance is dropped."""
    async def scenario() -> float:
        async with aiohttp.ClientSession() as client:
            tab = await client.ws_connect(f"{server.base}/ws?token={server.token}"
                                          "&width=80&height=24")
            assert wait_for(lambda: len(server.children()) == 1)
            await tab.receive(timeout=30)  # the app has started and drawn
            for _ in range(1000):
                await tab.send_str('["stdin", "' + "x" * 3_000 + '"]')
            assert wait_for(lambda: "dropping input from a tab"  # the flood has reached it
                            in server.log.read_text("utf-8", "replace"))
            closed = time.monotonic()
            await tab.close()
            assert wait_for(lambda: not server.children(), timeout=60)
            return time.monotonic() - closed

    took = asyncio.run(scenario())
    print(f"\nthe app went {took:.1f} s after its tab closed")
    assert took < 15  # 62 s before the input allowance
    logged = server.log.read_text("utf-8", "replace")
    assert 1 <= logged.count("dropping input from a tab") <= 5  # said once per flood
