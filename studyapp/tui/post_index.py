"""What the home screen shows of each post before its counts arrive.

The headings come from ``studyapp.catalog.posts``, the loader every other
screen uses; it loads no pydantic (the catalog package imports its models on
first use). A second front-matter reader once saved 1.3 ms before the first
paint (3.9 ms against 2.6 ms, median of 7, Textual already imported), under the
5 ms worth duplicating it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.posts import POST_SLUGS, PostError, load_post


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
    """Every post in ``lang`` that reads, in reading order; a broken file is left out."""
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
