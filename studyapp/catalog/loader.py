"""Load content/*.yaml (and the user's catalog.yaml) once into a typed, read-only catalog.

A file that cannot be used raises ``CatalogError`` with every reason found, each
tied to the file and the place in its data (``accelerators.7.fp4_dense_tflop``).
``studyapp.decks.catalog_check`` turns those into ``file:line:col: what is wrong``
in the reader's language, for ``studyapp catalog validate`` and every command.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studyapp import locations
from studyapp.catalog.entry import Entry
from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.measurements import Measurement
from studyapp.catalog.models import (
    Accelerator,
    CatalogFile,
    Interconnect,
    Model,
    System,
)
from studyapp.catalog.plausible import plausibility
from studyapp.files import FileRefused, read_regular

try:  # the C loader is ~10x faster; both are safe loaders
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - pure-Python PyYAML
    from yaml import SafeLoader  # type: ignore[assignment]

E = TypeVar("E", bound=Entry)

SHIPPED_FILES = ("hardware.yaml", "models.yaml")
MEASUREMENTS_FILE = "measurements.yaml"
"""Published measurements: shipped beside the others, optional in a copied catalog folder."""
USER_FILE = "catalog.yaml"
TABLES = ("accelerators", "interconnects", "systems", "models")
MAX_FILE_BYTES = 5_000_000
"""5 MB: a catalog file larger than this is refused unread (the shipped ones are far smaller)."""
MAX_NODES = 200_000
"""Values a catalog file may hold once aliases are expanded (an alias bomb stops here)."""

Loc = tuple[str | int, ...]


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
    post_chips: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """The chips each hardware post is about (``posts:`` in hardware.yaml)."""
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Default chip pools of the families that compare many (``pools:``)."""
    files: tuple[Path, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    """Published measurements of the chips (``measurements.yaml``), in file order."""

    def measured(self, entry_id: str) -> list[Measurement]:
        """The published measurements of one chip or system."""
        return [m for m in self.measurements if entry_id in (m.chip, m.system)]

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

    def chip_patterns(self) -> dict[str, str]:
        """How a text names each accelerator (``name_pattern``), by id."""
        return {a.id: a.name_pattern for a in self.accelerators if a.name_pattern}

    def pool(self, name: str) -> list[str]:
        """A default pool's chips that are in the catalog, in the pool's order."""
        return [c for c in self.pools.get(name, ()) if c in self.accelerators]


@dataclass(frozen=True)
class Finding:
    """One reason a catalog file is unusable: the file, where in its data, and why.

    ``key`` names the words in ``decks.problem.catalog.*`` (with ``fields``) when
    studyapp composed them; ``line``/``col`` are set when the place is not a data path
    (a YAML syntax error).
    """

    file: Path
    loc: Loc
    message: str
    key: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}:{self.col}: {self.message}"
        where = ".".join(str(part) for part in self.loc)
        return f"{self.file}: {where + ': ' if where else ''}{self.message}"


class CatalogError(ValueError):
    """A catalog file (shipped or the user's) that does not validate; every reason found."""

    def __init__(self, findings: Sequence[Finding], read: Sequence[Path] = ()) -> None:
        self.findings = list(findings)
        self.read = list(read)
        super().__init__("\n".join(str(f) for f in self.findings) or "invalid catalog")

    @property
    def files(self) -> list[Path]:
        """Every file read together (ids must not clash across them), else the bad ones."""
        return self.read or list(dict.fromkeys(f.file for f in self.findings))


def _count(root: Node) -> None:
    """Refuse a node graph that expands past ``MAX_NODES`` values (aliases share nodes)."""
    seen = 0
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise _TooLarge
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    if key.value in keys:
                        raise _Duplicate(key)
                    keys.add(key.value)
                stack.append(key)
                stack.append(value)


class _TooLarge(Exception):
    pass


class _Duplicate(Exception):
    """A mapping names a key twice (YAML would keep the last one silently)."""

    def __init__(self, key: ScalarNode) -> None:
        self.key = key


def read_file(path: Path) -> object:
    """The data of one catalog file; ``CatalogError`` for what cannot be read."""
    try:
        text = read_regular(path, MAX_FILE_BYTES, what="catalog file").decode("utf-8")
    except FileRefused as exc:
        reason = (str(exc) if exc.reason == "too_large" else
                  exc.detail or "not a regular file (a device, pipe, socket or folder)")
        raise CatalogError([Finding(path, (), f"cannot read the file: {reason}", "unreadable",
                                    (("reason", reason),), 1, 1)]) from None
    except UnicodeDecodeError as exc:
        raise CatalogError([Finding(path, (), f"not UTF-8 text: {exc.reason}", "unreadable",
                                    (("reason", "not UTF-8 text"),), 1, 1)]) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise CatalogError([Finding(path, (), f"cannot read the file: {reason}", "unreadable",
                                    (("reason", reason),), 1, 1)]) from None
    loader = SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _count(root)
        return loader.construct_document(root)
    except _Duplicate as dup:
        mark = dup.key.start_mark
        raise CatalogError([Finding(path, (), f"duplicate key {dup.key.value!r}",
                                    line=mark.line + 1, col=mark.column + 1)]) from None
    except _TooLarge:
        raise CatalogError([Finding(path, (), f"more than {MAX_NODES} values (aliases?)",
                                    "too_many", (("limit", str(MAX_NODES)),), 1, 1)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        detail = " ".join(p for p in (exc.context, exc.problem) if p) or str(exc)
        raise CatalogError([Finding(path, (), detail, line=line, col=col)]) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise CatalogError([Finding(path, (), str(exc), line=1, col=1)]) from None
    finally:
        loader.dispose()


def validate_data(path: Path, data: object) -> CatalogFile:
    """One file's data as a ``CatalogFile``; ``CatalogError`` with every schema problem."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CatalogError([Finding(path, (), "expected a mapping with accelerators,"
                                    " interconnects, systems, models, posts or pools",
                                    "not_mapping")])
    try:
        return CatalogFile.model_validate(data)
    except ValidationError as exc:
        findings = [Finding(path, tuple(item["loc"]), item["msg"])
                    for item in exc.errors(include_url=False)]
        raise CatalogError(findings) from None


def cross_check(files: Sequence[tuple[Path, CatalogFile]]) -> list[Finding]:
    """What no one file shows: duplicate ids, references to ids no file defines; and
    figures no real part has (``plausible``)."""
    findings: list[Finding] = []
    seen: dict[tuple[str, str], Path] = {}
    ids: dict[str, set[str]] = {table: set() for table in TABLES}
    for path, data in files:
        for table in TABLES:
            for i, entry in enumerate(getattr(data, table)):
                first = seen.get((table, entry.id))
                if first is not None:
                    findings.append(Finding(
                        path, (table, i, "id"),
                        f"duplicate {table[:-1]} id {entry.id!r} (first in {first})",
                        "duplicate_id", (("kind", table[:-1]), ("id", entry.id),
                                         ("first", str(first)))))
                else:
                    seen[(table, entry.id)] = path
                    ids[table].add(entry.id)

    measured: dict[str, Path] = {}
    for path, data in files:
        for i, measurement in enumerate(data.measurements):
            if measurement.id in measured:
                findings.append(Finding(
                    path, ("measurements", i, "id"),
                    f"duplicate measurement id {measurement.id!r} (first in "
                    f"{measured[measurement.id]})", "duplicate_id",
                    (("kind", "measurement"), ("id", measurement.id),
                     ("first", str(measured[measurement.id])))))
            measured.setdefault(measurement.id, path)

    def unknown(path: Path, loc: Loc, table: str, wanted: str) -> None:
        if wanted not in ids[table]:
            close = UnknownIdError(table[:-1], wanted, sorted(ids[table])).close
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            findings.append(Finding(path, loc, f"unknown {table[:-1]} id {wanted!r}{hint}",
                                    "unknown_ref", (("kind", table[:-1]), ("id", wanted),
                                                    ("close", ", ".join(close)))))

    for path, data in files:
        for i, system in enumerate(data.systems):
            unknown(path, ("systems", i, "accelerator"), "accelerators", system.accelerator)
            if system.interconnect is not None:
                unknown(path, ("systems", i, "interconnect"), "interconnects",
                        system.interconnect)
        for post, chips in data.posts.items():
            for j, chip in enumerate(chips):
                unknown(path, ("posts", post, j), "accelerators", chip)
        for pool, chips in data.pools.items():
            for j, chip in enumerate(chips):
                unknown(path, ("pools", pool, j), "accelerators", chip)
        for i, measurement in enumerate(data.measurements):
            if measurement.chip is not None:
                unknown(path, ("measurements", i, "chip"), "accelerators", measurement.chip)
            if measurement.system is not None:
                unknown(path, ("measurements", i, "system"), "systems", measurement.system)
    for path, data in files:
        findings.extend(Finding(path, odd.loc, odd.message, odd.key, odd.fields)
                        for odd in plausibility(data))
    return findings


def _index(kind: str, entries: Iterable[E]) -> Table[E]:
    return Table(kind, {entry.id: entry for entry in entries})


def check_files(paths: Sequence[Path]) -> tuple[list[tuple[Path, CatalogFile]], list[Finding]]:
    """Read and validate ``paths`` together: the files that loaded, and every finding."""
    loaded: list[tuple[Path, CatalogFile]] = []
    findings: list[Finding] = []
    for path in paths:
        try:
            loaded.append((path, validate_data(path, read_file(path))))
        except CatalogError as exc:
            findings.extend(exc.findings)
    findings.extend(cross_check(loaded))
    return loaded, findings


def build(paths: Sequence[Path]) -> Catalog:
    """The catalog of ``paths`` (later files add to earlier ones); ``CatalogError`` if bad."""
    loaded, findings = check_files(paths)
    if findings:
        raise CatalogError(findings, paths)
    tables: dict[str, list[Any]] = {table: [] for table in TABLES}
    posts: dict[str, set[str]] = {}
    pools: dict[str, list[str]] = {}
    for _, data in loaded:
        for table in TABLES:
            tables[table].extend(getattr(data, table))
        for post, chips in data.posts.items():
            posts.setdefault(post, set()).update(chips)
        for pool, chips in data.pools.items():
            pools.setdefault(pool, []).extend(c for c in chips if c not in pools.get(pool, []))
    return Catalog(
        accelerators=_index("accelerator", tables["accelerators"]),
        interconnects=_index("interconnect", tables["interconnects"]),
        systems=_index("system", tables["systems"]),
        models=_index("model", tables["models"]),
        post_chips={post: frozenset(chips) for post, chips in posts.items()},
        pools={pool: tuple(chips) for pool, chips in pools.items()},
        files=tuple(path for path, _ in loaded),
        measurements=tuple(m for _, data in loaded for m in data.measurements),
    )


def load_catalog_from(folder: Path, user_file: Path | None = None) -> Catalog:
    """Parse and validate hardware.yaml and models.yaml in ``folder`` (and ``user_file``)."""
    paths = [folder / name for name in SHIPPED_FILES]
    if (folder / MEASUREMENTS_FILE).exists():
        paths.append(folder / MEASUREMENTS_FILE)
    if user_file is not None and user_file.exists():
        paths.append(user_file)
    return build(paths)


def user_catalog_path() -> Path:
    """The learner's own catalog file: chips and models added to the shipped ones."""
    return locations.data_dir() / USER_FILE


@cache
def _load(content: Path, user_file: Path | None) -> Catalog:
    return load_catalog_from(content, user_file)


@cache
def _paths(home: str | None) -> tuple[Path, Path]:
    """Where the catalog files are for this STUDYAPP_HOME (found once: generators ask often)."""
    return locations.content_dir(), user_catalog_path()


_PINNED: ContextVar[Catalog | None] = ContextVar("pinned_catalog", default=None)


@contextmanager
def one_catalog() -> Iterator[Catalog]:
    """Within the block, ``load_catalog`` gives this catalog without looking for the user's
    catalog.yaml again: a question is drawn from one catalog, and a draw asks for it often
    (one file-system look-up a draw instead of one a call)."""
    pinned = _PINNED.get()
    if pinned is not None:
        yield pinned
        return
    catalog = load_catalog()
    token = _PINNED.set(catalog)
    try:
        yield catalog
    finally:
        _PINNED.reset(token)


def load_catalog() -> Catalog:
    """The shipped catalog plus the user's catalog.yaml, parsed once per process.

    Every user folder without a catalog.yaml shares one parse of the shipped files.
    """
    pinned = _PINNED.get()
    if pinned is not None:
        return pinned
    content, user_file = _paths(os.environ.get("STUDYAPP_HOME"))
    return _load(content, user_file if user_file.exists() else None)


def _clear() -> None:
    _load.cache_clear()
    _paths.cache_clear()


load_catalog.cache_clear = _clear  # type: ignore[attr-defined]
