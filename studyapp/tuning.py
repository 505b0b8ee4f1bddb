"""Tuning a profile to its learner: FSRS parameters fitted to the history, an exam plan.

A service beside ``study``: the faces call these functions with a
``StudyService`` and never reach the store themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from studyapp.srs.optimize import OptimizeResult, Progress, ReviewEvent, optimize
from studyapp.srs.plan import ExamPlan, PlanError, plan_exam
from studyapp.srs.scheduler import CardStage, Memory

if TYPE_CHECKING:
    from studyapp.study import StudyService

__all__ = ["ExamPlan", "OptimizeOutcome", "PlanError", "exam_plan", "optimize_profile",
           "optimize_summary", "saved_exam_plan"]


@dataclass(frozen=True)
class OptimizeOutcome:
    """The comparison, and whether the fitted parameters now schedule this profile."""

    result: OptimizeResult
    saved: bool
    parameters: tuple[float, ...]  # the parameters in use afterwards

    def as_json(self) -> dict[str, object]:
        r = self.result
        return {"reviews": r.reviews, "saved": self.saved,
                "log_loss_default": r.log_loss_default, "log_loss_fitted": r.log_loss_fitted,
                "rmse_default": r.rmse_default, "rmse_fitted": r.rmse_fitted,
                "parameters": list(self.parameters), "items": r.items,
                "needed": r.needed}


def optimize_summary(outcome: OptimizeOutcome, lang: str) -> str:
    """What the optimizer found and did, in one paragraph (the CLI and the TUI say the same)."""
    from studyapp.i18n import t

    result = outcome.result
    head = t("tuning.optimize.reviews", lang, reviews=result.reviews, items=result.items)
    if not result.enough:
        return head + " " + t("tuning.optimize.not_enough", lang, items=result.items,
                              needed=result.needed, missing=result.missing)
    figures = {"loss_default": f"{result.log_loss_default:.4f}",
               "loss_fitted": f"{result.log_loss_fitted:.4f}",
               "rmse_default": f"{result.rmse_default:.4f}",
               "rmse_fitted": f"{result.rmse_fitted:.4f}"}
    key = "tuning.optimize.saved" if outcome.saved else "tuning.optimize.kept"
    return head + " " + t(key, lang, **figures)


def optimize_profile(service: StudyService, *, progress: Progress | None = None,
                     save: bool = True) -> OptimizeOutcome:
    """Fit FSRS to the profile's answers; save the fitted parameters only when they win."""
    from studyapp.srs.calendar import local_zone
    from studyapp.store.history import review_history

    events = [ReviewEvent(card, when, rating)
              for card, when, rating in review_history(service.store, service.profile.id)]
    result = optimize(events, rollover_hour=service.settings.day_rollover_hour,
                      zone=local_zone(), progress=progress)
    saved = False
    parameters = service.settings.parameters
    if save and result.better and result.parameters is not None:
        parameters = service.update_settings(parameters=result.parameters).parameters
        saved = True
    return OptimizeOutcome(result, saved, tuple(parameters))


def _memories_and_new(service: StudyService) -> tuple[list[Memory], int]:
    """Seen, unsuspended cards of the decks switched on, as scheduler memories; the count
    still new (a deck switched off, like the examples at first, is not planned for)."""
    rows = service.card_states()
    keys = service.studied_keys()
    memories = [Memory(card_id=row.id, stage=CardStage(row.stage), step=row.step,
                       stability=row.stability, difficulty=row.difficulty, due=row.due,
                       last_review=row.last_review, reps=row.reps, lapses=row.lapses)
                for key, row in rows.items() if key in keys and not row.suspended]
    return memories, sum(1 for key in keys if key not in rows)


def exam_plan(service: StudyService, exam: date, *, apply: bool = False) -> ExamPlan:
    """The plan for ``exam``; ``apply`` saves the date and the daily new-card limit."""
    memories, new_left = _memories_and_new(service)
    plan = plan_exam(exam, service.now(), service.scheduler, memories, new_left)
    if apply:
        limit = plan.new_per_day or service.settings.new_per_day  # nothing new: keep it
        service.update_settings(exam_date=exam.isoformat(), new_per_day=limit)
    return plan


def saved_exam_plan(service: StudyService) -> ExamPlan | None:
    """The plan for the exam date saved in the profile (None without one, or once it passed)."""
    saved = service.settings.exam_date
    if not saved:
        return None
    try:
        return exam_plan(service, date.fromisoformat(saved))
    except (ValueError, PlanError):
        return None
