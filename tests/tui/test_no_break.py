"""Numbers grouped with a narrow no-break space stay on one line when text wraps."""

from __future__ import annotations

import pytest
import rich._wrap
import textual._wrap
from textual.app import App, ComposeResult
from textual.widgets import Static

from studyapp.tui import nobreak

TEXT = "La caché KV de Llama-3.1-8B son 131\u202f072 bytes por token en BF16."


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(TEXT, id="text", markup=False)


def test_the_patch_still_applies_to_the_installed_libraries() -> None:
    """The patch replaces private patterns: a new Rich or Textual that renamed or
    changed them makes this fail, naming the versions, instead of numbers quietly
    splitting again."""
    assert nobreak.applied(), (
        f"the no-break word patterns no longer apply to {nobreak.versions()}: "
        "look at rich._wrap.re_word and textual._wrap.re_chunk and update ORIGINALS")


def test_the_libraries_keep_a_grouped_number_in_one_word() -> None:
    """The functions that split lines into words read the patched patterns."""
    sample = "son 131\u202f072\u00a0tokens ya"
    rich_words = [word for _start, _end, word in rich._wrap.words(sample)]
    textual_chunks = [chunk for _start, _end, chunk in textual._wrap.chunks(sample)]
    assert rich_words == ["son ", "131\u202f072\u00a0tokens ", "ya"], nobreak.versions()
    assert textual_chunks == ["son ", "131\u202f072\u00a0tokens ", "ya"], nobreak.versions()


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
