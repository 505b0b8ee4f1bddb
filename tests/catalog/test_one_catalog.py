"""A question is drawn from one catalog: ``one_catalog`` pins it for the draw, and the
learner's catalog.yaml written meanwhile is read by the next draw, not lost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from studyapp.catalog import load_catalog, user_catalog_path
from studyapp.catalog.loader import one_catalog
from studyapp.questions.generators import get_family

CHIP = """\
accelerators:
  - id: pinned-chip
    name: Pinned chip
    vendor: nvidia
    post: h100
    year: 2025
    architecture: Test
    memory_gb: 96
    memory_type: HBM3e
    memory_bandwidth_tb_s: 4
    bf16_dense_tflops: 500
    fp8_dense_tflops: 1000
    scale_up: NVLink
    scale_out: Ethernet
    software: CUDA
    sources: [https://example.org/pinned-chip]
"""


@pytest.fixture(autouse=True)
def _fresh_catalog() -> Iterator[None]:
    load_catalog.cache_clear()  # type: ignore[attr-defined]
    yield
    load_catalog.cache_clear()  # type: ignore[attr-defined]


def test_a_user_catalog_written_during_a_draw_waits_for_the_next_one() -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with one_catalog() as pinned:
        path.write_text(CHIP, encoding="utf-8")
        assert load_catalog() is pinned
        with one_catalog() as inner:  # a scenario drawing its steps keeps the same one
            assert inner is pinned
        assert "pinned-chip" not in load_catalog().accelerators
    assert "pinned-chip" in load_catalog().accelerators


def test_a_draw_names_a_chip_of_the_learners_catalog() -> None:
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CHIP, encoding="utf-8")
    question = get_family("fits-on-gpu").generate(1, "en", {"gpus": ["pinned-chip"]})
    assert question.params["gpu"] == "pinned-chip"
