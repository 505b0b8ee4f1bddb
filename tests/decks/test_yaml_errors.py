"""YAML syntax errors reported at the line to fix, in one sentence of the project's words,
in English and Spanish (never PyYAML's "while scanning a quoted scalar")."""

from __future__ import annotations

from pathlib import Path

import pytest
from deck_texts import write

from studyapp.decks import validate_paths

CARD = """\
deck: quotes
title: Quotes
language: en
post: h100
cards:
  - id: a
    type: truefalse
    prompt: "Does the H100 SXM use HBM3?"
    answer: true
    explanation: "It does."
  - id: b
    type: truefalse
    prompt: "Is NVLink 4 faster than PCIe 5?"
    answer: true
"""

CASES = [
    # (name, broken text, line, col, English, Spanish)
    ("quote left open, closed by the next quote two lines on",
     CARD.replace('"Does the H100 SXM use HBM3?"', '"Does the H100 SXM use HBM3?'),
     8, 13, 'this text opens with " and is never closed: end it with " on the same line',
     'este texto se abre con " y no se cierra: termínalo con " en la misma línea'),
    ("single quote left open at the end of the file",
     CARD.replace('"Is NVLink 4 faster than PCIe 5?"', "'Is NVLink 4 faster than PCIe 5?"),
     13, 13, "this text opens with ' and is never closed: end it with ' on the same line",
     "este texto se abre con ' y no se cierra: termínalo con ' en la misma línea"),
    ("a key indented further than its mapping",
     CARD.replace("    answer: true\n    explanation", "      answer: true\n    explanation"),
     9, 7, "this line starts at column 7, right of line 8 above it (column 5): the keys of "
           "one mapping start in the same column",
     "esta línea empieza en la columna 7, a la derecha de la línea 8 de arriba (columna 5): "
     "las claves de un mismo mapa empiezan en la misma columna"),
    ("a key indented less than its mapping",
     CARD.replace("    answer: true\n    explanation", "   answer: true\n    explanation"),
     9, 4, "this line starts at column 4, left of the line above it (column 5), and lines up "
           "with no key or list item above: indent it as the others of its mapping or list",
     "esta línea empieza en la columna 4, a la izquierda de la de arriba (columna 5), y no se "
     "alinea con ninguna clave ni elemento de lista anterior: sángrala como las demás de su "
     "mapa o lista"),
    ("a tab in the indentation",
     CARD.replace("    answer: true\n    explanation", "\tanswer: true\n    explanation"),
     9, 1, "a tab character: use spaces for indentation (YAML does not allow tabs there)",
     "un tabulador: usa espacios para sangrar (YAML no admite tabuladores ahí)"),
    ("a key written twice",
     CARD.replace('    explanation: "It does."', '    explanation: "It does."\n    answer: false'),
     11, 5, "duplicate key 'answer' (first at line 9, column 5)",
     "clave 'answer' repetida (la primera está en la línea 9, columna 5)"),
    ("a value with ': ' in it",
     CARD.replace('"It does."', "Yes: HBM3, 80 GB"),
     10, 18, "the value of explanation contains \": \", which YAML reads as another key: "
             "quote the value, as in explanation: \"Yes: HBM3, 80 GB\"",
     "el valor de explanation contiene \": \", que YAML lee como otra clave: pon el valor "
     "entre comillas, así: explanation: \"Yes: HBM3, 80 GB\""),
    ("a bracket left open",
     CARD.replace("    answer: true\n    explanation", "    tags: [hbm, h100\n    explanation"),
     9, 11, "this [ ] or { } is not closed where it should be: close it with ] on the same "
            "line, with commas between its items",
     "este [ ] o { } no se cierra donde debería: ciérralo con ] en la misma línea, con "
     "comas entre sus elementos"),
    ("an apostrophe inside single quotes",
     CARD.replace('"It does."', "'It's HBM3'"),
     10, 21, "this ' ends the quoted text, but the line goes on: write a ' inside the text as "
             "'', or quote the whole value with the other kind of quotes",
     "este ' cierra el texto entre comillas, pero la línea sigue: escribe un ' dentro del "
     "texto como '', o pon todo el valor entre el otro tipo de comillas"),
    ("a key without its colon",
     CARD.replace("    answer: true\n    explanation", "    answer true\n    explanation"),
     9, 5, "this line is read as a key without its \": \": write the key, a colon and a space, "
           "then the value (answer: true)",
     "esta línea se lee como una clave sin su \": \": escribe la clave, dos puntos y un "
     "espacio, y luego el valor (answer: true)"),
    ("a backslash in double quotes",
     CARD.replace('"It does."', '"C:\\decks"'),
     10, 21, "a backslash inside double quotes starts an escape such as \\n: write \\\\ for a "
             "backslash, or put the text in single quotes",
     "una barra invertida entre comillas dobles empieza un escape como \\n: escribe \\\\ para "
     "una barra invertida, o pon el texto entre comillas simples"),
]


@pytest.mark.parametrize(("name", "text", "line", "col", "en", "es"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_yaml_mistake_is_said_at_its_line(tmp_path: Path, name: str, text: str, line: int,
                                            col: int, en: str, es: str) -> None:
    path = write(tmp_path, text)
    [problem] = validate_paths([path])
    assert problem.render("en") == f"{path}:{line}:{col}: {en}"
    assert problem.render("es") == f"{path}:{line}:{col}: {es}"
    assert "while scanning" not in problem.render("en")


def test_a_quoted_text_on_two_lines_is_still_yaml(tmp_path: Path) -> None:
    """A quoted value may go on over the next line: it is not a quote left open."""
    text = CARD.replace('"Does the H100 SXM use HBM3?"', '"Does the H100 SXM\n      use HBM3?"')
    assert validate_paths([write(tmp_path, text)]) == []


def test_a_quote_in_a_block_of_text_is_not_a_quote_left_open(tmp_path: Path) -> None:
    """A summary written as a block (``|``) may hold any quote; an error after it is
    still said where it is."""
    text = CARD.replace("title: Quotes\n", 'title: Quotes\nsummary: |\n  "Quoted, then\n  more\n')
    text = text.replace("    answer: true\n    explanation", "      answer: true\n    explanation")
    path = write(tmp_path, text)
    [problem] = validate_paths([path])
    assert problem.render("en") == (f"{path}:12:7: this line starts at column 7, right of "
                                    "line 11 above it (column 5): the keys of one mapping "
                                    "start in the same column")
