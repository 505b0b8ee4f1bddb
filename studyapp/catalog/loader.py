"""Load content/*.yaml once into a typed, read-only catalog."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Generic, TypeVar

import yaml
from pydantic import ValidationError

from studyapp import locations
from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.models import (
    Accelerator,
    Entry,
    HardwareFile,
    Interconnect,
    Model,
    ModelsFile,
    System,
)

try:  # the C loader is ~10x faster; both are safe loaders
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - pure-Python PyYAML
    from yaml import SafeLoader  # type: ignore[assignment]

E = TypeVar("E", bound=Entry)


@dataclass(frozen=True)
class Table(Generic[E]):
    """Entries of one kind by id, in file order."""

    kind: str
    by_id: dict[str, E]

    def __getitem__(self, entry_id: str) -> E:
        try:
            return self.by_id[entry_id]
        except KeyError:
            raise UnknownIdError(self.kind, entry_id, list(self.by_id)) from None

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.by_id

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.by_id.values())

    def __len__(self) -> int:
        return len(self.by_id)

    def ids(self) -> list[str]:
        return list(self.by_id)


@dataclass(frozen=True)
class Catalog:
    """Everything the calculator and generators may draw from."""

    accelerators: Table[Accelerator]
    interconnects: Table[Interconnect]
    systems: Table[System]
    models: Table[Model]

    def table(self, name: str) -> Table[Entry]:
        """A table by its YAML key (``from: accelerators`` in a deck)."""
        tables: dict[str, Table[Entry]] = {
            "accelerators": self.accelerators,  # type: ignore[dict-item]
            "interconnects": self.interconnects,  # type: ignore[dict-item]
            "systems": self.systems,  # type: ignore[dict-item]
            "models": self.models,  # type: ignore[dict-item]
        }
        if name not in tables:
            raise UnknownIdError("catalog table", name, list(tables))
        return tables[name]


class CatalogError(ValueError):
    """The shipped catalog does not validate (a packaging or editing mistake)."""


def _index(kind: str, entries: list[E]) -> Table[E]:
    by_id: dict[str, E] = {}
    for entry in entries:
        if entry.id in by_id:
            raise CatalogError(f"duplicate {kind} id {entry.id!r}")
        by_id[entry.id] = entry
    return Table(kind, by_id)


def _read(path: Path) -> object:
    with path.open("rb") as fh:
        return yaml.load(fh, Loader=SafeLoader)


def load_catalog_from(folder: Path) -> Catalog:
    """Parse and validate hardware.yaml and models.yaml in ``folder``."""
    try:
        hardware = HardwareFile.model_validate(_read(folder / "hardware.yaml"))
        models = ModelsFile.model_validate(_read(folder / "models.yaml"))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"catalog in {folder} is invalid: {exc}") from exc
    return Catalog(
        accelerators=_index("accelerator", hardware.accelerators),
        interconnects=_index("interconnect", hardware.interconnects),
        systems=_index("system", hardware.systems),
        models=_index("model", models.models),
    )


@cache
def load_catalog() -> Catalog:
    """The shipped catalog, parsed once per process."""
    return load_catalog_from(locations.content_dir())
