"""The built-in families, one module per area; importing registers them."""

from studyapp.questions.generators.families import (
    accelerators,
    conceptual,
    memory,
    network,
    systems,
    training,
)

__all__ = ["accelerators", "conceptual", "memory", "network", "systems", "training"]
