"""Deck texts shared by the deck tests (a module, not fixtures, so hypothesis can use them)."""

from __future__ import annotations

from pathlib import Path

VALID_DECK = """\
deck: kv-cache-drill
title: {es: "Práctica de KV cache", en: "KV cache drill"}
language: en
post: hbm-kv-cache
cards:
  - id: hbm-on-h200
    type: choice
    prompt: "Which memory does the H200 use?"
    choices: [HBM3, HBM3e, GDDR7, LPDDR5X]
    answer: HBM3e
    explanation: "The H200 uses {answer}."
  - id: kv-per-token
    type: numeric
    prompt: "{layers} layers, {kv_heads} KV heads of {head_dim}, {dtype}: KV cache per token in KB?"
    params:
      layers: [32, 80]
      kv_heads: {min: 4, max: 16, step: 4}
      head_dim: 128
      dtype: [bf16, fp8]
    answer: "2 * layers * kv_heads * head_dim * bytes(dtype) / 1e3"
    unit: KB
    tolerance: 2%
    explanation: "2 × {layers} × {kv_heads} × {head_dim} × {bytes(dtype)} B = {answer:.1f} KB"
  - id: big-gpu
    type: truefalse
    prompt: "{gpu.name} has more than 100 GB of HBM."
    params:
      gpu: {from: accelerators, where: {vendor: nvidia}}
    answer: "gpu.memory_gb > 100"
    explanation: "{gpu.name}: {gpu.memory_gb} GB."
  - id: hbm-acronym
    type: text
    prompt: {en: "What does HBM stand for?", es: "¿Qué significa HBM?"}
    answer: high bandwidth memory
    accept: [HBM]
"""

HEADER = """\
deck: test-deck
title: Test deck
language: en
post: hbm-kv-cache
cards:
"""


def write(folder: Path, text: str, name: str = "deck.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
