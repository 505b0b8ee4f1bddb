"""``studyapp serve`` in a real browser: Debian's Chromium driven by Playwright.

The page is a terminal drawn on a canvas, so the tests read the screen from
what the browser receives on the WebSocket (the app's output, escape codes
stripped) and drive it with the keyboard, as a learner does. Screenshots at
1280x800 go to $STUDYAPP_ARTIFACTS (default: a temporary folder), never the
repository.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from serve_processes import child_pids, interrupt

from studyapp.cli import main

CHROMIUM = next((path for name in ("chromium", "chromium-browser")
                 if (path := shutil.which(name))), None)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: `apt-get install chromium` "
                       "(.ci/run installs it); Playwright's own browser download is not used"),
]
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is not installed (pip install -e '.[test]')")

VIEWPORT = {"width": 1280, "height": 800}
ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Z0-9]|[=>78])")


def artifacts_dir() -> Path:
    folder = Path(os.environ.get("STUDYAPP_ARTIFACTS")
                  or Path(tempfile.gettempdir()) / "studyapp-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Served:
    """A ``studyapp serve`` process on a free port, with its printed link."""

    def __init__(self, home: Path, db: Path, *args: str, token: str | None = None) -> None:
        env = os.environ | {"STUDYAPP_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        env.pop("STUDYAPP_DB", None)
        env.pop("STUDYAPP_TOKEN", None)
        if token is not None:  # the owner's own token, from the environment as `ps` hides it
            env["STUDYAPP_TOKEN"] = token
        self.db = db
        self.process = subprocess.Popen(
            [sys.executable, "-m", "studyapp", "--db", f"sqlite:///{db}", "--profile", "ana",
             "--lang", "en", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        match = re.search(r"(http://\S+)", first)
        if match is None:
            self.process.kill()
            raise AssertionError(f"no link printed: {first!r} {self.process.stderr.read()!r}")
        self.url = match.group(1)
        self.origin = re.sub(r"/(\?.*)?$", "", self.url)

    def app_pids(self) -> set[int]:
        """The app processes this server started (children, in sessions of their own)."""
        return child_pids(self.process.pid)

    def stop(self) -> tuple[int, str, str]:
        """Ctrl+C, as in the terminal; the exit code and what was printed."""
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, out, err


def studyapp(folder: Path, *args: str) -> str:
    """A set-up command on the served database and home (``deck add``, ``deck disable``...),
    run in this process: the tests are about the served app, not these commands' processes.
    Its output, after a check that it succeeded."""
    result = CliRunner().invoke(
        main, ["--db", f"sqlite:///{folder / 'study.sqlite3'}", "--profile", "ana", *args],
        env={"STUDYAPP_HOME": str(folder / "home"), "STUDYAPP_DB": None})
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


@pytest.fixture
def serve(tmp_path: Path, _checked_builtin_decks: Path) -> Iterator[Callable[..., Served]]:
    """Start ``studyapp serve`` on ``tmp_path``'s database and home, whose deck cache holds
    the built-in decks already checked (as every test's home does)."""
    started: list[Served] = []
    if not (tmp_path / "home" / "cache").exists():
        shutil.copytree(_checked_builtin_decks, tmp_path / "home" / "cache")

    def start(*args: str, token: str | None = None) -> Served:
        server = Served(tmp_path / "home", tmp_path / "study.sqlite3", *args, token=token)
        started.append(server)
        return server

    yield start
    for server in started:  # a failed test still stops its server the way a user does
        interrupt(server.process, timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


class Screen:
    """What the app drew in one tab: its WebSocket output as plain text."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.chunks: list[bytes] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.mark = 0

    def _frame(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes):
            self.chunks.append(payload)

    def text(self, since: int = 0) -> str:
        raw = b"".join(self.chunks[since:]).decode("utf-8", "replace")
        return ANSI.sub("", raw)

    def wait_for(self, *needles: str, timeout: float = 20.0) -> str:
        """Wait until every needle has been drawn since the last ``expect_new``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text(self.mark)
            if all(needle in text for needle in needles):
                return text
            self.page.wait_for_timeout(100)
        raise AssertionError(f"never drawn: {needles}; last: {self.text(self.mark)[-800:]!r}")

    def wait_for_any(self, *needles: str, timeout: float = 20.0) -> str:
        """Wait until one of the needles has been drawn since the last ``expect_new``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text(self.mark)
            if any(needle in text for needle in needles):
                return text
            self.page.wait_for_timeout(100)
        raise AssertionError(f"never drawn: any of {needles}; "
                             f"last: {self.text(self.mark)[-800:]!r}")

    def expect_new(self) -> None:
        self.mark = len(self.chunks)

    def press(self, *keys: str) -> None:
        self.expect_new()
        for key in keys:
            self.page.keyboard.press(key)


def review_rows(db: Path) -> list[tuple[str, str, int, str | None]]:
    with sqlite3.connect(db) as connection:
        return list(connection.execute(
            "SELECT p.name, c.card_key, r.rating, r.response FROM review_logs r "
            "JOIN card_states c ON c.id = r.card_id JOIN profiles p ON p.id = c.profile_id "
            "ORDER BY r.id"))


def wait_until(condition: Callable[[], object], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def open_tab(browser: Any, url: str) -> tuple[Any, Screen]:
    page = browser.new_page(viewport=VIEWPORT)
    screen = Screen(page)
    response = page.goto(url)
    assert response is not None and response.status == 200
    page.wait_for_selector("body.-first-byte", timeout=20_000)
    return page, screen


def running(pid: int) -> bool:
    """Is ``pid`` alive (a zombie waiting for a parent that never reaps it is not)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_study_a_question_in_the_browser_then_close_and_stop(
        serve: Callable[..., Served], browser: Any) -> None:
    server = serve()
    assert re.match(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43,}$", server.url)
    page, screen = open_tab(browser, server.url)
    assert page.title() == "studyapp · Infrastructure for AI"

    screen.wait_for("Reviewed today", "NVIDIA H100", "Storage and checkpoints")  # home
    screen.press("Enter")  # the first post, focused without a click
    screen.wait_for("Five pieces", "Study this post")
    screen.press("s")
    header = screen.wait_for("[1/")
    if any(kind in header for kind in ("· numeric", "· short answer")):
        screen.press("4", "2", "Enter")
    else:
        screen.press("1")  # the first choice, or "true"
    screen.wait_for("Expected:", "Explanation")
    # The feedback arrives in several frames: wait for its last part, the
    # rating buttons (a right answer) or the "recorded as Again" line (a wrong one).
    feedback = screen.wait_for_any("Easy", "recorded as Again")
    page.wait_for_timeout(300)  # frames received; let the canvas paint them
    page.screenshot(path=str(artifacts_dir() / "serve-feedback-1280x800.png"))
    if "recorded as Again" not in feedback:  # a right answer waits for its rating
        screen.press("Enter")  # Enter = Good, the focused button
    wait_until(lambda: review_rows(server.db))
    (profile, card, rating, response), = review_rows(server.db)
    assert profile == "ana" and card
    assert rating in (1, 3) and response  # Again when wrong, Good (Enter) when right

    tab_apps = server.app_pids()
    assert len(tab_apps) == 1
    page.close()  # closing the tab ends its app process
    wait_until(lambda: not server.app_pids() & tab_apps)

    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today", "NVIDIA H100")
    open_apps = server.app_pids()
    assert len(open_apps) == 1
    code, out, err = server.stop()  # Ctrl+C with a tab open
    assert code == 0, err
    assert "studyapp stopped serving." in out
    assert "Traceback" not in out + err
    assert "refused" not in err  # the owner's browser is never turned away (its icon neither)
    assert not any(running(pid) for pid in open_apps)
    page.close()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def websocket_status(origin: str, cookie: str | None) -> int:
    """The status of a WebSocket handshake on /ws (101 would switch protocols)."""
    host = origin.removeprefix("http://")
    connection = http.client.HTTPConnection(host, timeout=10)
    headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Origin": origin,
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"}
    if cookie is not None:  # this port's cookie
        headers["Cookie"] = f"studyapp_token_{host.rpartition(':')[2]}={cookie}"
    try:
        connection.request("GET", "/ws?width=80&height=24", headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def test_without_the_token_every_request_is_refused(serve: Callable[..., Served],
                                                    browser: Any) -> None:
    server = serve(token="class-of-2026-spring")
    assert server.url.endswith("/?token=class-of-2026-spring")
    origin = server.origin

    page = browser.new_page(viewport=VIEWPORT)
    response = page.goto(origin + "/")
    assert response is not None and response.status == 403
    assert "needs the link with its token" in page.inner_text("body")
    page.close()
    assert status(origin + "/static/js/textual.js") == 403
    assert status(origin + "/?token=class-of-2025-spring") == 403

    assert websocket_status(origin, None) == 403
    assert websocket_status(origin, "wrong") == 403
    assert not server.app_pids()  # nothing was started for a refused socket

    page, screen = open_tab(browser, server.url)  # the printed link works, socket included
    screen.wait_for("Reviewed today", "NVIDIA H100")
    port = origin.rsplit(":", 1)[1]
    (cookie,) = page.context.cookies()  # named for this port; it holds no token
    assert cookie["name"] == f"studyapp_token_{port}"
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert "class-of-2026" not in cookie["value"]
    assert websocket_status(origin, cookie["value"]) == 403  # it opens no app by itself
    page.screenshot(path=str(artifacts_dir() / "serve-home-1280x800.png"))
    assert (artifacts_dir() / "serve-home-1280x800.png").stat().st_size > 10_000
    tab_apps = server.app_pids()
    assert len(tab_apps) == 1
    server.process.kill()  # killed, not stopped: its app must not run on alone
    server.process.wait()
    wait_until(lambda: not any(running(pid) for pid in tab_apps), timeout=10)
    page.close()


def test_any_other_address_prints_a_generated_token(serve: Callable[..., Served]) -> None:
    server = serve("--host", "0.0.0.0")
    match = re.search(r"\?token=([A-Za-z0-9_-]{32,})$", server.url)
    assert match is not None, server.url
    port = server.origin.rsplit(":", 1)[1]
    local = f"http://127.0.0.1:{port}"
    assert status(local + "/") == 403
    assert status(f"{local}/?token={match.group(1)}") == 200
    code, _, err = server.stop()
    assert code == 0, err


def answer_until_right(screen: Screen, tries: int = 20) -> int:
    """Answer questions (a first choice, or 42) until one is right; the answers given."""
    for given in range(1, tries + 1):
        shown = screen.wait_for(f"[{given}/")  # this question's header, drawn since the key
        shown = screen.wait_for_any("Press y", "Enter to answer", "1)")
        if "Press y" in shown:
            screen.press("y")
        elif "Enter to answer" not in shown:
            screen.press("1")
        feedback = ""
        bare = False
        while "Enter to answer" in shown:  # a number (in its placeholder's unit), a text,
            unit = re.search(r"e\.g\. [0-9.,]+ ([^\s▎]+)", shown)  # or a scenario's step
            screen.expect_new()
            screen.page.keyboard.press("Control+u")  # whatever a refused answer left
            screen.page.keyboard.type("42" + (f" {unit.group(1)}" if unit and not bare else ""))
            screen.page.keyboard.press("Enter")
            try:
                feedback = screen.wait_for_any("Easy", "recorded as Again", "Step ", timeout=8)
            except AssertionError:  # asked again (that unit was not taken): a bare number
                bare = True
                continue
            if "Easy" in feedback or "recorded as Again" in feedback:
                break
            bare = False
            shown = screen.wait_for("Step ", "Enter to answer")  # the next step, its unit
        if not feedback:
            feedback = screen.wait_for_any("Easy", "recorded as Again")
        if "recorded as Again" not in feedback:
            return given
        screen.press("Enter")  # on to the next question
    raise AssertionError(f"no right answer in {tries} tries")


@pytest.mark.parametrize("leave", ["close the tab", "SIGTERM", "SIGKILL"])
def test_a_right_answer_shown_but_not_rated_is_kept_as_good(
        serve: Callable[..., Served], browser: Any, leave: str) -> None:
    """The tab's app records it as Enter would, however the tab or its server goes."""
    server = serve()
    page, screen = open_tab(browser, server.url)
    screen.wait_for("Reviewed today", "NVIDIA H100")
    screen.press("Enter")
    screen.wait_for("Study this post")
    screen.press("s")
    given = answer_until_right(screen)
    wait_until(lambda: len(review_rows(server.db)) == given - 1)  # the wrong ones, as Again
    apps = server.app_pids()
    if leave == "close the tab":
        page.close()
    elif leave == "SIGTERM":
        server.process.terminate()
    else:
        server.process.kill()  # the server dies at once; its app sees its input end
    wait_until(lambda: not any(running(pid) for pid in apps), timeout=30)
    if leave == "SIGKILL":  # the answer is held in the database: the next opening records it
        studyapp(server.db.parent, "stats")
    rows = review_rows(server.db)
    assert [rating for _, _, rating, _ in rows] == [1] * (given - 1) + [3], (leave, rows)
    if not page.is_closed():
        page.close()
