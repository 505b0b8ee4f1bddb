"""Tuning a profile to its learner: FSRS parameters fitted to the history, an exam plan.

A service beside ``study``: the faces call these functions with a
``StudyService`` and never reach the store themselves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from studyapp.i18n import t
from studyapp.srs.calendar import local_zone
from studyapp.srs.deck_options import stored_options
from studyapp.srs.exam_plan import (
    CRAM_EXAM_RECALL,
    CRAM_KEPT_RECALL,
    ExamPlan,
    PlanError,
    plan_exam,
    recall_text,
)
from studyapp.srs.fit_health import LOG_LOSS_BOUND, RMSE_BOUND
from studyapp.srs.optimize import (
    OptimizeResult,
    Progress,
    ReviewEvent,
    entries_by_card,
    optimize,
)
from studyapp.srs.revlog import ignore_before_setting, replay
from studyapp.srs.scheduler import CardStage, Memory

if TYPE_CHECKING:
    from studyapp.study import StudyService

__all__ = ["ExamPlan", "OptimizeOutcome", "PlanError", "clear_exam_plan", "cramming_text",
           "decimal",
           "exam_plan", "optimize_profile", "optimize_summary", "recall_text",
           "recompute_memory_states", "saved_exam_plan", "undo_optimize"]


@dataclass(frozen=True)
class OptimizeOutcome:
    """The comparison, and whether the fitted parameters now schedule this profile."""

    result: OptimizeResult
    saved: bool
    parameters: tuple[float, ...]  # the parameters in use afterwards
    recomputed: int = 0  # cards whose memory state was worked out again with them
    ignore_before: str | None = None  # ISO date: answers before it left out

    def as_json(self) -> dict[str, object]:
        r = self.result
        return {"reviews": r.reviews, "saved": self.saved, "recomputed": self.recomputed,
                "ignore_before": self.ignore_before,
                "health_check": r.health.as_json() if r.health is not None else None,
                "log_loss_default": r.log_loss_default, "log_loss_fitted": r.log_loss_fitted,
                "rmse_default": r.rmse_default, "rmse_fitted": r.rmse_fitted,
                "parameters": list(self.parameters), "items": r.items,
                "needed": r.needed}


def decimal(value: float | None, digits: int, lang: str) -> str:
    """``value`` with ``digits`` decimals, a decimal comma in Spanish (``0,4881``);
    "—" for none."""
    if value is None:
        return "—"
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if lang == "es" else text


def cramming_text(plan: ExamPlan, lang: str, *, short: bool = False) -> str:
    """The cramming warning with its figures and threshold (``short``: the home line)."""

    return t("tuning.plan.cramming_line" if short else "tuning.plan.cramming", lang,
             recall=recall_text(plan.predicted_recall, lang),
             kept=recall_text(plan.recall_month_after, lang),
             high=recall_text(CRAM_EXAM_RECALL, lang), floor=recall_text(CRAM_KEPT_RECALL, lang))


def optimize_summary(outcome: OptimizeOutcome, lang: str) -> str:
    """What the optimizer found and did, in one paragraph (the CLI and the TUI say the same)."""

    result = outcome.result
    head = t("tuning.optimize.reviews", lang, reviews=result.reviews, items=result.items)
    if outcome.ignore_before:
        head += " " + t("tuning.optimize.ignoring", lang, date=outcome.ignore_before)
    if not result.enough:
        return head + " " + t("tuning.optimize.not_enough", lang, items=result.items,
                              needed=result.needed, missing=result.missing)
    figures = {"loss_default": decimal(result.log_loss_default, 4, lang),
               "loss_fitted": decimal(result.log_loss_fitted, 4, lang),
               "rmse_default": decimal(result.rmse_default, 4, lang),
               "rmse_fitted": decimal(result.rmse_fitted, 4, lang)}
    key = "tuning.optimize.saved" if outcome.saved else "tuning.optimize.kept"
    text = head + " " + t(key, lang, **figures)
    if outcome.saved:
        text += " " + t("tuning.optimize.recomputed", lang, cards=outcome.recomputed)
    health = result.health
    if health is not None:
        key = "tuning.optimize.health_ok" if health.passed else "tuning.optimize.health_bad"
        text += " " + t(key, lang, log_loss=decimal(health.adjusted_log_loss, 2, lang),
                        rmse=decimal(health.adjusted_rmse, 2, lang),
                        log_loss_bound=decimal(LOG_LOSS_BOUND, 2, lang),
                        rmse_bound=decimal(RMSE_BOUND, 2, lang))
    return text


def review_events(service: StudyService) -> list[ReviewEvent]:
    """The profile's answers and changes of schedule, with the kind FSRS reads them as: an
    answer imported from Anki keeps its revlog entry's, one given here its stage's."""
    from studyapp.store.history import review_log

    return [ReviewEvent.logged(*row) for row in review_log(service.store, service.profile.id)]


def ignore_before(service: StudyService) -> datetime | None:
    """The profile's "ignore reviews before" date as the instant Anki cuts at (None: all)."""
    return ignore_before_setting(service.settings.ignore_reviews_before)


def recompute_memory_states(service: StudyService, *, reschedule: bool = False) -> int:
    """Every answered card's stability and difficulty worked out again from its history
    with the profile's current parameters, as Anki does when they change.

    Due dates stay as they are, as in Anki by default; with ``reschedule`` (Anki's
    "Reschedule cards on change") a card in review is also rescheduled from its
    last review with the new stability, and the move logged as a schedule change
    (kind 5), as Anki logs it. The log is read as Anki reads it
    (``studyapp.srs.revlog``: cram answers and Forget, Set due date left out, a
    Forget cuts the history), leaving out answers before the profile's
    "ignore reviews before" date. Returns the number of cards recomputed.
    """

    from studyapp.store.history import card_memories, log_rescheduled, save_memory_states

    store, profile = service.store, service.profile.id
    scheduler = service.scheduler
    logs = entries_by_card(review_events(service))
    cutoff = ignore_before(service)
    states = {}
    moved: dict[int, int] = {}  # card → the interval it was rescheduled to
    for card, (stage, last_review) in card_memories(store, profile).items():
        history = logs.get(card)
        if not history:
            continue
        memory = replay(scheduler, card, history, ignore_before=cutoff)
        if memory is None or memory.stability is None or memory.difficulty is None:
            continue
        due = None
        if reschedule and stage == CardStage.REVIEW and memory.stage is CardStage.REVIEW \
                and last_review is not None and memory.last_review is not None \
                and abs((memory.last_review - last_review).total_seconds()) < 1:
            due = memory.due
            days = scheduler.interval_days(memory, memory.last_review)
            if days is not None:
                moved[card] = days
        states[card] = (memory.stability, memory.difficulty, due)
    changed = save_memory_states(store, profile, states)
    log_rescheduled(store, profile, service.now(), moved)
    return changed


def optimize_profile(service: StudyService, *, progress: Progress | None = None,
                     save: bool = True, reschedule: bool = False) -> OptimizeOutcome:
    """Fit FSRS to the profile's answers (of cards learnt on or after its "ignore reviews
    before" date, if set); save the fitted parameters only when they win, and then work
    out every card's memory state again with them."""
    events = review_events(service)
    result = optimize(events, rollover_hour=service.settings.day_rollover_hour,
                      zone=local_zone(), progress=progress, ignore_before=ignore_before(service))
    saved = False
    recomputed = 0
    parameters = service.settings.parameters
    if save and result.better and result.parameters is not None:
        parameters = service.update_settings(parameters=result.parameters,
                                             previous_parameters=parameters).parameters
        saved = True
        recomputed = recompute_memory_states(service, reschedule=reschedule)
    return OptimizeOutcome(result, saved, tuple(parameters), recomputed,
                           service.settings.ignore_reviews_before)


def undo_optimize(service: StudyService, *, reschedule: bool = False) -> int | None:
    """Put back the parameters the last optimize replaced, and the memory states they
    give; None when there is nothing to undo, else the cards recomputed."""
    previous = service.settings.previous_parameters
    if previous is None:
        return None
    service.update_settings(parameters=previous, previous_parameters=None)
    return recompute_memory_states(service, reschedule=reschedule)


def _memories_and_new(service: StudyService
                      ) -> tuple[list[Memory], int, list[tuple[int, int]]]:
    """Seen, unsuspended cards of the decks switched on, as scheduler memories; the count
    still new (a deck switched off, like the examples at first, is not planned for); and
    (new cards, daily new limit) of each deck with a limit of its own."""
    rows = service.card_states()
    keys = service.studied_keys()
    memories = [Memory(card_id=row.id, stage=CardStage(row.stage), step=row.step,
                       stability=row.stability, difficulty=row.difficulty, due=row.due,
                       last_review=row.last_review, reps=row.reps, lapses=row.lapses)
                for key, row in rows.items() if key in keys and not row.suspended]
    new = Counter(deck_id for deck_id, card_key in keys if (deck_id, card_key) not in rows)
    limits = [(new[deck_id], options.new_per_day)
              for deck_id, options in sorted(stored_options(service.settings).items())
              if options.new_per_day is not None and new[deck_id]]
    return memories, sum(new.values()), limits


def exam_plan(service: StudyService, exam: date | datetime, *,
              apply: bool = False) -> ExamPlan:
    """The plan for ``exam`` (a date, or a local date and time); ``apply`` saves the exam
    and the daily new-card limit, keeping the limit it replaces for ``clear_exam_plan``."""
    memories, new_left, limits = _memories_and_new(service)
    plan = plan_exam(exam, service.now(), service.scheduler, memories, new_left,
                     deck_limits=limits)
    if apply:
        settings = service.settings
        limit = plan.new_per_day or settings.new_per_day  # nothing new: keep it
        before = settings.new_per_day_before_exam
        if before is None:  # a second --apply keeps the limit from before the first
            before = settings.new_per_day
        service.update_settings(exam_date=exam.isoformat(), new_per_day=limit,
                                new_per_day_before_exam=before)
    return plan


def clear_exam_plan(service: StudyService) -> int:
    """Forget the saved exam and put back the new-card limit set before ``--apply``;
    the limit in force afterwards."""
    settings = service.settings
    limit = settings.new_per_day_before_exam
    if limit is None:
        limit = settings.new_per_day
    return service.update_settings(exam_date=None, new_per_day=limit,
                                   new_per_day_before_exam=None).new_per_day


def saved_exam_plan(service: StudyService) -> ExamPlan | None:
    """The plan for the exam date saved in the profile (None without one, or once it passed)."""
    saved = service.settings.exam_date
    if not saved:
        return None
    try:
        when = datetime.fromisoformat(saved)
        return exam_plan(service, when.date() if len(saved) == 10 else when)
    except (ValueError, PlanError):
        return None
