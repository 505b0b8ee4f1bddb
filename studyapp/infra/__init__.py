"""The calculator: pure functions in SI units (bytes, seconds, bytes/s, FLOP/s).

No I/O and no UI: the CLI, the generators and the TUI calculator all compute
through these functions, so a figure is computed one way everywhere.
"""

from studyapp.infra.compute import (
    Decode,
    attainable_flops,
    decode,
    decode_flops,
    experts_touched,
    forward_flops,
    is_compute_bound,
    kv_tokens,
    kv_tokens_per_layer,
    moe_params_read,
    prefill_seconds,
    ridge_point,
    training_flops,
    training_memory_bytes,
    training_seconds,
)
from studyapp.infra.memory import (
    DEFAULT_USABLE_FRACTION,
    Fit,
    KVShape,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    max_tokens_that_fit,
    min_devices,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.network import per_direction, ring_allreduce_seconds
from studyapp.infra.storage import (
    checkpoint_bytes,
    cluster_mtbf_seconds,
    transfer_seconds,
    young_daly_interval,
)
from studyapp.infra.units import DTYPE_BYTES, UnknownDtypeError, dtype_bytes

__all__ = [
    "DEFAULT_USABLE_FRACTION",
    "DTYPE_BYTES",
    "Decode",
    "Fit",
    "KVShape",
    "UnknownDtypeError",
    "attainable_flops",
    "checkpoint_bytes",
    "cluster_mtbf_seconds",
    "decode",
    "decode_flops",
    "dtype_bytes",
    "experts_touched",
    "fit",
    "forward_flops",
    "is_compute_bound",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "kv_tokens",
    "kv_tokens_per_layer",
    "max_tokens_that_fit",
    "min_devices",
    "moe_params_read",
    "per_direction",
    "prefill_seconds",
    "ridge_point",
    "ring_allreduce_seconds",
    "training_flops",
    "training_memory_bytes",
    "training_seconds",
    "transfer_seconds",
    "usable_bytes",
    "weights_bytes",
    "young_daly_interval",
]
