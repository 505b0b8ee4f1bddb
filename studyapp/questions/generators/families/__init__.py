"""The built-in families, one module per area; importing registers them."""

from studyapp.questions.generators.families import accelerators, memory, network, training

__all__ = ["accelerators", "memory", "network", "training"]
