"""Bridge from catalog models to calculator shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studyapp.infra.memory import KVShape

if TYPE_CHECKING:  # the catalog's models need pydantic; this module only reads their fields
    from studyapp.catalog.models import Model


def kv_shape(model: Model) -> KVShape:
    """The KV cache shape a model's config implies (MLA when it has a latent rank)."""
    if model.attention == "mla":
        return KVShape(layers=model.layers, kv_lora_rank=model.kv_lora_rank,
                       qk_rope_head_dim=model.qk_rope_head_dim)
    return KVShape(layers=model.layers, kv_heads=model.kv_heads, head_dim=model.head_dim)
