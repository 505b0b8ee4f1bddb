"""``generate FAMILY --options`` lists a family's options; a bad ``--option`` is a usage error.

The case from the field: ``generate gb-vs-gib --option gpu=h200-sxm`` (for ``gpus``) was
silently ignored and drew from every chip; no command listed a family's options.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.cli import main
from studyapp.questions.generators import get_family, registered_families
from studyapp.questions.generators.families.memory import GIB_SIZES
from studyapp.questions.generators.families.terms import WEIGHT_DTYPES
from studyapp.questions.generators.options import (
    CLOSED,
    KINDS,
    OptionError,
    check_options,
    option_infos,
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_an_unknown_option_key_is_a_usage_error_with_a_did_you_mean() -> None:
    code, out, err = run("generate", "gb-vs-gib", "--option", "gpu=h200-sxm", "--seed", "1")
    assert code == 2 and out == ""
    assert err.strip() == ("studyapp: gb-vs-gib has no option 'gpu'; did you mean gpus? "
                           "(its options: gpus, sizes_gib, sizes_gb; "
                           "see: studyapp generate gb-vs-gib --options)")


def test_the_unknown_key_in_spanish() -> None:
    code, _, err = run("--lang", "es", "generate", "gb-vs-gib", "--option", "gpu=h200-sxm")
    assert code == 2
    assert "gb-vs-gib no tiene la opción 'gpu'; ¿quisiste decir gpus?" in err
    assert "ver: studyapp generate gb-vs-gib --options" in err


def test_a_known_option_still_draws() -> None:
    code, out, _ = run("generate", "gb-vs-gib", "--option", "gpus=h200-sxm", "--seed", "3",
                       "--count", "5", "--json")
    assert code == 0
    assert {q["params"].get("gpu", "h200-sxm") for q in json.loads(out)} == {"h200-sxm"}


@pytest.mark.parametrize(("family", "pair", "says"), [
    ("kv-cache-total", "contexts=abc",
     "option contexts of kv-cache-total takes whole numbers, 1 or more, not 'abc'"),
    ("kv-cache-total", "batches=0", "takes whole numbers, 1 or more, not '0'"),
    ("kv-cache-total", "dtypes=fp9",
     "option dtypes of kv-cache-total takes fp32, fp16, bf16, fp8, int8, fp4, int4, not 'fp9'"),
    ("ridge-point", "ask=atainable",
     "option ask of ridge-point takes ridge, attainable, not 'atainable'; "
     "did you mean attainable?"),
    ("ridge-point", "precisions=fp2", "takes bf16, fp8, fp4, not 'fp2'"),
    ("training-days", "mfus=2", "takes fractions above 0, at most 1, not '2'"),
    ("training-memory", "zero_stages=7", "takes 0, 1, 2, 3, not '7'"),
    ("bottleneck", "scenarios=decod", "not 'decod'; did you mean decode?"),
    ("ridge-point", "gpus=h2000",
     "option gpus of ridge-point: 'h2000' is not an id of the catalog's accelerators; "
     "did you mean b200, h200-sxm, h200-nvl?"),
])
def test_a_bad_value_names_the_option_and_what_it_takes(family: str, pair: str,
                                                         says: str) -> None:
    code, out, err = run("generate", family, "--option", pair, "--seed", "1")
    assert code == 2 and out == ""
    assert says in err
    assert "Traceback" not in err


def test_a_bad_value_in_spanish() -> None:
    code, _, err = run("--lang", "es", "generate", "kv-cache-total", "--option", "batches=0")
    assert code == 2
    assert "la opción batches de kv-cache-total admite números enteros, 1 o más, no '0'" in err
    code, _, err = run("--lang", "es", "generate", "ridge-point", "--option", "gpus=h2000")
    assert code == 2 and "no es un id de aceleradores del catálogo" in err


def test_options_lists_name_type_default_and_allowed_values() -> None:
    code, out, _ = run("generate", "gb-vs-gib", "--options", "--json")
    assert code == 0
    listing = {item["name"]: item for item in json.loads(out)}
    assert list(listing) == ["gpus", "sizes_gib", "sizes_gb"]
    gpus = listing["gpus"]
    assert gpus["type"] == "catalog ids (accelerators)"
    assert gpus["allowed"] == load_catalog().accelerators.ids()
    assert gpus["default"] == gpus["allowed"]
    assert listing["sizes_gib"]["default"] == list(GIB_SIZES)
    assert listing["sizes_gib"]["allowed"] is None
    assert listing["sizes_gib"]["type"] == "whole numbers, 1 or more"
    weights = {i["name"]: i for i in json.loads(run("generate", "weights-size", "--options",
                                                    "--json")[1])}
    assert weights["dtypes"]["default"] == list(WEIGHT_DTYPES)
    assert "fp8" in weights["dtypes"]["allowed"]


def test_options_as_text_in_both_languages() -> None:
    code, out, _ = run("generate", "ridge-point", "--options")
    assert code == 0
    assert out.startswith("Options of ridge-point (--option NAME=VALUE[,VALUE...], repeatable):")
    assert "  ask: what the question asks\n      type: one of a fixed list\n" in out
    assert "      allowed: ridge, attainable\n" in out
    code, out, _ = run("--lang", "es", "generate", "ridge-point", "--options")
    assert code == 0
    assert out.startswith("Opciones de ridge-point")
    assert "      admite: bf16, fp8, fp4\n" in out
    assert "por defecto: " in out and "tipo: ids del catálogo (aceleradores)" in out


@pytest.mark.parametrize("name", list(registered_families()))
def test_every_option_of_every_family_is_described(name: str) -> None:
    family = get_family(name)
    for lang in ("en", "es"):
        for info in option_infos(family, lang):
            assert info.name in KINDS, f"{name}: option {info.name} needs a kind"
            assert info.description and not info.description.startswith("gen.opt"), info
            if KINDS[info.name].kind == CLOSED:
                assert info.allowed, f"{name}: closed option {info.name} allows nothing"
    # the defaults pass their own checks
    for info in option_infos(family, "en"):
        if info.default:
            check_options(family, {info.name: info.default}, "en")


def test_check_options_raises_for_unknown_keys() -> None:
    with pytest.raises(OptionError, match="did you mean gpus"):
        check_options(get_family("gb-vs-gib"), {"gpu": ["h200-sxm"]}, "en")
    check_options(get_family("gb-vs-gib"), {"gpus": ["h200-sxm"], "sizes_gb": [14.5]}, "en")


def test_options_needs_a_family() -> None:
    code, out, err = run("generate", "--options")
    assert code == 2 and out == ""
    assert "--options lists the options of one family" in err
    code, _, err = run("--lang", "es", "generate", "--options")
    assert code == 2 and "--options muestra las opciones de una familia" in err


def test_the_audit_of_one_family_checks_its_options_too() -> None:
    code, out, err = run("generate", "gb-vs-gib", "--audit", "--option", "gpu=h200-sxm")
    assert code == 2 and out == ""
    assert "gb-vs-gib has no option 'gpu'; did you mean gpus?" in err
