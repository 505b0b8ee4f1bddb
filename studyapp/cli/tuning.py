"""``studyapp optimize`` and ``studyapp plan``: FSRS fitted to the learner, an exam date."""

from __future__ import annotations

from datetime import date, datetime

import click

from studyapp.cli import (
    current_settings,
    echo_json,
    fail,
    make_service,
    user_errors,
)
from studyapp.i18n import t


@click.command("optimize")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--reschedule", is_flag=True,
              help="Also move due dates to the new memory states (Anki's \"Reschedule cards "
                   "on change\"); by default memory states are recomputed and due dates kept.")
@click.option("--keep-due", is_flag=True, hidden=True,
              help="Due dates are kept by default; accepted for older scripts.")
@click.option("--ignore-before", metavar="YYYY-MM-DD|off",
              help="Leave out answers before this day (midnight UTC), in fitting and in "
                   "memory states, as Anki's \"Ignore cards reviewed before\"; saved in the "
                   "profile; off clears it.")
@click.option("--undo", is_flag=True,
              help="Restore the parameters the last optimize replaced.")
@click.pass_context
def optimize_cmd(ctx: click.Context, as_json: bool, reschedule: bool, keep_due: bool,
                 ignore_before: str | None, undo: bool) -> None:
    """Fit FSRS parameters to this profile's answers; keep them only if they predict better.

    Saved parameters recompute every card's memory state from its history; due
    dates stay unless --reschedule.
    """
    from studyapp.tuning import optimize_profile, optimize_summary, undo_optimize

    settings = current_settings(ctx)
    if reschedule and keep_due:
        fail("--reschedule and --keep-due contradict each other", code=2)
    cutoff: str | None = None
    if ignore_before is not None and ignore_before != "off":
        try:
            day = date.fromisoformat(ignore_before)
        except ValueError:
            fail(t("tuning.optimize.bad_date", settings.lang, value=ignore_before[:40]), code=2)
        if day > date.today():
            fail(t("tuning.optimize.future_date", settings.lang, value=day.isoformat()),
                 code=2)
        cutoff = day.isoformat()
    if undo:
        service = make_service(settings)
        try:
            cards = undo_optimize(service, reschedule=reschedule)
        finally:
            service.close()
        if as_json:
            echo_json({"undone": cards is not None, "recomputed": cards or 0})
        elif cards is None:
            click.echo(t("tuning.optimize.nothing_to_undo", settings.lang))
        else:
            click.echo(t("tuning.optimize.undone", settings.lang, cards=cards))
        return

    def progress(stage: str, _fraction: float) -> None:
        if not as_json:
            click.echo(t(f"tuning.stage.{stage}", settings.lang), err=True)

    service = make_service(settings)
    try:
        if ignore_before is not None:
            service.update_settings(ignore_reviews_before=cutoff)
        outcome = optimize_profile(service, progress=progress, reschedule=reschedule)
    except (ValueError, RuntimeError) as exc:  # fsrs-rs refused the history
        if isinstance(exc, user_errors()):
            raise  # a deck's or the catalog's problem: worded by the group, as everywhere
        fail(t("tuning.optimize.failed", settings.lang, detail=str(exc)))
    finally:
        service.close()
    if as_json:
        echo_json(outcome.as_json())
        return
    click.echo(optimize_summary(outcome, settings.lang))
    if outcome.result.enough:
        click.echo("parameters: " + ", ".join(f"{p:g}" for p in outcome.parameters))


MAX_EXAM_DAYS = 10 * 365
"""The furthest exam a plan simulates: past it the day-by-day calendar says nothing useful."""


@click.command("plan")
@click.option("--exam", type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M",
                                                    "%Y-%m-%d %H:%M"]),
              metavar="YYYY-MM-DD[THH:MM]",
              help="Exam date, and its local time (default 09:00); default: the one saved "
                   "with --apply.")
@click.option("--apply", is_flag=True,
              help="Save the exam date and set the daily new-card limit to the plan's.")
@click.option("--clear", is_flag=True,
              help="Forget the saved exam date and restore the new-card limit set before "
                   "--apply.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def plan_cmd(ctx: click.Context, exam: datetime | None, apply: bool, clear: bool,
             as_json: bool) -> None:
    """New cards a day to see everything a week before the exam, review load, recall."""
    from studyapp.tuning import (
        PlanError,
        clear_exam_plan,
        cramming_text,
        decimal,
        exam_plan,
        recall_text,
    )

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        if clear:
            limit = clear_exam_plan(service)
            if as_json:
                echo_json({"cleared": True, "new_per_day": limit})
            else:
                click.echo(t("tuning.plan.cleared", settings.lang, new=limit))
            return
        saved = service.settings.exam_date
        if exam is None and not saved:
            fail("give --exam YYYY-MM-DD", code=2)
        given: date | datetime
        if exam is not None:
            given = exam if exam.hour or exam.minute else exam.date()
        else:
            when = datetime.fromisoformat(str(saved))
            given = when.date() if len(str(saved)) == 10 else when
        day = given.date() if isinstance(given, datetime) else given
        if (day - date.today()).days > MAX_EXAM_DAYS:
            fail(t("tuning.plan.too_far", settings.lang, exam=day.isoformat(),
                   years=MAX_EXAM_DAYS // 365), code=2)
        plan = exam_plan(service, given, apply=apply)
        new_limit = service.settings.new_per_day
    except PlanError as exc:
        fail(str(exc))
    finally:
        service.close()
    if as_json:
        echo_json(plan.as_json())
        return
    lang = settings.lang
    recall = recall_text(plan.predicted_recall, lang)
    rows = [("exam", plan.exam.isoformat()), ("days_left", str(plan.days_left)),
            ("new_left", str(plan.new_left)), ("new_per_day", str(plan.new_per_day)),
            ("learn_days", str(plan.learn_days)),
            ("reviews_per_day", decimal(plan.reviews_per_day, 1, lang)),
            ("peak_reviews", f"{plan.peak_reviews:.0f}"), ("predicted_recall", recall),
            ("recall_month_after", recall_text(plan.recall_month_after, lang))]
    # too close for the week's margin, the new cards take every day left
    labels = [t(f"tuning.plan.{key}_close" if key == "learn_days" and plan.too_close
                else f"tuning.plan.{key}", lang) for key, _ in rows]
    width = max(len(label) for label in labels)
    for label, (_, value) in zip(labels, rows, strict=True):
        click.echo(f"{label:<{width}}  {value}")
    if plan.too_close:
        click.echo(t("tuning.plan.too_close", lang, new=plan.new_per_day, recall=recall))
    if plan.new_unreached:
        click.echo(t("tuning.plan.unreached", lang, count=plan.new_unreached))
    if plan.cramming:
        click.echo(cramming_text(plan, lang))
    if apply:
        click.echo(t("tuning.plan.applied", lang, exam=plan.exam.isoformat(),
                     new=new_limit))
    elif saved != plan.exam.isoformat():
        click.echo(t("tuning.plan.not_applied", lang))
