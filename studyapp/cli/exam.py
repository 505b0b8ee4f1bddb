"""``studyapp exam``: a mock exam, timed, across posts, graded at the end."""

from __future__ import annotations

import json
import sys

import click

from studyapp.cli import current_settings, make_service
from studyapp.i18n import t


@click.command("exam")
@click.option("--posts", metavar="SLUG,…",
              help="The posts the paper covers, by slug (default: every post).")
@click.option("--minutes", type=click.FloatRange(min=1, max=600), default=30.0,
              show_default=True, help="Time for the whole paper.")
@click.option("--count", type=click.IntRange(min=1, max=200), default=20, show_default=True,
              help="Questions on the paper.")
@click.option("--seed", type=int, help="Seed for the draw (the same paper again).")
@click.option("--plain", is_flag=True, help="Line-by-line on stdin/stdout.")
@click.option("--json", "as_json", is_flag=True,
              help="With --plain: the result as JSON on stdout at the end.")
@click.option("--count-as-reviews", is_flag=True,
              help="Record each answered question as a review of its card when the paper is "
                   "handed in (right: Good, wrong: Again).")
@click.pass_context
def exam_cmd(ctx: click.Context, posts: str | None, minutes: float, count: int,
             seed: int | None, plain: bool, as_json: bool, count_as_reviews: bool) -> None:
    """A mock exam: no verdicts until it is handed in; the schedule is left as it is unless
    --count-as-reviews."""
    from studyapp.catalog.errors import UnknownIdError
    from studyapp.catalog.posts import POST_SLUGS

    settings = current_settings(ctx)
    chosen = tuple(p.strip() for p in posts.split(",") if p.strip()) if posts else POST_SLUGS
    for slug in chosen:
        if slug not in POST_SLUGS:
            raise UnknownIdError("post", slug, list(POST_SLUGS))
    if not plain:
        from studyapp.tui.app import run_app  # Textual only when the app opens

        run_app(settings, study={"exam": {"posts": chosen, "minutes": minutes, "count": count,
                                          "seed": seed, "count_as_reviews": count_as_reviews}})
        return
    from studyapp.plain import run_exam_plain

    service = make_service(settings)
    try:
        sheet = service.exam(chosen, count=count, minutes=minutes, seed=seed)
        if not sheet.items:
            click.echo(t("exam.empty", settings.lang))
            sys.exit(1)
        out = sys.stderr if as_json else sys.stdout
        result = run_exam_plain(sheet, service.now, settings.lang, stdout=out)
        service.record_exam(result, count_as_reviews=count_as_reviews)
        if as_json:
            click.echo(json.dumps(result.as_json(), ensure_ascii=False, indent=1))
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        service.close()
