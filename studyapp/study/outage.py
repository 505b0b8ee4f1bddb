"""Where answers wait on this machine while a class database's server is away."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from studyapp import locations


def kept_answers_path(url: str, profile: str) -> Path:
    """The file of answers kept for ``profile`` on the database at ``url``.

    One per database and profile, named from both (the password left out), so
    answers are only ever sent where they were given.
    """
    where = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1@", url)  # never the password
    digest = hashlib.sha256(f"{where}\0{profile}".encode()).hexdigest()[:24]
    return locations.data_dir() / "kept-answers" / f"{digest}.json"


__all__ = ["kept_answers_path"]
