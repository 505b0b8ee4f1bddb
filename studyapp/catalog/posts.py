"""Load the twelve post summaries (``content/posts/<slug>.<lang>.md``).

A post file is YAML front matter between two ``---`` lines, then a Markdown
summary. Posts are text to show, never to interpret: the loader returns plain
strings and leaves escaping to whatever renders them.

Key figures are not copied into a post: its ``figures:`` entry names catalog
rows (``{table: accelerators, ids: [...], fields: [...]}``) and
:func:`figures_rows` reads the values from the catalog, so a figure corrected
in the catalog is corrected in every post.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from studyapp import locations
from studyapp.catalog.errors import UnknownIdError
from studyapp.i18n import strings

if TYPE_CHECKING:
    from studyapp.catalog.loader import Catalog

SECTIONS: tuple[str, ...] = ("intro", "memory", "accelerators", "systems", "network", "storage")
"""Section ids in reading order (docs/architecture.md)."""

POST_SLUGS: tuple[str, ...] = (
    "intro",
    "hbm-kv-cache",
    "h100",
    "h200",
    "blackwell",
    "mi350",
    "tpu",
    "trainium",
    "gaudi",
    "hgx",
    "nvlink-infiniband",
    "storage-checkpoints",
)
"""The twelve post slugs in reading order (``order`` 1–12)."""

POST_LANGS: tuple[str, ...] = ("es", "en")

FIGURE_TABLES: tuple[str, ...] = ("accelerators", "interconnects", "systems", "models")
"""Catalog tables a post's ``figures:`` may name."""

REQUIRED_KEYS: tuple[str, ...] = ("title", "section", "order", "tagline", "sources")

MISSING_VALUE = "-"
"""Shown in a figures table where the catalog has no value."""


class PostError(ValueError):
    """A post file is missing or its front matter is malformed."""


@dataclass(frozen=True)
class FigureTable:
    """Catalog rows a post shows as its key-figures table."""

    table: str
    ids: tuple[str, ...]
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Post:
    """One post summary in one language; every text field is a plain string."""

    slug: str
    lang: str
    title: str
    section: str
    order: int
    tagline: str
    sources: tuple[str, ...]
    body: str
    """Markdown without the front matter."""
    figures: FigureTable | None


def posts_dir() -> Path:
    """Folder holding ``<slug>.<lang>.md``."""
    return locations.content_dir() / "posts"


def post_path(slug: str, lang: str) -> Path:
    return posts_dir() / f"{slug}.{lang}.md"


def split_front_matter(text: str) -> tuple[str, str]:
    """``(front matter YAML, body)``; raises PostError without front matter."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise PostError("no front matter: the file must start with a '---' line")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            head = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :]).strip("\n")
            return head, body + "\n" if body else ""
    raise PostError("front matter is not closed by a '---' line")


def _string(data: Mapping[str, object], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PostError(f"{where}: {key!r} must be a non-empty string")
    return value.strip()


def _string_list(value: object, what: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise PostError(f"{where}: {what} must be a non-empty list")
    items: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise PostError(f"{where}: every item of {what} must be a non-empty string")
        items.append(item.strip())
    return tuple(items)


def _figures(value: object, where: str) -> FigureTable | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PostError(f"{where}: 'figures' must be a mapping with table, ids and fields")
    unknown = set(value) - {"table", "ids", "fields"}
    if unknown:
        keys = ", ".join(sorted(map(str, unknown)))
        raise PostError(f"{where}: unknown keys in 'figures': {keys}")
    table = value.get("table")
    if table not in FIGURE_TABLES:
        raise PostError(f"{where}: figures table must be one of {', '.join(FIGURE_TABLES)}")
    return FigureTable(
        table=str(table),
        ids=_string_list(value.get("ids"), "figures ids", where),
        fields=_string_list(value.get("fields"), "figures fields", where),
    )


def parse_post(text: str, slug: str, lang: str) -> Post:
    """Build a Post from a file's text (no disk access; used by tests too)."""
    where = f"{slug}.{lang}.md"
    # PyYAML costs 10 ms of the app's start, which reads the headings' JSON copy instead
    import yaml

    head, body = split_front_matter(text)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # safe_load, in C when available
    try:
        data = yaml.load(head, Loader=loader)
    except yaml.YAMLError as exc:
        raise PostError(f"{where}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise PostError(f"{where}: front matter must be a mapping")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise PostError(f"{where}: front matter lacks {', '.join(missing)}")
    section = _string(data, "section", where)
    if section not in SECTIONS:
        raise PostError(f"{where}: unknown section {section!r}")
    order = data["order"]
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= len(POST_SLUGS):
        raise PostError(f"{where}: 'order' must be an integer from 1 to {len(POST_SLUGS)}")
    sources = _string_list(data["sources"], "sources", where)
    for url in sources:
        if not url.startswith(("http://", "https://")):
            raise PostError(f"{where}: source {url!r} is not an http(s) URL")
    return Post(
        slug=slug,
        lang=lang,
        title=_string(data, "title", where),
        section=section,
        order=order,
        tagline=_string(data, "tagline", where),
        sources=sources,
        body=body,
        figures=_figures(data.get("figures"), where),
    )


def _check(slug: str, lang: str) -> None:
    if slug not in POST_SLUGS:
        raise UnknownIdError("post", slug, list(POST_SLUGS))
    if lang not in POST_LANGS:
        raise UnknownIdError("language", lang, list(POST_LANGS))


@cache
def load_post(slug: str, lang: str) -> Post:
    """The post ``slug`` in ``lang`` (``es`` or ``en``), parsed once per process.

    Raises UnknownIdError for an unknown slug or language and PostError for a
    missing or malformed file.
    """
    _check(slug, lang)
    path = post_path(slug, lang)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PostError(f"cannot read post {path}: {exc}") from exc
    return parse_post(text, slug, lang)


@cache
def _posts(lang: str) -> tuple[Post, ...]:
    posts = [load_post(slug, lang) for slug in POST_SLUGS]
    return tuple(sorted(posts, key=lambda post: post.order))


def list_posts(lang: str) -> list[Post]:
    """All twelve posts in ``lang``, sorted by ``order``.

    Twelve small files read once per process (a few milliseconds); later
    calls return the cached posts.
    """
    if lang not in POST_LANGS:
        raise UnknownIdError("language", lang, list(POST_LANGS))
    return list(_posts(lang))


def clear_cache() -> None:
    """Forget parsed posts (tests that point content_dir elsewhere)."""
    load_post.cache_clear()
    _posts.cache_clear()


def format_value(value: object, lang: str = "en") -> str:
    """A catalog value as plain text: ``989``, ``3.35``, ``HBM3e``; None as ``-``.

    Spanish writes ``3,35`` and groups five digits or more with a thin space
    (``131 072``), as the post text beside the table and the questions do.
    """
    if value is None:
        return MISSING_VALUE
    if isinstance(value, bool):
        if lang == "es":
            return "sí" if value else "no"
        return "yes" if value else "no"
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() else repr(value)
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, list | tuple):
        # "1,5; 2" in Spanish: a comma between items would read as a decimal comma
        return ("; " if lang == "es" else ", ").join(format_value(item, lang) for item in value)
    else:
        return str(value)
    return _spanish_digits(text) if lang == "es" else text


THIN_SPACE = "\u202f"
"""U+202F, the thousands separator of ``questions.formatting`` (catalog sits below it)."""


def _spanish_digits(text: str) -> str:
    """``131072`` → ``131 072``, ``3.35`` → ``3,35``; plain digits only (no exponent)."""
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, frac = digits.partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()):
        return text.replace(".", ",")
    if len(whole) >= 5:
        head = len(whole) % 3 or 3
        whole = THIN_SPACE.join([whole[:head]] + [whole[i:i + 3]
                                                  for i in range(head, len(whole), 3)])
    return f"{sign}{whole}{',' + frac if dot else ''}"


def shown_value(field: str, value: object, lang: str) -> str:
    """A cell in the post's language: a word the catalog keeps in English as an id
    ("bidirectional") is read through ``value.<field>.<word>``; numbers are formatted."""
    if isinstance(value, str):
        key = f"value.{field}.{value}"
        return strings(lang).get(key) or strings("en").get(key) or value
    return format_value(value, lang)


def figures_rows(
    post: Post,
    catalog: Catalog | None = None,
    labels: Mapping[str, str] | None = None,
) -> list[list[str]]:
    """The post's key-figures table read from the catalog.

    First row is the header: ``name`` then each field (translated through
    ``labels`` when given); then one row per id, numbers written in the
    post's language. Empty without ``figures``.
    Raises UnknownIdError for an id or field the catalog does not have.
    """
    figures = post.figures
    if figures is None:
        return []
    if catalog is None:
        # the loader validates with pydantic; the home screen reads posts without it
        from studyapp.catalog.loader import load_catalog

        catalog = load_catalog()
    table = catalog.table(figures.table)
    names = labels or {}
    rows = [[names.get("name", "name"), *(names.get(field, field) for field in figures.fields)]]
    for entry_id in figures.ids:
        entry = table[entry_id]
        known = type(entry).model_fields
        row = [entry.name]
        for field in figures.fields:
            if field not in known:
                raise UnknownIdError(f"{figures.table} field", field, list(known))
            row.append(shown_value(field, getattr(entry, field), post.lang))
        rows.append(row)
    return rows
