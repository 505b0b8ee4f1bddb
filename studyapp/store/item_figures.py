"""Item analysis in SQL: each card's sums and the sums its statistics are made of.

The class report's figures per card (facility, standard deviation,
discrimination between the top and bottom 27% of the class, Moodle's
discrimination coefficient and efficiency, overrides, mean time) are computed
by the database from ``card_stats`` (one row per student and card, kept by
triggers) in a few grouped queries, one row per card back: the report never
walks the class's (student, card) rows in Python. ``classroom.item_stats``
turns the sums into figures (square roots and ratios, as Moodle writes them).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import (
    Float,
    and_,
    case,
    cast,
    func,
    literal_column,
    not_,
    select,
    text,
    tuple_,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.sql import Select
from sqlalchemy.sql.selectable import CTE, Subquery

from studyapp.store.database import Store
from studyapp.store.tables import CardStat, CardState, ReviewLog

Key = tuple[str, str]
_Query = TypeVar("_Query", bound=Select[*tuple[Any, ...]])

SORT_MEMORY = "64MB"
"""PostgreSQL's memory for each sort of the statistics (4 MB by default): a class of 200
with 120 cards each sorts 48,000 narrow rows, which then stay off the disk."""

GROUP_SHARE = 0.27
"""The upper and lower groups: 27% of the class each, by overall mark (Kelley)."""


class ItemSums(NamedTuple):
    """One card's answers across the class, summed."""

    deck_id: str
    card_key: str
    post: str
    students: int
    """Students who answered it while it was new (their first attempt)."""
    first_right: int
    """Of those, the ones whose every first attempt was right."""
    answers: int
    right: int
    overrides: int
    carried: int
    duration_ms: int
    timed: int


class MarkSums(NamedTuple):
    """The sums one card's statistics come from, on one set of attempts (first, or all).

    A student's mark ``x`` on the card is the share right; ``r`` their mark on the rest
    of the deck (only students with answers elsewhere have one).
    """

    deck_id: str
    card_key: str
    students: int
    mean: float
    squares: float
    """Σ (x − mean)²."""
    upper_sum: float
    upper_n: int
    lower_sum: float
    lower_n: int
    rest_n: int
    cross: float | None
    """Σ (x − x̄)(r − r̄) over the students with a rest-of-deck mark."""
    x_squares: float | None
    r_squares: float | None
    sorted_cross: float | None
    """The same as ``cross`` with x and r each sorted (the largest covariance possible)."""


def _n(value: Any) -> int:
    return int(value or 0)


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _if(condition: Any) -> Any:
    return case((condition, 1), else_=0)


def _answered(query: _Query, profile_ids: Collection[int] | None,
              untaught: Collection[Key], *, join: bool = False) -> _Query:
    """``query`` over the cards with answers, of ``profile_ids`` (None: every student),
    leaving out ``untaught`` cards (removed from their deck since); ``join``: the query
    reads ``card_stats`` alone, and is joined to the cards for that."""
    if join:
        query = query.join(CardState, CardState.id == CardStat.card_id)
    query = query.where(CardStat.reviews > 0)
    if profile_ids is not None:
        query = query.where(CardStat.profile_id.in_(sorted(profile_ids)))
    if untaught:
        query = query.where(not_(tuple_(CardState.deck_id, CardState.card_key)
                                 .in_(sorted(untaught))))
    return query


def card_keys(store: Store, deck_ids: Collection[str]) -> set[Key]:
    """Every (deck, card) some student has progress on, of ``deck_ids``."""
    if not deck_ids:
        return set()
    with store.sessions() as session:
        return {(d, k) for d, k in session.execute(
            select(CardState.deck_id, CardState.card_key).distinct()
            .where(CardState.deck_id.in_(sorted(deck_ids))))}


def item_sums(store: Store, profile_ids: Collection[int] | None = None,
              untaught: Collection[Key] = ()) -> list[ItemSums]:
    """Per card: first attempts, answers, right ones, overrides, carried steps, time.

    Overrides and carried-forward answers, a few, come from their own partial index
    (revision 0012); the rest from ``card_stats``.
    """
    # the partial index's own predicate, the 0 written in (a bound value would not match it)
    flagged = ReviewLog.overridden | (ReviewLog.carried > literal_column("0"))
    marked = select(ReviewLog.card_id,
                    func.sum(_if(ReviewLog.overridden.is_(True))).label("overrides"),
                    func.sum(_if(ReviewLog.carried > 0)).label("carried")).where(flagged)
    if profile_ids is not None:
        marked = marked.where(ReviewLog.profile_id.in_(sorted(profile_ids)))
    flags = marked.group_by(ReviewLog.card_id).subquery()
    first = CardStat.first_answers > 0
    query = _answered(
        select(CardState.deck_id, CardState.card_key, func.min(CardState.post),
               func.sum(_if(first)),
               func.sum(_if(and_(first, CardStat.first_correct == CardStat.first_answers))),
               func.sum(CardStat.reviews), func.sum(CardStat.correct),
               func.sum(flags.c.overrides), func.sum(flags.c.carried),
               func.sum(CardStat.duration_ms), func.sum(CardStat.reviews))
        .join(CardStat, CardStat.card_id == CardState.id)
        .outerjoin(flags, flags.c.card_id == CardState.id), profile_ids, untaught)
    with store.sessions() as session:
        rows = session.execute(query.group_by(CardState.deck_id, CardState.card_key))
        return [ItemSums(row[0], row[1], row[2], *(_n(v) for v in row[3:])) for row in rows]


def group_size(students: int) -> int:
    """How many students each of the upper and lower groups holds (0: no groups)."""
    return max(1, round(GROUP_SHARE * students)) if students >= 2 else 0


def mark_sums(store: Store, profile_ids: Collection[int] | None = None,
              untaught: Collection[Key] = ()) -> tuple[dict[Key, MarkSums], dict[Key, MarkSums]]:
    """Per card, on first attempts and on all: the sums of its students' marks, of their
    rest-of-deck marks and of the top and bottom 27% of the class (``item_stats``)."""
    with store.sessions() as session:
        postgres = session.get_bind().dialect.name == "postgresql"
        if postgres:  # the statements sort the class's (student, card) rows: in memory
            session.execute(text(f"SET LOCAL work_mem = '{SORT_MEMORY}'"))
        counted = session.execute(_answered(
            select(func.count(func.distinct(case((CardStat.first_answers > 0,
                                                  CardStat.profile_id)))),
                   func.count(func.distinct(CardStat.profile_id))),
            profile_ids, untaught, join=bool(untaught))).one()
        return tuple(  # type: ignore[return-value]
            {(row[0], row[1]): MarkSums(
                row[0], row[1], _n(row[2]), float(row[3]), float(row[4]), float(row[5] or 0),
                _n(row[6]), float(row[7] or 0), _n(row[8]), _n(row[9]), _f(row[10]),
                _f(row[11]), _f(row[12]), _f(row[13]))
             for row in session.execute(_marks_query(first, group_size(_n(n)), postgres,
                                                     profile_ids, untaught))}
            for first, n in ((True, counted[0]), (False, counted[1])))


def _marks_query(first: bool, size: int, postgres: bool, profile_ids: Collection[int] | None,
                 untaught: Collection[Key]) -> Select[Any]:
    """One statement: per card, the sums ``MarkSums`` holds, on one set of attempts."""
    right, attempts = ((CardStat.first_correct, CardStat.first_answers) if first
                       else (CardStat.correct, CardStat.reviews))
    marks = _answered(select(CardState.deck_id.label("d"), CardState.card_key.label("k"),
                             CardState.profile_id.label("s"), right.label("ok"),
                             attempts.label("n"))
                      .join(CardStat, CardStat.card_id == CardState.id).where(attempts > 0),
                      profile_ids, untaught).cte("marks")
    m = marks.c
    totals = (select(m.s, func.sum(m.ok).label("ok"), func.sum(m.n).label("n"))
              .group_by(m.s).cte("totals"))
    t = totals.c
    # the class ranked by overall mark, best first, ties by id (as Moodle's groups)
    ranked = select(t.s, t.ok, t.n,
                    func.row_number().over(order_by=((cast(t.ok, Float) / cast(t.n, Float))
                                                     .desc(), t.s)).label("rank"),
                    func.count().over().label("of")).cte("ranked")
    r = ranked.c
    rest = case((r.n > m.n, cast(r.ok - m.ok, Float) / cast(r.n - m.n, Float)), else_=None)
    joined = select(m.d, m.k, (cast(m.ok, Float) / cast(m.n, Float)).label("x"),
                    rest.label("r"), _if(r.rank <= size).label("up"),
                    _if(r.rank > r.of - size).label("low")
                    ).join(ranked, r.s == m.s).cte("joined")
    j = joined.c
    has_rest = j.r.is_not(None)
    means = (select(j.d, j.k, func.avg(j.x).label("mean"),
                    func.avg(case((has_rest, j.x))).label("mx"), func.avg(j.r).label("mr"))
             .group_by(j.d, j.k).cte("means"))
    mean = means.c
    paired = _sorted_pairs(joined, means, postgres)
    dx, dr = j.x - mean.mx, j.r - mean.mr
    return (select(j.d, j.k, func.count(), func.max(mean.mean),
                   func.sum((j.x - mean.mean) * (j.x - mean.mean)),
                   func.sum(case((j.up == 1, j.x), else_=0.0)), func.sum(j.up),
                   func.sum(case((j.low == 1, j.x), else_=0.0)), func.sum(j.low),
                   func.count(j.r), func.sum(dx * dr), func.sum(case((has_rest, dx * dx))),
                   func.sum(dr * dr), func.max(paired.c.cmax))
            .join(means, and_(mean.d == j.d, mean.k == j.k))
            .outerjoin(paired, and_(paired.c.d == j.d, paired.c.k == j.k))
            .group_by(j.d, j.k))


def _sorted_pairs(joined: CTE, means: CTE, postgres: bool) -> Subquery:
    """Per card, Σ (x − x̄)(r − r̄) with the marks and the rest-of-deck marks each sorted
    (Moodle's C_max): on PostgreSQL from two sorted arrays read side by side, elsewhere by
    pairing the rows ranked each way."""
    j, mean = joined.c, means.c
    if postgres:
        ordered = (select(j.d, j.k, func.array_agg(aggregate_order_by(j.x, j.x)).label("xs"),
                          func.array_agg(aggregate_order_by(j.r, j.r)).label("rs"))
                   .where(j.r.is_not(None)).group_by(j.d, j.k).subquery("ordered"))
        o = ordered.c
        pair = func.unnest(o.xs, o.rs).table_valued("a", "b").render_derived()
        cmax = (select(func.sum((pair.c.a - mean.mx) * (pair.c.b - mean.mr)))
                .select_from(pair).scalar_subquery())
        return (select(o.d, o.k, cmax.label("cmax"))
                .join(means, and_(mean.d == o.d, mean.k == o.k)).subquery("paired"))
    card = (j.d, j.k)
    ranks = select(j.d, j.k, j.x, j.r,
                   func.row_number().over(partition_by=card, order_by=j.x).label("by_x"),
                   func.row_number().over(partition_by=card, order_by=j.r).label("by_r")
                   ).where(j.r.is_not(None)).cte("ranks")
    a, b = ranks.alias("a"), ranks.alias("b")
    return (select(a.c.d, a.c.k, func.sum((a.c.x - mean.mx) * (b.c.r - mean.mr)).label("cmax"))
            .join(b, and_(b.c.d == a.c.d, b.c.k == a.c.k, b.c.by_r == a.c.by_x))
            .join(means, and_(mean.d == a.c.d, mean.k == a.c.k))
            .group_by(a.c.d, a.c.k).subquery("paired"))


__all__ = ["GROUP_SHARE", "ItemSums", "MarkSums", "card_keys", "group_size", "item_sums",
           "mark_sums"]
