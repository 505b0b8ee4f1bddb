"""What the home screen shows of each post before its counts arrive.

The headings come from ``studyapp.catalog.posts``, the loader every other
screen uses; it loads no pydantic (the catalog package imports its models on
first use), and between starts they are read from a JSON copy
(``studyapp.content_cache``), so the home screen paints without PyYAML. A
second front-matter reader once saved 1.3 ms before the first paint (3.9 ms
against 2.6 ms, median of 7, Textual already imported), under the 5 ms worth
duplicating it.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from functools import cache

from studyapp import content_cache
from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.posts import POST_SLUGS, PostError, load_post, post_path


@dataclass(frozen=True)
class PostHeading:
    """What the home screen shows of a post before its counts arrive."""

    slug: str
    title: str
    section: str
    order: int
    tagline: str


@cache
def post_headings(lang: str) -> tuple[PostHeading, ...]:
    """Every post in ``lang`` that reads, in reading order; a broken file is left out (a
    missing one, or an unknown language, leaves nothing to key a copy by: read each time)."""
    paths = [post_path(slug, lang) for slug in POST_SLUGS]
    return content_cache.kept(f"headings.{lang}", paths, lambda: read_headings(lang),
                              to_json=lambda headings: [list(astuple(h)) for h in headings],
                              from_json=headings_from_json)


def headings_from_json(value: object) -> tuple[PostHeading, ...] | None:
    """Headings from their JSON copy, or None if it is not a list of well-formed rows."""
    if not isinstance(value, list):
        return None
    headings: list[PostHeading] = []
    for row in value:
        if not (isinstance(row, list) and len(row) == len(fields(PostHeading))):
            return None
        slug, title, section, order, tagline = row
        if not (all(isinstance(text, str) for text in (slug, title, section, tagline))
                and type(order) is int and slug in POST_SLUGS):
            return None
        headings.append(PostHeading(slug, title, section, order, tagline))
    return tuple(headings)


def read_headings(lang: str) -> tuple[PostHeading, ...]:
    """The headings as the post loader reads them from the post files."""
    headings: list[PostHeading] = []
    for slug in POST_SLUGS:
        try:
            post = load_post(slug, lang)
        except (PostError, UnknownIdError):
            continue
        headings.append(PostHeading(post.slug, post.title, post.section, post.order, post.tagline))
    return tuple(sorted(headings, key=lambda heading: heading.order))


def sections(headings: tuple[PostHeading, ...]) -> list[str]:
    """Sections in reading order: the order of their first post."""
    seen: list[str] = []
    for heading in headings:
        if heading.section not in seen:
            seen.append(heading.section)
    return seen
