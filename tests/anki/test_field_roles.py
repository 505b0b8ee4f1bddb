"""Every card of the hostile and realistic collections (made with Anki's own library),
graded as a learner would answer it: answers by field role, never field soup."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.anki.from_anki import AnkiPackageError, convert_package, deck_yaml
from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question

pytest.importorskip("anki.collection")
from anki_fixtures import FORMATS, PNG, add, course_collection, export, typed_cloze


@pytest.fixture(params=FORMATS)
def course(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """The course as Anki exports it, in either package format: every test holds for both."""
    col = course_collection(tmp_path)
    try:
        return export(col, tmp_path / "course.apkg", form=request.param)
    finally:
        col.close()


def questions(tmp_path: Path, package: Path, **options: object) -> dict[str, Question]:
    options.setdefault("posts", ["intro"])
    conversion = convert_package(package, language="en", **options)  # type: ignore[arg-type]
    found = {}
    for deck in conversion.decks:
        target = tmp_path / f"{deck['deck']}.yaml"
        target.write_text(deck_yaml(deck), encoding="utf-8")
        for card in load_deck(target).cards:
            question = card.instantiate(0, "en")
            found[question.prompt] = question
    return found


def right(question: Question, answer: str) -> bool:
    return bool(grade(question, answer).correct)


def test_the_ridge_point_note_takes_its_definition_and_never_its_source(
        tmp_path: Path, course: Path) -> None:
    q = questions(tmp_path, course)["Ridge point of the roofline model"]
    assert q.kind is Kind.TEXT and q.answer == "FLOPS / bandwidth" and q.accept == ()
    assert right(q, "FLOPS / bandwidth") and right(q, "flops/bandwidth")
    assert not right(q, "FLOPS") and not right(q, "Williams et al. 2009")
    assert "Source: Williams et al. 2009" in q.explanation


def test_a_list_answer_is_a_self_graded_card(tmp_path: Path, course: Path) -> None:
    q = questions(tmp_path, course)["The three axes of parallelism in training"]
    assert q.kind is Kind.RECALL and q.answer == "- data\n- tensor\n- pipeline"


def test_a_cloze_answer_is_the_deleted_text_exactly(tmp_path: Path, course: Path) -> None:
    q = questions(tmp_path, course)[
        "Bandwidth-optimal all-reduce and its traffic factor: [...]"]
    assert q.answer == "Ring, 2(N-1)/N" and q.accept == ()
    assert right(q, "Ring, 2(N-1)/N") and not right(q, "Ring, 2/N") and not right(q, "Ring")


def test_latex_is_recalled_and_no_lone_backslash_is_accepted(tmp_path: Path,
                                                              course: Path) -> None:
    q = questions(tmp_path, course)["Arithmetic intensity of a matmul"]
    assert q.kind is Kind.RECALL and q.accept == ()
    assert q.answer == r"\(\frac{2mnk}{2(mk+kn+mn)}\)"  # braces kept, not formulas


def test_type_in_nested_cloze_tables_scripts_images_and_inline_fields(
        tmp_path: Path, course: Path) -> None:
    found = questions(tmp_path, course)
    typed = found["Which memory does the H200 use?"]
    assert typed.kind is Kind.TEXT and typed.answer == "HBM3e" and right(typed, "hbm3e")
    outer = found["[...] gives each H100 900 GB/s"]
    inner = found["NVLink [...] gives each H100 900 GB/s"]
    assert outer.answer == "NVLink 4" and inner.answer == "4"
    assert "{{" not in outer.explanation and "Per direction: 450 GB/s" in outer.explanation
    table = found["Memory of two GPUs"]
    assert table.kind is Kind.RECALL and table.answer == "GPU | GB\nH100 | 80"
    assert found["Water"].answer == "H₂O" and found["Mass-energy"].answer == "E = mc²"
    assert right(found["Water"], "H2O")  # typed without subscripts
    assert found["Which GPU is this? [image: h100.png]"].answer == "H100"
    claim = found["How big is the model that runs PaLM paper?"]  # the fields keep a space
    assert claim.answer == "540B parameters"
    fabric = found["Scale-out fabric of NDR"]
    assert right(fabric, "IB") and right(fabric, "InfiniBand") and not right(fabric, "Ethernet")


def test_every_card_of_the_course_grades_its_own_answer_right(tmp_path: Path,
                                                              course: Path) -> None:
    found = questions(tmp_path, course)
    assert len(found) == 13
    for q in found.values():
        assert right(q, str(q.answer)), q.prompt
        if q.kind is Kind.TEXT:
            assert not right(q, "Williams et al. 2009")


WRONG = ["Williams et al. 2009", "FLOPS", "bandwidth", "data", "tensor", "pipeline", "Ring",
         "Ring, 2/N", "2/N", "\\", "PaLM paper", "Per direction: 450 GB/s", "NVLink", "4",
         "GPU", "GPUGB", "H10080", "80", "H2O2", "mc", "540B", "Ethernet", "HBM3", "h100.png"]
"""Other fields of the course's notes, pieces of them and near misses: none is an answer,
unless it is the card's own answer or one of its explicit alternatives."""


def test_no_card_of_the_course_accepts_another_field_or_a_piece_of_its_answer(
        tmp_path: Path, course: Path) -> None:
    def normalize_text(text: str) -> str:
        return "".join(text.casefold().split())

    typed = [q for q in questions(tmp_path, course).values() if q.kind is Kind.TEXT]
    assert len(typed) == 8  # the notes whose type asks to type the answer
    for q in typed:
        own = {normalize_text(str(q.answer)), *(normalize_text(a) for a in q.accept)}
        for answer in WRONG:
            if normalize_text(answer) not in own:
                assert not right(q, answer), (q.prompt, answer)


def test_subdecks_give_one_deck_each_or_one_with_merge(tmp_path: Path, course: Path) -> None:
    conversion = convert_package(course, language="en")
    assert sorted(d["deck"] for d in conversion.decks) == [
        "course-chemistry", "course-memory", "course-network", "course-parallelism",
        "course-roofline"]
    assert next(d for d in conversion.decks if d["deck"] == "course-memory")["title"] == \
        "Course › Memory"
    merged = convert_package(course, language="en", merge=True)
    assert [d["deck"] for d in merged.decks] == ["course"] and merged.cards == 13
    assert merged.unsupported == {"Image Occlusion": 1}


def test_a_field_map_sets_the_roles_of_one_note_type(tmp_path: Path, course: Path) -> None:
    found = questions(tmp_path, course, field_map={
        "Ridge": {"Front": "prompt", "Source": "answer", "Definition": "explanation"}})
    q = found["Ridge point of the roofline model"]
    assert q.answer == "Williams et al. 2009" and q.explanation == "FLOPS / bandwidth"
    with pytest.raises(AnkiPackageError, match="no field 'Nope'"):
        convert_package(course, language="en", field_map={"Ridge": {"Nope": "answer"}})
    with pytest.raises(AnkiPackageError, match="matches no note type"):
        convert_package(course, language="en", field_map={"Zebra": {"Front": "answer"}})


def test_dry_run_prints_the_mapping_and_cards_and_names_what_is_left_out(
        tmp_path: Path, course: Path) -> None:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "deck", "from-anki",
                                       str(course), "--dry-run", "--map",
                                       "Ridge:Front=prompt,Definition=answer,Source=source"])
    assert result.exit_code == 0, result.output
    assert "Ridge point: Front=prompt, Definition=answer, Source=source" in result.output
    assert "answer: FLOPS / bandwidth" in result.output
    assert "1 note(s) left out, of types studyapp cannot ask: 1 Image Occlusion." in \
        result.output
    assert "image-occlusion:rect" not in result.output
    assert not list(tmp_path.glob("*.yaml"))
    bad = CliRunner().invoke(main, ["--db", db, "deck", "from-anki", str(course),
                                    "--dry-run", "--map", "Ridge:Front"])
    assert bad.exit_code == 1 and "Traceback" not in bad.output


def test_the_cli_writes_one_deck_per_subdeck_and_copies_images(tmp_path: Path,
                                                               course: Path) -> None:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    out = tmp_path / "course"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "deck", "from-anki",
                                       str(course), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "course-memory.yaml").exists() and (out / "course-network.yaml").exists()
    assert (out / "course-memory.media" / "h100.png").read_bytes() == PNG  # unpacked
    assert "1 image(s) copied" in result.output


def test_studyapps_own_export_comes_back_as_the_cards_it_was(tmp_path: Path) -> None:
    from studyapp.anki.apkg import select_cards, write_apkg
    from studyapp.study import StudyConfig, StudyService

    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 's.sqlite3'}", lang="en"))
    try:
        selection = select_cards(svc.decks, post="h200")
        package = tmp_path / "h200.apkg"
        write_apkg(selection, package, "en", instances=1)
    finally:
        svc.close()
    conversion = convert_package(package, language="en",
                                 posts=["h200", "hbm-kv-cache", "intro"])
    kinds = {card["type"] for deck in conversion.decks for card in deck["cards"]}
    assert kinds <= {"choice", "numeric", "truefalse", "text", "recall"} and "choice" in kinds
    assert all(d["deck"].startswith("studyapp-") for d in conversion.decks)
    for deck in conversion.decks:
        for card in deck["cards"]:
            assert "http" not in str(card.get("answer", "")), card
            assert card.get("post", "h200") in {"h200", "hbm-kv-cache", "intro"}
    found = questions(tmp_path, package, posts=["h200", "hbm-kv-cache", "intro"])
    for q in found.values():
        expected = q.answer if q.kind is not Kind.CHOICE else str(
            q.choices.index(str(q.answer)) + 1)
        assert right(q, str(expected)), q.prompt


def test_a_collection_with_only_image_occlusion_is_refused_in_one_sentence(
        tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "io.anki2"))
    try:
        add(col, "Basic", "Only", "", Front="", Back="")
        note = col.new_note(col.models.by_name("Image Occlusion"))
        note["Occlusion"] = "{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2}}"
        note["Image"] = '<img src="x.png">'
        col.add_note(note, col.decks.id("Only"))
        package = export(col, tmp_path / "io.apkg")
    finally:
        col.close()
    with pytest.raises(AnkiPackageError, match=r"left out: 1 Image Occlusion"):
        convert_package(package, language="en")


def test_tags_come_along_and_cards_finds_them(tmp_path: Path, course: Path) -> None:
    import json

    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"

    def cli(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
        return result.exit_code, result.output

    code, output = cli("import", str(course))
    assert code == 0, output
    from studyapp import locations

    installed = locations.user_decks_dir()
    assert (installed / "course-memory.media" / "h100.png").is_file()  # the image came along
    code, output = cli("cards", "tag:gpu", "--json")
    assert code == 0, output
    found = json.loads(output)
    assert [c["question"] for c in found] == ["Which GPU is this? [image: h100.png]"]
    code, output = cli("cards", "tag:memory", "--json")
    assert len(json.loads(output)) == 3
    code, output = cli("cards", "tag:gpu::h100", "--json")
    assert len(json.loads(output)) == 1


def test_a_cloze_hint_listing_alternatives_accepts_them(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "hint.anki2"))
    try:
        typed_cloze(col)
        add(col, "Cloze (typed)", "Hints", "", Text="Scale-out fabric: {{c1::IB::IB / InfiniBand}}")
        add(col, "Cloze (typed)", "Hints", "", Text="{{c1::80::GB}} GB on the H100")
        package = export(col, tmp_path / "hint.apkg")
    finally:
        col.close()
    found = questions(tmp_path, package)
    fabric = found["Scale-out fabric: [IB / InfiniBand]"]
    assert right(fabric, "InfiniBand") and right(fabric, "IB") and not right(fabric, "Ethernet")
    memory = found["[GB] GB on the H100"]
    assert memory.accept == () and not right(memory, "GB")  # a unit hint is no answer


def test_a_card_is_typed_only_when_its_note_type_types(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "prose.anki2"))
    try:
        add(col, "Basic", "Prose", "", Front="Why can the KV cache outgrow the weights?",
            Back="Because it grows with the batch and with the context length, so many long "
                 "conversations at once need more memory for it than the model itself.")
        add(col, "Basic", "Prose", "", Front="Memory of the H200", Back="HBM3e")
        add(col, "Basic (type in the answer)", "Prose", "", Front="Memory of the H100",
            Back="HBM3")
        add(col, "Cloze", "Prose", "", Text="The H200 has {{c1::141}} GB")
        package = export(col, tmp_path / "prose.apkg")
    finally:
        col.close()
    found = questions(tmp_path, package)
    prose = found["Why can the KV cache outgrow the weights?"]
    assert prose.kind is Kind.RECALL and prose.accept == ()
    shown = found["Memory of the H200"]  # Basic shows the answer: the learner rates it
    assert shown.kind is Kind.RECALL and shown.answer == "HBM3e"
    short = found["Memory of the H100"]  # the note type asks to type it: typed
    assert short.kind is Kind.TEXT and right(short, "HBM3") and not right(short, "HBM3e")
    assert found["The H200 has [...] GB"].kind is Kind.RECALL  # Anki's Cloze types nothing
