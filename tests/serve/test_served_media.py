"""What the server hands a browser: a card's image, inert whatever its bytes; the app
page, running only its own scripts. Driven through aiohttp's test client."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from media_samples import RASTER, html, svg
from recall_decks import PNG

from studyapp.tui.serve import StudyServer
from studyapp.tui.serve_http import MEDIA_HEADERS


class FakeApp:
    """An app process on the other end of a delivery: it answers each chunk request with
    the next piece of ``data`` (64 KiB at most, as an app does), then an empty chunk."""

    def __init__(self, server: StudyServer, key: str, data: bytes | str) -> None:
        self.manager, self.key = server.download_manager, key
        self.pieces = [data[i:i + 65536] for i in range(0, len(data), 65536)]
        self.requests = 0

    async def send_meta(self, meta: dict[str, Any]) -> bool:
        assert meta["type"] == "deliver_chunk_request" and meta["key"] == self.key
        self.requests += 1
        piece = self.pieces.pop(0) if self.pieces else b""
        await self.manager.chunk_received(self.key, piece)
        return True


@pytest.fixture
async def served() -> AsyncIterator[tuple[StudyServer, TestClient[Any, Any]]]:
    server = StudyServer(argv=["true"], extra_env={}, host="127.0.0.1", port=0, token=None,
                         lang="en")
    client = TestClient(TestServer(await server._make_app(), host="127.0.0.1"))
    await client.start_server()
    try:
        yield server, client
    finally:
        await client.close()


async def offer(server: StudyServer, key: str, data: bytes | str, *, name: str,
                mime_type: str) -> FakeApp:
    """What an app's ``deliver_binary`` starts: a delivery the tab then fetches."""
    app = FakeApp(server, key, data)
    await server.download_manager.create_download(
        app_service=app, delivery_key=key, file_name=name,  # type: ignore[arg-type]
        open_method="browser", mime_type=mime_type)
    return app


@pytest.mark.parametrize("kind", sorted(RASTER))
async def test_an_image_is_served_with_the_type_its_bytes_say_in_a_sandbox(
        served: tuple[StudyServer, TestClient[Any, Any]], kind: str) -> None:
    server, client = served
    data, mime_type = RASTER[kind]
    # the name and the type the app gives are not believed: the bytes say what it is
    await offer(server, "k1", data, name='x.html"; evil=1', mime_type="text/html")
    response = await client.get("/download/k1")
    assert response.status == 200
    assert await response.read() == data
    assert response.headers["Content-Type"] == mime_type
    assert response.headers["Content-Security-Policy"].split(";")[0] == "sandbox"
    assert "script-src" not in response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    extension = mime_type.removeprefix("image/")
    assert response.headers["Content-Disposition"] == f'inline; filename="image.{extension}"'
    for name, value in MEDIA_HEADERS.items():
        assert response.headers[name] == value


async def test_a_big_image_arrives_whole_in_several_chunks(
        served: tuple[StudyServer, TestClient[Any, Any]]) -> None:
    server, client = served
    end = PNG.index(b"\x00\x00\x00\x00IEND")
    big = PNG[:end] + b"\x00" * 200_000 + PNG[end:]  # not a valid image, only a long one
    app = await offer(server, "big", big, name="big.png", mime_type="image/png")
    response = await client.get("/download/big")
    assert response.status == 200 and await response.read() == big
    assert app.requests == 5  # four pieces and the empty end


@pytest.mark.parametrize("data", [svg("http://127.0.0.1:9"), html("http://127.0.0.1:9"),
                                  "<svg onload=alert(1)>", b""],
                         ids=["svg", "html", "text", "empty"])
async def test_anything_but_an_image_is_refused_whatever_the_app_says_it_is(
        served: tuple[StudyServer, TestClient[Any, Any]], data: bytes | str) -> None:
    server, client = served
    app = await offer(server, "k2", data, name="chip.png", mime_type="image/png")
    response = await client.get("/download/k2")
    body = await response.text()
    assert response.status == 415
    assert response.headers["Content-Type"].startswith("text/plain")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert body.startswith("415: not an image") and "<" not in body
    assert not app.pieces  # the app's side of the delivery was finished, not left waiting
    assert (await client.get("/download/k2")).status == 404  # one delivery, used up


async def test_an_unknown_delivery_is_not_found(
        served: tuple[StudyServer, TestClient[Any, Any]]) -> None:
    _, client = served
    response = await client.get("/download/nothing-here")
    assert response.status == 404
    assert "nothing-here" not in await response.text()


async def test_the_page_runs_only_its_own_scripts(
        served: tuple[StudyServer, TestClient[Any, Any]]) -> None:
    _, client = served
    first, second = await client.get("/"), await client.get("/")
    assert first.status == 200
    page = await first.text()
    policy = first.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    nonce = re.search(r"'nonce-([^']+)'", directives["script-src"])
    assert nonce is not None and len(nonce.group(1)) >= 22
    assert directives["script-src"] == f"'self' 'nonce-{nonce.group(1)}'"
    assert directives["default-src"] == "'none'" and directives["connect-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["base-uri"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    # every script on the page is textual-serve's file or carries this response's nonce
    scripts = re.findall(r"<script([^>]*)>", page)
    assert len(scripts) == 2
    assert any("/static/js/textual.js" in s for s in scripts)
    assert any(f'nonce="{nonce.group(1)}"' in s for s in scripts)
    assert not re.search(r"\son[a-z]+\s*=", page)  # no handler in an attribute
    assert second.headers["Content-Security-Policy"] != policy  # a fresh nonce each time
    assert first.headers["X-Content-Type-Options"] == "nosniff"
    static = await client.get("/static/js/textual.js")
    assert static.status == 200 and static.headers["X-Content-Type-Options"] == "nosniff"
