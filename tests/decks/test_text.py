"""Text shown in a terminal: controls made visible, ordinary characters kept."""

from __future__ import annotations

import pytest

from studyapp.text import visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),  # an escape sequence is shown, never obeyed
        ("abc\u202edef", "abc\\u202edef"),  # a bidi override cannot reorder the line
        ("a\u2066b", "a\\u2066b"),
        ("bell\x07", "bell\\x07"),
        ("163\u00a0840 B", "163\u00a0840 B"),  # no-break space in a Spanish number stays
        ("line one\nline\ttwo", "line one\nline\ttwo"),
        ("[@click=app.quit] [bold]", "[@click=app.quit] [bold]"),  # markup is a renderer's job
        ("👩\u200d💻", "👩\u200d💻"),  # a zero-width joiner is not a control
    ],
)
def test_visible(raw: str, shown: str) -> None:
    assert visible(raw) == shown
