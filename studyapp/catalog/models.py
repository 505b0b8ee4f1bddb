"""Typed catalog entries: the hardware and model figures every question uses.

Field names are a fixed contract (DESIGN.md). Units are in the names:
``memory_gb`` is the capacity as the vendor prints it, read in ``memory_unit``
(HBM "GB" are binary, GiB; see ``Accelerator.memory_bytes``),
``memory_bandwidth_tb_s`` is 10^12 bytes/s,
``*_tflops`` are dense (never sparse) 10^12 FLOP/s, ``scale_up_gb_s`` is
per chip with both directions summed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator, model_validator


class Entry(BaseModel):
    """Every catalog entry has an id, a display name and sources."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    sources: list[HttpUrl] = Field(min_length=1)
    note: str | None = None

    @field_validator("sources")
    @classmethod
    def _http_only(cls, value: list[HttpUrl]) -> list[HttpUrl]:
        for url in value:
            if url.scheme not in ("http", "https"):
                raise ValueError(f"source {url} is not an http(s) URL")
        return value


Vendor = Literal["nvidia", "amd", "google", "aws", "intel"]
MemoryUnit = Literal["GiB", "GB"]
MEMORY_UNIT_BYTES: dict[str, float] = {"GiB": 2.0**30, "GB": 1e9}


class Accelerator(Entry):
    """One accelerator chip as its vendor publishes it."""

    vendor: Vendor
    post: str
    year: int = Field(ge=2015, le=2030)
    architecture: str | None = None
    memory_gb: float = Field(gt=0)
    memory_type: str
    memory_bandwidth_tb_s: float = Field(gt=0)
    bf16_dense_tflops: float = Field(gt=0)
    fp8_dense_tflops: float | None = Field(default=None, gt=0)
    fp4_dense_tflops: float | None = Field(default=None, gt=0)
    tdp_w: float | None = Field(default=None, gt=0)
    scale_up: str | None = None
    scale_up_gb_s: float | None = Field(default=None, gt=0)
    scale_out: str | None = None
    software: str | None = None
    form_factor: str | None = None
    sparse_headline_tflops: dict[Literal["bf16", "fp8", "fp4"], float] | None = None
    """The vendor's printed "with sparsity" figures by precision (never used as dense)."""
    memory_unit: MemoryUnit = "GiB"
    """The unit ``memory_gb`` is really in: HBM is built in binary sizes, so a vendor's
    HBM "GB" is a GiB (the default for HBM); other memory types default to 10^9 bytes."""
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


class Interconnect(Entry):
    """A link or network port; ``bandwidth_gb_s`` in GB/s (bytes)."""

    kind: Literal["scale-up", "scale-out", "host"]
    bandwidth_gb_s: float = Field(gt=0)
    direction: Literal["per-direction", "bidirectional"]
    gbit_s: float | None = Field(default=None, gt=0)
    year: int | None = None
    post: str | None = None
    peers: int | None = Field(default=None, gt=0)
    """In a point-to-point mesh: how many peers the per-chip total is split over."""
    per_peer_gb_s: float | None = Field(default=None, gt=0)
    """In a mesh: one link to one peer, both directions summed (what one transfer can use)."""


class System(Entry):
    """A node or rack built from several accelerators."""

    vendor: Vendor
    post: str
    gpus: int = Field(gt=0)
    accelerator: str
    total_memory_gb: float = Field(gt=0)
    interconnect: str | None = None
    aggregate_scale_up_gb_s: float | None = Field(default=None, gt=0)
    nvlink_domain: int | None = None
    cpus: str | None = None


Attention = Literal["mha", "gqa", "mla"]


class Model(Entry):
    """A language model's shape from its published config."""

    params_b: float = Field(gt=0)
    active_params_b: float | None = Field(default=None, gt=0)
    layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    context_length: int = Field(gt=0)
    attention: Attention
    kv_lora_rank: int | None = Field(default=None, gt=0)
    qk_rope_head_dim: int | None = Field(default=None, gt=0)
    vocab_size: int | None = Field(default=None, gt=0)
    year: int | None = None
    family: str | None = None
    sliding_window: int | None = Field(default=None, gt=0)
    """Tokens each layer attends to (and keeps in its KV cache), where the config sets one."""
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
        if (self.experts is None) != (self.experts_per_token is None):
            raise ValueError(f"model {self.id}: experts and experts_per_token go together")
        if self.experts and self.experts_per_token and self.experts_per_token > self.experts:
            raise ValueError(f"model {self.id}: experts_per_token > experts")
        if self.kv_heads > self.heads:
            raise ValueError(f"model {self.id}: kv_heads {self.kv_heads} > heads {self.heads}")
        return self

    @property
    def params(self) -> float:
        return self.params_b * 1e9


class HardwareFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accelerators: list[Accelerator]
    interconnects: list[Interconnect] = []
    systems: list[System] = []


class ModelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: list[Model]
