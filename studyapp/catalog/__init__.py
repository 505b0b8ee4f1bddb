"""Hardware and model catalog: typed, validated, cited."""

from studyapp.catalog.loader import (
    Catalog,
    CatalogError,
    Table,
    UnknownIdError,
    load_catalog,
    load_catalog_from,
)
from studyapp.catalog.models import Accelerator, Interconnect, Model, System

__all__ = [
    "Accelerator",
    "Catalog",
    "CatalogError",
    "Interconnect",
    "Model",
    "System",
    "Table",
    "UnknownIdError",
    "load_catalog",
    "load_catalog_from",
]
