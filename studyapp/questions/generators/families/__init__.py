"""The built-in families, one module per topic, registered in one explicit order.

``registered_families()`` lists them in this order (memory, serving, accelerators,
roofline, conceptual, network, systems, training, then the
scenarios and the predict-then-check families of ``measured``); a new family goes here.

A family is a function ``draw(ctx, options) -> Question`` (``accelerators.decode_ceiling``
is a good one to copy): ``random.Random(ctx.seed)`` for its draws, ``ctx.num``,
``ctx.shown``, ``ctx.t`` for its words, ``ctx.question(...)`` for the question (no
``post=`` or ``family=``: the registration writes them). Its ``Family(...,
generate=drawn(draw), options={...})`` names its options; each option name needs a
kind in ``generators.options.KINDS`` (a test checks it) and a ``gen.opt.<name>``
string, so ``generate FAMILY --options`` can list it and check what is given.
"""

from studyapp.questions.generators import Family, register
from studyapp.questions.generators.families import (
    accelerators,
    conceptual,
    measured,
    memory,
    network,
    roofline,
    scenarios,
    serving,
    systems,
    tensor_parallel,
    training,
)

FAMILIES: tuple[Family, ...] = (
    memory.WEIGHTS_SIZE,
    serving.FITS_ON_GPU,
    serving.MIN_GPUS,
    memory.KV_CACHE_PER_TOKEN,
    memory.KV_CACHE_TOTAL,
    serving.MAX_CONTEXT_THAT_FITS,
    memory.GB_VS_GIB,
    accelerators.DECODE_CEILING,
    accelerators.DECODE_COMPARE,
    roofline.RIDGE_POINT,
    roofline.COMPUTE_OR_MEMORY_BOUND,
    roofline.PREFILL_TIME,
    accelerators.LOW_PRECISION_SPEEDUP,
    accelerators.PERF_PER_WATT,
    conceptual.CHIP_RANKING,
    conceptual.MEMORY_TYPE,
    conceptual.SCALE_UP_FABRIC,
    conceptual.SOFTWARE_STACK,
    conceptual.DENSE_VS_SPARSE,
    conceptual.BOTTLENECK,
    network.LINK_TRANSFER,
    network.BITS_VS_BYTES,
    network.RING_ALLREDUCE,
    tensor_parallel.TP_ALLREDUCE,
    network.GAUDI_ETHERNET,
    systems.HGX_NODE_TOTALS,
    systems.NVL72_RACK_TOTALS,
    systems.TRAINIUM_SERVER_TOTALS,
    systems.TPU_POD,
    training.TRAINING_DAYS,
    training.TRAINING_MEMORY,
    *training.STORAGE_FAMILIES,
    *scenarios.SCENARIOS,
    *measured.MEASURED,
)

for _family in FAMILIES:
    register(_family)

__all__ = [
    "FAMILIES", "accelerators", "conceptual", "measured", "memory", "network", "roofline",
    "scenarios", "serving", "systems", "tensor_parallel", "training",
]
