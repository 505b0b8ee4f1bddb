"""Messages that name the fix, at ``file:line:col``, in English and Spanish."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from deck_texts import HEADER, write

from studyapp.cli import main

TAB = HEADER + "  - id: a\n    type: text\n\tprompt: p\n    answer: x\n"
COLON = HEADER + "  - id: a\n    type: text\n    prompt: p\n    answer: a: b\n"
SHIFT = HEADER + """\
  - id: a
    type: numeric
    prompt: p
    params: {n: [1, 2]}
    answer: "n >> 1"
"""
CARET = SHIFT.replace("n >> 1", "2^n")
VENDOR = HEADER + """\
  - id: a
    type: numeric
    prompt: "{gpu.name}"
    params:
      gpu: {from: accelerators, where: {vendor: nvdia}}
    answer: "gpu.memory_gb"
    unit: GB
"""
PERCENT = HEADER + """\
  - id: a
    type: numeric
    prompt: p
    answer: 3
    unit: GB
    tolerance: 2 percent
"""
MAYBE = HEADER + "  - id: a\n    type: truefalse\n    prompt: p\n    answer: maybe\n"

CASES = [
    ("tab", TAB, {
        "en": ":8:1: a tab character: use spaces for indentation",
        "es": ":8:1: un tabulador: usa espacios para sangrar"}),
    # a tab before a list item: PyYAML's message does not name the tab
    ("tab-item", HEADER + "\t- id: a\n", {
        "en": ":6:1: a tab character: use spaces for indentation",
        "es": ":6:1: un tabulador: usa espacios para sangrar"}),
    ("colon", COLON, {
        "en": ':9:13: the value of answer contains ": ", which YAML reads as another key: '
              'quote the value, as in answer: "a: b"',
        "es": ':9:13: el valor de answer contiene ": ", que YAML lee como otra clave: '
              'pon el valor entre comillas, así: answer: "a: b"'}),
    ("shift", SHIFT, {
        "en": ":10:13: bit shifts (>> and <<) are not allowed in formulas",
        "es": ":10:13: los desplazamientos de bits (>> y <<) no se admiten en las fórmulas"}),
    ("caret", CARET, {
        "en": ":10:13: ^ is not a power in a formula: write ** (2 ** 10)",
        "es": ":10:13: ^ no es una potencia en una fórmula: escribe ** (2 ** 10)"}),
    ("vendor", VENDOR, {
        "en": ":10:49: no accelerators entry has vendor 'nvdia'; did you mean 'nvidia'?",
        "es": ":10:49: ninguna entrada de accelerators tiene vendor 'nvdia'; ¿quisiste decir"
              " 'nvidia'?"}),
    ("percent", PERCENT, {
        "en": ":11:16: tolerance '2 percent': a relative tolerance is written with the % sign,"
              " 2%; an absolute one is an amount in the card's unit, like 0.5 GB",
        "es": ":11:16: tolerancia '2 percent': una tolerancia relativa se escribe con el signo"
              " %, 2%"}),
    ("maybe", MAYBE, {
        "en": ":9:13: a true/false answer must be true or false",
        "es": ":9:13: la respuesta de verdadero/falso debe ser true o false"}),
]


@pytest.mark.parametrize(("name", "text", "said"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_message_names_the_fix(tmp_path: Path, name: str, text: str,
                                   said: dict[str, str], lang: str) -> None:
    deck = write(tmp_path, text, f"{name}.yaml")
    result = CliRunner().invoke(main, ["--lang", lang, "deck", "validate", str(deck)])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first.startswith(f"{deck}{said[lang]}"), first
    assert "RShift" not in result.output and "unknown name 'maybe'" not in result.output
    assert "cannot convert" not in result.output


def test_a_tab_inside_a_block_text_is_no_problem(tmp_path: Path) -> None:
    text = HEADER + "  - id: a\n    type: text\n    prompt: |\n      p\n      \tq\n    answer: x\n"
    deck = write(tmp_path, text)
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "validate", str(deck)])
    assert result.exit_code == 0, result.output
    assert "use spaces" not in result.output


def test_preview_of_a_misspelt_card_gets_a_did_you_mean(tmp_path: Path) -> None:
    text = HEADER + "  - {id: kv-per-request, type: numeric, prompt: p, answer: 3}\n"
    deck = write(tmp_path, text)
    for lang, words in (("en", "did you mean 'kv-per-request'?"),
                        ("es", "¿quisiste decir 'kv-per-request'?")):
        result = CliRunner().invoke(main, ["--lang", lang, "deck", "preview", str(deck),
                                           "--card", "kv-per-reqest"])
        assert result.exit_code == 1
        assert words in result.output
