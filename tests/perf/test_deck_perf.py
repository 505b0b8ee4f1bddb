"""Benchmark: validating and loading a 5,000-card deck, against the C YAML loader.

The floor is composing the file with ``yaml.CSafeLoader`` (nodes with line and
column, which every problem needs). Run with ``python -m pytest tests/perf -s``.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import yaml
from test_stats_perf import figure, report

from studyapp.decks import load_deck, validate_paths

CARDS = 5000


def _write_deck(path: Path) -> None:
    lines = ["deck: perf-drill", "title: {en: Perf drill, es: Práctica}", "language: en",
             "post: hbm-kv-cache", "cards:"]
    for n in range(CARDS):
        kind = n % 4
        if kind == 0:
            lines += [f"  - id: choice-{n}", "    type: choice",
                      f"    prompt: {{en: 'Which memory, #{n}?', es: '¿Qué memoria, #{n}?'}}",
                      "    choices: [HBM3, HBM3e, GDDR7, LPDDR5X]", "    answer: HBM3e",
                      "    explanation: HBM3e on the H200."]
        elif kind == 1:
            lines += [f"  - id: tf-{n}", "    type: truefalse",
                      f"    prompt: 'Decode is memory-bound at batch 1 (#{n}).'",
                      "    answer: true",
                      "    explanation: Each token reads every weight."]
        elif kind == 2:
            lines += [f"  - id: kv-{n}", "    type: numeric",
                      "    prompt: '{layers} layers, {kv_heads} KV heads, {dtype}: KB per token?'",
                      "    params:", "      layers: [32, 80]",
                      "      kv_heads: {min: 4, max: 16, step: 4}", "      dtype: [bf16, fp8]",
                      "    answer: '2 * layers * kv_heads * 128 * bytes(dtype) / 1e3'",
                      "    unit: KB", "    tolerance: 2%",
                      "    explanation: '2 × {layers} × {kv_heads} × 128 × {bytes(dtype)} B'"]
        else:
            lines += [f"  - id: gpu-{n}", "    type: numeric",
                      "    prompt: '{gpu.name}: read all HBM once, in ms?'",
                      "    params:", "      gpu: {from: accelerators, where: {vendor: nvidia}}",
                      "    answer: gpu.memory_gb / gpu.memory_bandwidth_tb_s", "    unit: ms",
                      "    explanation: '{gpu.memory_gb} GB / {gpu.memory_bandwidth_tb_s} TB/s'"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _best(fn: object, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)  # type: ignore[return-value]


def test_validate_and_load_a_5000_card_deck(tmp_path: Path) -> None:
    path = tmp_path / "perf-drill.yaml"
    _write_deck(path)
    text = path.read_text(encoding="utf-8")
    baseline, _ = _best(lambda: yaml.safe_load(text))
    c_loader, _ = _best(lambda: yaml.load(text, Loader=yaml.CSafeLoader))
    c_compose, _ = _best(lambda: yaml.compose(text, Loader=yaml.CSafeLoader))
    validate, _ = _best(lambda: validate_paths([path]), runs=3)
    load, _ = _best(lambda: load_deck(path), runs=3)
    assert validate_paths([path]) == []
    assert len(load_deck(path).cards) == CARDS
    report(f"5,000-card deck ({path.stat().st_size / 1e6:.2f} MB): yaml.safe_load "
           f"{baseline * 1e3:.0f} ms, C safe loader {c_loader * 1e3:.0f} ms, C compose "
           f"{c_compose * 1e3:.0f} ms; validate {validate * 1e3:.0f} ms; load {load * 1e3:.0f} ms")
    figure("deck-5k-validate-ratio", validate / c_compose, "x", "<= 1.5x the C loader's compose")
