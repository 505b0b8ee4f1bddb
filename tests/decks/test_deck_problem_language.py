"""Deck problems in the reader's language, at the same ``path:line:col`` as in English."""

from __future__ import annotations

import json
import pickle
import re
import string
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from deck_texts import HEADER, VALID_DECK, write

from studyapp import i18n, locations
from studyapp.cli import main
from studyapp.decks import DeckError, Problem
from studyapp.decks.deck_loader import check_deck_file
from studyapp.decks.problems import AS_WRITTEN, KEY_PREFIX, as_written, problem_message

ROOT = Path(__file__).resolve().parents[2]
PLACE = re.compile(r"^(.+:\d+:\d+): (.*)$")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _problem_keys(lang: str) -> dict[str, str]:
    return {k: v for k, v in i18n.strings(lang).items() if k.startswith(KEY_PREFIX)}


def test_every_problem_key_has_english_and_spanish_with_the_same_fields() -> None:
    en, es = _problem_keys("en"), _problem_keys("es")
    assert len(en) > 100
    assert sorted(en) == sorted(es)
    for key, text in en.items():
        assert text.strip() and es[key].strip(), key
        assert _fields(text) == _fields(es[key]), key


# problem_message("name", ...), and the formula modules' _error("name", ...) shorthands
_USED = re.compile(r"""\b(problem_message|_error|_formula_error)\(\s*f?["']([a-z0-9_.]+)["']""")


def test_every_key_the_checks_use_is_written_in_both_languages() -> None:
    used: set[str] = set()
    for path in (ROOT / "studyapp" / "decks").rglob("*.py"):
        for helper, name in _USED.findall(path.read_text(encoding="utf-8")):
            formula = helper != "problem_message" and "formula" in str(path)
            used.add(KEY_PREFIX + ("formula." if formula else "") + name)
    used.discard(KEY_PREFIX + "formula.")  # the shorthands' own f-string
    en, es = _problem_keys("en"), _problem_keys("es")
    assert sorted(used - set(en)) == []
    assert sorted(used - set(es)) == []
    unused = set(en) - used - {AS_WRITTEN}
    assert sorted(unused) == [], "keys no check reports"


def run(lang: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--lang", lang, *args])


BROKEN = {
    "yaml syntax": ("deck: [\n", "YAML mal formado: "),
    "unknown key": (HEADER.replace("title:", "titel:") + "  - {id: a, type: text, prompt: p, "
                    "answer: x}\n", "clave 'titel' desconocida; ¿quisiste decir 'title'?"),
    "missing key": ("deck: d\ntitle: T\npost: intro\ncards: [{id: a, type: text, prompt: p, "
                    "answer: x}]\n", "falta la clave obligatoria 'language'"),
    "wrong type": (HEADER + "  - {id: a, type: numeric, prompt: p, answer: 1, tolerance: [1]}\n",
                   "se esperaba texto o un número, pero hay una lista"),
    "bad formula": (HEADER + "  - {id: a, type: numeric, prompt: p, answer: '1 +* 2'}\n",
                    "error de sintaxis en la fórmula: "),
    "division": (HEADER + "  - {id: a, type: numeric, prompt: p, answer: '1 / x', "
                 "params: {x: [0, 1]}}\n", "división por cero en '1 / x' (con x=0)"),
    "reserved param": (HEADER + "  - {id: a, type: numeric, prompt: p, answer: 1, "
                       "params: {answer: 2}}\n",
                       "el nombre de parámetro 'answer' está reservado (funciones y 'answer')"),
    "unknown table": (HEADER + "  - {id: a, type: truefalse, prompt: p, answer: true, "
                      "params: {g: {from: accelerator}}}\n",
                      "tabla del catálogo 'accelerator' desconocida; "
                      "¿quisiste decir 'accelerators'?"),
    "unknown field": (HEADER + "  - {id: a, type: truefalse, prompt: '{g.memory_gbb}', "
                      "answer: true, params: {g: {from: accelerators}}}\n",
                      "las entradas de accelerators no tienen el campo 'memory_gbb'"),
    "duplicate id": (HEADER + "  - {id: a, type: text, prompt: p, answer: x}\n"
                     "  - {id: a, type: text, prompt: q, answer: y}\n",
                     "id de tarjeta 'a' repetido (el primero está en la línea 6, columna 10)"),
    "choice": (HEADER + "  - {id: a, type: choice, prompt: p, choices: [xray, y], "
               "answer: xrays}\n", "la respuesta 'xrays' no está entre las opciones"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_validate_in_spanish_says_it_in_spanish_at_the_same_place(tmp_path: Path,
                                                                   name: str) -> None:
    text, spanish = BROKEN[name]
    deck = write(tmp_path, text)
    english_run, spanish_run = run("en", "deck", "validate", str(deck)), run(
        "es", "deck", "validate", str(deck))
    assert english_run.exit_code == spanish_run.exit_code == 1
    english = english_run.output.splitlines()[:-1]  # the summary line is translated apart
    translated = spanish_run.output.splitlines()[:-1]
    assert english and len(english) == len(translated)
    places_en = [PLACE.match(line) for line in english]
    places_es = [PLACE.match(line) for line in translated]
    assert all(places_en) and all(places_es)
    assert [m.group(1) for m in places_en if m] == [m.group(1) for m in places_es if m]
    assert any(spanish in line for line in translated), spanish_run.output
    assert not any(spanish in line for line in english)
    assert "Traceback" not in spanish_run.output


def test_validate_takes_the_language_from_the_locale(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    deck = write(tmp_path, "")
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    result = CliRunner().invoke(main, ["deck", "validate", str(deck)])
    assert result.output.splitlines()[0] == f"{deck}:1:1: el archivo está vacío"


def test_preview_and_add_report_problems_in_spanish(tmp_path: Path) -> None:
    deck = write(tmp_path, HEADER + "  - {id: a, type: numeric, prompt: p, answer: -1}\n")
    for command in ("preview", "add"):
        result = run("es", "deck", command, str(deck))
        assert result.exit_code == 1
        assert result.output.splitlines() == [
            f"{deck}:6:47: la respuesta es negativa (-1); una tarjeta cuya respuesta puede ser"
            " negativa lleva `signed: true`",
            f"{deck}:6:47: la respuesta es negativa; tamaños, tasas y tiempos nunca lo son (una"
            " tarjeta cuya respuesta puede ser negativa lleva `signed: true`)",
        ]


def test_a_broken_study_deck_is_one_spanish_line(tmp_path: Path) -> None:
    deck = write(tmp_path, "deck: [\n")
    result = run("es", "study", "--deck", str(deck), "--plain")
    assert result.exit_code == 1
    assert result.output.startswith(f"studyapp: {deck}:2:1: YAML mal formado: ")
    assert "Traceback" not in result.output


def test_deck_list_json_keeps_english_messages(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    folder = locations.user_decks_dir()
    folder.mkdir(parents=True)
    write(folder, "", "broken.yaml")

    data = json.loads(run("es", "deck", "list", "--json").output)
    broken = next(d for d in data if d["status"] == "broken")
    assert broken["problems"] == [f"{broken['path']}:1:1: the file is empty"]


def test_english_text_and_order_are_the_messages_as_before(tmp_path: Path) -> None:
    problem = Problem.at(tmp_path / "d.yaml", 3, 7, problem_message("param_reserved", name="x"))
    assert str(problem) == f"{tmp_path / 'd.yaml'}:3:7: parameter name 'x' is reserved " \
                           "(functions and 'answer')"
    assert problem == Problem(tmp_path / "d.yaml", 3, 7, problem.message)
    assert problem.key == "decks.problem.param_reserved"
    assert problem.fields == (("name", "x"),)
    assert problem.message_in("es") == "el nombre de parámetro 'x' está reservado " \
                                       "(funciones y 'answer')"
    hash(problem)


def test_words_studyapp_did_not_compose_stay_as_written_in_both_languages(tmp_path: Path) -> None:
    problem = Problem.at(tmp_path / "d.yaml", 1, 1, as_written("invalid syntax"))
    assert problem.message_in("es") == problem.message_in("en") == "invalid syntax"
    plain = Problem(tmp_path / "d.yaml", 1, 1, "unknown key 'x'")  # built the old way
    assert plain.render("es") == str(plain)


def test_problems_survive_pickling_with_their_key(tmp_path: Path) -> None:
    deck = write(tmp_path, HEADER + "  - {id: a, type: numeric, prompt: p, answer: '1 / 0'}\n")
    _, problems = check_deck_file(deck)
    assert problems
    again = pickle.loads(pickle.dumps(problems))
    assert again == problems
    assert [p.render("es") for p in again] == [p.render("es") for p in problems]
    assert "división por cero" in again[0].render("es")


def test_deck_error_renders_every_problem_in_the_language(tmp_path: Path) -> None:
    deck = write(tmp_path, VALID_DECK.replace("post: hbm-kv-cache", "post: hbm"))
    _, problems = check_deck_file(deck)
    error = DeckError(problems)
    assert str(error) == "\n".join(str(p) for p in problems)
    assert "post 'hbm' desconocido" in error.render("es")
    from studyapp.tui.screens.message import describe_error

    assert describe_error(error, "es") == (False, error.render("es"))
