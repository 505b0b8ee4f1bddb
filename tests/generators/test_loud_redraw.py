"""A failed redraw is loud: it raises, it never hands back a wrong answer.

The case from the field: a chip whose dense FP4 rate is neither 1×, 2× nor 4× its BF16
rate (Blackwell Ultra's FP4 is about 6× BF16) was answered "None: it has no FP4 matrix
units" while the explanation said 6×. The fixture chip below is made up for the test
(6× ratio), so the test does not depend on which chips the shipped catalog holds.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from studyapp import catalog as catalog_pkg
from studyapp import locations
from studyapp.catalog import load_catalog, load_catalog_from
from studyapp.cli import main
from studyapp.questions.generators import get_family, registered_families
from studyapp.questions.generators.audit import CHOICE_RECOMPUTE, audit, pool_targets
from studyapp.questions.generators.drawing import DrawError, draw_until

registered_families()  # imports and registers every family
accelerators = sys.modules["studyapp.questions.generators.families.accelerators"]

FIXTURE_CHIP = {
    "id": "fixture-fp4x6", "name": "Fixture FP4x6", "vendor": "nvidia", "post": "blackwell",
    "year": 2025, "memory_gb": 288, "memory_type": "HBM3e", "memory_bandwidth_tb_s": 8,
    "bf16_dense_tflops": 2500, "fp8_dense_tflops": 5000, "fp4_dense_tflops": 15000,
    "fp4_per_fp8": 3,
    "scale_up": "NVLink 5", "scale_up_gb_s": 1800, "scale_out": "InfiniBand",
    "software": "CUDA", "note": "test fixture, not a real chip",
    "sources": ["https://example.com/test-fixture"],
}


@pytest.fixture
def fixture_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    content = locations.content_dir()
    for name in ("models.yaml",):
        shutil.copy(content / name, tmp_path / name)
    hardware = yaml.safe_load((content / "hardware.yaml").read_text(encoding="utf-8"))
    hardware["accelerators"].append(FIXTURE_CHIP)
    (tmp_path / "hardware.yaml").write_text(yaml.safe_dump(hardware), encoding="utf-8")
    cat = load_catalog_from(tmp_path)
    monkeypatch.setattr(accelerators, "load_catalog", lambda: cat)
    monkeypatch.setattr(catalog_pkg, "load_catalog", lambda: cat)
    return cat


def test_fp4_at_six_times_bf16_is_answered_six_times(fixture_catalog: Any) -> None:
    family = get_family("low-precision-speedup")
    for seed in range(10):
        q = family.generate(seed, "en", {"gpus": ["fixture-fp4x6"], "precisions": ["fp4"]})
        assert q.params["speedup"] == 6.0
        assert q.answer == "About 6×: 6 times the BF16 rate"
        assert "15,000 / 2,500 = 6×" in q.explanation
        assert not str(q.answer).startswith("None")
        assert CHOICE_RECOMPUTE["low-precision-speedup"](q)


def test_generate_cli_with_the_fixture_chip(fixture_catalog: Any) -> None:
    out = CliRunner().invoke(main, ["generate", "low-precision-speedup", "--seed", "1",
                                    "--option", "gpus=fixture-fp4x6",
                                    "--option", "precisions=fp4"])
    assert out.exit_code == 0, out.output
    assert "Answer: About 6×" in out.output
    assert "no FP4 matrix units" not in out.output.split("Answer:")[1].split("\n")[0]


def test_b300_fp4_is_answered_with_its_published_ratio() -> None:
    """The issue's case on the shipped catalog: B300's dense FP4 is 6× its BF16 figure."""
    b300 = load_catalog().accelerators["b300"]
    assert b300.fp4_dense_tflops is not None
    ratio = b300.fp4_dense_tflops / b300.bf16_dense_tflops
    family = get_family("low-precision-speedup")
    for seed in range(10):
        q = family.generate(seed, "en", {"gpus": ["b300"], "precisions": ["fp4"]})
        assert q.params["speedup"] == ratio == 6.0
        assert not str(q.answer).startswith("None") and "6×" in str(q.answer)
        assert CHOICE_RECOMPUTE["low-precision-speedup"](q)


def test_a_pool_with_no_sound_question_raises_not_answers() -> None:
    # Gaudi 3 has no FP4 figure and is not a chip whose vendor "simply lacks" FP4
    family = get_family("low-precision-speedup")
    with pytest.raises(DrawError):
        family.generate(0, "en", {"gpus": ["gaudi3"], "precisions": ["fp4"]})
    out = CliRunner().invoke(main, ["generate", "low-precision-speedup", "--seed", "0",
                                    "--option", "gpus=gaudi3", "--option", "precisions=fp4"])
    assert out.exit_code == 1
    assert "no draw" in out.output and "Traceback" not in out.output


def test_draw_until_raises_with_the_family_name() -> None:
    import random

    with pytest.raises(DrawError, match="demo"):
        draw_until(random.Random(0), lambda r: r.random(), lambda x: x > 2, "demo", attempts=5)


def test_no_family_ignores_a_failed_redraw() -> None:
    root = Path(__file__).resolve().parents[2] / "studyapp" / "questions" / "generators"
    for path in root.rglob("*.py"):
        assert ", _ = redraw(" not in path.read_text(encoding="utf-8"), path


def test_audit_runs_one_chip_and_one_precision_pools_and_checks_choices() -> None:
    targets = pool_targets(["low-precision-speedup"])
    labels = {t.label for t in targets}
    assert "low-precision-speedup gpus=b200" in labels
    assert "low-precision-speedup precisions=fp4" in labels
    assert len(targets) == len(load_catalog().accelerators) + 3
    rows = audit(targets)
    assert all(row.ok for row in rows), [(r.label, r.problems) for r in rows if not r.ok]
    assert any(row.refused for row in rows)  # gaudi3 + fp4 cannot be asked: it says so


def test_audit_flags_a_wrong_choice_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    family = get_family("low-precision-speedup")
    q = family.generate(0, "en", {"gpus": ["b200"], "precisions": ["fp4"]})
    assert CHOICE_RECOMPUTE["low-precision-speedup"](q)
    wrong = q.__class__(**{**q.__dict__, "answer": "None: no FP4 matrix units"})
    assert not CHOICE_RECOMPUTE["low-precision-speedup"](wrong)
