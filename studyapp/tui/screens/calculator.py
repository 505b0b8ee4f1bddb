"""The calculator: does a model fit, how big is its KV cache, how fast can it decode,
how long does training take. Every figure comes from ``studyapp.infra.calc``,
the same reports ``studyapp calc`` prints, recomputed as the learner types.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.widgets import Input, Label, Select, Static

from studyapp.infra.calc import (
    DeviceInput,
    ModelInput,
    decode_report,
    fit_report,
    kv_report,
    parse_count,
    train_report,
)
from studyapp.infra.flags import (
    GPUS_PAST_SCALE_UP,
    decode_does_not_fit,
    past_context,
    past_scale_up,
    scale_up_domain,
)
from studyapp.infra.measured import CalcSetup, measured_entry, pick
from studyapp.infra.measured_text import measured_lines, source_name
from studyapp.numbers import format_count, format_figure
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.share_bar import ShareBar

if TYPE_CHECKING:
    from studyapp.catalog import Catalog
    from studyapp.catalog.measurements import Measurement

DTYPES = ("fp32", "fp16", "bf16", "fp8", "int8", "fp4", "int4")
FIELDS = ("model", "gpu", "dtype", "kv_dtype", "context", "batch", "gpus", "tokens", "mfu",
          "efficiency")
NARROW = 76
"""Below this width the form and the results stack instead of sitting side by side."""


@dataclass(frozen=True)
class CalculatorInputs:
    """What the form holds once every field parses."""

    model_id: str
    gpu_id: str
    dtype: str
    kv_dtype: str
    context: int
    batch: int
    gpus: int
    tokens: float
    mfu: float
    measured_efficiency: bool = False
    """Whether the efficiency of a matching measurement replaces the typed MFU (training)
    and the full memory bandwidth (decode), as ``calc --efficiency measured`` does."""


def parse_fraction(text: str) -> float:
    """``0.4``, ``40%`` or ``0,4`` as a fraction in (0, 1]."""
    cleaned = text.strip().replace(",", ".")
    value = float(cleaned.rstrip("%")) / (100 if cleaned.endswith("%") else 1)
    if not 0 < value <= 1:
        raise ValueError(text)
    return value


def parse_whole(text: str, minimum: int) -> int:
    value = int(parse_count(text)) if text.strip() not in ("0",) else 0
    if value < minimum:
        raise ValueError(text)
    return value


def number(value: float, lang: str = "en") -> str:
    """A figure for reading: ``141``, ``10.7``, ``0.0312``, ``3.2e+24``; in Spanish
    ``10,7``, ``184 319`` (thin space) and ``3,2e24``, as questions write them.
    Whole from 100 and scientific from ten million, which a form's line holds."""
    return format_figure(value, lang, whole_from=100, scientific_from=1e7)


class CalculatorScreen(StudyScreen):
    """Catalog pickers on the left, live results and the GPU memory bar on the right."""

    CSS_PATH = Path(__file__).parent / "calculator.tcss"
    SCROLL_PANE = "#calc-results"  # a key the focused field does not use moves it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="calculator.back"),
        Binding("g,ctrl+g", "charts", "tui.key.charts", id="calculator.charts"),
    ]

    def __init__(self) -> None:
        super().__init__(id="calculator-screen")
        self.catalog: Catalog | None = None
        self.efficiency_sources: tuple[str, ...] = ()
        """The sources the efficiency choice names now (none: only the typed one)."""

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.calc.title"), id="calc-title")
        prompt = self.tr("tui.select.prompt")
        with Horizontal(id="calc-body"):
            with VerticalScroll(id="calc-form"):
                yield from self.field("model", Select[str]([], id="model", compact=True,
                                                          prompt=prompt, allow_blank=True))
                yield from self.field("gpu", Select[str]([], id="gpu", compact=True,
                                                        prompt=prompt, allow_blank=True))
                dtypes = [(dtype, dtype) for dtype in DTYPES]
                yield from self.field("dtype", Select(dtypes, id="dtype", value="bf16",
                                                      compact=True, allow_blank=False))
                yield from self.field("kv_dtype", Select(dtypes, id="kv_dtype", value="bf16",
                                                         compact=True, allow_blank=False))
                yield from self.field("context", Input("8192", id="context", compact=True))
                yield from self.field("batch", Input("1", id="batch", compact=True))
                yield from self.field("gpus", Input("1", id="gpus", compact=True))
                yield from self.field("tokens", Input("15T", id="tokens", compact=True))
                yield from self.field("mfu", Input("40%", id="mfu", compact=True))
                yield from self.field("efficiency", Select(
                    [(self.tr("tui.calc.efficiency.typed"), "typed")], id="efficiency",
                    value="typed", compact=True, allow_blank=False))
            with VerticalScroll(id="calc-results"):
                yield Label(self.tr("tui.calc.fit_heading"), classes="subheading first")
                yield Static("", id="fit-result")
                yield ShareBar(id="memory-bar")
                yield Static("", id="memory-legend")
                yield Label(self.tr("tui.calc.kv_heading"), classes="subheading")
                yield Static("", id="kv-result")
                yield Label(self.tr("tui.calc.decode_heading"), classes="subheading")
                yield Static("", id="decode-result")
                yield Label(self.tr("tui.calc.train_heading"), classes="subheading")
                yield Static("", id="train-result")
        yield SteadyFooter()

    def field(self, name: str, widget: Any) -> ComposeResult:
        with Horizontal(classes="calc-field"):
            label = Label(self.tr(f"tui.calc.field.{name}"), classes="calc-label")
            label.styles.width = self.label_width()  # the longest label whole, in any language
            yield label
            yield widget

    def label_width(self) -> int:
        return max(14, 1 + max(len(self.tr(f"tui.calc.field.{name}")) for name in FIELDS))

    def on_mount(self) -> None:
        super().on_mount()
        self.set_class(self.size.width < NARROW, "-narrow")
        self.load_catalog()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    @work(exclusive=True, group="catalog", exit_on_error=False)
    async def load_catalog(self) -> None:
        def catalog(_: object) -> Catalog:
            from studyapp.catalog import load_catalog

            return load_catalog()

        self.catalog = await self.study_app.backend.call(catalog)
        models = [(model.name, model.id) for model in self.catalog.models]
        gpus = [(gpu.name, gpu.id) for gpu in self.catalog.accelerators]
        model_select = self.query_one("#model", Select)
        gpu_select = self.query_one("#gpu", Select)
        with self.prevent(Select.Changed):
            model_select.set_options(models)
            gpu_select.set_options(gpus)
        model_select.value = "llama-3.1-70b" if "llama-3.1-70b" in self.catalog.models \
            else models[0][1]
        gpu_select.value = "h200-sxm" if "h200-sxm" in self.catalog.accelerators \
            else gpus[0][1]
        self.query_one("#model", Select).focus()
        self.recompute()

    @on(Select.Changed)
    @on(Input.Changed)
    def on_form_changed(self) -> None:
        self.recompute()

    def read_inputs(self) -> CalculatorInputs | None:
        """The form's values, marking every field that does not parse."""
        values: dict[str, Any] = {}
        valid = True
        for name in ("model", "gpu", "dtype", "kv_dtype"):
            value = self.query_one(f"#{name}", Select).value
            if not isinstance(value, str):
                return None
            values[name] = value
        parsers = {"context": lambda text: parse_whole(text, 0),
                   "batch": lambda text: parse_whole(text, 1),
                   "gpus": lambda text: parse_whole(text, 1),
                   "tokens": parse_count, "mfu": parse_fraction}
        for name, parse in parsers.items():
            field = self.query_one(f"#{name}", Input)
            try:
                values[name] = parse(field.value)
                field.remove_class("-invalid")
            except (ValueError, OverflowError):
                field.add_class("-invalid")
                valid = False
        if not valid:
            return None
        return CalculatorInputs(values["model"], values["gpu"], values["dtype"],
                                values["kv_dtype"], values["context"], values["batch"],
                                values["gpus"], values["tokens"], values["mfu"],
                                self.query_one("#efficiency", Select).value == "measured")

    def recompute(self) -> None:
        catalog = self.catalog
        if catalog is None:
            return
        inputs = self.read_inputs()
        if inputs is None:
            for result in ("#fit-result", "#kv-result", "#decode-result", "#train-result"):
                self.query_one(result, Static).update(self.tr("tui.calc.invalid"))
            return
        from studyapp.infra.shapes import model_input as model_input_of

        model = catalog.models[inputs.model_id]
        gpu = catalog.accelerators[inputs.gpu_id]
        model_input = model_input_of(model)
        rate = gpu.dense_tflops(inputs.dtype)
        tflops = rate if rate is not None else gpu.bf16_dense_tflops  # said below the results
        device = DeviceInput(gpu.id, gpu.memory_bytes, gpu.bandwidth_bytes_s, tflops * 1e12,
                             compute_dtype=None if rate is not None else "bf16")
        found = self.measurements_of(inputs)
        self.offer_measured_efficiency(found["train"], found["decode"])
        used = {command: measurement.value / measurement.theory
                for command, measurement in found.items()
                if inputs.measured_efficiency and measurement is not None
                and measurement.theory is not None and command != "fit"}
        fit = fit_report(model_input, device, dtype=inputs.dtype, kv_dtype=inputs.kv_dtype,
                         context=inputs.context, batch=inputs.batch, gpus=inputs.gpus)
        kv = kv_report(model_input, dtype=inputs.kv_dtype, tokens=inputs.context,
                       batch=inputs.batch)
        decode = decode_report(model_input, device, dtype=inputs.dtype,
                               kv_dtype=inputs.kv_dtype, batch=inputs.batch,
                               context=inputs.context, gpus=inputs.gpus,
                               bandwidth_efficiency=used.get("decode", 1.0))
        train = train_report(params=model.params, tokens=inputs.tokens,
                             flops_per_device=tflops * 1e12, gpus=inputs.gpus,
                             mfu=used.get("train", inputs.mfu))
        past = past_context(model_input, inputs.context)
        self.show_fit(fit, total_bytes=inputs.gpus * gpu.memory_bytes,
                      note=past.text(self.lang) if past is not None else "",
                      measured=self.measured_text(found["fit"], fit, used=False))
        self.query_one("#kv-result", Static).update(self.tr(
            "tui.calc.kv_result", per_token=self.figure(kv["kv_cache_bytes_per_token"] / 1e3),
            total=self.figure(kv["kv_cache_gb"]), tokens=self.count(inputs.context),
            batch=inputs.batch))
        borrowed = "" if rate is not None else "\n" + self.tr(
            "tui.calc.borrowed_rate", chip=gpu.name, dtype=inputs.dtype,
            tflops=self.figure(tflops))
        self.query_one("#decode-result", Static).update(Content(self.tr(  # a chip's name: text
            "tui.calc.decode_result", tokens=self.figure(decode["tokens_per_s"]),
            per_sequence=self.figure(decode["tokens_per_s_per_sequence"]),
            step=self.figure(decode["step_ms"]),
            bandwidth=self.figure(decode["bandwidth_tb_s"])) + borrowed)
            + self.decode_warnings(model_input, device, inputs)
            + self.measured_text(found["decode"], decode, used="decode" in used))
        self.query_one("#train-result", Static).update(Content(self.tr(
            "tui.calc.train_result", flops=self.figure(train["flops"]),
            days=self.figure(train["days"]),
            gpu_hours=self.figure(train["gpu_hours"]), tflops=self.figure(tflops)) + borrowed)
            + self.measured_text(found["train"], train, used="train" in used))

    def measurements_of(self, inputs: CalculatorInputs) -> dict[str, Measurement | None]:
        """The best published measurement of the form's setup for each pane that has one
        (``infra.measured.pick``, as ``calc fit``, ``decode`` and ``train`` choose)."""
        assert self.catalog is not None
        chip, model, dtype, gpus = inputs.gpu_id, inputs.model_id, inputs.dtype, inputs.gpus
        setups = {
            "fit": CalcSetup("fit", chip, dtype=dtype, model=model, gpus=gpus,
                             batch=inputs.batch, context=inputs.context),
            "decode": CalcSetup("decode", chip, dtype=dtype, model=model, gpus=gpus,
                                batch=inputs.batch, context=inputs.context),
            "train": CalcSetup("train", chip, dtype=dtype, gpus=gpus),
        }
        return {command: pick(self.catalog.measurements, setup)
                for command, setup in setups.items()}

    def offer_measured_efficiency(self, *found: Measurement | None) -> None:
        """The efficiency choice offers "measured", naming its sources, only while a
        measurement with a datasheet figure matches the training or decode setup."""
        sources = tuple(dict.fromkeys(
            f"{source_name(str(m.sources[0]))} {m.date.isoformat()}"
            for m in found if m is not None and m.theory is not None))
        if sources == self.efficiency_sources:
            return
        self.efficiency_sources = sources
        choice = self.query_one("#efficiency", Select)
        options = [(self.tr("tui.calc.efficiency.typed"), "typed")]
        if sources:
            options.append((self.tr("tui.calc.efficiency.measured",
                                    sources="; ".join(sources)), "measured"))
        was = choice.value
        with self.prevent(Select.Changed):
            choice.set_options(options)
            choice.value = was if was == "typed" or sources else "typed"

    def measured_text(self, measurement: Measurement | None, report: dict[str, Any], *,
                      used: bool) -> Content:
        """Under a pane's theory, the measurement of the same setup in the words
        ``calc`` prints (``infra.measured_text``); nothing when none matches."""
        if measurement is None:
            return Content("")
        lines = measured_lines(measured_entry(measurement, report), self.lang, used=used,
                               short=True)
        return Content.assemble("\n", (lines[0], "bold"),
                                *(part for line in lines[1:] for part in ("\n", line)))

    def decode_warnings(self, model_input: ModelInput, device: DeviceInput,
                        inputs: CalculatorInputs) -> Content:
        """Under the decode figures, in the warning colour: more GPUs than the chip's
        largest scale-up domain, a batch and context the GPUs cannot hold."""

        assert self.catalog is not None
        flags = [past_scale_up(GPUS_PAST_SCALE_UP, inputs.gpus, device.label,
                               scale_up_domain(self.catalog, inputs.gpu_id)),
                 decode_does_not_fit(model_input, device, dtype=inputs.dtype,
                                     kv_dtype=inputs.kv_dtype, batch=inputs.batch,
                                     context=inputs.context, gpus=inputs.gpus)]
        return Content.assemble(*(part for flag in flags if flag is not None
                                  for part in ("\n", (flag.text(self.lang), "$warning"))))

    def show_fit(self, fit: dict[str, Any], *, total_bytes: float, note: str = "",
                 measured: Content | None = None) -> None:
        """The verdict, the figures and, under them, ``note`` (an input past the model's
        published context) in the warning colour and what a serving engine measured."""
        verdict = self.tr("tui.calc.fits" if fit["fits"] else "tui.calc.does_not_fit")
        text = Content.assemble(
            (verdict, "bold $success" if fit["fits"] else "bold $error"), "\n",
            self.tr("tui.calc.fit_result", weights=self.figure(fit["weights_gb"]),
                    kv=self.figure(fit["kv_cache_gb"]), required=self.figure(fit["required_gb"]),
                    available=self.figure(fit["available_gb"]), devices=fit["devices"],
                    min_devices=fit["min_devices"] or "—"),
            *(("\n", (note, "$warning")) if note else ()), measured or "")
        self.query_one("#fit-result", Static).update(text)
        weights, kv = fit["weights_bytes"], fit["kv_cache_bytes"]
        available = fit["available_bytes"]
        free = max(0.0, available - weights - kv)
        over = weights + kv > available
        parts = [(min(weights, total_bytes), "over" if over else "weights"),
                 (min(kv, max(0.0, total_bytes - weights)), "over" if over else "kv"),
                 (free, "free")]
        self.query_one("#memory-bar", ShareBar).update(parts, total_bytes)
        legend = Content.assemble(
            ("█ ", "$primary"), self.tr("tui.calc.legend_weights"), "  ",
            ("█ ", "$accent"), self.tr("tui.calc.legend_kv"), "  ",
            ("▒ ", "$success"), self.tr("tui.calc.legend_free",
                                        free=self.figure(free / 1e9)), "  ",
            ("─ ", "$text-disabled"), self.tr("tui.calc.legend_reserve"))
        if over:
            legend = Content.assemble(("█ ", "$error"), self.tr("tui.calc.legend_over"), "\n",
                                      legend)
        self.query_one("#memory-legend", Static).update(legend)

    def figure(self, value: float) -> str:
        return number(value, self.lang)

    def count(self, value: int) -> str:
        """A whole count: ``8,192`` in English, ``8192`` / ``131 072`` in Spanish."""
        return format_count(value, self.lang)

    def action_back(self) -> None:
        self.dismiss(None)

    def action_charts(self) -> None:
        """The charts of what the form holds (a roofline, memory and tokens/s against
        batch), over the whole screen; nothing while a field does not parse."""
        inputs = self.read_inputs()
        if self.catalog is None or inputs is None:
            return
        from studyapp.infra.shapes import model_input as model_input_of
        from studyapp.tui.screens.calc_charts import ChartRequest

        gpu = self.catalog.accelerators[inputs.gpu_id]
        rate = gpu.dense_tflops(inputs.dtype)
        tflops = rate if rate is not None else gpu.bf16_dense_tflops  # as the results say
        device = DeviceInput(gpu.id, gpu.memory_bytes, gpu.bandwidth_bytes_s, tflops * 1e12,
                             compute_dtype=None if rate is not None else "bf16")
        self.study_app.open_screen("calc_charts", ChartRequest(
            model_input_of(self.catalog.models[inputs.model_id]), device, inputs.dtype,
            inputs.kv_dtype, inputs.batch, inputs.context, inputs.gpus,
            self.catalog.measurements))
