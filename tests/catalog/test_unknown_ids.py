"""An unknown id is named in the learner's language, with the ids that come close."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from studyapp.catalog import UnknownIdError
from studyapp.cli import main
from studyapp.i18n import strings


def run(*args: str, home: Path) -> str:
    result = CliRunner().invoke(main, list(args), env={"STUDYAPP_HOME": str(home)})
    assert result.exit_code == 1, result.output
    return " ".join(result.output.split())


def test_english_text_is_the_exception_and_spanish_names_the_same_ids() -> None:
    exc = UnknownIdError("model", "llama-3.1-7b", ["llama-3.1-8b", "llama-3.1-70b", "mistral-7b"])
    assert exc.render("en") == str(exc)
    assert str(exc).startswith("unknown model id 'llama-3.1-7b'; did you mean llama-3.1-70b, ")
    spanish = exc.render("es")
    assert spanish.startswith("id de modelo desconocido: 'llama-3.1-7b'; ¿quisiste decir ")
    assert spanish.endswith("(existen: llama-3.1-8b, llama-3.1-70b, mistral-7b)")
    # a kind without a Spanish word keeps its own name rather than failing
    field = UnknownIdError("models field", "layerz", ["layers"]).render("es")
    assert field.startswith("id de models field desconocido: 'layerz'")


def test_every_kind_word_is_in_both_languages() -> None:
    kinds = {key for key in strings("en") if key.startswith("catalog.kind.")}
    assert kinds and kinds == {key for key in strings("es") if key.startswith("catalog.kind.")}


def test_commands_name_an_unknown_id_in_their_language(tmp_path: Path) -> None:
    home = tmp_path / "home"
    spanish = run("--lang", "es", "calc", "kv", "--model", "llama-3.1-7b", home=home)
    assert "id de modelo desconocido: 'llama-3.1-7b'; ¿quisiste decir" in spanish
    english = run("--lang", "en", "calc", "kv", "--model", "llama-3.1-7b", home=home)
    assert "unknown model id 'llama-3.1-7b'; did you mean" in english
    deck = run("--lang", "es", "study", "--deck", "post-h20", "--plain", home=home)
    assert "id de mazo desconocido: 'post-h20'; ¿quisiste decir post-h200" in deck
