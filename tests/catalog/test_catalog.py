"""The shipped catalog validates, covers every docs/architecture.md id and is self-consistent."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studyapp.catalog import (
    Accelerator,
    Catalog,
    CatalogError,
    Model,
    UnknownIdError,
    load_catalog,
    load_catalog_from,
)
from studyapp.catalog.entry import Entry
from studyapp.catalog.models import DEFAULT_FP4_PER_FP8

CONTENT = Path(__file__).resolve().parents[2] / "content"

POST_SLUGS = {
    "intro",
    "hbm-kv-cache",
    "h100",
    "h200",
    "blackwell",
    "mi350",
    "tpu",
    "trainium",
    "gaudi",
    "hgx",
    "nvlink-infiniband",
    "storage-checkpoints",
}

DESIGN_ACCELERATORS = [
    "a100-80gb",
    "h100-sxm",
    "h100-pcie",
    "h200-sxm",
    "h200-nvl",
    "b200",
    "gb200",
    "mi300x",
    "mi325x",
    "mi350x",
    "mi355x",
    "tpu-v5e",
    "tpu-v5p",
    "tpu-v6e",
    "tpu-v7",
    "trainium1",
    "trainium2",
    "gaudi2",
    "gaudi3",
]
DESIGN_INTERCONNECTS = [
    "nvlink-3",
    "nvlink-4",
    "nvlink-5",
    "ib-hdr",
    "ib-ndr",
    "ib-xdr",
    "pcie-gen4",
    "pcie-gen5",
]
DESIGN_SYSTEMS = ["hgx-h100", "hgx-h200", "hgx-b200", "gb200-nvl72"]
DESIGN_MODELS = [
    "llama-2-7b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mistral-7b",
    "mixtral-8x7b",
    "qwen2.5-72b",
    "deepseek-v3",
    "gpt-3-175b",
]

GIB_IN_GB = 2**30 / 1e9


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog_from(CONTENT)


def all_entries(catalog: Catalog) -> Iterator[Entry]:
    yield from catalog.accelerators
    yield from catalog.interconnects
    yield from catalog.systems
    yield from catalog.models


# ----------------------------------------------------------------- loading


def test_shipped_catalog_loads_through_the_app_loader() -> None:
    shipped = load_catalog()
    assert len(shipped.accelerators) >= len(DESIGN_ACCELERATORS)
    assert len(shipped.models) >= len(DESIGN_MODELS)


def test_loader_and_folder_loader_agree(catalog: Catalog) -> None:
    assert load_catalog().accelerators.ids() == catalog.accelerators.ids()
    assert load_catalog().models.ids() == catalog.models.ids()


@pytest.mark.parametrize("entry_id", DESIGN_ACCELERATORS)
def test_design_accelerator_exists(catalog: Catalog, entry_id: str) -> None:
    assert entry_id in catalog.accelerators


@pytest.mark.parametrize("entry_id", DESIGN_INTERCONNECTS)
def test_design_interconnect_exists(catalog: Catalog, entry_id: str) -> None:
    assert entry_id in catalog.interconnects


@pytest.mark.parametrize("entry_id", DESIGN_SYSTEMS)
def test_design_system_exists(catalog: Catalog, entry_id: str) -> None:
    assert entry_id in catalog.systems


@pytest.mark.parametrize("entry_id", DESIGN_MODELS)
def test_design_model_exists(catalog: Catalog, entry_id: str) -> None:
    assert entry_id in catalog.models


def test_unknown_id_suggests_close_ids(catalog: Catalog) -> None:
    with pytest.raises(UnknownIdError) as info:
        catalog.accelerators["h100"]
    assert "h100-sxm" in info.value.close
    assert "did you mean" in str(info.value)


def test_table_by_yaml_key(catalog: Catalog) -> None:
    assert catalog.table("accelerators") is catalog.accelerators
    assert catalog.table("models") is catalog.models
    with pytest.raises(UnknownIdError):
        catalog.table("gpus")


# ----------------------------------------------------------------- sources


def test_every_entry_cites_http_sources(catalog: Catalog) -> None:
    for entry in all_entries(catalog):
        assert entry.sources, entry.id
        for url in entry.sources:
            assert url.scheme in ("http", "https"), (entry.id, str(url))
            assert url.host, (entry.id, str(url))


def test_ids_are_unique_across_each_table(catalog: Catalog) -> None:
    for table in (catalog.accelerators, catalog.interconnects, catalog.systems, catalog.models):
        ids = table.ids()
        assert len(ids) == len(set(ids))


# ----------------------------------------------------------------- accelerators


def test_accelerator_posts_are_known_slugs(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        assert acc.post in POST_SLUGS, acc.id


@pytest.mark.parametrize(
    ("prefix", "post"),
    [
        ("tpu-", "tpu"),
        ("trainium", "trainium"),
        ("gaudi", "gaudi"),
        ("mi3", "mi350"),
    ],
)
def test_accelerator_families_point_at_their_post(
    catalog: Catalog, prefix: str, post: str
) -> None:
    family = [acc for acc in catalog.accelerators if acc.id.startswith(prefix)]
    assert family
    assert {acc.post for acc in family} == {post}


def test_lower_precision_is_never_slower(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        if acc.fp8_dense_tflops is not None:
            assert acc.fp8_dense_tflops >= acc.bf16_dense_tflops, acc.id
        if acc.fp4_dense_tflops is not None:
            assert acc.fp8_dense_tflops is not None, acc.id
            assert acc.fp4_dense_tflops >= acc.fp8_dense_tflops, acc.id


def test_dense_figures_are_not_sparse_headlines(catalog: Catalog) -> None:
    """FP8 is at most its chip's FP8/BF16 ratio (2 unless the chip says, as Trainium3's
    MXFP8 3.75 does) and FP4 at most its chip's FP4/FP8 ratio (2 unless the chip says, as
    Blackwell Ultra's 3 does): a bigger jump means a sparse figure slipped in."""
    for acc in catalog.accelerators:
        if acc.fp8_dense_tflops is not None:
            # 0.2% for vendors' rounding: Gaudi 2's 865 FP8 against its 432 BF16 TFLOPS
            # (https://arxiv.org/abs/2503.09975; Intel's article for 432)
            wide = acc.fp8_per_bf16 or 2
            assert acc.fp8_dense_tflops <= wide * acc.bf16_dense_tflops * 1.002, acc.id
            if acc.fp8_per_bf16 is not None:  # an exception is stated only where it holds
                assert acc.fp8_dense_tflops > 2 * acc.bf16_dense_tflops, acc.id
                assert acc.note and "FP8" in acc.note, acc.id
        if acc.fp4_dense_tflops is not None and acc.fp8_dense_tflops is not None:
            ratio = acc.fp4_per_fp8 or DEFAULT_FP4_PER_FP8
            assert acc.fp4_dense_tflops <= ratio * acc.fp8_dense_tflops * 1.001, acc.id
            if acc.fp4_per_fp8 is not None:  # an exception is stated only where it holds
                assert acc.fp4_dense_tflops > 2 * acc.fp8_dense_tflops, acc.id
                assert acc.note and "FP4" in acc.note, acc.id


def test_sparsity_exceptions_are_explicit(catalog: Catalog) -> None:
    """A printed sparse figure is dense x the chip's sparsity factor (2 unless stated)."""
    for acc in catalog.accelerators:
        for precision, factor in (acc.sparsity_factor or {}).items():
            assert factor != 2, f"{acc.id}: a factor of 2 is the default, not an exception"
            assert precision in (acc.sparse_headline_tflops or {}), acc.id
        if acc.vendor not in ("nvidia", "amd"):
            continue
        for precision, printed in (acc.sparse_headline_tflops or {}).items():
            dense = getattr(acc, f"{precision}_dense_tflops")
            assert printed == pytest.approx(acc.sparsity(precision) * dense, rel=0.03), acc.id


def test_catalog_facts_are_data(catalog: Catalog) -> None:
    """Chip names, the chips each post is about and the default pools live in hardware.yaml."""
    assert catalog.chip_patterns()["b200"] == "(?<!G)B200"
    assert {"h100-sxm", "h100-pcie"} == catalog.post_chips["h100"]
    assert catalog.pool("decode-compare")[:3] == ["h100-sxm", "h200-sxm", "b200"]
    assert "a100-80gb" in catalog.pool("training")
    for chips in [*catalog.post_chips.values(), *catalog.pools.values()]:
        assert all(chip in catalog.accelerators for chip in chips)
    for acc in catalog.accelerators:
        assert acc.name_pattern, f"{acc.id}: how do questions name it?"


def test_accelerator_values_are_positive_and_plausible(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        assert 8 <= acc.memory_gb <= 1000, acc.id
        assert 0.1 <= acc.memory_bandwidth_tb_s <= 50, acc.id
        assert 50 <= acc.bf16_dense_tflops <= 50_000, acc.id
        if acc.tdp_w is not None:
            assert 100 <= acc.tdp_w <= 3000, acc.id
        if acc.scale_up_gb_s is not None:
            assert acc.scale_up_gb_s > 0, acc.id
        unit = 2**30 if acc.memory_unit == "GiB" else 1e9
        expected = (acc.driver_memory_mib * 2**20 if acc.driver_memory_mib is not None
                    else acc.memory_gb * unit)
        assert acc.memory_bytes == pytest.approx(expected)
        assert acc.bandwidth_bytes_s == pytest.approx(acc.memory_bandwidth_tb_s * 1e12)


def test_every_accelerator_names_its_stack(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        assert acc.scale_up, acc.id
        assert acc.scale_out, acc.id
        assert acc.software, acc.id
        assert acc.architecture, acc.id


def test_missing_vendor_figures_are_explained(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        if acc.tdp_w is None or acc.fp8_dense_tflops is None:
            assert acc.note, f"{acc.id}: a null figure needs a note saying why"


@pytest.mark.parametrize("entry_id", ["tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"])
def test_tpu_power_is_not_published(catalog: Catalog, entry_id: str) -> None:
    acc = catalog.accelerators[entry_id]
    assert acc.tdp_w is None
    assert acc.scale_out == "ICI / DCN"
    assert acc.software is not None and "XLA" in acc.software


@pytest.mark.parametrize("entry_id", ["trainium1", "trainium2"])
def test_trainium_power_is_not_published(catalog: Catalog, entry_id: str) -> None:
    acc = catalog.accelerators[entry_id]
    assert acc.tdp_w is None
    assert acc.scale_out == "EFA"
    assert acc.software == "Neuron SDK"


@pytest.mark.parametrize("entry_id", ["gaudi2", "gaudi3"])
def test_gaudi_scales_out_over_on_chip_ethernet(catalog: Catalog, entry_id: str) -> None:
    acc = catalog.accelerators[entry_id]
    assert acc.scale_out is not None and "Ethernet" in acc.scale_out
    assert acc.software is not None and "Gaudi" in acc.software


def test_fractional_memory_comes_from_gib(catalog: Catalog) -> None:
    """A memory_gb that is not a whole number was converted from GiB, and the note says so."""
    for acc in catalog.accelerators:
        if acc.memory_gb != int(acc.memory_gb):
            assert acc.note is not None and "GiB" in acc.note, acc.id
            gib = round(acc.memory_gb / GIB_IN_GB)
            assert acc.memory_gb == pytest.approx(gib * GIB_IN_GB, abs=0.01), acc.id


def test_hopper_has_no_fp4_and_ampere_no_fp8(catalog: Catalog) -> None:
    assert catalog.accelerators["a100-80gb"].fp8_dense_tflops is None
    for entry_id in ("h100-sxm", "h100-pcie", "h200-sxm", "h200-nvl"):
        assert catalog.accelerators[entry_id].fp4_dense_tflops is None


# ----------------------------------------------------------------- interconnects


def test_network_ports_convert_bits_to_bytes(catalog: Catalog) -> None:
    for link in catalog.interconnects:
        if link.gbit_s is not None:
            assert link.direction == "per-direction", link.id
            assert link.bandwidth_gb_s == pytest.approx(link.gbit_s / 8), link.id


def test_scale_out_ports_are_per_direction(catalog: Catalog) -> None:
    for link in catalog.interconnects:
        if link.kind == "scale-out":
            assert link.direction == "per-direction", link.id
            assert link.gbit_s is not None, link.id


def test_nvlink_generations_double(catalog: Catalog) -> None:
    links = catalog.interconnects
    assert links["nvlink-4"].bandwidth_gb_s == 1.5 * links["nvlink-3"].bandwidth_gb_s
    assert links["nvlink-5"].bandwidth_gb_s == 2 * links["nvlink-4"].bandwidth_gb_s
    for entry_id in ("nvlink-3", "nvlink-4", "nvlink-5"):
        assert links[entry_id].direction == "bidirectional"


def test_interconnect_posts_are_known_slugs(catalog: Catalog) -> None:
    for link in catalog.interconnects:
        if link.post is not None:
            assert link.post in POST_SLUGS, link.id


def test_accelerator_scale_up_matches_its_link(catalog: Catalog) -> None:
    pairs = {
        "a100-80gb": "nvlink-3",
        "h100-sxm": "nvlink-4",
        "h200-sxm": "nvlink-4",
        "b200": "nvlink-5",
        "gb200": "nvlink-5",
        "mi300x": "infinity-fabric-mi300",
        "mi355x": "infinity-fabric-mi350",
        "tpu-v5p": "tpu-ici-v5p",
        "trainium2": "neuronlink-v3",
    }
    for acc_id, link_id in pairs.items():
        link = catalog.interconnects[link_id]
        assert link.direction == "bidirectional"
        assert catalog.accelerators[acc_id].scale_up_gb_s == link.bandwidth_gb_s, acc_id


# ----------------------------------------------------------------- systems


def test_system_accelerators_exist(catalog: Catalog) -> None:
    for system in catalog.systems:
        assert system.accelerator in catalog.accelerators, system.id
        if system.interconnect is not None:
            assert system.interconnect in catalog.interconnects, system.id
        assert system.post in POST_SLUGS, system.id


def test_system_memory_is_gpus_times_accelerator_memory(catalog: Catalog) -> None:
    for system in catalog.systems:
        acc = catalog.accelerators[system.accelerator]
        assert system.total_memory_gb == pytest.approx(system.gpus * acc.memory_gb, rel=1e-12), (
            system.id
        )


def test_system_scale_up_is_the_sum_over_gpus(catalog: Catalog) -> None:
    for system in catalog.systems:
        acc = catalog.accelerators[system.accelerator]
        if system.aggregate_scale_up_gb_s is not None and acc.scale_up_gb_s is not None:
            assert system.aggregate_scale_up_gb_s == pytest.approx(
                system.gpus * acc.scale_up_gb_s
            ), system.id


def test_nvlink_domain_never_exceeds_gpu_count(catalog: Catalog) -> None:
    for system in catalog.systems:
        if system.nvlink_domain is not None:
            assert 0 < system.nvlink_domain <= system.gpus, system.id
    assert catalog.systems["gb200-nvl72"].nvlink_domain == 72


def test_system_vendor_matches_accelerator_vendor(catalog: Catalog) -> None:
    for system in catalog.systems:
        assert system.vendor == catalog.accelerators[system.accelerator].vendor, system.id


# ----------------------------------------------------------------- models


def kv_bytes_per_token(model: Model, bytes_per_value: float) -> float:
    if model.attention == "mla":
        assert model.kv_lora_rank is not None and model.qk_rope_head_dim is not None
        return model.layers * (model.kv_lora_rank + model.qk_rope_head_dim) * bytes_per_value
    return 2 * model.layers * model.kv_heads * model.head_dim * bytes_per_value


def test_llama_31_8b_bf16_kv_cache_per_token_contract(catalog: Catalog) -> None:
    """The app's contract figure: 2 x 32 x 8 x 128 x 2 bytes."""
    assert kv_bytes_per_token(catalog.models["llama-3.1-8b"], 2) == 131072


def test_deepseek_v3_kv_cache_uses_mla(catalog: Catalog) -> None:
    model = catalog.models["deepseek-v3"]
    assert model.attention == "mla"
    assert kv_bytes_per_token(model, 2) == 61 * (512 + 64) * 2


def test_attention_kind_matches_head_counts(catalog: Catalog) -> None:
    for model in catalog.models:
        if model.attention == "mha":
            assert model.kv_heads == model.heads, model.id
        elif model.attention == "gqa":
            assert model.kv_heads < model.heads, model.id
            assert model.heads % model.kv_heads == 0, model.id
        else:
            assert model.kv_lora_rank is not None, model.id
            assert model.qk_rope_head_dim is not None, model.id


def test_heads_times_head_dim_is_hidden_size(catalog: Catalog) -> None:
    """Unless the config sets head_dim itself (gpt-oss 64 x 64 = 4,096 on a 2,880-wide
    model, Qwen3): those shapes are checked against their config.json in test_new_models."""
    configs = Path(__file__).resolve().parent / "hf_configs"
    for model in catalog.models:
        if model.attention != "mla" and not (configs / f"{model.id}.json").exists():
            assert model.heads * model.head_dim == model.hidden_size, model.id


def test_moe_models_have_fewer_active_parameters(catalog: Catalog) -> None:
    for model in catalog.models:
        if model.active_params_b is not None:
            assert model.active_params_b < model.params_b, model.id
    assert catalog.models["mixtral-8x7b"].active_params_b is not None
    assert catalog.models["deepseek-v3"].active_params_b is not None
    assert catalog.models["llama-3.1-70b"].active_params_b is None


def test_model_values_are_positive(catalog: Catalog) -> None:
    for model in catalog.models:
        assert model.params == pytest.approx(model.params_b * 1e9)
        assert model.context_length >= 2048, model.id
        assert model.vocab_size is not None and model.vocab_size > 0, model.id


def test_mla_without_latent_sizes_is_rejected() -> None:
    with pytest.raises(ValueError, match="kv_lora_rank"):
        Model(
            id="broken-mla",
            name="Broken MLA",
            sources=["https://example.org/config.json"],  # type: ignore[list-item]
            params_b=1,
            layers=2,
            hidden_size=64,
            heads=4,
            kv_heads=4,
            head_dim=16,
            context_length=128,
            attention="mla",
        )


def test_accelerator_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError):
        Accelerator.model_validate(
            {
                "id": "x",
                "name": "X",
                "vendor": "nvidia",
                "post": "h100",
                "year": 2024,
                "memory_gb": 1,
                "memory_type": "HBM3",
                "memory_bandwidth_tb_s": 1,
                "bf16_dense_tflops": 1,
                "fp8_sparse_tflops": 2,
                "sources": ["https://example.org"],
            }
        )


# ----------------------------------------------------------------- broken copies


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    folder.mkdir()
    shutil.copy(CONTENT / "hardware.yaml", folder / "hardware.yaml")
    shutil.copy(CONTENT / "models.yaml", folder / "models.yaml")
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_unmodified_copy_loads(tmp_path: Path) -> None:
    copy = load_catalog_from(_copy(tmp_path))
    assert copy.accelerators.ids() == load_catalog_from(CONTENT).accelerators.ids()


BREAKAGES: dict[str, Callable[[Path], object]] = {
    "pool-names-unknown-chip": lambda f: _edit(
        f / "hardware.yaml", "decode-compare: [h100-sxm,", "decode-compare: [h100-sxn,"),
    "post-names-unknown-chip": lambda f: _edit(
        f / "hardware.yaml", "h100: [h100-sxm, h100-pcie]", "h100: [h100-sxm, h100-pci]"),
    "bad-name-pattern": lambda f: _edit(f / "hardware.yaml", "name_pattern: 'A100'",
                                        "name_pattern: 'A100('"),
    "sparse-not-twice": lambda f: _edit(
        f / "hardware.yaml", "sparse_headline_tflops: {bf16: 624}",
        "sparse_headline_tflops: {bf16: 700}"),
    "fp4-over-twice-fp8": lambda f: _edit(
        f / "hardware.yaml", "fp4_dense_tflops: 9000", "fp4_dense_tflops: 13500"),
    "yaml-syntax": lambda f: _edit(f / "hardware.yaml", "accelerators:", "accelerators: ["),
    "negative-memory": lambda f: _edit(f / "hardware.yaml", "memory_gb: 80", "memory_gb: -80"),
    "missing-required-field": lambda f: _edit(
        f / "hardware.yaml", "    bf16_dense_tflops: 989\n", ""
    ),
    "unknown-field": lambda f: _edit(
        f / "hardware.yaml", "fp8_dense_tflops: 1979", "fp8_sparse_tflops: 3958"
    ),
    "non-http-source": lambda f: _edit(
        f / "hardware.yaml",
        "https://www.nvidia.com/en-us/data-center/h100/",
        "ftp://www.nvidia.com/h100",
    ),
    "no-sources": lambda f: _edit(
        f / "models.yaml",
        "    sources:\n      - https://arxiv.org/abs/2005.14165\n",
        "    sources: []\n",
    ),
    "duplicate-id": lambda f: _edit(f / "hardware.yaml", "id: h100-pcie", "id: h100-sxm"),
    "bad-attention": lambda f: _edit(f / "models.yaml", "attention: mha", "attention: sparse"),
    "mla-without-rank": lambda f: _edit(f / "models.yaml", "    kv_lora_rank: 512\n", ""),
    "missing-file": lambda f: (f / "models.yaml").unlink(),
    "not-a-mapping": lambda f: (f / "hardware.yaml").write_text("- just\n- a list\n"),
}


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_broken_copy_raises_catalog_error(tmp_path: Path, breakage: str) -> None:
    folder = _copy(tmp_path)
    BREAKAGES[breakage](folder)
    with pytest.raises(CatalogError):
        load_catalog_from(folder)
