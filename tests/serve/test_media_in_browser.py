"""Hostile media in the browser face: a card naming an SVG with a script, and one naming
an HTML page called ``.png``, opened with ctrl+g through the served app in Chromium.

Both files reached the installed deck's media folder behind ``deck add``'s back (as a
file put there by hand, or stored before media were checked). Their scripts would ask a
beacon on this machine for a URL, open the app's WebSocket (a second app for the same
profile) and set the page title: none of it may happen. A real image on the next card
opens, with its fixed type, ``nosniff`` and a script-less sandbox. The app's own page runs
under its Content-Security-Policy without a violation.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("playwright.sync_api")
from media_samples import MARKER, html, svg
from recall_decks import PNG
from test_serve_in_browser import CHROMIUM, VIEWPORT, Screen, Served, browser, serve, studyapp

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here")]
__all__ = ["browser", "serve"]  # fixtures, used by name

HOSTILE_DECK = """deck: hostile
title: Hostile media
language: en
post: intro
cards:
  - id: svg-card
    type: recall
    prompt: "Which chip is drawn? [image: chip.svg]"
    answer: "H100"
  - id: html-card
    type: recall
    prompt: "Which board is shown? [image: board.png]"
    answer: "HGX"
  - id: real-card
    type: recall
    prompt: "Which GPU is pictured? [image: h100.png]"
    answer: "H100"
"""


class Beacon(http.server.BaseHTTPRequestHandler):
    """Records every path asked for: a script that ran would ask for one."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Beacon.asked.append(self.path)
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def beacon() -> Iterator[tuple[str, list[str]]]:
    Beacon.asked = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Beacon)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", Beacon.asked
    finally:
        server.shutdown()
        server.server_close()


def beacon_hears(asked: list[str], suffix: str, timeout: float = 10.0) -> bool:
    """Has the beacon been asked for a path ending in ``suffix``, within ``timeout`` s?"""
    deadline = time.monotonic() + timeout
    while not any(path.endswith(suffix) for path in asked):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def open_watched_tab(browser: Any, url: str) -> tuple[Any, Screen, list[str]]:
    """A tab on the app, with every Content-Security-Policy complaint of its console kept
    from the first request on."""
    page = browser.new_page(viewport=VIEWPORT)
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    screen = Screen(page)
    response = page.goto(url)
    assert response is not None and response.status == 200
    page.wait_for_selector("body.-first-byte", timeout=20_000)
    return page, screen, violations


PROMPTS = ("chip is drawn", "board is shown", "GPU is pictured")


def current_card(screen: Any, number: int) -> str:
    """The prompt of card ``number``: drawn after its ``[number/`` header (the last card's
    words, and its notices, may be redrawn before it)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        text = screen.text(screen.mark)
        header = text.rfind(f"[{number}/")
        found = [p for p in PROMPTS if header >= 0 and p in text[header:]]
        if found:
            return found[0]
        screen.page.wait_for_timeout(100)
    raise AssertionError(f"card {number} never drawn: {screen.text(screen.mark)[-800:]!r}")


def test_hostile_svg_and_html_cards_run_no_script_and_start_no_app(
        tmp_path: Path, serve: Callable[..., Served], browser: Any,
        beacon: tuple[str, list[str]]) -> None:
    beacon_url, asked = beacon
    deck = tmp_path / "hostile.yaml"
    deck.write_text(HOSTILE_DECK, encoding="utf-8")
    (tmp_path / "hostile.media").mkdir()
    (tmp_path / "hostile.media" / "h100.png").write_bytes(PNG)
    studyapp(tmp_path, "deck", "add", str(deck))
    studyapp(tmp_path, "deck", "disable", "post-intro")
    installed, = (tmp_path / "home").rglob("hostile.media")
    (installed / "chip.svg").write_bytes(svg(beacon_url))  # behind deck add's back
    (installed / "board.png").write_bytes(html(beacon_url))

    server = serve()
    page, screen, violations = open_watched_tab(browser, server.url)
    context = page.context
    media: list[Any] = []
    context.on("response", lambda response: media.append(response)
               if "/download/" in response.url else None)
    screen.wait_for("Reviewed today")
    first_app = server.app_pids()
    assert len(first_app) == 1
    screen.press("Enter")
    screen.wait_for("Study this post")
    screen.press("s")

    seen = set()
    for number in range(1, 4):
        shown = current_card(screen, number)
        screen.expect_new()
        if "GPU is pictured" in shown:
            with context.expect_page(timeout=20_000) as opened:
                screen.press("Control+g")
            image = opened.value
            image.wait_for_load_state()
            assert image.evaluate("document.contentType") == "image/png"
            assert image.evaluate("document.images[0].naturalWidth") == 1  # shown, as an image
            headers = media[-1].all_headers()
            image.close()
            seen.add("png")
        else:
            name = "chip.svg" if "chip is drawn" in shown else "board.png"
            pages = len(context.pages)
            screen.press("Control+g")
            screen.wait_for(f"Not opened: {name}")
            page.wait_for_timeout(1500)  # a tab would have opened by now
            assert len(context.pages) == pages
            seen.add(name)
        screen.press("Enter")  # show the answer
        screen.wait_for("Answer:")
        screen.press("1")  # Again: the next card
    assert seen == {"png", "chip.svg", "board.png"}

    assert len(media) == 1  # only the real image was ever served
    assert headers["content-type"] == "image/png"
    assert headers["content-security-policy"].startswith("sandbox;")
    assert headers["x-content-type-options"] == "nosniff"
    page.wait_for_timeout(1000)
    assert asked == []  # no script asked the beacon for anything
    assert all(p.title() != MARKER for p in context.pages)
    assert server.app_pids() == first_app  # no second app for the profile
    assert violations == []  # the app's page works under its policy
    page.close()


def test_a_served_image_runs_no_script_even_when_chromium_is_sent_straight_to_it(
        tmp_path: Path, serve: Callable[..., Served], browser: Any,
        beacon: tuple[str, list[str]]) -> None:
    """The server's own refusal, without the app's: an address that is not a delivery, or a
    guessed one, gets a plain 404; nothing on it runs."""
    _, asked = beacon
    server = serve()
    page = browser.new_page()
    guessed = f"{server.origin}/download/0123456789abcdef0123456789abcdef"
    response = page.goto(guessed)  # no cookie yet: the door answers first
    assert response is not None and response.status == 403
    # the owner's link sets the port's cookie; fetched, not shown, so no app starts
    assert page.request.get(server.url).status == 200
    response = page.goto(guessed)
    assert response is not None and response.status == 404
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert asked == [] and not server.app_pids()
    page.close()


@pytest.fixture
def media_site() -> Iterator[Callable[[str, bytes, str, dict[str, str]], str]]:
    """A bare HTTP site serving given bytes with given headers (no studyapp in front)."""
    files: dict[str, tuple[bytes, dict[str, str]]] = {}

    class Files(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, headers = files[self.path.lstrip("/")]
            self.send_response(200)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def put(name: str, body: bytes, content_type: str, headers: dict[str, str]) -> str:
        files[name] = (body, {**headers, "Content-Type": content_type})
        return f"http://127.0.0.1:{server.server_address[1]}/{name}"

    yield put
    server.shutdown()
    server.server_close()


def test_the_media_headers_alone_keep_a_hostile_file_from_running(
        browser: Any, beacon: tuple[str, list[str]],
        media_site: Callable[[str, bytes, str, dict[str, str]], str]) -> None:
    """The hostile files do run when served bare (so the beacon would tell), and do not
    with ``MEDIA_HEADERS``, even under their own content types: the sandbox holds should
    a non-image ever get past the byte checks."""
    from studyapp.tui.serve_http import MEDIA_HEADERS

    beacon_url, asked = beacon
    page = browser.new_page()
    for kind, body, content_type in (("svg", svg(beacon_url), "image/svg+xml"),
                                     ("html", html(beacon_url), "text/html")):
        page.goto(media_site(f"bare-{kind}", body, content_type, {}))
        page.wait_for_function(f"document.title === '{MARKER}'", timeout=10_000)
        # the script sets the title as soon as its fetch has started, and the fetch may
        # reach the beacon after that on a busy machine
        assert beacon_hears(asked, f"-{kind}")
        asked.clear()
        page.goto(media_site(f"guarded-{kind}", body, content_type, MEDIA_HEADERS))
        page.wait_for_timeout(1500)
        assert page.title() != MARKER and asked == []
    page.close()


def test_the_page_works_under_its_policy_buttons_included(
        serve: Callable[..., Served], browser: Any) -> None:
    """The page's start button (``?delay``) is wired by its own script, not an attribute:
    under the policy a click still starts the app."""
    server = serve()
    page = browser.new_page(viewport=VIEWPORT)
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    response = page.goto(f"{server.url}&delay=1")  # the owner's link, with a start button
    assert response is not None and "script-src 'self' 'nonce-" in \
        response.headers["content-security-policy"]
    page.click("#start")
    page.wait_for_url(lambda url: "delay" not in url)
    page.wait_for_selector("body.-first-byte", timeout=20_000)
    assert len(server.app_pids()) == 1
    assert violations == []
    page.close()
