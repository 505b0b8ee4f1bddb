"""Images a card names: ``[image: NAME]`` in its text, a file in the deck's media folder.

A deck file ``course.yaml`` keeps its images in ``course.media/`` beside it
(``deck from-anki`` copies them there, ``deck add`` installs them with the
deck). Only a plain file name inside that folder is ever opened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

IMAGE_MARK = re.compile(r"\[image: ([^\]\n/\\]+)\]")


def media_folder(deck_file: Path) -> Path:
    return deck_file.with_name(f"{deck_file.stem}.media")


def named_images(texts: Iterable[str]) -> list[str]:
    """The image names ``[image: NAME]`` marks in ``texts``, first seen first."""
    found: dict[str, None] = {}
    for text in texts:
        for name in IMAGE_MARK.findall(text or ""):
            if not name.startswith("."):
                found[name.strip()] = None
    return list(found)


def image_files(deck_file: Path, texts: Iterable[str]) -> list[Path]:
    """The named images that exist in the deck's media folder."""
    folder = media_folder(deck_file)
    return [folder / name for name in named_images(texts) if (folder / name).is_file()]
