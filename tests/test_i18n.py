"""Both languages say everything: same keys, same placeholders, nothing missing."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
import yaml

from studyapp import i18n

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "content" / "i18n"
AREAS = sorted({p.name.split(".")[0] for p in I18N.glob("*.*.yaml")})  # not glossary.yaml


def _load(area: str, lang: str) -> dict[str, str]:
    with (I18N / f"{area}.{lang}.yaml").open(encoding="utf-8") as fh:
        return {str(k): str(v) for k, v in (yaml.safe_load(fh) or {}).items()}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("area", AREAS)
def test_both_languages_have_the_same_keys(area: str) -> None:
    es, en = _load(area, "es"), _load(area, "en")
    assert sorted(set(es) - set(en)) == [], "keys only in Spanish"
    assert sorted(set(en) - set(es)) == [], "keys only in English"


@pytest.mark.parametrize("area", AREAS)
def test_placeholders_agree_and_nothing_is_empty(area: str) -> None:
    es, en = _load(area, "es"), _load(area, "en")
    for key in en:
        assert en[key].strip() and es[key].strip(), f"{key} is empty"
        assert _fields(en[key]) == _fields(es[key]), f"{key}: placeholders differ"


def test_keys_are_unique_across_areas() -> None:
    for lang in i18n.LANGS:
        seen: dict[str, str] = {}
        for area in AREAS:
            for key in _load(area, lang):
                assert key not in seen, f"{key} in both {seen[key]} and {area}"
                seen[key] = area


LITERAL_KEY = re.compile(r"""\bt\(\s*["']([a-z0-9_]+\.[a-z0-9_.]+)["']""")


def test_every_literal_key_in_the_code_exists() -> None:
    known = set(i18n.strings("en")) & set(i18n.strings("es"))
    missing = []
    for path in (ROOT / "studyapp").rglob("*.py"):
        for key in LITERAL_KEY.findall(path.read_text(encoding="utf-8")):
            if key not in known:
                missing.append(f"{path.relative_to(ROOT)}: {key}")
    assert missing == []


def test_default_language_follows_the_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert i18n.default_lang() == "es"
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert i18n.default_lang() == "en"
    monkeypatch.setenv("LC_ALL", "es_MX.UTF-8")
    assert i18n.default_lang() == "es"
