"""``studyapp deck edit``: an edit never breaks a deck.

The editor is a stub script given as ``$EDITOR``: it logs how it was called
(``+LINE FILE``), writes a broken edit first and a fixed one when reopened.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from deck_texts import VALID_DECK, write

from studyapp import locations
from studyapp.cli import main
from studyapp.decks.editing import plan_edit
from studyapp.decks.library import discover_decks, find_deck

STUB = """\
import json, sys
from pathlib import Path
log = Path({log!r})
calls = json.loads(log.read_text()) if log.exists() else []
installed = Path({installed!r})
path = Path(sys.argv[2])
text = path.read_text(encoding="utf-8")
calls.append({{"argv": sys.argv[1:], "text": text,
               "installed": installed.read_text(encoding="utf-8") if installed.exists() else None}})
log.write_text(json.dumps(calls))
steps = {steps!r}
step = steps[min(len(calls), len(steps)) - 1]
if step == "break":
    text = text.replace("accept: [HBM]", "acept: [HBM]")
elif step == "fix":
    text = text.replace("acept: [HBM]", "accept: [HBM, HBM3e]")
elif step == "empty":
    text = ""
path.write_text(text, encoding="utf-8")
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["--lang", "en", *args])


def stub_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *steps: str) -> Path:
    """``$EDITOR`` set to a script that does ``steps`` in turn ("break", "fix", "empty",
    "keep"); returns the log of its calls."""
    log = tmp_path / "editor-calls.json"
    installed = locations.user_decks_dir() / "kv-cache-drill.yaml"
    script = tmp_path / "stub_editor.py"
    script.write_text(STUB.format(log=str(log), installed=str(installed), steps=list(steps)),
                      encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    return log


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_failing_edit_reopens_at_its_line_and_the_fixed_one_is_saved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    assert run("deck", "add", str(source)).exit_code == 0
    installed = locations.user_decks_dir() / "kv-cache-drill.yaml"
    log = stub_editor(tmp_path, monkeypatch, "break", "fix")

    result = run("deck", "edit", "kv-cache-drill", "--card", "hbm-acronym")

    assert result.exit_code == 0, result.output
    calls = json.loads(log.read_text())
    card_line = line_of(VALID_DECK, "id: hbm-acronym")
    problem_line = line_of(VALID_DECK, "accept: [HBM]")
    # reopened with the problem written at the top, two lines above the file's own
    assert [call["argv"][0] for call in calls] == [f"+{card_line}", f"+{problem_line + 2}"]
    assert Path(calls[0]["argv"][1]) != source  # a temporary copy, never the file itself
    reopened = calls[1]["text"].splitlines()
    assert reopened[problem_line + 1].strip() == "acept: [HBM]"  # the line +LINE opens
    assert reopened[0].startswith("# studyapp: 1 problem(s) in this edit. Fix them and save")
    assert reopened[1].startswith(f"# studyapp: line {problem_line + 2}, column 5: "
                                  "unknown key 'acept'; did you mean 'accept'")
    # while the broken edit was open again, the installed deck was the good one
    assert calls[1]["installed"] == VALID_DECK
    assert f"{source}:{problem_line}:" in result.output  # the problem, at the source file
    assert "reopening the editor at line" in result.output
    assert "accept: [HBM, HBM3e]" in source.read_text(encoding="utf-8")  # the source is edited
    assert installed.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert "refreshed" in result.output
    # study still finds the deck, with the edit
    assert [a["en"] for a in find_deck("kv-cache-drill").card("hbm-acronym").accept] == [
        "HBM", "HBM3e"]
    studied = CliRunner().invoke(main, ["--lang", "en", "study", "--deck", "kv-cache-drill",
                                        "--plain", "--limit", "1"], input="1\n\n")
    assert studied.exit_code == 0, studied.output
    assert "[1/" in studied.output and "session: 1 answered" in studied.output


@pytest.mark.parametrize("give_up", ["keep", "empty"])
def test_giving_up_keeps_the_last_good_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, give_up: str) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    assert run("deck", "add", str(source)).exit_code == 0
    log = stub_editor(tmp_path, monkeypatch, "break", give_up)

    result = run("deck", "edit", "kv-cache-drill")

    assert result.exit_code == 1
    assert "Edit abandoned" in result.output and "keeps its last good text" in result.output
    assert "Traceback" not in result.output
    assert len(json.loads(log.read_text())) == 2
    assert source.read_text(encoding="utf-8") == VALID_DECK
    assert (locations.user_decks_dir() / "kv-cache-drill.yaml").read_text(
        encoding="utf-8") == VALID_DECK
    assert [listing.ok for listing in discover_decks() if listing.id == "kv-cache-drill"] == [True]


def test_an_unchanged_edit_changes_nothing(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    stub_editor(tmp_path, monkeypatch, "keep")
    result = run("deck", "edit", str(source))
    assert result.exit_code == 0
    assert f"No change to {source}" in result.output


def test_an_unknown_card_gets_a_did_you_mean(tmp_path: Path) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    result = run("deck", "edit", str(source), "--card", "hbm-acronim")
    assert result.exit_code == 1
    assert "has no card hbm-acronim; did you mean 'hbm-acronym'?" in result.output
    preview = run("deck", "preview", str(source), "--card", "kv-per-tokn")
    assert preview.exit_code == 1
    assert "did you mean 'kv-per-token'?" in preview.output


def test_an_installed_copy_without_its_source_is_edited_in_place_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    assert run("deck", "add", str(source)).exit_code == 0
    source.unlink()
    installed = locations.user_decks_dir() / "kv-cache-drill.yaml"
    plan = plan_edit(find_deck("kv-cache-drill"), 1)
    assert plan.path == installed and plan.installed is None
    assert "the next `deck add --replace`" in plan.notes[0].render("en")


def test_deck_add_over_an_edited_copy_says_so_and_keeps_the_edit(tmp_path: Path) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    assert run("deck", "add", str(source)).exit_code == 0
    installed = locations.user_decks_dir() / "kv-cache-drill.yaml"
    edited = VALID_DECK.replace("accept: [HBM]", "accept: [HBM, hbm]")
    installed.write_text(edited, encoding="utf-8")  # changed by hand, not in the source

    refused = run("deck", "add", str(source), "--replace")
    assert refused.exit_code == 0, refused.output
    assert "had been edited since it was added" in refused.output
    kept = Path(refused.output.split("kept in ")[1].split()[0])
    assert kept.read_text(encoding="utf-8") == edited
    assert installed.read_text(encoding="utf-8") == VALID_DECK

    installed.write_text(edited, encoding="utf-8")
    result = run("deck", "add", str(source))
    assert result.exit_code == 1
    assert f"the installed copy {installed} was edited since it was added from" in result.output
    assert installed.read_text(encoding="utf-8") == edited  # nothing overwritten


def test_a_changed_deck_id_is_refused_and_reopened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    script = tmp_path / "rename.py"
    script.write_text("import sys\nfrom pathlib import Path\np = Path(sys.argv[2])\n"
                      "p.write_text(p.read_text().replace('deck: kv-cache-drill', "
                      "'deck: other-id'))\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    result = run("deck", "edit", str(source))
    assert result.exit_code == 1
    assert f"{source}:1:1: an edit keeps the deck id 'kv-cache-drill'" in result.output
    assert source.read_text(encoding="utf-8") == VALID_DECK


def test_a_published_deck_is_edited_from_its_source_and_says_to_publish_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = write(tmp_path, VALID_DECK, "course.yaml")
    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    assert run("--db", db, "deck", "add", str(source)).exit_code == 0
    assert run("--db", db, "deck", "publish", str(source)).exit_code == 0
    stub_editor(tmp_path, monkeypatch, "break", "fix")
    result = run("--db", db, "deck", "edit", "kv-cache-drill")
    assert result.exit_code == 0, result.output
    assert f"run `studyapp deck publish {source}` afterwards" in result.output
    assert "accept: [HBM, HBM3e]" in source.read_text(encoding="utf-8")


def test_editing_the_file_of_a_published_deck_says_to_publish_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``deck edit course.yaml`` (the file, not the id) of a deck the database holds."""
    source = write(tmp_path, VALID_DECK, "course.yaml")
    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    assert run("--db", db, "deck", "publish", str(source)).exit_code == 0
    stub_editor(tmp_path, monkeypatch, "break", "fix")
    result = run("--db", db, "deck", "edit", str(source))
    assert result.exit_code == 0, result.output
    assert ("Deck kv-cache-drill is published in this database: students study the "
            f"published version until you run `studyapp deck publish {source}`."
            ) in result.output
    # without a database that holds it, no such line
    plain = run("--db", f"sqlite:///{tmp_path / 'other.sqlite3'}", "deck", "edit", str(source))
    assert "is published in this database" not in plain.output


def test_an_unknown_deck_id_is_one_line(tmp_path: Path) -> None:
    result = run("deck", "edit", "no-such-deck")
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "no-such-deck" in result.output


def test_a_built_in_deck_is_saved_as_the_users_copy_only_when_an_edit_is_good(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builtin = find_deck("post-h200")
    before = builtin.path.read_bytes()
    copy = locations.user_decks_dir() / "post-h200.yaml"
    stub_editor(tmp_path, monkeypatch, "keep")
    result = run("deck", "edit", "post-h200")
    assert result.exit_code == 0 and "No change" in result.output
    assert not copy.exists()  # nothing to override it with
    script = tmp_path / "comment.py"
    script.write_text("import sys\nfrom pathlib import Path\np = Path(sys.argv[2])\n"
                      "p.write_text(p.read_text() + '# checked in class\\n')\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    result = run("deck", "edit", "post-h200")
    assert result.exit_code == 0, result.output
    assert f"a good edit is saved to {copy}" in result.output
    assert copy.read_text(encoding="utf-8").endswith("# checked in class\n")
    assert builtin.path.read_bytes() == before  # the shipped file is never written
    assert find_deck("post-h200").path == copy  # the copy overrides it
