"""The twelve post summaries: files, front matter, length, languages, figures."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from studyapp.catalog import load_catalog
from studyapp.catalog.loader import UnknownIdError
from studyapp.catalog.posts import (
    POST_LANGS,
    POST_SLUGS,
    SECTIONS,
    FigureTable,
    Post,
    PostError,
    figures_rows,
    format_value,
    list_posts,
    load_post,
    parse_post,
    post_path,
    shown_value,
)

# docs/architecture.md, "Posts (slugs are fixed)": order, slug, section.
DESIGN_POSTS = [
    (1, "intro", "intro"),
    (2, "hbm-kv-cache", "memory"),
    (3, "h100", "accelerators"),
    (4, "h200", "accelerators"),
    (5, "blackwell", "accelerators"),
    (6, "mi350", "accelerators"),
    (7, "tpu", "accelerators"),
    (8, "trainium", "accelerators"),
    (9, "gaudi", "accelerators"),
    (10, "hgx", "systems"),
    (11, "nvlink-infiniband", "network"),
    (12, "storage-checkpoints", "storage"),
]

ALL = [(slug, lang) for slug in POST_SLUGS for lang in POST_LANGS]


def test_slugs_and_sections_follow_design() -> None:
    assert [slug for _, slug, _ in DESIGN_POSTS] == list(POST_SLUGS)
    assert SECTIONS == ("intro", "memory", "accelerators", "systems", "network", "storage")


@pytest.mark.parametrize(("slug", "lang"), ALL)
def test_file_exists_and_parses(slug: str, lang: str) -> None:
    assert post_path(slug, lang).is_file()
    post = load_post(slug, lang)
    assert post.slug == slug and post.lang == lang
    assert post.title and post.tagline and post.body
    assert post.sources and all(url.startswith(("https://", "http://")) for url in post.sources)
    assert post.figures is not None


@pytest.mark.parametrize(("order", "slug", "section"), DESIGN_POSTS)
def test_section_and_order_match_design(order: int, slug: str, section: str) -> None:
    for lang in POST_LANGS:
        post = load_post(slug, lang)
        assert (post.order, post.section) == (order, section)


@pytest.mark.parametrize("lang", POST_LANGS)
def test_list_posts_is_sorted_and_cached(lang: str) -> None:
    posts = list_posts(lang)
    assert [post.order for post in posts] == list(range(1, 13))
    assert [post.slug for post in posts] == list(POST_SLUGS)
    assert list_posts(lang)[0] is posts[0]


def test_unknown_slug_and_language() -> None:
    with pytest.raises(UnknownIdError):
        load_post("h300", "es")
    with pytest.raises(UnknownIdError):
        load_post("h100", "fr")
    with pytest.raises(UnknownIdError):
        list_posts("de")


# --- the parser on its own -------------------------------------------------

GOOD = """---
title: "T"
section: memory
order: 2
tagline: "Tag"
sources: [https://example.org/a]
figures: {table: models, ids: [llama-3.1-8b], fields: [layers]}
---
Body with [@click=app.quit]markup[/] kept as text.
"""


def test_parse_post_keeps_body_as_plain_text() -> None:
    post = parse_post(GOOD, "hbm-kv-cache", "en")
    assert post.body == "Body with [@click=app.quit]markup[/] kept as text.\n"
    assert post.figures == FigureTable("models", ("llama-3.1-8b",), ("layers",))
    assert post.sources == ("https://example.org/a",)


def test_parse_post_accepts_bom_and_crlf() -> None:
    post = parse_post("\ufeff" + GOOD.replace("\n", "\r\n"), "hbm-kv-cache", "en")
    assert post.title == "T" and post.body.startswith("Body")


@pytest.mark.parametrize(
    "text",
    [
        "no front matter",
        "---\ntitle: x\n",  # not closed
        "---\n- a list\n---\nbody",
        GOOD.replace("order: 2", "order: 13"),
        GOOD.replace("order: 2", "order: two"),
        GOOD.replace("section: memory", "section: gpus"),
        GOOD.replace("sources: [https://example.org/a]", "sources: [ftp://example.org/a]"),
        GOOD.replace("sources: [https://example.org/a]", "sources: []"),
        GOOD.replace('tagline: "Tag"\n', ""),
        GOOD.replace("table: models", "table: gpus"),
        GOOD.replace("ids: [llama-3.1-8b]", "ids: 3"),
        GOOD.replace("title: \"T\"", "title: [1, 2]"),
        "---\ntitle: [unclosed\n---\nbody",
    ],
)
def test_parse_post_rejects_bad_front_matter(text: str) -> None:
    with pytest.raises(PostError):
        parse_post(text, "hbm-kv-cache", "en")


@pytest.mark.parametrize(
    ("value", "text"),
    [(989.0, "989"), (3.35, "3.35"), (80, "80"), ("HBM3e", "HBM3e"), (None, "-"), (70.55, "70.55")],
)
def test_format_value(value: object, text: str) -> None:
    assert format_value(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(3.35, "3,35"), (4.8, "4,8"), (2250.0, "2250"), (131072, "131\u202f072"),
     (True, "sí"), ([1.5, 2], "1,5; 2"), ("HBM3e", "HBM3e")],
)
def test_format_value_in_spanish(value: object, text: str) -> None:
    """Decimal comma and thin-space thousands from five digits, as the post text writes."""
    assert format_value(value, "es") == text


def test_spanish_figures_match_the_spanish_text() -> None:
    rows = figures_rows(load_post("h200", "es"))
    h200 = next(row for row in rows if row[0] == "NVIDIA H200 SXM")
    assert "4,8" in h200 and "4.8" not in h200  # H200: 4.8 TB/s (nvidia.com/h200)


# --- length -----------------------------------------------------------------

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"[^\W_]+(?:[.,'’\-][^\W_]+)*")


def plain_words(markdown: str) -> list[str]:
    """Words of a Markdown body once links, code and markup are removed."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = _LINK.sub(r"\1", text)
    text = re.sub(r"[`*_#>|]", " ", text)
    return _WORD.findall(text)


@pytest.mark.parametrize(("slug", "lang"), ALL)
def test_body_is_250_to_500_words(slug: str, lang: str) -> None:
    count = len(plain_words(load_post(slug, lang).body))
    assert 250 <= count <= 500, f"{slug}.{lang}.md has {count} words"


# --- both languages say the same thing ---------------------------------------

# A number standing on its own: not part of a name such as H100, FP8, v5e,
# Llama-3.1-70B or 70.55e9 (those are the same in both languages anyway).
_BEFORE = r"(?<![\w.,\-^/])"
_AFTER = r"(?![\w]|[.,]\d|-\d)"
NUMBER = {
    # English: 1,979 (thousands) and 3.35 (decimal point)
    "en": re.compile(_BEFORE + r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)" + _AFTER),
    # Spanish: 131 072 (space for thousands) and 3,35 (decimal comma)
    "es": re.compile(
        _BEFORE + r"(\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?)" + _AFTER
    ),
}


def numbers(text: str, lang: str) -> Counter[float]:
    """The numbers written in ``text`` as values (list markers dropped)."""
    text = re.sub(r"^\s*\d+[.)]\s", " ", text, flags=re.M)
    found: Counter[float] = Counter()
    for raw in NUMBER[lang].findall(text):
        if lang == "en":
            value = raw.replace(",", "")
        else:
            value = re.sub(r"[ \u00a0\u202f]", "", raw).replace(",", ".")
        found[round(float(value), 6)] += 1
    return found


def _same_up_to_scale(value: float, others: set[float]) -> bool:
    """70.55 (billion) and 70 550 (millones) are the same figure."""
    return any(
        math.isclose(value * 10.0**k, other, rel_tol=1e-9) for other in others for k in (-3, 0, 3)
    )


def test_number_extraction() -> None:
    en = numbers("H100 has 80 GB, 3.35 TB/s and 1,979 TFLOPS; Llama-3.1-70B; 70.55e9.", "en")
    es = numbers("La H100 tiene 80 GB, 3,35 TB/s y 1979 TFLOPS; Llama-3.1-70B; 131 072.", "es")
    assert en == Counter({80.0: 1, 3.35: 1, 1979.0: 1})
    assert es == Counter({80.0: 1, 3.35: 1, 1979.0: 1, 131072.0: 1})


@pytest.mark.parametrize("slug", POST_SLUGS)
def test_languages_agree(slug: str) -> None:
    es, en = load_post(slug, "es"), load_post(slug, "en")
    assert (es.order, es.section, es.sources, es.figures) == (
        en.order,
        en.section,
        en.sources,
        en.figures,
    )
    es_numbers, en_numbers = numbers(es.body, "es"), numbers(en.body, "en")
    only_es = {v for v in es_numbers if not _same_up_to_scale(v, set(en_numbers))}
    only_en = {v for v in en_numbers if not _same_up_to_scale(v, set(es_numbers))}
    assert not only_es and not only_en, f"only in es: {only_es}; only in en: {only_en}"
    # the same figures, and about as often (wording may repeat one now and then)
    total_es, total_en = sum(es_numbers.values()), sum(en_numbers.values())
    assert abs(total_es - total_en) <= max(3, 0.15 * max(total_es, total_en))


# --- key figures come from the catalog --------------------------------------


def _post_figures(post: Post) -> FigureTable:
    assert post.figures is not None
    return post.figures


@pytest.mark.parametrize("slug", POST_SLUGS)
def test_figures_reference_catalog(slug: str) -> None:
    catalog = load_catalog()
    figures = _post_figures(load_post(slug, "en"))
    table = catalog.table(figures.table)
    for entry_id in figures.ids:
        assert entry_id in table, f"{slug}: unknown {figures.table} id {entry_id}"
        entry = table[entry_id]
        for field in figures.fields:
            assert field in type(entry).model_fields, f"{slug}: unknown field {field}"
            assert field not in ("id", "name", "sources", "note")


@pytest.mark.parametrize("slug", POST_SLUGS)
def test_figures_rows_are_catalog_values(slug: str) -> None:
    catalog = load_catalog()
    post = load_post(slug, "es")
    figures = _post_figures(post)
    rows = figures_rows(post, catalog)
    assert rows[0] == ["name", *figures.fields]
    assert len(rows) == len(figures.ids) + 1
    table = catalog.table(figures.table)
    for entry_id, row in zip(figures.ids, rows[1:], strict=True):
        entry = table[entry_id]
        assert row[0] == entry.name
        for field, shown in zip(figures.fields, row[1:], strict=True):
            assert shown == shown_value(field, getattr(entry, field), "es")
            if not isinstance(getattr(entry, field), str):
                assert shown == format_value(getattr(entry, field), "es")
        assert any(cell != "-" for cell in row[1:]), f"{slug}: {entry_id} has no figures"


def test_figures_rows_translates_header_and_reports_unknown_ids() -> None:
    post = load_post("h200", "es")
    rows = figures_rows(post, labels={"name": "Chip", "memory_gb": "Memoria (GB)"})
    assert rows[0][0] == "Chip" and "Memoria (GB)" in rows[0]
    bad = Post(**{**post.__dict__, "figures": FigureTable("accelerators", ("h300",), ("tdp_w",))})
    with pytest.raises(UnknownIdError):
        figures_rows(bad)
    bad = Post(**{**post.__dict__, "figures": FigureTable("accelerators", ("h100-sxm",), ("hp",))})
    with pytest.raises(UnknownIdError):
        figures_rows(bad)


def _written(value: float) -> tuple[str, ...]:
    """How the catalog value may appear in prose, in either language."""
    text = format_value(value)
    forms = {text, text.replace(".", ",")}
    if float(value).is_integer() and abs(value) >= 1000:
        whole = int(value)
        forms |= {f"{whole:,}", f"{whole:,}".replace(",", " ")}
    return tuple(forms)


# Key figures each summary states in its prose: they must equal the catalog,
# in both languages (a corrected catalog value makes these fail until the
# prose is corrected too).
PROSE_FIGURES = [
    ("intro", "accelerators", "h100-sxm", "memory_gb"),
    ("intro", "accelerators", "h100-sxm", "memory_bandwidth_tb_s"),
    ("intro", "models", "llama-3.1-70b", "params_b"),
    ("hbm-kv-cache", "models", "llama-3.1-70b", "layers"),
    ("hbm-kv-cache", "models", "llama-3.1-70b", "head_dim"),
    ("h100", "accelerators", "h100-sxm", "memory_bandwidth_tb_s"),
    ("h100", "accelerators", "h100-sxm", "bf16_dense_tflops"),
    ("h100", "accelerators", "h100-sxm", "fp8_dense_tflops"),
    ("h200", "accelerators", "h200-sxm", "memory_gb"),
    ("h200", "accelerators", "h200-sxm", "memory_bandwidth_tb_s"),
    ("h200", "accelerators", "h100-sxm", "memory_bandwidth_tb_s"),
    ("h200", "models", "llama-3.1-70b", "params_b"),
    ("blackwell", "accelerators", "b200", "memory_gb"),
    ("blackwell", "accelerators", "b200", "memory_bandwidth_tb_s"),
    ("mi350", "accelerators", "mi355x", "memory_gb"),
    ("mi350", "accelerators", "mi355x", "memory_bandwidth_tb_s"),
    ("tpu", "accelerators", "tpu-v5e", "memory_gb"),
    ("tpu", "accelerators", "tpu-v6e", "bf16_dense_tflops"),
    ("trainium", "accelerators", "trainium2", "bf16_dense_tflops"),
    ("trainium", "accelerators", "trainium3", "memory_bandwidth_tb_s"),
    ("trainium", "accelerators", "trainium3", "bf16_dense_tflops"),
    ("trainium", "accelerators", "trainium3", "fp8_dense_tflops"),
    ("trainium", "accelerators", "trainium3", "scale_up_gb_s"),
    ("trainium", "systems", "trn3-ultraserver-144", "gpus"),
    ("trainium", "systems", "trn3-ultraserver-144", "total_memory_gb"),
    ("tpu", "accelerators", "tpu-v7", "memory_bandwidth_tb_s"),
    ("tpu", "accelerators", "tpu-v7", "scale_up_gb_s"),
    ("trainium", "models", "llama-3.1-8b", "params_b"),
    ("gaudi", "accelerators", "gaudi3", "memory_gb"),
    ("gaudi", "accelerators", "gaudi3", "bf16_dense_tflops"),
    ("hgx", "systems", "hgx-h200", "total_memory_gb"),
    ("hgx", "systems", "hgx-h100", "total_memory_gb"),
    ("nvlink-infiniband", "interconnects", "nvlink-4", "bandwidth_gb_s"),
    ("storage-checkpoints", "models", "llama-3.1-70b", "params_b"),
]


@pytest.mark.parametrize(("slug", "table", "entry_id", "field"), PROSE_FIGURES)
def test_prose_figures_equal_catalog(slug: str, table: str, entry_id: str, field: str) -> None:
    value = getattr(load_catalog().table(table)[entry_id], field)
    forms = _written(value)
    for lang in POST_LANGS:
        body = load_post(slug, lang).body
        assert any(
            re.search(r"(?<![\w.,])" + re.escape(form) + r"(?![\w]|[.,]\d)", body)
            for form in forms
        ), f"{slug}.{lang}.md should state {table}/{entry_id}/{field} = {forms[0]}"


def test_a_catalog_word_is_shown_in_the_posts_language() -> None:
    """The NVLink table's "Counted" column: the catalog keeps the id, the reader reads it."""
    assert shown_value("direction", "bidirectional", "es") == "ambos sentidos"
    assert shown_value("direction", "per-direction", "es") == "por sentido"
    assert shown_value("direction", "per-direction", "en") == "per direction"
    assert shown_value("memory_type", "HBM3e", "es") == "HBM3e"  # a name stays a name
    assert shown_value("memory_gb", 141.0, "es") == format_value(141.0, "es")
