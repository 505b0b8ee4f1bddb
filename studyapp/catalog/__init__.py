"""Hardware and model catalog: typed, validated, cited.

Names are imported on first use (PEP 562), so reading posts' front matter
for the home screen does not load pydantic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studyapp.catalog.errors import UnknownIdError
    from studyapp.catalog.loader import (
        Catalog,
        CatalogError,
        Finding,
        Table,
        load_catalog,
        load_catalog_from,
        user_catalog_path,
    )
    from studyapp.catalog.models import Accelerator, Interconnect, Model, System

_WHERE = {
    "Catalog": "loader", "CatalogError": "loader", "Table": "loader", "Finding": "loader",
    "user_catalog_path": "loader",
    "UnknownIdError": "errors", "load_catalog": "loader", "load_catalog_from": "loader",
    "Accelerator": "models", "Interconnect": "models", "Model": "models", "System": "models",
}

__all__ = [
    "Accelerator",
    "Catalog",
    "CatalogError",
    "Finding",
    "Interconnect",
    "Model",
    "System",
    "Table",
    "UnknownIdError",
    "load_catalog",
    "load_catalog_from",
    "user_catalog_path",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'studyapp.catalog' has no attribute {name!r}")
    value = getattr(import_module(f"studyapp.catalog.{module}"), name)
    globals()[name] = value
    return value
