"""Typed catalog entries: the hardware and model figures every question uses.

Field names are a fixed contract (docs/architecture.md). Units are in the names:
``memory_gb`` is the capacity as the vendor prints it, read in ``memory_unit``
(a GiB on Hopper, Blackwell and MI300, decimal on Blackwell Ultra; the driver
total decides, see ``Accelerator.memory_bytes``),
``memory_bandwidth_tb_s`` is 10^12 bytes/s,
``*_tflops`` are dense (never sparse) 10^12 FLOP/s, ``scale_up_gb_s`` is
per chip with both directions summed.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studyapp.catalog.entry import Entry
from studyapp.catalog.measurements import Measurement

LARGEST = 1e9
"""No catalog figure is this large (in its field's unit): a bigger one is a typo."""

Precision = Literal["bf16", "fp8", "fp4"]

DEFAULT_SPARSITY = 2.0
"""2:4 structured sparsity: a vendor's "with sparsity" figure is twice the dense one."""

DEFAULT_FP4_PER_FP8 = 2.0
"""Dense FP4 is at most twice dense FP8 (half the bits), unless a chip says otherwise."""

DEFAULT_FP8_PER_BF16 = 2.0
"""Dense FP8 is at most twice dense BF16, unless a chip says otherwise."""



Vendor = Literal["nvidia", "amd", "google", "aws", "intel"]
MemoryUnit = Literal["GiB", "GB"]
MEMORY_UNIT_BYTES: dict[str, float] = {"GiB": 2.0**30, "GB": 1e9}


class Accelerator(Entry):
    """One accelerator chip as its vendor publishes it."""

    vendor: Vendor
    post: str
    year: int = Field(ge=2015, le=2030)
    architecture: str | None = None
    memory_gb: float = Field(gt=0, le=LARGEST)
    memory_type: str
    memory_bandwidth_tb_s: float = Field(gt=0, le=LARGEST)
    bf16_dense_tflops: float = Field(gt=0, le=LARGEST)
    fp8_dense_tflops: float | None = Field(default=None, gt=0, le=LARGEST)
    fp4_dense_tflops: float | None = Field(default=None, gt=0, le=LARGEST)
    tdp_w: float | None = Field(default=None, gt=0, le=LARGEST)
    scale_up: str | None = None
    scale_up_gb_s: float | None = Field(default=None, gt=0, le=LARGEST)
    scale_out: str | None = None
    software: str | None = None
    form_factor: str | None = None
    sparse_headline_tflops: dict[Literal["bf16", "fp8", "fp4"], float] | None = None
    """The vendor's printed "with sparsity" figures by precision (never used as dense)."""
    memory_unit: MemoryUnit = "GiB"
    """The unit ``memory_gb`` is really in, as the driver total shows: a GiB on Hopper,
    Blackwell and MI300 (the default for HBM), decimal on Blackwell Ultra (B300's
    288 GB: nvidia-smi 275,040 MiB = 288.4 GB); other memory types default to 10^9 bytes."""
    driver_memory_mib: int | None = Field(default=None, gt=0)
    """Total memory as the driver reports it (nvidia-smi, rocm-smi) in MiB, where published."""

    @model_validator(mode="before")
    @classmethod
    def _default_memory_unit(cls, data: Any) -> Any:
        """HBM capacity defaults to GiB, any other memory type to decimal GB."""
        if isinstance(data, dict) and data.get("memory_unit") is None:
            hbm = str(data.get("memory_type", "")).upper().startswith("HBM")
            data = {**data, "memory_unit": "GiB" if hbm else "GB"}
        return data

    @property
    def nominal_memory_bytes(self) -> float:
        """``memory_gb`` in bytes, read in its real unit (80 GB of HBM = 80 × 2^30 bytes)."""
        return self.memory_gb * MEMORY_UNIT_BYTES[self.memory_unit]

    @property
    def memory_bytes(self) -> float:
        """The capacity every fit is computed against: the driver-reported total where one
        is published, else the vendor's figure in its real unit."""
        if self.driver_memory_mib is not None:
            return float(self.driver_memory_mib * 2**20)
        return self.nominal_memory_bytes

    @property
    def bandwidth_bytes_s(self) -> float:
        return self.memory_bandwidth_tb_s * 1e12

    def dense_tflops(self, dtype: str) -> float | None:
        """The chip's published dense rate for ``dtype``, or None where it has none.

        FP16 runs at the BF16 rate and INT8/INT4 at FP8/FP4's; nothing else borrows
        another precision's rate (an A100 has no FP8 units, FP32 is not BF16)."""
        rates = {"bf16": self.bf16_dense_tflops, "fp16": self.bf16_dense_tflops,
                 "fp8": self.fp8_dense_tflops, "int8": self.fp8_dense_tflops,
                 "fp4": self.fp4_dense_tflops, "int4": self.fp4_dense_tflops}
        return rates.get(dtype)

    # --- exceptions to the precision rules, and how texts name the chip

    name_pattern: str | None = None
    """How a text names this chip: a regular expression (\\b-bounded when matched).

    Also inside system names (HGX H100 names the H100); the audit's on-topic check reads it."""
    sparsity_factor: dict[Precision, float] | None = None
    """Printed "with sparsity" over dense, by precision, where it is not 2 (2:4 sparsity).

    Blackwell Ultra prints 20 PF FP4 with sparsity over 15 PF dense: 4/3, not 2."""
    fp4_per_fp8: float | None = Field(default=None, gt=0, le=16)
    """Dense FP4 over dense FP8 where it is not at most 2 (Blackwell Ultra: 3)."""
    fp8_per_bf16: float | None = Field(default=None, gt=0, le=16)
    """Dense FP8 over dense BF16 where it is over 2: Trainium3 runs MXFP8 at 2,517 TFLOPS
    and BF16 at 671 (3.75), so a bigger jump there is the chip, not a sparse figure (the
    shipped catalog states it; a learner's catalog may leave it out)."""
    scale_up_peers: int | None = Field(default=None, gt=0, le=1024)
    """A point-to-point mesh (Infinity Fabric, Gaudi's on-chip RoCE): ``scale_up_gb_s`` is
    split evenly over links to this many peers, so a group of n chips reaches only
    min(n − 1, peers) of them (two MI355X share one 153.6 GB/s link, not 1,075 GB/s)."""

    @field_validator("name_pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"name_pattern is not a regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _precision_rules(self) -> Accelerator:
        """Sparse headlines are dense x the sparsity factor; FP4 stays within its FP8 ratio."""
        for precision, printed in (self.sparse_headline_tflops or {}).items():
            dense = getattr(self, f"{precision}_dense_tflops")
            factor = self.sparsity(precision)
            if dense is not None and self.vendor in ("nvidia", "amd") and not (
                    abs(printed - dense * factor) <= 0.03 * dense * factor):
                raise ValueError(
                    f"{precision} with sparsity {printed:g} is not {factor:g} x dense {dense:g};"
                    f" give sparsity_factor.{precision} if the vendor's ratio differs")
        if self.fp8_dense_tflops is not None and self.fp8_per_bf16 is not None and abs(
                self.fp8_dense_tflops - self.fp8_per_bf16 * self.bf16_dense_tflops
        ) > 0.01 * self.fp8_dense_tflops:
            raise ValueError(f"fp8_per_bf16 {self.fp8_per_bf16:g} does not match fp8 / bf16 dense")
        if self.fp4_dense_tflops is not None and self.fp8_dense_tflops is not None:
            ratio = self.fp4_per_fp8 or DEFAULT_FP4_PER_FP8
            if self.fp4_dense_tflops > ratio * self.fp8_dense_tflops * 1.001:
                raise ValueError(
                    f"fp4 dense {self.fp4_dense_tflops:g} is over {ratio:g} x fp8 dense"
                    f" {self.fp8_dense_tflops:g} (a sparse figure?); give fp4_per_fp8 if the"
                    " chip's dense FP4 really is faster")
            expected = ratio * self.fp8_dense_tflops
            if self.fp4_per_fp8 is not None and abs(
                    self.fp4_dense_tflops - expected) > 0.01 * self.fp4_dense_tflops:
                raise ValueError(f"fp4_per_fp8 {ratio:g} does not match fp4 / fp8 dense")
        return self

    def sparsity(self, precision: str) -> float:
        """Printed "with sparsity" over dense for ``precision`` (2 unless the chip says)."""
        for name, factor in (self.sparsity_factor or {}).items():
            if name == precision:
                return factor
        return DEFAULT_SPARSITY


class Interconnect(Entry):
    """A link or network port; ``bandwidth_gb_s`` in GB/s (bytes)."""

    kind: Literal["scale-up", "scale-out", "host"]
    bandwidth_gb_s: float = Field(gt=0, le=LARGEST)
    direction: Literal["per-direction", "bidirectional"]
    gbit_s: float | None = Field(default=None, gt=0, le=LARGEST)
    year: int | None = None
    post: str | None = None
    peers: int | None = Field(default=None, gt=0, le=LARGEST)
    """In a point-to-point mesh: how many peers the per-chip total is split over."""
    per_peer_gb_s: float | None = Field(default=None, gt=0, le=LARGEST)
    """In a mesh: one link to one peer, both directions summed (what one transfer can use)."""


class System(Entry):
    """A node or rack built from several accelerators."""

    vendor: Vendor
    post: str
    gpus: int = Field(gt=0, le=LARGEST)
    accelerator: str
    total_memory_gb: float = Field(gt=0, le=LARGEST)
    interconnect: str | None = None
    aggregate_scale_up_gb_s: float | None = Field(default=None, gt=0, le=LARGEST)
    nvlink_domain: int | None = None
    cpus: str | None = None
    nics_per_node: int | None = Field(default=None, gt=0, le=LARGEST)
    """Network cards of the node's compute (east-west) fabric; NCCL opens a ring per card."""
    nic_gbit_s: float | None = Field(default=None, gt=0, le=LARGEST)
    """Each of those cards' line rate in Gb/s per direction (400 for NDR / ConnectX-7)."""


Attention = Literal["mha", "gqa", "mla"]


class Model(Entry):
    """A language model's shape from its published config."""

    params_b: float = Field(gt=0, le=LARGEST)
    active_params_b: float | None = Field(default=None, gt=0, le=LARGEST)
    layers: int = Field(gt=0, le=LARGEST)
    hidden_size: int = Field(gt=0, le=LARGEST)
    heads: int = Field(gt=0, le=LARGEST)
    kv_heads: int = Field(gt=0, le=LARGEST)
    head_dim: int = Field(gt=0, le=LARGEST)
    context_length: int = Field(gt=0, le=LARGEST)
    attention: Attention
    kv_lora_rank: int | None = Field(default=None, gt=0, le=LARGEST)
    qk_rope_head_dim: int | None = Field(default=None, gt=0, le=LARGEST)
    index_head_dim: int | None = Field(default=None, gt=0, le=LARGEST)
    """DeepSeek sparse attention (V3.2): the lightning indexer's key width; every token keeps
    one such key per layer beside its MLA latent (config ``index_head_dim``)."""
    index_n_heads: int | None = Field(default=None, gt=0, le=LARGEST)
    """DeepSeek sparse attention: the indexer's query heads (config ``index_n_heads``); they
    share the one cached key, so they add parameters, not KV cache."""
    vocab_size: int | None = Field(default=None, gt=0, le=LARGEST)
    year: int | None = None
    family: str | None = None
    sliding_window: int | None = Field(default=None, gt=0, le=LARGEST)
    """Most tokens a windowed layer keeps in its KV cache, where the config sets one: a
    sliding window (Mistral, gpt-oss) or an attention chunk (Llama 4's 8,192)."""
    experts: int | None = Field(default=None, gt=1)
    """MoE: routed experts per layer (config ``num_local_experts`` / ``n_routed_experts``)."""
    experts_per_token: int | None = Field(default=None, gt=0)
    """MoE: experts the router picks for each token (``num_experts_per_tok``)."""

    @model_validator(mode="after")
    def _attention_shape(self) -> Model:
        """MLA needs its latent sizes; K/V heads never outnumber query heads."""
        if self.attention == "mla" and (
            self.kv_lora_rank is None or self.qk_rope_head_dim is None
        ):
            raise ValueError(
                f"model {self.id}: attention mla needs kv_lora_rank and qk_rope_head_dim"
            )
        if self.index_head_dim is not None and self.attention != "mla":
            raise ValueError(f"model {self.id}: index_head_dim (DeepSeek's indexer) needs mla")
        if (self.experts is None) != (self.experts_per_token is None):
            raise ValueError(f"model {self.id}: experts and experts_per_token go together")
        if self.experts and self.experts_per_token and self.experts_per_token > self.experts:
            raise ValueError(f"model {self.id}: experts_per_token > experts")
        if self.kv_heads > self.heads:
            raise ValueError(f"model {self.id}: kv_heads {self.kv_heads} > heads {self.heads}")
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.layers:
            raise ValueError(f"model {self.id}: sliding_window_layers > layers")
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"model {self.id}: active_params_b {self.active_params_b:g}"
                             f" > params_b {self.params_b:g}")
        return self

    @property
    def params(self) -> float:
        return self.params_b * 1e9

    # --- what the published checkpoint and config add

    sliding_window_layers: int | None = Field(default=None, gt=0, le=100_000)
    """How many layers attend within ``sliding_window`` where not all do (gpt-oss
    alternates: 18 of 36, config.json ``layer_types``; Llama 4 chunks its 36 RoPE layers
    of 48, ``no_rope_layers``); the others attend to everything."""
    weights_dtype: str | None = None
    """The dtype the published checkpoint stores its weights in, as published (bf16, fp8, mxfp4)."""
    checkpoint_gib: float | None = Field(default=None, gt=0, le=LARGEST)
    """The published checkpoint's size in GiB where the publisher prints it."""


PoolName = Literal["decode-compare", "training"]


class CatalogFile(BaseModel):
    """One catalog file: the shipped hardware.yaml or models.yaml, or a user's catalog.yaml.

    Beside the entries, the catalog's own facts: ``posts`` names the chips each hardware
    post is about (the audit's on-topic check), ``pools`` the default chips of the
    generator families that compare many.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    accelerators: list[Accelerator] = []
    interconnects: list[Interconnect] = []
    systems: list[System] = []
    models: list[Model] = []
    measurements: list[Measurement] = []
    posts: dict[str, list[str]] = {}
    pools: dict[PoolName, list[str]] = {}


HardwareFile = CatalogFile
ModelsFile = CatalogFile
