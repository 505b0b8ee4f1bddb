"""A catalog file's problems at ``file:line:col``, in the reader's language.

The catalog (``studyapp.catalog``) says what is wrong and where in the data; this
module places it in the file with the deck files' machinery: the same safe YAML
reader (aliases expanded to a budget, tags refused, duplicate keys reported) and
the same words for schema errors ("unknown key 'fp4_dense_tflop'; did you mean
'fp4_dense_tflops'?"). ``studyapp catalog validate`` and every command that meets
a bad catalog report through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from studyapp.catalog.loader import CatalogError, Finding, cross_check
from studyapp.catalog.models import (
    Accelerator,
    CatalogFile,
    Interconnect,
    Model,
    System,
)
from studyapp.decks.problems import Problem, ProblemMessage, problem_message, sorted_unique
from studyapp.decks.schema_errors import describe_input, error_message, suggest
from studyapp.decks.yaml_source import PathKey, SourceMap, parse_yaml
from studyapp.files import FileRefused, read_regular


def catalog_message(name: str, /, **fields: object) -> ProblemMessage:
    """The words ``catalog.problem.<name>`` (content/i18n/catalog.<lang>.yaml)."""
    return ProblemMessage(f"catalog.problem.{name}", tuple(fields.items()))


_ENTRY_MODELS: dict[str, type[BaseModel]] = {
    "accelerators": Accelerator, "interconnects": Interconnect, "systems": System,
    "models": Model,
}
MAX_CATALOG_BYTES = 5_000_000
NOT_REGULAR = "not a regular file (a device, pipe, socket or folder)"


def _fields(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _split(loc: Sequence[str | int], data: Any) -> tuple[PathKey, list[str | int]]:
    """An error's ``loc`` as the path that exists in the data, and what is left."""
    current = data
    path: list[str | int] = []
    rest: list[str | int] = []
    for segment in loc:
        inside = (isinstance(current, dict) and segment in current) or (
            isinstance(current, list) and isinstance(segment, int)
            and 0 <= segment < len(current))
        if not rest and inside:
            current = current[segment]
            path.append(segment)
        else:
            rest.append(segment)
    return tuple(path), rest


def _schema_problems(error: ValidationError,
                     data: Any) -> list[tuple[PathKey, bool, ProblemMessage]]:
    out: list[tuple[PathKey, bool, ProblemMessage]] = []
    for item in error.errors(include_url=False):
        path, rest = _split(item["loc"], data)
        kind = item["type"]
        if kind == "extra_forbidden":
            key = str(path[-1]) if path else "?"
            model = (_ENTRY_MODELS.get(str(path[0]), CatalogFile)
                     if len(path) == 3 else CatalogFile)
            known = _fields(model)
            out.append((path, True, problem_message(
                "unknown_key", name=key, hint=suggest(key, known), known=", ".join(known))))
        elif kind == "missing":
            key = str(rest[-1]) if rest else "?"
            out.append((path, False, problem_message("missing_key", name=key)))
        else:
            at_key = bool(rest) and rest[-1] == "[key]"
            out.append((path, at_key, _words(kind, item["msg"], item.get("ctx") or {},
                                             item.get("input"))))
    return out


_BOUNDS = {"greater_than": "gt", "greater_than_equal": "ge", "less_than_equal": "le",
           "less_than": "lt"}


def _words(kind: str, msg: str, ctx: dict[str, Any], value: Any) -> ProblemMessage:
    if kind in _BOUNDS:
        limit = next(iter(ctx.values()), "?")
        return catalog_message(f"bound_{_BOUNDS[kind]}", limit=f"{limit:g}"
                               if isinstance(limit, float) else str(limit),
                               got=describe_input(value))
    if kind == "finite_number":
        return catalog_message("not_finite")
    if kind.startswith("url_"):
        return catalog_message("bad_url", got=str(value)[:80])
    if kind in ("float_parsing", "int_parsing", "bool_parsing"):
        kind = kind.replace("_parsing", "_type")
    if kind == "int_from_float":
        return catalog_message("not_whole", got=str(value)[:40])
    return error_message(kind, msg, ctx, value)


def _finding_message(finding: Finding) -> ProblemMessage:
    fields: dict[str, object] = dict(finding.fields)
    if "kind" in fields:
        fields["kind"] = ProblemMessage(f"catalog.kind.{fields['kind']}")
    if finding.key == "unknown_ref":
        close = str(fields.pop("close"))
        fields["hint"] = (problem_message("did_you_mean", names=close) if close else "")
    return catalog_message(f"{finding.key}", **fields)


def check_files(paths: Sequence[Path]) -> list[Problem]:
    """Every problem of these catalog files, read together (ids must not clash)."""
    problems: list[Problem] = []
    loaded: list[tuple[Path, CatalogFile]] = []
    maps: dict[Path, SourceMap] = {}
    for path in paths:
        try:
            text = read_regular(path, MAX_CATALOG_BYTES, what="catalog file").decode("utf-8")
        except FileRefused as exc:
            problems.append(Problem.at(path, 1, 1, catalog_message(
                "too_large", limit=str(MAX_CATALOG_BYTES)) if exc.reason == "too_large" else
                catalog_message("unreadable", reason=exc.detail or NOT_REGULAR)))
            continue
        except UnicodeDecodeError:
            problems.append(Problem.at(path, 1, 1, catalog_message(
                "unreadable", reason="not UTF-8 text")))
            continue
        except OSError as exc:
            problems.append(Problem.at(path, 1, 1, catalog_message(
                "unreadable", reason=exc.strerror or str(exc))))
            continue
        parsed = parse_yaml(text)
        problems.extend(Problem.at(path, line, col, message)  # an empty file adds nothing
                        for line, col, message in parsed.problems
                        if message.key != "decks.problem.empty_file")
        data = parsed.data
        if data is None:
            continue
        if not isinstance(data, dict):
            problems.append(Problem.at(path, 1, 1, catalog_message(
                "not_mapping", got=describe_input(data))))
            continue
        maps[path] = parsed.source_map
        try:
            loaded.append((path, CatalogFile.model_validate(data)))
        except ValidationError as exc:
            for where, at_key, message in _schema_problems(exc, data):
                if parsed.source_map.is_refused(where):
                    continue
                line, col = (parsed.source_map.key(where) if at_key
                             else parsed.source_map.value(where))
                problems.append(Problem.at(path, line, col, message))
    for finding in cross_check(loaded):
        line, col = maps[finding.file].value(finding.loc)
        problems.append(Problem.at(finding.file, line, col, _finding_message(finding)))
    return sorted_unique(problems)


def catalog_error_text(exc: CatalogError, lang: str) -> str:
    """A ``CatalogError`` as ``file:line:col: what is wrong`` lines in ``lang``."""
    problems = check_files(exc.files)
    if not problems:  # the files changed since, or the loader saw what this cannot
        return str(exc)
    return "\n".join(problem.render(lang) for problem in problems)


__all__ = ["catalog_error_text", "check_files"]
