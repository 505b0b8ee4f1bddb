"""Key numbers the generators teach, checked against published figures."""

from __future__ import annotations

import subprocess
import sys

import pytest

from studyapp.questions.generators import get_family
from studyapp.questions.generators.running import as_record, generate_run
from studyapp.questions.generators.wording import num


@pytest.mark.parametrize(
    ("model", "dtype", "kb"),
    [
        # meta-llama/Llama-3.1-8B config.json: 32 layers, 8 KV heads, head_dim 128
        ("llama-3.1-8b", "bf16", 131.072),
        # meta-llama/Llama-3.1-70B config.json: 80 layers, 8 KV heads -> 320 KiB-ish
        ("llama-3.1-70b", "bf16", 327.68),
        # deepseek-ai/DeepSeek-V3 config.json: 61 layers x (512 + 64) x 2 B (MLA)
        ("deepseek-v3", "bf16", 70.272),
    ],
)
def test_kv_per_token_matches_config(model: str, dtype: str, kb: float) -> None:
    q = get_family("kv-cache-per-token").generate(1, "en", {"models": [model], "dtypes": [dtype]})
    assert q.answer == pytest.approx(kb)
    assert q.unit == "KB"


def test_h200_141_gb_of_hbm_is_141_gib() -> None:
    """A vendor's HBM GB is a GiB: 141 GiB = 151.4 GB; nvidia-smi reports 143,771 MiB
    (https://github.com/sgl-project/sglang/issues/3196)."""
    seen = set()
    for seed in range(40):
        q = get_family("gb-vs-gib").generate(seed, "en", {"gpus": ["h200-sxm"]})
        seen.add(q.params["direction"])
        if q.params.get("gpu") == "h200-sxm" and q.params["direction"] == "gib-to-gb":
            assert q.answer == pytest.approx(151.4, abs=0.05)
            assert "143,771 MiB" in q.explanation
        if q.params["direction"] == "mib-to-gib":
            assert q.answer == pytest.approx(140.4, abs=0.05)
        assert "74.5" not in q.prompt + q.explanation
    assert {"gib-to-gb", "mib-to-gib"} <= seen


def test_b300_288_gb_is_decimal_as_its_driver_total_shows() -> None:
    """Blackwell Ultra breaks the Hopper rule: nvidia-smi reports 275,040 MiB = 288.4 GB on
    a B300 (https://github.com/simone-chen/aiconfigurator/blob/84ba8996240b8e7b2d95f2c194aaae6842008d9e/src/aiconfigurator/systems/b300_sxm.yaml),
    so the 288 GB are decimal, and the family never reads them as 309.2 GB."""
    seen = set()
    for seed in range(60):
        for lang in ("en", "es"):
            q = get_family("gb-vs-gib").generate(seed, lang, {"gpus": ["b300"]})
            seen.add(q.params["direction"])
            assert q.params.get("gpu") in (None, "b300")
            if q.params["direction"] == "mib-to-gb":
                assert q.answer == pytest.approx(288.4, abs=0.05)
                assert ("275,040 MiB" if lang == "en" else "275\xa0040 MiB") in q.prompt
                assert ("309.2" if lang == "en" else "309,2") in q.explanation
    assert "mib-to-gb" in seen and "gib-to-gb" in seen


def test_70b_bf16_does_not_fit_on_one_h200() -> None:
    """The headline: 141.1 GB of BF16 weights against 90% of the 150.755 GB nvidia-smi reports."""
    options = {"models": ["llama-3.1-70b"], "gpus": ["h200-sxm"], "dtypes": ["bf16"]}
    for seed in range(50):
        q = get_family("fits-on-gpu").generate(seed, "en", options)
        assert q.answer is False
        assert "135.7 GB" in q.explanation and "141.1 GB" in q.explanation


def test_70b_fp8_fits_on_one_h200_at_short_context() -> None:
    options = {"models": ["llama-3.1-70b"], "gpus": ["h200-sxm"], "dtypes": ["fp8"],
               "contexts": [4096], "batches": [1]}
    assert get_family("fits-on-gpu").generate(3, "en", options).answer is True


def test_ndr_port_is_50_gb_per_second() -> None:
    q = get_family("bits-vs-bytes").generate(0, "en", {"links": ["ib-ndr"], "ports": [1]})
    assert q.answer == pytest.approx(50.0)
    assert q.unit == "GB/s"


def test_h100_ridge_point_is_about_295() -> None:
    q = get_family("ridge-point").generate(0, "en", {"gpus": ["h100-sxm"], "precisions": ["bf16"]})
    assert q.answer == pytest.approx(989 / 3.35, rel=1e-4)


def test_spanish_numbers_use_a_decimal_comma() -> None:
    assert num(131.32, "es", 4) == "131,3"
    assert num(131072, "es") == "131\u00a0072"
    assert num(8192, "es") == "8192"
    assert num(131072, "en") == "131,072"
    q = get_family("gb-vs-gib").generate(0, "es", {"gpus": ["h200-sxm"], "sizes_gib": [141]})
    assert "," in q.explanation


def test_unknown_option_id_is_reported() -> None:
    from studyapp.catalog import UnknownIdError

    with pytest.raises(UnknownIdError):
        get_family("fits-on-gpu").generate(0, "en", {"gpus": ["h200-sxn"]})


def test_runs_are_the_same_in_another_process() -> None:
    """Same seed, same question, even with a different string-hash seed."""
    code = ("import json;from studyapp.questions.generators import registered_families;"
            "from studyapp.questions.generators.running import as_record, generate_run;"
            "print(json.dumps([as_record(q) for f in registered_families().values() "
            "for q in generate_run(f, 7, 3, 'es')], sort_keys=True))")
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    import json

    from studyapp.questions.generators import registered_families

    here = [as_record(q) for f in registered_families().values()
            for q in generate_run(f, 7, 3, "es")]
    assert json.loads(outputs.pop()) == json.loads(json.dumps(here))
