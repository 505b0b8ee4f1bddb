"""A note type's cards are asked as Anki renders its templates: sections, readings, FrontSide."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.anki.anki_text import render_template, ruby, to_text
from studyapp.questions.model import Kind

pytest.importorskip("anki.collection")
from anki_fixtures import _note_type, add, export
from test_field_roles import questions

LAPIS_FRONT = ("{{#IsSentenceCard}}{{Sentence}}{{/IsSentenceCard}}"
               "{{^IsSentenceCard}}<div class=expression>{{Expression}}</div>{{/IsSentenceCard}}")
LAPIS_BACK = ("{{FrontSide}}<hr id=answer>{{furigana:ExpressionFurigana}}"
              "<div>{{MainDefinition}}</div>{{#Hint}}<i>{{text:Hint}}</i>{{/Hint}}")
"""A Lapis-style Japanese note type (fields and templates cut down): the front shows the
word, or the sentence on a sentence card; the back the reading over the word and the
definition."""


def test_readings_as_anki_filters_show_them() -> None:
    value = "日本語[にほんご]を 勉強[べんきょう]する"
    assert ruby(value, "furigana") == "日本語(にほんご)を勉強(べんきょう)する"
    assert ruby(value, "kana") == "にほんごをべんきょうする"
    assert ruby(value, "kanji") == "日本語を勉強する"
    shown = render_template("{{^Off}}{{kana:W}}{{/Off}}{{#Off}}no{{/Off}}", {"W": value})
    assert to_text(shown).text == "にほんごをべんきょうする"


def test_a_lapis_style_note_asks_what_anki_asks(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "lapis.anki2"))
    try:
        _note_type(col, "Lapis", ["Expression", "ExpressionFurigana", "MainDefinition",
                                  "Sentence", "IsSentenceCard", "Hint"],
                   LAPIS_FRONT, LAPIS_BACK)
        add(col, "Lapis", "Japanese", "", Expression="日本語",
            ExpressionFurigana="日本語[にほんご]", MainDefinition="the Japanese language",
            Sentence="日本語を勉強する", Hint="<b>noun</b>")
        add(col, "Lapis", "Japanese", "", Expression="勉強",
            ExpressionFurigana="勉強[べんきょう]", MainDefinition="study",
            Sentence="毎日<b>勉強</b>する", IsSentenceCard="x")
        package = export(col, tmp_path / "lapis.apkg")
    finally:
        col.close()
    found = questions(tmp_path, package)
    word = found["日本語"]
    assert word.kind is Kind.RECALL
    assert word.answer == "日本語(にほんご)\nthe Japanese language\nnoun"
    sentence = found["毎日勉強する"]  # the sentence card asks the sentence, not the word
    assert sentence.kind is Kind.RECALL
    assert sentence.answer == "勉強(べんきょう)\nstudy"
    assert "勉強" not in found


def test_untrusted_note_text_is_read_as_text_never_run_or_styled(tmp_path: Path) -> None:
    from anki.collection import Collection

    from studyapp.tui.text import plain

    col = Collection(str(tmp_path / "hostile.anki2"))
    try:
        add(col, "Basic", "Hostile", "",
            Front="[bold red]Danger[/] <script>alert(1)</script><img src=x onerror=alert(2)>",
            Back="{{Front}} [sound:a.mp3] <b>[link=http://x]y[/link]</b>")
        package = export(col, tmp_path / "hostile.apkg")
    finally:
        col.close()
    (question,) = questions(tmp_path, package).values()
    assert question.prompt == "[bold red]Danger[/] [image: x]"  # the script never a word
    assert question.answer == "{{Front}} [audio: a.mp3] [link=http://x]y[/link]"
    shown = plain(question.prompt)  # the app shows it as it is, not as Rich markup
    assert str(shown) == question.prompt
