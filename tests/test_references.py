"""Every file the project cites is in the repository (docs/architecture.md, "Layout").

The design, the checklists and the comments point at files a newcomer must be
able to open after a clone: a reference to a Markdown document, to a path
under the repository's own folders, or up and out of it (``../``) fails here
unless the file is tracked.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELF = "tests/test_references.py"
"""This check's own examples of broken references are not citations."""
TEXT_SUFFIXES = (".py", ".md", ".toml", ".tcss", ".yaml", ".txt", ".cfg", ".ini")
REFERENCE = re.compile(
    r"(?<![\w/<>{}.*$-])"
    r"((?:\.\./)+[\w./-]+"  # up and out of the folder
    r"|(?:[\w.-]+/)*[\w.-]+\.md"  # a document
    r"|(?:studyapp|tests|content|decks|docs|\.ci)/[\w./-]*[\w-])"  # a path in the repository
    r"(?![\w<>{}*-])")


def tracked_files() -> list[str]:
    """The repository's files as git knows them (plus new files not yet committed)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
            capture_output=True, text=True, check=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: the references are checked in the repository")
    return [name for name in listed if (ROOT / name).is_file()]


def broken_references(root: Path, files: list[str]) -> list[str]:
    """``file:line: reference`` for each cited file that is not in ``files``."""
    known = set(files)
    tails = {"/".join(name.split("/")[i:]) for name in files for i in range(name.count("/") + 1)}
    folders = {"/".join(name.split("/")[:i]) for name in files
               for i in range(1, name.count("/") + 1)}

    def exists(ref: str, citing: str) -> bool:
        if ref.startswith("../"):
            inside = (root / citing).parent.joinpath(ref).resolve()
            return inside.is_relative_to(root) and inside.relative_to(root).as_posix() in known
        if ref.startswith("studyapp/_data"):  # the wheel's copy of content/ and decks/
            return True
        if ref.endswith(".md"):
            return ref in tails
        # "content/i18n/grading" in "content/i18n/grading.*.yaml" names a family of files
        return ref in known or ref in folders or any(name.startswith(f"{ref}.") for name in known)

    found: list[str] = []
    for name in files:
        if (not name.endswith(TEXT_SUFFIXES) and name != ".ci/run") or name == SELF:
            continue
        text = (root / name).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in REFERENCE.finditer(line):
                ref = match.group(1).rstrip(".")
                before = line[match.start() - 1] if match.start() else ""
                if ref.startswith("../") and before in "\"'" and name.endswith(".py"):
                    continue  # a hostile path a test feeds the app, not a citation
                if not exists(ref, name):
                    found.append(f"{name}:{number}: {ref}")
    return found


def test_every_cited_file_is_in_the_repository() -> None:
    assert broken_references(ROOT, tracked_files()) == []


def test_the_design_is_carried_in_the_repository() -> None:
    design = ROOT / "docs" / "architecture.md"
    text = design.read_text(encoding="utf-8")
    for section in ("## Layers", "## One answer, from key press to stored review",
                    "## Where each kind of change goes", "## Posts (slugs are fixed)",
                    "## Catalog", "## Decks", "## Command line"):
        assert section in text


def test_a_missing_reference_is_reported(tmp_path: Path) -> None:
    texts = {
        "README.md": "",
        "studyapp/__init__.py": "",
        "notes/cited.py": ('"""See DESIGN.md, ../shared/DESIGN.md and studyapp/gone.py; '
                           'README.md and studyapp/__init__.py are here."""\n'
                           'HOSTILE = "../../etc/passwd"\n'),
    }
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert broken_references(tmp_path.resolve(), list(texts)) == [
        "notes/cited.py:1: DESIGN.md", "notes/cited.py:1: ../shared/DESIGN.md",
        "notes/cited.py:1: studyapp/gone.py"]
