"""Cards written from one pattern are sampled once, yet each is reported at its own place;
formulas evaluate right from many threads at once (each thread keeps its evaluator)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from studyapp.decks import validate_paths
from studyapp.decks.formula import evaluate

CARD = """  - id: {id}
    type: numeric
    prompt: "{{layers}} layers in {{dtype}}?"
    params: {{layers: [32, 80], dtype: [bf16, fp9]}}
    answer: 2 * layers * bytes(dtype)
"""


def test_every_card_of_a_pattern_gets_its_own_problem(tmp_path: Path) -> None:
    path = tmp_path / "pattern.yaml"
    path.write_text("deck: pattern\ntitle: Pattern\nlanguage: en\npost: h200\ncards:\n"
                    + "".join(CARD.format(id=f"c{n}") for n in range(3)), encoding="utf-8")
    problems = validate_paths([path])
    assert [(p.line, p.col) for p in problems] == [(10, 13), (15, 13), (20, 13)]
    assert all("fp9" in p.message and "layers=32" in p.message for p in problems)
    assert len({p.message for p in problems}) == 1


def test_formulas_evaluate_right_from_many_threads() -> None:
    def run(n: int) -> list[float]:
        return [evaluate("layers * 2 + n", {"layers": i, "n": n}) for i in range(300)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, range(8)))
    assert results == [[i * 2 + n for i in range(300)] for n in range(8)]
