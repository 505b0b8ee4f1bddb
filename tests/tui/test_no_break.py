"""Numbers grouped with a narrow no-break space stay on one line when text wraps."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

import studyapp.tui.nobreak  # noqa: F401  (what the app imports)

TEXT = "La caché KV de Llama-3.1-8B son 131\u202f072 bytes por token en BF16."


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(TEXT, id="text", markup=False)


@pytest.mark.parametrize("width", range(24, 44))
async def test_a_grouped_number_is_never_split_across_lines(width: int) -> None:
    app = One()
    async with app.run_test(size=(width, 10)) as pilot:
        await pilot.pause()
        lines = [line.rstrip() for line in app.screen.query_one("#text", Static)
                 .render_lines(app.screen.query_one("#text", Static).region.reset_offset)
                 for line in [line.text]]
        joined = "\n".join(lines)
        assert "131\u202f072" in joined, joined
        assert not any(line.endswith("131") for line in lines)
