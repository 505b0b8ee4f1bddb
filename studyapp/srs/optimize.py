"""Fit FSRS parameters to one learner's review history with fsrs-rs-python.

fsrs-rs is the Rust FSRS that Anki itself optimizes with. The history is
turned into FSRS items the way Anki does (``studyapp.srs.revlog``: cram
answers, Forget, Set due date and what came before a Forget left out; a card
whose learning is not in the log, or began before "ignore reviews before",
left out): for every review that comes at least one study day after an
earlier review of the same card, the card's reviews up to and including it
(delta_t in study days, so the 04:00 rollover counts, not midnight). The
items are ordered by time; the last fifth is held out. Parameters fitted on
the first four fifths are compared with the defaults on the held-out fifth
(log loss and RMSE over bins, both from fsrs-rs). Only when the fitted ones
win on both are parameters fitted on the whole history proposed for saving.
Then Anki's health check (``studyapp.srs.fit_health``) says whether FSRS can
predict this learner at all.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

import fsrs_rs_python as fsrs_rs

from studyapp.srs.fit_health import HealthCheck, health_check
from studyapp.srs.revlog import KIND_OF_STAGE, Entry, EntryKind, reviews_for_fsrs
from studyapp.srs.scheduler import DEFAULT_PARAMETERS, clamp_parameters

MIN_ITEMS = 400
"""Reviews a day or more after an earlier one needed before fitting is worth it."""

HELD_OUT = 0.2
"""Share of the newest items kept for the comparison."""

Progress = Callable[[str, float], None]
"""Told the stage ("items", "fit", "evaluate", "refit", "health", "done") and the fraction
done."""


@dataclass(frozen=True)
class ReviewEvent:
    """One stored answer (or change of schedule, rating 0), as the optimizer needs it."""

    card_id: int
    reviewed_at: datetime
    rating: int  # 1 Again .. 4 Easy; 0 for a change of schedule that was no answer
    kind: EntryKind | None = None  # None: the card's first answer learns, later ones review
    factor: int = 0  # Anki's ease factor (permille) of an answer imported from Anki
    interval: int = 1  # Anki's interval after it: days, or -seconds for a step

    @classmethod
    def logged(cls, card_id: int, at: datetime, rating: int, stage: int | None,
               anki: object) -> ReviewEvent:
        """A stored log entry with the kind FSRS reads it as: an answer imported from Anki
        keeps its revlog entry's (cram, Forget and Set due date among them), one given
        here its stage's. Every replay reads the log through this and ``revlog.replay``."""
        if isinstance(anki, dict) and isinstance(anki.get("type"), int) \
                and 0 <= anki["type"] <= 5:
            return cls(card_id, at, rating, EntryKind(anki["type"]),
                       int(anki.get("factor") or 0), int(anki.get("ivl") or 0))
        return cls(card_id, at, rating, KIND_OF_STAGE.get(stage) if stage is not None else None)


def entries_by_card(events: Iterable[ReviewEvent]) -> dict[int, list[Entry]]:
    """Each card's log, in time order, as ``studyapp.srs.revlog`` reads it."""
    per_card: dict[int, list[ReviewEvent]] = defaultdict(list)
    for event in events:
        per_card[event.card_id].append(event)
    out: dict[int, list[Entry]] = {}
    for card_id, card_events in per_card.items():
        card_events.sort(key=lambda e: (e.reviewed_at, e.rating == 0))
        entries, answered = [], False
        for event in card_events:
            kind = event.kind
            if kind is None:
                kind = EntryKind.REVIEW if answered else EntryKind.LEARNING
            answered = answered or event.rating > 0
            entries.append(Entry(event.reviewed_at, event.rating if 1 <= event.rating <= 4
                                 else 0, kind, event.factor, event.interval))
        out[card_id] = entries
    return out


@dataclass(frozen=True)
class TimedItem:
    """An FSRS item and when its last (predicted) review happened."""

    card_id: int
    at: datetime
    reviews: tuple[tuple[int, int], ...]  # (rating, days since the previous review)

    @property
    def item(self) -> fsrs_rs.FSRSItem:
        return fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, d) for r, d in self.reviews])


@dataclass(frozen=True)
class OptimizeResult:
    """The comparison on held-out reviews and what should be saved."""

    reviews: int  # answers in the history
    items: int  # of them, reviews a day or more after an earlier one
    needed: int  # MIN_ITEMS
    enough: bool
    better: bool
    log_loss_default: float | None = None
    log_loss_fitted: float | None = None
    rmse_default: float | None = None
    rmse_fitted: float | None = None
    parameters: tuple[float, ...] | None = None  # fitted on all items, when better
    health: HealthCheck | None = None  # Anki's health check (over 300 items)

    @property
    def missing(self) -> int:
        return max(0, self.needed - self.items)


def fsrs_items(events: Iterable[ReviewEvent], *, rollover_hour: int = 4,
               zone: tzinfo | None = None,
               ignore_before: datetime | None = None) -> list[TimedItem]:
    """FSRS items from answers (Anki's training items), ordered by the time of their last
    review; ``ignore_before`` leaves out cards whose learning began before it."""
    items: list[TimedItem] = []
    for card_id, entries in entries_by_card(events).items():
        history = reviews_for_fsrs(entries, training=True, ignore_before=ignore_before,
                                   rollover_hour=rollover_hour, zone=zone)
        if history is not None:
            items += [TimedItem(card_id, at, tuple(reviews))
                      for at, reviews in history.training_items()]
    items.sort(key=lambda i: (i.at, i.card_id))
    return items


def _finite(value: float) -> float:
    return value if math.isfinite(value) else float("inf")


def optimize(events: Sequence[ReviewEvent], *, rollover_hour: int = 4,
             zone: tzinfo | None = None, progress: Progress | None = None,
             min_items: int = MIN_ITEMS,
             ignore_before: datetime | None = None) -> OptimizeResult:
    """Fit, compare with the defaults on the newest fifth, refit on everything if better."""
    def tell(stage: str, fraction: float) -> None:
        if progress is not None:
            progress(stage, fraction)

    tell("items", 0.0)
    timed = fsrs_items(events, rollover_hour=rollover_hour, zone=zone,
                       ignore_before=ignore_before)
    answers = sum(1 for e in events if e.rating > 0)
    if len(timed) < min_items:
        tell("done", 1.0)
        return OptimizeResult(answers, len(timed), min_items, enough=False, better=False)
    split = int(len(timed) * (1 - HELD_OUT))
    train = [t.item for t in timed[:split]]
    test = [t.item for t in timed[split:]]
    tell("fit", 0.1)
    fitted = clamp_parameters(fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(train))
    tell("evaluate", 0.5)
    default_eval = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).evaluate(test)
    fitted_eval = fsrs_rs.FSRS(list(fitted)).evaluate(test)
    loss_default, loss_fitted = _finite(default_eval.log_loss), _finite(fitted_eval.log_loss)
    rmse_default, rmse_fitted = _finite(default_eval.rmse_bins), _finite(fitted_eval.rmse_bins)
    better = loss_fitted < loss_default and rmse_fitted <= rmse_default
    parameters = None
    if better:
        tell("refit", 0.6)
        parameters = clamp_parameters(
            fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters([t.item for t in timed]))
    tell("health", 0.9)
    health = health_check([t.reviews for t in timed], [t.card_id for t in timed])
    tell("done", 1.0)
    return OptimizeResult(answers, len(timed), min_items, enough=True, better=better,
                          log_loss_default=loss_default, log_loss_fitted=loss_fitted,
                          rmse_default=rmse_default, rmse_fitted=rmse_fitted,
                          parameters=parameters, health=health)
