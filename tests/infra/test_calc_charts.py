"""The calculator's charts as data: every point is the calculator's own figure, and the
limits they mark agree with published runs."""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.infra.calc import DeviceInput, ModelInput, decode_report, fit_report
from studyapp.infra.calc_charts import (
    memory_against_batch,
    memory_against_context,
    roofline,
    throughput_against_batch,
)
from studyapp.infra.shapes import model_input


def chip(gpu_id: str, dtype: str = "bf16") -> DeviceInput:
    gpu = load_catalog().accelerators[gpu_id]
    rate = gpu.dense_tflops(dtype)
    assert rate is not None
    return DeviceInput(gpu.id, gpu.memory_bytes, gpu.bandwidth_bytes_s, rate * 1e12)


def model(model_id: str) -> ModelInput:
    return model_input(load_catalog().models[model_id])


def test_the_h100_ridge_point_is_its_peak_over_its_bandwidth() -> None:
    # H100 SXM datasheet: 989 dense BF16 TFLOPS, 3.35 TB/s HBM3
    # (https://www.nvidia.com/en-us/data-center/h100/): ridge 295 FLOP/byte
    chart = roofline(model("llama-3.1-8b"), chip("h100-sxm"), dtype="bf16", kv_dtype="bf16",
                     batch=1, context=0)
    assert chart.facts["ridge_flop_per_byte"] == pytest.approx(989 / 3.35)
    roof = chart.series[0]
    assert max(roof.y) == pytest.approx(989)  # the compute roof
    low = roof.x[0]
    assert roof.y[0] == pytest.approx(low * 3.35)  # the memory roof: intensity × bandwidth
    assert [p.name for p in chart.points] == ["decode"]  # no prompt, no prefill point


def test_decode_sits_under_the_memory_roof_and_prefill_under_the_compute_roof() -> None:
    m, d = model("llama-3.1-70b"), chip("h200-sxm")
    chart = roofline(m, d, dtype="bf16", kv_dtype="bf16", batch=4, context=8192)
    points = {p.name: p for p in chart.points}
    step = decode_report(m, d, dtype="bf16", kv_dtype="bf16", batch=4, context=8192, gpus=1)
    assert points["decode"].x == pytest.approx(step["flops_per_step"] / step["bytes_per_step"])
    assert points["decode"].bound == step["bound"] == "memory"
    # prefill of 4 × 8192 tokens: 2 FLOPs per parameter per token over about the weights
    assert points["prefill"].bound == "compute"
    assert points["prefill"].y == pytest.approx(d.flops / 1e12)  # type: ignore[operator]
    assert 20_000 < points["prefill"].x < 4 * 8192


def test_the_longest_context_is_where_the_fit_stops() -> None:
    m, d = model("llama-3.1-70b"), chip("h200-sxm")
    chart = memory_against_context(m, d, dtype="bf16", kv_dtype="bf16", batch=4, context=8192,
                                   gpus=2)
    longest = chart.facts["longest_context"]
    assert isinstance(longest, int)

    def fits(context: int) -> bool:
        return bool(fit_report(m, d, dtype="bf16", kv_dtype="bf16", context=context, batch=4,
                               gpus=2)["fits"])

    assert fits(longest) and not fits(longest + 1)
    usable = {level.name: level.value for level in chart.levels}["usable"]
    per_device = fit_report(m, d, dtype="bf16", kv_dtype="bf16", context=8192, batch=4,
                            gpus=2)["available_gb"] / 2
    assert usable == pytest.approx(per_device, rel=1e-3)
    chosen = chart.points[0]
    required = fit_report(m, d, dtype="bf16", kv_dtype="bf16", context=8192, batch=4,
                          gpus=2)["required_bytes"]
    assert chosen.y == pytest.approx(required / 2 / 1e9)


def test_the_context_chart_agrees_with_vllms_kv_cache_on_an_a100() -> None:
    # vLLM, Llama 2 7B FP16 on one A100 80GB, gpu_memory_utilization 0.9: "GPU KV cache
    # size" 7,351 blocks × 16 = 117,616 tokens (https://github.com/vllm-project/vllm/pull/2031)
    chart = memory_against_context(model("llama-2-7b"), chip("a100-80gb"), dtype="fp16",
                                   kv_dtype="fp16", batch=1, context=4096)
    assert chart.facts["longest_context"] == pytest.approx(117_616, rel=0.03)


def test_the_largest_batch_is_where_the_fit_stops() -> None:
    m, d = model("llama-3.1-8b"), chip("h100-sxm")
    chart = memory_against_batch(m, d, dtype="bf16", kv_dtype="bf16", batch=8, context=32768)
    largest = chart.facts["largest_batch"]
    assert isinstance(largest, int) and largest > 1

    def fits(batch: int) -> bool:
        return bool(fit_report(m, d, dtype="bf16", kv_dtype="bf16", context=32768,
                               batch=batch, gpus=1)["fits"])

    assert fits(largest) and not fits(largest + 1)
    need = next(s for s in chart.series if s.name == "weights-kv")
    assert list(need.y) == sorted(need.y)  # more sequences, more memory


def test_throughput_turns_compute_bound_at_the_ridge_point() -> None:
    # weights only (context 0): a step reads 2 bytes per parameter and does 2 FLOPs per
    # parameter per sequence, so its intensity is the batch; on an H100 (ridge 295 FLOP/B,
    # datasheet figures above) the first power of two past it is 512
    m, d = model("llama-3.1-8b"), chip("h100-sxm")
    chart = throughput_against_batch(m, d, dtype="bf16", kv_dtype="bf16", batch=4, context=0)
    assert chart.facts["first_compute_bound_batch"] == 512
    memory, compute = chart.series
    assert memory.name == "memory-bound" and compute.name == "compute-bound"
    for x, y in zip(memory.x, memory.y, strict=True):
        step = decode_report(m, d, dtype="bf16", kv_dtype="bf16", batch=int(x), context=0,
                             gpus=1)
        assert y == step["tokens_per_s"] and step["bound"] == "memory"
    assert compute.x[0] == memory.x[-1]  # joined, so the line does not break
    assert max(compute.y) == pytest.approx(compute.y[-1])  # flat at the compute roof


def test_a_long_context_keeps_decode_memory_bound_at_every_batch() -> None:
    """Each sequence reads its own KV cache, so the intensity stops growing with batch."""
    chart = throughput_against_batch(model("llama-3.1-70b"), chip("h200-sxm"), dtype="bf16",
                                     kv_dtype="bf16", batch=4, context=8192, gpus=2)
    assert chart.facts["first_compute_bound_batch"] is None
    assert set(chart.facts["bounds"]) == {"memory"}


def test_charts_are_json_data() -> None:
    import json

    chart = memory_against_batch(model("llama-3.1-8b"), chip("h100-sxm"), dtype="bf16",
                                 kv_dtype="bf16", batch=3, context=1024)
    data = json.loads(json.dumps(chart.as_json()))
    assert data["kind"] == "memory-batch" and 3.0 in data["series"][1]["x"]
    assert {"x_unit", "y_unit", "x_log", "y_log", "series", "points", "levels",
            "facts"} <= data.keys()


def test_the_charts_mark_what_was_measured_on_their_setup() -> None:
    from studyapp.infra.measured import measured_marks

    measurements = load_catalog().measurements
    # mamf-finder on an H100 SXM, BF16: 792.1 TFLOPS of the 989 dense peak
    # (the handbook's table as it stood in October 2024,
    # https://github.com/stas00/ml-engineering/blob/8deeddd8cb6ec126ff31c5fc4efdcca325476f8b/compute/accelerator/README.md)
    chart = measured_marks(roofline(model("llama-3.1-8b"), chip("h100-sxm"), dtype="bf16",
                                    kv_dtype="bf16", batch=1, context=0),
                           measurements, dtype="bf16")
    levels = {level.name: level.value for level in chart.levels}
    assert levels["measured-matmul"] == 792.1 < chart.facts["peak_tflops"]
    # NVIDIA NIM 1.8.0, Llama 3.3 70B FP8 on 2 H100, one stream, 500 tokens in:
    # 52.85 tokens/s (https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance)
    fp8 = chip("h100-sxm", "fp8")
    chart = measured_marks(throughput_against_batch(model("llama-3.1-70b"), fp8, dtype="fp8",
                                                    kv_dtype="fp8", batch=1, context=500,
                                                    gpus=2),
                           measurements, dtype="fp8", gpus=2)
    measured = [p for p in chart.points if p.name == "measured"]
    assert [(p.x, p.y) for p in measured] == [(1, 52.85)]
    assert chart.facts["measured"]["source"].startswith("https://docs.nvidia.com/nim/")
    # vLLM, Llama 2 7B FP16 on one A100 80GB: 117,616 tokens of KV cache
    # (https://github.com/vllm-project/vllm/pull/2031): the measured line sits at the
    # computed limit
    chart = measured_marks(memory_against_context(model("llama-2-7b"), chip("a100-80gb"),
                                                  dtype="fp16", kv_dtype="fp16", batch=1,
                                                  context=4096),
                           measurements, dtype="fp16")
    line = next(level for level in chart.levels if level.name == "measured-kv-tokens")
    assert line.axis == "x" and line.value == 117_616
    assert line.value == pytest.approx(chart.facts["longest_context"], rel=0.03)


def test_a_setup_nobody_measured_is_left_as_it_was() -> None:
    from studyapp.infra.measured import measured_marks

    chart = throughput_against_batch(model("llama-3.1-8b"), chip("h200-sxm"), dtype="bf16",
                                     kv_dtype="bf16", batch=1, context=0)
    assert measured_marks(chart, load_catalog().measurements, dtype="bf16") is chart
