"""Compute, network and storage formulas against published worked figures."""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.infra import (
    checkpoint_overhead,
    decode,
    per_direction,
    ridge_point,
    ring_allreduce_seconds,
    training_flops,
    training_memory_bytes,
    training_seconds,
    young_daly_interval,
    zero_shares,
)
from studyapp.infra.shapes import one_way_bytes_s
from studyapp.infra.units import gbit_to_bytes_per_s


def test_llama_3_1_405b_training_flops() -> None:
    # Llama 3 paper (Dubey et al., 2024, §3.4): 405B parameters on 15.6T tokens,
    # "3.8 × 10^25 FLOPs" of pre-training compute; 6·N·D = 6 · 405e9 · 15.6e12.
    assert training_flops(405e9, 15.6e12) == pytest.approx(3.8e25, rel=0.01)


def test_gpt3_training_flops() -> None:
    # GPT-3 paper (Brown et al., 2020, Table D.1): 175B on 300B tokens ≈ 3.14e23 FLOPs
    assert training_flops(175e9, 300e9) == pytest.approx(3.14e23, rel=0.01)


def test_training_time_scales_with_devices_and_mfu() -> None:
    seconds = training_seconds(6.3e24, 989e12, 1024, 0.4)
    assert seconds / 86400 == pytest.approx(180.0, rel=0.01)
    assert training_seconds(6.3e24, 989e12, 2048, 0.4) == pytest.approx(seconds / 2)


def test_adam_mixed_precision_memory_and_zero() -> None:
    # ZeRO paper (Rajbhandari et al., 2020, §3.1): a 7.5B model needs 16 bytes per
    # parameter = 120 GB; with ZeRO-3 on 64 devices, 1.88 GB per device (Figure 1).
    assert training_memory_bytes(7.5e9) == pytest.approx(120e9)
    assert training_memory_bytes(7.5e9, zero_stage=3, devices=64) == pytest.approx(1.875e9)
    # ZeRO-1 (P_os) on 64 devices: 2+2+12/64 bytes per parameter = 31.4 GB (Figure 1)
    assert training_memory_bytes(7.5e9, zero_stage=1, devices=64) / 1e9 == pytest.approx(
        31.4, abs=0.1)
    # ZeRO-2 (P_os+g): 2 + 14/64 bytes per parameter = 16.6 GB (Figure 1)
    assert training_memory_bytes(7.5e9, zero_stage=2, devices=64) / 1e9 == pytest.approx(
        16.6, abs=0.1)


def test_zero_shares_split_the_sixteen_bytes_as_the_paper_does() -> None:
    # ZeRO paper, Figure 1 (https://arxiv.org/abs/1910.02054): K = 12 optimizer bytes,
    # 2 + 2 for weights and gradients; P_os+g on 64 devices keeps 2 + 14/64 bytes per parameter
    shares = zero_shares(2, 64)
    assert (shares.weights, shares.grads, shares.optimizer) == (2.0, 2 / 64, 12 / 64)
    assert zero_shares(0, 64).per_param == 16.0
    assert zero_shares(3, 64).per_param == pytest.approx(16 / 64)
    with pytest.raises(ValueError):
        zero_shares(4, 64)


def test_h100_ridge_point() -> None:
    # 989 dense BF16 TFLOPS over 3.35 TB/s ≈ 295 FLOP per byte
    assert ridge_point(989e12, 3.35e12) == pytest.approx(295.2, abs=0.1)


def test_decode_ceiling_is_bandwidth_over_bytes() -> None:
    step = decode(141.1e9, 0.0, 4.8e12)
    assert step.tokens_per_s == pytest.approx(34.0, abs=0.1)
    batch = decode(141.1e9, 10e9, 4.8e12, batch=8)
    assert batch.tokens_per_s == pytest.approx(8 / (151.1e9 / 4.8e12))


def test_bits_versus_bytes() -> None:
    # InfiniBand NDR: 400 Gb/s per port per direction = 50 GB/s
    assert gbit_to_bytes_per_s(400) == 50e9
    # NVLink 4 on H100: 900 GB/s total = 450 GB/s each way
    assert per_direction(900e9, "bidirectional") == 450e9
    assert per_direction(50e9, "per-direction") == 50e9


def test_ring_allreduce() -> None:
    # 2(n-1)/n · S / B: 10 GB over 8 GPUs at 450 GB/s per direction
    assert ring_allreduce_seconds(10e9, 8, 450e9) == pytest.approx(2 * 7 / 8 * 10e9 / 450e9)
    assert ring_allreduce_seconds(10e9, 1, 450e9) == 0.0


def test_young_daly() -> None:
    # Young (1974): sqrt(2 · C · M); C = 60 s, M = 24 h → 3,220 s ≈ 54 min
    assert young_daly_interval(60, 86400) == pytest.approx(3219.9, abs=0.5)


def test_checkpoint_overhead_at_young_daly_matches_the_storage_post() -> None:
    # content/posts/storage-checkpoints.en.md: 24.7 s writes, a failure every 14,400 s:
    # interval 843 s, 24.7 / 843 = 2.9% writing plus another 2.9% of lost work, about 6%
    interval = young_daly_interval(24.7, 14_400)
    assert interval == pytest.approx(843, abs=1)
    assert checkpoint_overhead(24.7, interval, 14_400) == pytest.approx(0.0586, abs=5e-4)
    # at Young's interval the two halves are equal; anywhere else the waste is larger
    assert 24.7 / interval == pytest.approx(interval / (2 * 14_400))
    assert checkpoint_overhead(24.7, interval / 2, 14_400) > checkpoint_overhead(
        24.7, interval, 14_400)



def test_a_links_one_way_bandwidth_reads_its_quoted_figure() -> None:
    links = load_catalog().interconnects
    # NVLink 4: 900 GB/s per GPU, both ways together (https://www.nvidia.com/en-us/data-center/h100/)
    assert one_way_bytes_s(links["nvlink-4"]) == 450e9
    # InfiniBand NDR: a 400 Gb/s port moves 50 GB/s each way
    assert one_way_bytes_s(links["ib-ndr"]) == 50e9
    # MI300X: 7 links of 128 GB/s both ways, one per peer: 64 GB/s each way to one peer
    # (https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html)
    assert one_way_bytes_s(links["infinity-fabric-mi300"]) == 64e9
