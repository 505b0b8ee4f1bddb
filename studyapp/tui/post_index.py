"""The posts' front matter (title, section, order, tagline) for the home screen's first paint.

``studyapp.catalog`` validates posts and figures with pydantic, which costs
more to import than the whole first paint may take; the home screen only
needs four front-matter fields, read here with the C YAML loader. Every
other screen reads posts through ``studyapp.catalog.posts``.

Why not ``studyapp.catalog.posts`` directly: through the catalog package the
headings cost about 12 ms more before the first paint (11 ms against 24 ms,
measured with Textual already imported); sharing it is worth it only under 5 ms.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import yaml

from studyapp import locations

try:
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader  # type: ignore[assignment]


@dataclass(frozen=True)
class PostHeading:
    """What the home screen shows of a post before its counts arrive."""

    slug: str
    title: str
    section: str
    order: int
    tagline: str


def _front_matter(text: str) -> dict[str, object]:
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            data = yaml.load("\n".join(lines[1:end]), Loader=SafeLoader)
            return data if isinstance(data, dict) else {}
    return {}


@cache
def post_headings(lang: str) -> tuple[PostHeading, ...]:
    """Every post in ``lang`` that has the four fields, in reading order."""
    folder = locations.content_dir() / "posts"
    headings: list[PostHeading] = []
    for path in folder.glob(f"*.{lang}.md"):
        slug = path.name.removesuffix(f".{lang}.md")
        try:
            data = _front_matter(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        title, section, order, tagline = (data.get("title"), data.get("section"),
                                          data.get("order"), data.get("tagline"))
        if (isinstance(title, str) and isinstance(section, str) and isinstance(order, int)
                and isinstance(tagline, str)):
            headings.append(PostHeading(slug, title.strip(), section, order, tagline.strip()))
    return tuple(sorted(headings, key=lambda heading: heading.order))


def sections(headings: tuple[PostHeading, ...]) -> list[str]:
    """Sections in reading order: the order of their first post."""
    seen: list[str] = []
    for heading in headings:
        if heading.section not in seen:
            seen.append(heading.section)
    return seen
