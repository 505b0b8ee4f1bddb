"""Whatever the file holds, validation returns problems (or none): no crash, no hang."""

from __future__ import annotations

import time
from pathlib import Path

from deck_texts import VALID_DECK
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studyapp.decks import Problem, validate_paths

FUZZ = settings(
    max_examples=150,
    deadline=None,  # timed below instead, with a generous bound
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
YAML_BITS = st.sampled_from(
    ["{", "}", "[", "]", ":", "- ", "\n", "  ", "'", '"', "&a ", "*a", "!!python/name:os.system ",
     "!!binary ", "<<: ", "{x}", "{{", "}}", "__", "1e999", "-1", "0", "null", "true", "#", "\t",
     "\x1b[31m", "\\e", "\x00", "é", "{from: models}", "{min: 0, max: 3}", "1 / n", "**"]
)  # fmt: skip


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    for position, delete, insert in edits:
        at = position % (len(text) + 1)
        text = text[:at] + insert + text[at + delete:]
    return text


def _check(path: Path) -> None:
    start = time.monotonic()
    problems = validate_paths([path])
    assert time.monotonic() - start < 10
    assert isinstance(problems, list)
    for problem in problems:
        assert isinstance(problem, Problem)
        assert problem.line >= 1 and problem.col >= 1
        assert str(problem).startswith(f"{path}:{problem.line}:{problem.col}: ")


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8),
                                st.one_of(YAML_BITS, st.text(max_size=8))),
                      min_size=1, max_size=6))  # fmt: skip
def test_mutated_deck_text(tmp_path: Path, edits: list[tuple[int, int, str]]) -> None:
    path = tmp_path / "mutated.yaml"
    path.write_text(_mutate(VALID_DECK, edits), encoding="utf-8", errors="surrogatepass")
    _check(path)


@FUZZ
@given(lines=st.lists(st.sampled_from(VALID_DECK.splitlines()), max_size=40))
def test_shuffled_deck_lines(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "shuffled.yaml"
    path.write_text("\n".join(lines), encoding="utf-8")
    _check(path)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bytes.yaml"
    path.write_bytes(data)
    _check(path)
