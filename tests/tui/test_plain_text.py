"""``tui.text.plain``: the one helper for untrusted text, in widgets and in tables."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.tui.text import plain


def test_plain_never_reads_markup_and_shows_control_characters() -> None:
    shown = plain("[@click=app.quit] [bold]x\x1b[31m")
    assert shown.plain == "[@click=app.quit] [bold]x\\x1b[31m"
    assert not shown.spans


def test_plain_cuts_to_a_width_with_an_ellipsis() -> None:
    assert plain("llama-3.1-405b", 8).plain == "llama-3…"
    assert plain("short", 8).plain == "short"


def test_plain_assembles_with_other_content() -> None:
    line = Content.assemble(("Expected: ", "bold"), plain("[b]140 GB"))
    assert line.plain == "Expected: [b]140 GB"


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable()
        yield Static(plain("[red]deck"), id="static")


async def test_a_table_column_fits_its_plain_cells_not_its_header() -> None:
    """A bare Content cell would shrink its column to the header ("N")."""
    app = TableApp()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(DataTable)
        table.add_column("N", key="name")
        table.add_column(plain("Right", justify="right").as_text(), key="right")
        table.add_row(plain("a-long-deck/card-key"), plain("x"))
        await pilot.pause()
        assert table.columns["name"].get_render_width(table) >= len("a-long-deck/card-key")
        assert str(app.query_one("#static", Static).render()) == "[red]deck"
