"""Bridge from catalog models to calculator shapes."""

from __future__ import annotations

from studyapp.catalog.models import Model
from studyapp.infra.memory import KVShape


def kv_shape(model: Model) -> KVShape:
    """The KV cache shape a model's config implies (MLA when it has a latent rank)."""
    if model.attention == "mla":
        return KVShape(layers=model.layers, kv_lora_rank=model.kv_lora_rank,
                       qk_rope_head_dim=model.qk_rope_head_dim)
    return KVShape(layers=model.layers, kv_heads=model.kv_heads, head_dim=model.head_dim)
