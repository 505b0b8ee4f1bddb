"""The ``studyapp`` command: parses options, builds settings, runs one thing.

Imports are deferred into each command so that ``studyapp --help`` and the
TUI start quickly and ``--help`` touches no file.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

import click


@dataclass(frozen=True)
class Settings:
    """What every command needs to know about where and who."""

    db_url: str | None
    profile: str
    lang: str


def _settings(ctx: click.Context) -> Settings:
    obj = ctx.find_object(Settings)
    assert obj is not None
    return obj


def fail(message: str, code: int = 1) -> NoReturn:
    """A problem in the user's input: one clear line on stderr, no traceback."""
    click.echo(f"studyapp: {message}", err=True)
    sys.exit(code)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db_url", envvar="STUDYAPP_DB", default=None, metavar="URL",
              help="Database URL (default: SQLite in the user data folder).")
@click.option("--profile", envvar="STUDYAPP_PROFILE", default="default", show_default=True,
              help="Learner profile; profiles in one database never mix.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None,
              help="Language of posts, questions and interface (default: from the locale).")
@click.version_option(package_name="studyapp")
@click.pass_context
def main(ctx: click.Context, db_url: str | None, profile: str, lang: str | None) -> None:
    """Study the infrastructure behind AI models, with spaced repetition.

    Without a command, opens the terminal app on the home screen.
    """
    if lang is None:
        from studyapp.i18n import default_lang

        lang = default_lang()
    ctx.obj = Settings(db_url=db_url, profile=profile, lang=lang)
    if ctx.invoked_subcommand is None:
        from studyapp.tui.app import run_app

        run_app(ctx.obj)


# --- calc commands (studyapp.infra) ---

DTYPES = ["fp32", "fp16", "bf16", "fp8", "int8", "fp4", "int4"]


def _model_options(f: Any) -> Any:
    """--model ID, or an explicit shape for a model outside the catalog."""
    opts = [
        click.option("--model", "model_id", metavar="ID", help="Model id from the catalog."),
        click.option("--params", metavar="N",
                     help="Parameter count instead of --model (70e9, 70B)."),
        click.option("--layers", type=click.IntRange(min=1), help="Transformer layers."),
        click.option("--kv-heads", type=click.IntRange(min=1), help="KV heads (GQA)."),
        click.option("--head-dim", type=click.IntRange(min=1), help="Head dimension."),
        click.option("--kv-lora-rank", type=click.IntRange(min=1), help="MLA latent rank."),
        click.option("--qk-rope-head-dim", type=click.IntRange(min=0), help="MLA RoPE key dim."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _device_options(f: Any) -> Any:
    """--gpu ID, or explicit figures for a chip outside the catalog."""
    opts = [
        click.option("--gpu", "gpu_id", metavar="ID", help="Accelerator id from the catalog."),
        click.option("--memory-gb", type=click.FloatRange(min=0, min_open=True),
                     help="Memory per device in GB instead of --gpu."),
        click.option("--bandwidth-tb-s", type=click.FloatRange(min=0, min_open=True),
                     help="Memory bandwidth per device in TB/s instead of --gpu."),
        click.option("--tflops", type=click.FloatRange(min=0, min_open=True),
                     help="Dense TFLOPS per device instead of --gpu."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _resolve_model(kw: dict[str, Any], need_params: bool = True) -> Any:
    from studyapp.catalog import UnknownIdError, load_catalog
    from studyapp.infra.calc import ModelInput, parse_count
    from studyapp.infra.memory import KVShape
    from studyapp.infra.shapes import kv_shape

    params: float | None = None
    if kw.get("params"):
        try:
            params = parse_count(kw["params"])
        except ValueError as exc:
            fail(str(exc))
    if kw.get("model_id"):
        try:
            model = load_catalog().models[kw["model_id"]]
        except UnknownIdError as exc:
            fail(str(exc))
        shape = kv_shape(model)
        if kw.get("layers") or kw.get("kv_heads") or kw.get("head_dim"):
            shape = KVShape(layers=kw.get("layers") or shape.layers,
                            kv_heads=kw.get("kv_heads") or shape.kv_heads,
                            head_dim=kw.get("head_dim") or shape.head_dim)
        return ModelInput(model.id, params or model.params, shape, model.attention)
    layers = kw.get("layers")
    if kw.get("kv_lora_rank"):
        if not layers:
            fail("an MLA shape needs --layers, --kv-lora-rank and --qk-rope-head-dim")
        shape = KVShape(layers=layers, kv_lora_rank=kw["kv_lora_rank"],
                        qk_rope_head_dim=kw.get("qk_rope_head_dim") or 0)
        attention = "mla"
    else:
        if not (layers and kw.get("kv_heads") and kw.get("head_dim")):
            fail("give --model ID, or --layers, --kv-heads and --head-dim")
        shape = KVShape(layers=layers, kv_heads=kw["kv_heads"], head_dim=kw["head_dim"])
        attention = "gqa"
    if need_params and params is None:
        fail("give --model ID or --params N (for example 70e9 or 70B)")
    return ModelInput("custom", params, shape, attention)


def _resolve_device(kw: dict[str, Any], need: str) -> Any:
    """need: 'memory', 'bandwidth' or 'flops' (the figure the command uses)."""
    from studyapp.catalog import UnknownIdError, load_catalog
    from studyapp.infra.calc import DeviceInput

    memory = kw["memory_gb"] * 1e9 if kw.get("memory_gb") else None
    bandwidth = kw["bandwidth_tb_s"] * 1e12 if kw.get("bandwidth_tb_s") else None
    flops = kw["tflops"] * 1e12 if kw.get("tflops") else None
    label = "custom"
    if kw.get("gpu_id"):
        try:
            gpu = load_catalog().accelerators[kw["gpu_id"]]
        except UnknownIdError as exc:
            fail(str(exc))
        label = gpu.id
        memory = memory or gpu.memory_bytes
        bandwidth = bandwidth or gpu.bandwidth_bytes_s
        if flops is None:
            dtype = kw.get("dtype") or "bf16"
            by_dtype = {"fp8": gpu.fp8_dense_tflops, "int8": gpu.fp8_dense_tflops,
                        "fp4": gpu.fp4_dense_tflops, "int4": gpu.fp4_dense_tflops}
            tflops = by_dtype.get(dtype) or gpu.bf16_dense_tflops
            flops = tflops * 1e12
    figures = {"memory": (memory, "--memory-gb"), "bandwidth": (bandwidth, "--bandwidth-tb-s"),
               "flops": (flops, "--tflops")}
    value, option = figures[need]
    if value is None:
        fail(f"give --gpu ID or {option}")
    return DeviceInput(label, memory, bandwidth, flops)


def _print_report(ctx: click.Context, report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(report)
        return
    from studyapp.i18n import t

    lang = _settings(ctx).lang
    width = max(len(t(f"calc.{k}", lang)) for k in report)
    for key, value in report.items():
        if isinstance(value, bool):
            shown = t("calc.yes", lang) if value else t("calc.no", lang)
        elif isinstance(value, float):
            shown = f"{value:,.6g}" if abs(value) < 1e6 else f"{value:.4g}"
        else:
            shown = "-" if value is None else str(value)
        click.echo(f"{t(f'calc.{key}', lang):<{width}}  {shown}")


@main.group()
def calc() -> None:
    """Calculator: memory fit, KV cache, decode speed, training, checkpoints, all-reduce."""


@calc.command("fit")
@_model_options
@_device_options
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache dtype (default: --dtype).")
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens per sequence; 0 = weights only.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--usable-fraction", type=click.FloatRange(0, 1, min_open=True), default=0.9,
              show_default=True, help="Share of memory left for weights and KV cache.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_fit(ctx: click.Context, /, **kw: Any) -> None:
    """Does a model (weights + KV cache) fit on N devices?"""
    from studyapp.infra.calc import fit_report

    model = _resolve_model(kw)
    device = _resolve_device(kw, "memory")
    report = fit_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                        context=kw["context"], batch=kw["batch"], gpus=kw["gpus"],
                        usable_fraction=kw["usable_fraction"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("kv")
@_model_options
@click.option("--tokens", "--context", "tokens", type=click.IntRange(min=0), default=1,
              show_default=True, help="Tokens per sequence.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_kv(ctx: click.Context, /, **kw: Any) -> None:
    """KV cache per token and for tokens × batch."""
    from studyapp.infra.calc import kv_report

    model = _resolve_model(kw, need_params=False)
    report = kv_report(model, dtype=kw["dtype"], tokens=kw["tokens"], batch=kw["batch"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("decode")
@_model_options
@_device_options
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache dtype (default: --dtype).")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens in each sequence's KV cache; 0 = weights only.")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True,
              help="Weights and bandwidth split over N devices.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_decode(ctx: click.Context, /, **kw: Any) -> None:
    """Memory-bandwidth ceiling on decode tokens/s."""
    from studyapp.infra.calc import decode_report

    model = _resolve_model(kw)
    device = _resolve_device(kw, "bandwidth")
    report = decode_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                           batch=kw["batch"], context=kw["context"], gpus=kw["gpus"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("train")
@click.option("--params", required=True, metavar="N", help="Parameters (70e9, 70B).")
@click.option("--tokens", required=True, metavar="D", help="Training tokens (15e12, 15T).")
@click.option("--gpu", "gpu_id", metavar="ID", help="Accelerator id (its dense TFLOPS).")
@click.option("--tflops", type=click.FloatRange(min=0, min_open=True),
              help="Dense TFLOPS per device instead of --gpu.")
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True,
              help="Which of the GPU's dense TFLOPS to use.")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--mfu", type=click.FloatRange(0, 1, min_open=True), default=0.4,
              show_default=True, help="Model FLOPs utilisation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_train(ctx: click.Context, /, **kw: Any) -> None:
    """Training compute 6·N·D and time on K devices."""
    from studyapp.infra.calc import parse_count, train_report

    try:
        params, tokens = parse_count(kw["params"]), parse_count(kw["tokens"])
    except ValueError as exc:
        fail(str(exc))
    device = _resolve_device({**kw, "memory_gb": None, "bandwidth_tb_s": None}, "flops")
    report = train_report(params=params, tokens=tokens, flops_per_device=device.flops,
                          gpus=kw["gpus"], mfu=kw["mfu"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("checkpoint")
@click.option("--params", metavar="N", help="Parameters (70e9, 70B).")
@click.option("--model", "model_id", metavar="ID", help="Model id instead of --params.")
@click.option("--bytes-per-param", type=click.FloatRange(min=0, min_open=True), default=14.0,
              show_default=True, help="14 = BF16 weights + FP32 master + Adam m, v.")
@click.option("--write-gb-s", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Sustained write bandwidth in GB/s.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_checkpoint(ctx: click.Context, /, **kw: Any) -> None:
    """Checkpoint size and write time."""
    from studyapp.infra.calc import checkpoint_report

    model = _resolve_model({"model_id": kw["model_id"], "params": kw["params"],
                            "layers": 1, "kv_heads": 1, "head_dim": 1})
    report = checkpoint_report(params=model.params, bytes_per_param=kw["bytes_per_param"],
                               write_bytes_s=kw["write_gb_s"] * 1e9)
    _print_report(ctx, report, kw["as_json"])


@calc.command("allreduce")
@click.option("--size-gb", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Data each GPU reduces, in GB.")
@click.option("--gpus", type=click.IntRange(min=1), required=True)
@click.option("--link", metavar="ID", help="Interconnect id (its per-direction bandwidth).")
@click.option("--bandwidth-gb-s", type=click.FloatRange(min=0, min_open=True),
              help="Per-direction bandwidth in GB/s instead of --link.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_allreduce(ctx: click.Context, /, **kw: Any) -> None:
    """Ring all-reduce time: 2(n-1)/n · S / B, B per direction."""
    from studyapp.infra.calc import allreduce_report

    bandwidth = kw["bandwidth_gb_s"] * 1e9 if kw["bandwidth_gb_s"] else None
    if kw["link"]:
        from studyapp.catalog import UnknownIdError, load_catalog
        from studyapp.infra.network import per_direction

        try:
            link = load_catalog().interconnects[kw["link"]]
        except UnknownIdError as exc:
            fail(str(exc))
        bandwidth = bandwidth or per_direction(link.bandwidth_gb_s * 1e9, link.direction)
    if bandwidth is None:
        fail("give --link ID or --bandwidth-gb-s")
    report = allreduce_report(size_bytes=kw["size_gb"] * 1e9, gpus=kw["gpus"],
                              bandwidth_bytes_s=bandwidth, link=kw["link"])
    _print_report(ctx, report, kw["as_json"])

# --- study commands ---


def make_service(settings: Settings, extra_decks: tuple[str, ...] = ()) -> Any:
    """The study service for these settings (the same factory the TUI uses)."""
    from pathlib import Path

    from studyapp.study import StudyConfig, StudyService

    return StudyService(StudyConfig(db_url=settings.db_url, profile=settings.profile,
                                    lang=settings.lang,
                                    extra_decks=tuple(Path(p) for p in extra_decks)))


def user_errors() -> tuple[type[Exception], ...]:
    """Exceptions that are the user's input, reported in one line."""
    from studyapp.catalog import UnknownIdError
    from studyapp.decks import DeckError
    from studyapp.store import StoreError

    return (StoreError, UnknownIdError, DeckError)


@main.command()
@click.option("--post", metavar="SLUG", help="Study one post (its summary first, the first time).")
@click.option("--deck", metavar="ID|PATH", help="Study one deck, by id or YAML file.")
@click.option("--limit", type=click.IntRange(min=1), help="Stop after N answers.")
@click.option("--seed", type=int, help="Seed for generated questions (repeatable sessions).")
@click.option("--plain", is_flag=True, help="Line-by-line loop on stdin/stdout.")
@click.option("--practice", is_flag=True, help="Practise without changing the schedule.")
@click.pass_context
def study(ctx: click.Context, post: str | None, deck: str | None, limit: int | None,
          seed: int | None, plain: bool, practice: bool) -> None:
    """Study: a post, a deck, or everything due."""
    settings = _settings(ctx)
    if not plain:
        from studyapp.tui.app import run_app

        run_app(settings, study={"post": post, "deck": deck, "limit": limit, "seed": seed,
                                 "practice": practice})
        return
    from studyapp.plain import run_plain
    from studyapp.study import SessionKind

    kind = (SessionKind.PRACTICE if practice else SessionKind.DECK if deck
            else SessionKind.POST if post else SessionKind.DUE)
    service = make_service(settings)
    try:
        if post is not None and kind is SessionKind.POST and not service.has_read(post):
            from studyapp.plain import post_summary_lines

            click.echo("\n".join(post_summary_lines(post, settings.lang)))
            service.read_post(post)
        session = service.start(kind, post=post, deck=deck, limit=limit, seed=seed)
        code = run_plain(session)
    except user_errors() as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        code = 130
    finally:
        service.close()
    sys.exit(code)

# --- deck commands ---


@main.group()
def deck() -> None:
    """Instructor decks: check, preview, install and list them."""


@deck.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.pass_context
def deck_validate(ctx: click.Context, paths: tuple[str, ...]) -> None:
    """Report every problem in deck files or folders as path:line:col: message."""
    from pathlib import Path

    from studyapp.decks.report import validation_report

    lines, code = validation_report([Path(p) for p in paths], _settings(ctx).lang)
    for line in lines:
        click.echo(line)
    sys.exit(code)


@deck.command("schema")
def deck_schema() -> None:
    """Print the deck JSON Schema (for editor completion)."""
    from studyapp.decks import deck_json_schema

    echo_json(deck_json_schema())


@deck.command("preview")
@click.argument("file", type=click.Path())
@click.option("--card", "card_id", default=None, metavar="ID", help="Only this card.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for drawn values.")
@click.pass_context
def deck_preview(ctx: click.Context, file: str, card_id: str | None, seed: int) -> None:
    """Show a deck's cards as questions, with answers and explanations."""
    from studyapp.decks import DeckError, load_deck
    from studyapp.decks.report import preview_lines
    from studyapp.i18n import t

    lang = _settings(ctx).lang
    try:
        loaded = load_deck(file)
        lines = preview_lines(loaded, lang, seed, card_id)
    except DeckError as exc:
        for problem in exc.problems:
            click.echo(str(problem))
        sys.exit(1)
    except KeyError:
        fail(t("decks.no_card", lang, deck=file, card=card_id))
    for line in lines:
        click.echo(line)


@deck.command("add")
@click.argument("file", type=click.Path())
@click.pass_context
def deck_add(ctx: click.Context, file: str) -> None:
    """Validate a deck and install it into your deck folder."""
    from studyapp.decks import DeckError, install_deck, load_deck
    from studyapp.i18n import t

    try:
        target = install_deck(file)
    except DeckError as exc:
        for problem in exc.problems:
            click.echo(str(problem))
        sys.exit(1)
    added = load_deck(target, source="user")
    click.echo(t("decks.installed", _settings(ctx).lang, deck=added.id,
                 cards=len(added.cards), path=target))


@deck.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def deck_list(ctx: click.Context, as_json: bool) -> None:
    """All decks (built-in and installed) with card counts and status."""
    from studyapp.decks import discover_decks
    from studyapp.decks.report import listing_json, listing_lines

    listings = discover_decks()
    if as_json:
        echo_json(listing_json(listings))
        return
    for line in listing_lines(listings, _settings(ctx).lang):
        click.echo(line)


# --- generate commands ---

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


@main.command("generate")
@click.argument("family", required=False)
@click.option("--list", "list_families", is_flag=True, help="List the generator families.")
@click.option("--seed", type=int, default=None,
              help="Seed of the run (default: a random one); same seed, same questions.")
@click.option("--count", type=click.IntRange(min=1, max=100_000), default=1, show_default=True,
              help="How many instances.")
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Family option, e.g. gpus=h200-sxm,h100-sxm (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None,
              help="Language of the questions (default: the global --lang).")
@click.pass_context
def generate(ctx: click.Context, family: str | None, list_families: bool, seed: int | None,
             count: int, option_pairs: tuple[str, ...], as_json: bool,
             lang: str | None) -> None:
    """Generated questions: list the families, or draw instances of one."""
    import difflib
    import random

    from studyapp.catalog import UnknownIdError
    from studyapp.i18n import t
    from studyapp.questions.generators import families
    from studyapp.questions.generators.running import as_record, generate_run

    lang = lang or _settings(ctx).lang
    table = families()
    if list_families or family is None:
        listing = [{"name": f.name, "post": f.post, "kind": str(f.kind),
                    "description": f.description.get(lang) or f.description.get("en", "")}
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
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        questions = generate_run(table[family], seed, count, lang, _option_pairs(option_pairs))
    except (UnknownIdError, LookupError, ValueError) as exc:
        fail(str(exc))
    records = [as_record(q) for q in questions]
    if as_json:
        echo_json(records)
        return
    from studyapp.questions.grading import expected_display

    for number, (question, record) in enumerate(zip(questions, records, strict=True), 1):
        click.echo(f"[{number}/{len(records)}] {record['family']} ({record['post']}, "
                   f"{record['kind']}, seed {record['seed']})")
        click.echo(record["prompt"])
        for letter, choice in zip("abcdefgh", record["choices"] or [], strict=False):
            click.echo(f"  {letter}) {choice}")
        answer = record["answer"]
        if isinstance(answer, bool):
            answer = t("gen.word.yes" if answer else "gen.word.no", lang)
        elif isinstance(answer, float):
            answer = expected_display(question)  # the learner's language and unit
        tolerance = f" (±{record['tolerance']})" if record["tolerance"] else ""
        click.echo(f"{t('gen.cli.answer', lang)}: {answer}{tolerance}")
        click.echo(record["explanation"])
        click.echo("")


# --- stats, export, import, class commands ---


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _duration(ms: int) -> str:
    minutes = ms // 60000
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _print_stats(data: Any, lang: str) -> None:
    """Rich tables for a terminal; every text from decks or posts is escaped."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from studyapp.i18n import strings

    label = {k[len("stats."):]: v for k, v in strings(lang).items() if k.startswith("stats.")}
    console = Console(highlight=False)
    retention = (f"{_pct(data.retention_30d)} ({label['young']} {_pct(data.retention_young)}, "
                 f"{label['mature']} {_pct(data.retention_mature)}; "
                 f"{label['desired']} {_pct(data.desired_retention)})")
    summary = Table.grid(padding=(0, 2))
    for key, value in [
        ("profile", data.profile), ("reviews", str(data.reviews_total)),
        ("accuracy", _pct(data.accuracy)), ("seen", str(data.cards_seen)),
        ("due_today", str(data.due_today)), ("retention", retention),
        ("streak", f"{data.streak_days} {label['days']}"),
        ("today", f"{data.reviews_today} · {_duration(data.time_today_ms)}"),
        ("total", _duration(data.time_total_ms)),
    ]:
        summary.add_row(Text(label[key], style="bold"), Text(value))
    console.print(summary)
    table = Table(title=None, show_edge=False)
    table.add_column(label["post"])
    for key in ("new", "learning", "review", "due", "mastery", "accuracy"):
        table.add_column(label[key], justify="right")
    for p in data.posts:
        table.add_row(Text(p.title), str(p.new), str(p.learning), str(p.review), str(p.due),
                      _pct(p.mastery), _pct(p.accuracy))
    console.print(table)
    shades = " ░▒▓█"
    counts = [n for _, n in data.reviews_per_day]
    peak = max(counts) if counts else 0
    if peak:
        console.print(Text(label["calendar"], style="bold"))
        days = data.reviews_per_day
        pad = days[0][0].weekday()
        cells = [None] * pad + [n for _, n in days]
        for weekday in range(7):
            line = "".join(
                " " if cells[i] is None else
                ("·" if cells[i] == 0 else shades[min(4, 1 + (cells[i] * 4 - 1) // peak)])
                for i in range(weekday, len(cells), 7))
            console.print(Text(line))
    forecast = [n for _, n in data.due_forecast]
    console.print(Text(label["forecast"], style="bold"))
    console.print(Text(" ".join(str(n) for n in forecast)))
    for title, cards in (("weakest", data.weakest), ("leeches", data.leeches)):
        console.print(Text(label[title], style="bold"))
        if not cards:
            console.print(Text(label["none"]))
            continue
        cards_table = Table(show_edge=False)
        for key in ("card", "post", "lapses", "accuracy", "stability", "recall"):
            cards_table.add_column(label[key])
        for c in cards:
            stability = "—" if c.stability is None else f"{c.stability:.1f} d"
            cards_table.add_row(Text(f"{c.deck_id}/{c.card_key}"), Text(c.post), str(c.lapses),
                                _pct(c.accuracy), stability, _pct(c.retrievability))
        console.print(cards_table)


def _print_card(detail: Any) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    card = detail.card
    console.print(Text(f"{card.deck_id}/{card.card_key} · {card.post} · stage {card.stage} · "
                       f"stability {card.stability or 0:.2f} d · difficulty "
                       f"{card.difficulty or 0:.2f} · due {card.due:%Y-%m-%d %H:%M} UTC · "
                       f"reviews {detail.reviews}, correct {detail.correct}, "
                       f"lapses {card.lapses}"))
    for log in detail.logs:
        mark = "✓" if log.correct else "✗"
        console.print(Text(f"{log.reviewed_at:%Y-%m-%d %H:%M} {mark} rating {log.rating} "
                           f"answer {log.response!r} expected {log.expected!r} "
                           f"params {json.dumps(log.params, ensure_ascii=False)}"))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--card", "card_ref", metavar="DECK/CARD",
              help="One card: its state and latest answers with their parameters.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool, card_ref: str | None) -> None:
    """Progress of one profile: posts, retention, calendar, forecast, weak cards."""
    from studyapp.progress import card_drilldown, learner_stats

    settings = _settings(ctx)
    service = make_service(settings)
    try:
        if card_ref:
            deck_id, sep, card_key = card_ref.rpartition("/")
            if not sep or not deck_id:
                fail("--card takes DECK/CARD, for example post-h100/h100-hbm")
            detail = card_drilldown(service, deck_id, card_key, last=20)
            if detail is None:
                fail(f"no answers stored for {card_ref} in profile {settings.profile!r}")
            if as_json:
                echo_json({"card": {**detail.card.as_json(), "deck": detail.card.deck_id,
                                    "card": detail.card.card_key, "post": detail.card.post},
                           "reviews": detail.reviews, "correct": detail.correct,
                           "last": [{"reviewed_at": log.reviewed_at.isoformat(),
                                     "rating": log.rating, "correct": log.correct,
                                     "duration_ms": log.duration_ms, "seed": log.seed,
                                     "params": log.params, "prompt": log.prompt,
                                     "response": log.response, "expected": log.expected}
                                    for log in detail.logs]})
            else:
                _print_card(detail)
            return
        data = learner_stats(service)
    except user_errors() as exc:
        fail(str(exc))
    finally:
        service.close()
    if as_json:
        echo_json(data.as_json())
    else:
        _print_stats(data, settings.lang)


@main.command("export")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="json",
              show_default=True, help="File format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="File to write (default: standard output).")
@click.pass_context
def export_cmd(ctx: click.Context, fmt: str, output: str | None) -> None:
    """Write a profile's progress (cards, answers, parameters) as CSV or JSON."""
    import os
    from pathlib import Path

    from studyapp.store.exchange import write_csv, write_json

    settings = _settings(ctx)
    service = make_service(settings)
    try:
        store, profile = service.store, service.profile

        def write(out: Any) -> int:
            if fmt == "json":
                return int(write_json(store, profile, out, service.now()))
            return int(write_csv(store, profile, out))

        if output is None:
            write(sys.stdout)
            return
        target = Path(output)
        partial = target.with_name(f".{target.name}.partial")
        with partial.open("w", encoding="utf-8", newline="") as fh:
            count = write(fh)
        os.replace(partial, target)
        click.echo(f"exported {count} records of profile {profile.name!r} to {target}",
                   err=True)
    except user_errors() as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    finally:
        service.close()


@main.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def import_cmd(ctx: click.Context, file: str) -> None:
    """Merge an export into this profile; importing a file twice changes nothing."""
    from pathlib import Path

    from studyapp.store.exchange import import_progress, read_export

    settings = _settings(ctx)
    service = make_service(settings)
    try:
        export = read_export(Path(file))
        result = import_progress(service.store, service.profile.id, export)
    except user_errors() as exc:
        fail(str(exc))
    finally:
        service.close()
    click.echo(f"imported into profile {settings.profile!r}: {result.reviews_added} reviews "
               f"added, {result.reviews_skipped} already there; {result.cards_added} cards "
               f"added, {result.cards_updated} updated")


@main.group("class")
def class_group() -> None:
    """An instructor's view of a class."""


@class_group.command("report")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (student, post, mastery…).")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many hardest questions and overdue students to list.")
@click.pass_context
def class_report_cmd(ctx: click.Context, files: tuple[str, ...], as_json: bool, as_csv: bool,
                     top: int) -> None:
    """Every profile of the database (or the exported FILES): mastery, hardest questions."""
    import csv
    from pathlib import Path

    from studyapp.progress import class_report, class_report_from_files, deck_card_totals

    if as_json and as_csv:
        fail("choose one of --json and --csv")
    service = make_service(_settings(ctx))
    try:
        totals = deck_card_totals(service)
        if files:
            report = class_report_from_files([Path(f) for f in files], totals, service.now(),
                                             top=top)
        else:
            report = class_report(service.store, totals, service.now(), top=top)
    except user_errors() as exc:
        fail(str(exc))
    finally:
        service.close()
    if as_json:
        echo_json(report.as_json())
        return
    if as_csv:
        rows = report.csv_rows()
        writer = csv.DictWriter(sys.stdout, fieldnames=["student", "post", "mastery", "reviews",
                                                        "accuracy", "cards_seen", "overdue"])
        writer.writeheader()
        writer.writerows(rows)
        return
    _print_class(report, list(totals))


def _print_class(report: Any, posts: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    table = Table(title="Mastery per student and post", show_edge=False)
    table.add_column("student")
    for column in ("reviews", "accuracy", "overdue"):
        table.add_column(column, justify="right")
    for post in posts:
        table.add_column(post[:8], justify="right")
    for s in report.students:
        mastery = dict(s.mastery)
        table.add_row(Text(s.name), str(s.reviews), _pct(s.accuracy), str(s.overdue),
                      *(_pct(mastery.get(post, 0.0)) for post in posts))
    console.print(table)
    hardest = Table(title="Hardest questions (first-try accuracy)", show_edge=False)
    for column in ("question", "post", "students", "first try"):
        hardest.add_column(column)
    for q in report.hardest:
        hardest.add_row(Text(f"{q.deck_id}/{q.card_key}"), Text(q.post), str(q.students),
                        _pct(q.first_try_accuracy))
    console.print(hardest)
    overdue = Table(title="Most overdue cards", show_edge=False)
    overdue.add_column("student")
    overdue.add_column("overdue", justify="right")
    for s in report.most_overdue:
        overdue.add_row(Text(s.name), str(s.overdue))
    console.print(overdue)


@main.command("backup")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Backup file (default: backups/ in the user data folder).")
@click.pass_context
def backup_cmd(ctx: click.Context, output: str | None) -> None:
    """A consistent copy of the SQLite database, safe while studying goes on."""
    import sqlite3
    from datetime import UTC, datetime
    from pathlib import Path

    from studyapp import locations
    from studyapp.store.backup import backup_sqlite

    service = make_service(_settings(ctx))
    try:
        path = service.store.sqlite_path()
        if path is None:
            fail("backup copies an SQLite database; for PostgreSQL use pg_dump")
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = Path(output) if output else (locations.data_dir() / "backups"
                                              / f"studyapp-{stamp}.sqlite3")
        backup_sqlite(path, target)
    except user_errors() as exc:
        fail(str(exc))
    except (OSError, sqlite3.Error) as exc:
        fail(f"backup failed: {exc}")
    finally:
        service.close()
    click.echo(str(target))


if __name__ == "__main__":
    main()
