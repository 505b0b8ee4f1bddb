"""The give-away index finds exactly what checking every answer against every text finds."""

from __future__ import annotations

import random

from studyapp.decks.cues import AnswerIndex, gives_away

ANSWERS = ["HBM3e", "80 GB", "12–14", "12,5-14", "NVLink 4", "all-reduce", "KV cache",
           "InfiniBand / IB", "(x) ratio", "8", "HBM", "700 W", "≈ 3.35 TB/s", "Ring.",
           "über-switch", "the rack spine", "rack", "PN-00042"]
WORDS = ["HBM3e", "hbm3ex", "80", "GB", "180 GB", "12–14", "112–14", "12,5-14", "nvlink",
         "4", "all-reduce", "all-reduces", "kv", "cache", "infiniband / ib", "(x)", "ratio",
         "8", "700 w", "3.35 tb/s", "≈", "ring", ".", ",", "über-switch", "the", "rack",
         "spine", "pn-00042", "pn-000421", "x", "-", "\n", "  "]


def test_the_index_agrees_with_one_answer_at_a_time() -> None:
    rng = random.Random(7)
    index = AnswerIndex(ANSWERS)
    for _ in range(3000):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.3:
            text = text.replace(" ", rng.choice(["", ",", "."]), 1)
        expected = sorted(n for n, a in enumerate(ANSWERS) if gives_away(text, a))
        assert sorted(index.found_in(text)) == expected, text


def test_a_common_short_answer_is_never_found() -> None:
    index = AnswerIndex(["HBM", "8"])
    assert index.found_in("HBM carries 8 stacks") == []
