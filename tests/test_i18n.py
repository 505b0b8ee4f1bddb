"""Both languages say everything: same keys, same placeholders, nothing missing."""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
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


TRANSLATORS = {"t", "tr"}
"""``t(key, lang)``, and the screens' and widgets' ``self.tr(key)`` / ``tr(key)``."""


def _prefix_of(function: ast.FunctionDef) -> str | None:
    """``"class."`` of a local helper ``def tr(key): return t(f"class.{key}", lang)``."""
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "t" and node.args
                and isinstance(node.args[0], ast.JoinedStr)):
            values = node.args[0].values
            if (len(values) == 2 and isinstance(values[0], ast.Constant)
                    and isinstance(values[1], ast.FormattedValue)):
                return str(values[0].value)
    return None


def _interface_keys(tree: ast.AST) -> Iterator[tuple[int, str, bool]]:
    """(line, key, whole) of each translation call's first argument: a literal key
    (whole), or the literal start of an f-string key such as ``f"tui.rating.{name}"``.
    A module's own ``tr`` helper that adds a prefix to its key adds it here too."""
    prefixes = {node.name: prefix for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef) and node.name in TRANSLATORS
                and (prefix := _prefix_of(node)) is not None}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) else "")
        if name not in TRANSLATORS:
            continue
        prefix = prefixes.get(name, "") if isinstance(func, ast.Name) else ""
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield node.lineno, prefix + first.value, True
        elif (isinstance(first, ast.JoinedStr) and first.values
              and isinstance(first.values[0], ast.Constant)):
            yield node.lineno, prefix + str(first.values[0].value), False


def test_every_interface_key_in_the_code_exists_in_both_languages() -> None:
    """Each ``t("...")`` / ``tr("...")`` key under studyapp/ is in the English and the
    Spanish yaml (a missing one shows the raw key to the learner); an f-string key's
    literal start begins at least one key of each."""
    calls = 0
    missing = []
    for path in sorted((ROOT / "studyapp").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, key, whole in _interface_keys(tree):
            if "." not in key:  # not an interface key (a translator of something else)
                continue
            calls += 1
            for lang in i18n.LANGS:
                known = i18n.strings(lang)
                found = key in known if whole else any(k.startswith(key) for k in known)
                if not found:
                    missing.append(f"{path.relative_to(ROOT)}:{line}: {key} ({lang})")
    assert calls > 500, "the walk found too few keys to be reading the code"
    assert missing == []


def test_the_key_walker_reads_every_form_of_translation_call() -> None:
    source = (
        'def report(lang):\n'
        '    def tr(key):\n'
        '        return t(f"class.{key}", lang)\n'
        '    tr("col.student")\n'
        'class S:\n'
        '    def show(self, name):\n'
        '        t("tui.home.title", "en")\n'
        '        self.tr("tui.key.quit")\n'
        '        self.app.tr(f"tui.rating.{name}")\n'
        '        print("tui.not.a.call")\n')
    found = {(key, whole) for _, key, whole in _interface_keys(ast.parse(source))}
    assert found == {("class.col.student", True), ("tui.home.title", True),
                     ("tui.key.quit", True), ("tui.rating.", False), ("class.", False)}


def test_default_language_follows_the_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert i18n.default_lang() == "es"
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert i18n.default_lang() == "en"
    monkeypatch.setenv("LC_ALL", "es_MX.UTF-8")
    assert i18n.default_lang() == "es"
