"""Bridge from catalog models to calculator shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studyapp.infra.calc import ModelInput, published_dtype
from studyapp.infra.memory import KVShape
from studyapp.infra.network import per_direction
from studyapp.infra.units import GB, gbit_to_bytes_per_s

if TYPE_CHECKING:  # the catalog's models need pydantic; this module only reads their fields
    from studyapp.catalog.models import Interconnect, Model


def active_params(model: Model) -> float:
    """Parameters that compute for each token: the active ones of a mixture of experts."""
    return (model.active_params_b or model.params_b) * 1e9


def kv_shape(model: Model) -> KVShape:
    """The KV cache shape a model's config implies (MLA when it has a latent rank)."""
    if model.attention == "mla":
        return KVShape(layers=model.layers, kv_lora_rank=model.kv_lora_rank,
                       qk_rope_head_dim=model.qk_rope_head_dim,
                       index_head_dim=model.index_head_dim)
    return KVShape(layers=model.layers, kv_heads=model.kv_heads, head_dim=model.head_dim)


def model_input(model: Model) -> ModelInput:
    """Everything the calculator reads of a catalog model, one place for every face: shape,
    experts, sliding window and the published weights (format and checkpoint size)."""
    return ModelInput(model.id, model.params, kv_shape(model), model.attention,
                      active_params=model.active_params_b and model.active_params_b * 1e9,
                      experts=model.experts, experts_per_token=model.experts_per_token,
                      sliding_window=model.sliding_window,
                      sliding_window_layers=model.sliding_window_layers,
                      weights_dtype=published_dtype(model.weights_dtype),
                      checkpoint_bytes=model.checkpoint_gib and model.checkpoint_gib * 2**30,
                      context_length=model.context_length)


def one_way_bytes_s(link: Interconnect) -> float:
    """Bytes/s each way to one peer: a port's Gb/s over 8, half of one mesh link's
    both-ways figure, or half a switched link's both-ways total (NVLink 4's 900 GB/s is
    450 each way)."""
    if link.gbit_s:
        return gbit_to_bytes_per_s(link.gbit_s)
    if link.per_peer_gb_s:
        return per_direction(link.per_peer_gb_s * GB, "bidirectional")
    return per_direction(link.bandwidth_gb_s * GB, link.direction)
