"""``studyapp generate``: list the generator families, or draw questions from one."""

from __future__ import annotations

import difflib
import random
import textwrap
from typing import TYPE_CHECKING, Any

import click

from studyapp.cli import current_settings, echo_json, fail, user_error_text
from studyapp.i18n import t
from studyapp.numbers import format_number

if TYPE_CHECKING:
    from studyapp.questions.model import Question


def _print_options(family: Any, as_json: bool, lang: str) -> None:
    """``generate FAMILY --options``: each option's name, type, default and allowed values."""

    from studyapp.questions.generators.options import option_infos, shown_value

    infos = option_infos(family, lang)
    if as_json:
        echo_json([info.record() for info in infos])
        return
    if not infos:
        click.echo(t("gen.opt.no_options", lang, family=family.name))
        return
    click.echo(t("gen.opt.heading", lang, family=family.name))

    def line(label: str, text: str) -> None:
        click.echo(textwrap.fill(f"{label}: {text}", width=79, initial_indent="      ",
                                 subsequent_indent="        ", break_on_hyphens=False))

    for info in infos:
        click.echo(f"  {info.name}: {info.description}")
        line(t("gen.opt.type_label", lang), info.type)
        default = ", ".join(shown_value(v) for v in info.default)
        if info.allowed is not None and info.default and info.default == info.allowed:
            default = t("gen.opt.every", lang)
        line(t("gen.opt.default", lang), default or t("gen.opt.nothing", lang))
        allowed = (t("gen.opt.any", lang) if info.allowed is None
                   else ", ".join(shown_value(v) for v in info.allowed))
        line(t("gen.opt.allowed", lang), allowed)


def _option_pairs(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--option gpus=h200-sxm,h100-sxm`` as ``{"gpus": ["h200-sxm", "h100-sxm"]}``."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"--option takes KEY=VALUE, not {pair!r}")
        items = [item.strip() for item in value.split(",") if item.strip()]
        options[key.strip()] = [int(i) if i.isdigit() else i for i in items]
    return options


@click.command("generate")
@click.argument("family", required=False)
@click.option("--list", "list_families", is_flag=True, help="List the generator families.")
@click.option("--options", "list_options", is_flag=True,
              help="List FAMILY's options: name, type, default, allowed values.")
@click.option("--seed", type=int, default=None,
              help="Seed of the run (default: a random one); same seed, same questions.")
@click.option("--count", type=click.IntRange(min=1, max=100_000), default=1, show_default=True,
              help="How many instances.")
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Family option, e.g. gpus=h200-sxm,h100-sxm (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None,
              help="Language of the questions (default: the global --lang).")
@click.option("--audit", is_flag=True,
              help="Measure the families and the post decks' generated cards (or FAMILY, "
                   "or --deck files): topic, balance, figures stated, answers re-computed.")
@click.option("--deck", "deck_paths", multiple=True, type=click.Path(dir_okay=False),
              help="With --audit: a deck file whose generated cards to audit (repeatable).")
@click.option("--try", "tried", default=None, metavar="ANSWER",
              help="Grade ANSWER to each instance as a study session would: the verdict and "
                   "the slip named (a scenario's steps separated by |).")
@click.option("--part", "part_number", type=click.IntRange(min=1), default=None,
              help="With --try: grade ANSWER as scenario step K alone.")
@click.pass_context
def generate(ctx: click.Context, family: str | None, list_families: bool, list_options: bool,
             seed: int | None, count: int, option_pairs: tuple[str, ...], as_json: bool,
             lang: str | None, audit: bool, deck_paths: tuple[str, ...], tried: str | None,
             part_number: int | None) -> None:
    """Generated questions: list the families, or draw instances of one."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.catalog import UnknownIdError
    from studyapp.questions.generators import registered_families
    from studyapp.questions.generators.options import OptionError, check_options
    from studyapp.questions.generators.running import as_record, generate_run

    lang = lang or current_settings(ctx).lang
    table = registered_families()
    if audit:
        from studyapp.cli.audit import run_audit

        run_audit(family, deck_paths, _option_pairs(option_pairs), as_json, lang)
        return
    if list_options and family is None:
        fail(t("gen.opt.needs_family", lang), code=2)
    if list_families or family is None:
        listing = [{"name": f.name, "post": f.post, "kind": str(f.kind),
                    "description": f.description.get(lang) or f.description.get("en", ""),
                    "prerequisites": list(f.prerequisites)}
                   for f in table.values()]
        if as_json:
            echo_json(listing)
            return
        width = max(len(item["name"]) for item in listing)
        for item in listing:
            click.echo(f"{item['name']:<{width}}  {item['post']:<19} {item['kind']:<9} "
                       f"{item['description']}")
        return
    if family not in table:
        close = difflib.get_close_matches(family, list(table), n=4, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        fail(f"unknown generator family {family!r}{hint} (see: studyapp generate --list)")
    if list_options:
        _print_options(table[family], as_json, lang)
        return
    options = _option_pairs(option_pairs)
    try:
        check_options(table[family], options, lang)
    except OptionError as exc:
        fail(str(exc), code=2)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        questions = generate_run(table[family], seed, count, lang, options)
    except (UnknownIdError, LookupError, ValueError) as exc:
        fail(user_error_text(exc, lang))
    records = [as_record(q) for q in questions]
    if part_number is not None and tried is None:
        fail(t("gen.try.part_alone", lang), code=2)
    if tried is not None:
        _grade_tries(questions, records, tried, part_number, as_json, lang)
        return
    if as_json:
        echo_json(records)
        return
    from studyapp.questions.grading import expected_display  # only for the text listing
    from studyapp.questions.model import Kind
    from studyapp.study.phrases import numbered_choice

    for number, (question, record) in enumerate(zip(questions, records, strict=True), 1):
        click.echo(f"[{number}/{len(records)}] {record['family']} ({record['post']}, "
                   f"{record['kind']}, seed {record['seed']})")
        click.echo(record["prompt"])
        for number, choice in enumerate(record["choices"] or [], start=1):
            click.echo(f"  {number}) {choice}")  # numbered, as the study faces list them
        if question.kind is Kind.SCENARIO:  # each step with its answer, then the chain
            for n, part in enumerate(question.parts, 1):
                uses = f" [{', '.join(part.uses)}]" if part.uses else ""
                click.echo(f"  {n}. {part.question.prompt}{uses}")
                click.echo(f"     {t('gen.cli.answer', lang)}: "
                           f"{numbered_choice(part.question, expected_display(part.question))}")
            click.echo(record["explanation"])
            click.echo("")
            continue
        answer = record["answer"]
        if isinstance(answer, bool):
            answer = t("gen.word.yes" if answer else "gen.word.no", lang)
        elif isinstance(answer, float):
            answer = expected_display(question)  # the learner's language and unit
        exact = question.tolerance is not None and question.tolerance.absolute == 0
        tolerance = (f" (±{shown_tolerance(question, lang)})"
                     if record["tolerance"] and not exact else "")
        click.echo(f"{t('gen.cli.answer', lang)}: {answer}{tolerance}")
        click.echo(record["explanation"])
        click.echo("")


def _grade_tries(questions: list[Question], records: list[dict[str, Any]], tried: str,
                 part: int | None, as_json: bool, lang: str) -> None:
    """``generate FAMILY --try ANSWER``: each instance's record with its ``try`` verdict."""
    from studyapp.questions.trying import TryError, try_answer

    try:
        results = [try_answer(q, tried, part) for q in questions]
    except TryError as exc:
        fail(str(exc), code=2)
    if as_json:
        echo_json([{**record, "try": result.record()}
                   for record, result in zip(records, results, strict=True)])
        return
    for number, (record, result) in enumerate(zip(records, results, strict=True), 1):
        click.echo(f"[{number}/{len(records)}] {record['family']} (seed {record['seed']})")
        click.echo(record["prompt"])
        if result.part is not None:
            step = questions[number - 1].parts[result.part - 1]
            click.echo(f"  {result.part}. {step.question.prompt}")
        for line in tried_lines(result, lang):
            click.echo(line)
        click.echo("")


def tried_lines(result: Any, lang: str) -> list[str]:
    """A tried answer as text: each step's verdict and slip, then the card's."""

    def verdict_line(label: str, verdict: Any) -> str:
        state = ("retry" if verdict.correct is None else
                 "right" if verdict.correct else "wrong")
        slip = (" · " + t("gen.try.slip", lang, slip=", ".join(verdict.slips))
                if verdict.slips else "")
        return f"{label}{t(f'gen.try.{state}', lang)}{slip}: {verdict.message}"

    lines = [verdict_line(f"  {n}. ", step.verdict)
             for n, step in enumerate(result.parts, 1)]
    lines.append(verdict_line(f"{t('gen.try.verdict', lang)}: ", result.verdict))
    if result.outcome is not None:
        lines.append(t(f"gen.try.outcome.{result.outcome.rating}", lang))
    return lines


def shown_tolerance(question: Question, lang: str) -> str:
    """The tolerance as the reader writes numbers: ``2%``, ``0.5 KB``; ``2 %``, ``0,5 KB``.

    The JSON keeps the fixed form (``"0.5%"``); the text a person reads follows the
    language (Spanish: decimal comma, a space before %)."""

    tolerance = question.tolerance
    assert tolerance is not None
    if tolerance.absolute is not None:
        figure = format_number(tolerance.absolute, lang, sig=6)
        return figure + (f" {question.unit}" if question.unit else "")
    figure = format_number((tolerance.relative or 0.0) * 100, lang, sig=6)
    return f"{figure} %" if lang == "es" else f"{figure}%"
