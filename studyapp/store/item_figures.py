"""Item analysis in SQL: each card's sums and the sums its statistics are made of.

The class report's figures per card (facility, standard deviation,
discrimination between the top and bottom 27% of the class, Moodle's
discrimination coefficient and efficiency, overrides, mean time) are computed
by the database from ``card_stats`` (one row per student and card, kept by
triggers), one row per card back: the report never walks the class's
(student, card) rows in Python. First attempts and all attempts come from one
statement that reads those rows once, ranks the class from each student's
totals once per set (window functions) and sorts the rows by card once. ``classroom.item_stats``
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
    rest-of-deck marks and of the top and bottom 27% of the class (``item_stats``).

    Both sets come from one statement (``_marks_query``): the class's (student, card) rows
    are read once, the class ranked once per set from each student's totals, and the rows
    sorted once by card, each card's means taken over that order (window functions)."""
    with store.sessions() as session:
        postgres = session.get_bind().dialect.name == "postgresql"
        if postgres:  # the statement sorts the class's (student, card) rows: in memory
            session.execute(text(f"SET LOCAL work_mem = '{SORT_MEMORY}'"))
        counted = session.execute(_answered(
            select(func.count(func.distinct(case((CardStat.first_answers > 0,
                                                  CardStat.profile_id)))),
                   func.count(func.distinct(CardStat.profile_id))),
            profile_ids, untaught, join=bool(untaught))).one()
        first: dict[Key, MarkSums] = {}
        every: dict[Key, MarkSums] = {}
        for row in session.execute(_marks_query(group_size(_n(counted[0])),
                                                group_size(_n(counted[1])), postgres,
                                                profile_ids, untaught)):
            key = (row[0], row[1])
            for found, sums in ((first, row[2:14]), (every, row[14:26])):
                if _n(sums[0]):
                    found[key] = MarkSums(
                        key[0], key[1], _n(sums[0]), float(sums[1]), float(sums[2]),
                        float(sums[3] or 0), _n(sums[4]), float(sums[5] or 0), _n(sums[6]),
                        _n(sums[7]), _f(sums[8]), _f(sums[9]), _f(sums[10]), _f(sums[11]))
        return first, every


SETS = ("f", "a")
"""The two sets of attempts, as the statement's columns are suffixed: first, all."""

SUMS = ("students", "mean", "squares", "upper_sum", "upper_n", "lower_sum", "lower_n",
        "rest_n", "cross", "x_squares", "r_squares")
"""Each set's sums, in ``MarkSums``'s order (the sorted cross product follows them)."""


def _marks_query(first_size: int, all_size: int, postgres: bool,
                 profile_ids: Collection[int] | None, untaught: Collection[Key]
                 ) -> Select[Any]:
    """One statement: per card, the sums ``MarkSums`` holds on first attempts, then on all
    (12 columns each after the card's deck and key)."""
    marks = _answered(select(CardState.deck_id.label("d"), CardState.card_key.label("k"),
                             CardState.profile_id.label("s"),
                             CardStat.first_correct.label("ok_f"),
                             CardStat.first_answers.label("n_f"),
                             CardStat.correct.label("ok_a"), CardStat.reviews.label("n_a"))
                      .join(CardStat, CardStat.card_id == CardState.id),
                      profile_ids, untaught).cte("marks")
    m = marks.c
    has_first = m.n_f > 0
    totals = (select(m.s, func.sum(case((has_first, m.ok_f), else_=0)).label("ok_f"),
                     func.sum(m.n_f).label("n_f"), func.sum(m.ok_a).label("ok_a"),
                     func.sum(m.n_a).label("n_a"))
              .group_by(m.s).cte("totals"))
    t = totals.c
    # the class ranked by overall mark, best first, ties by id (as Moodle's groups); on
    # first attempts only the students with some (those without rank last, unused)
    ranked = select(
        t.s, t.ok_f, t.n_f, t.ok_a, t.n_a,
        func.row_number().over(order_by=(t.n_f == 0, _share(t.ok_f, t.n_f).desc(), t.s)
                               ).label("rank_f"),
        func.sum(_if(t.n_f > 0)).over().label("of_f"),
        func.row_number().over(order_by=(_share(t.ok_a, t.n_a).desc(), t.s)).label("rank_a"),
        func.count().over().label("of_a")).cte("ranked")
    r = ranked.c
    columns: list[Any] = [m.d, m.k]
    for name, size, answered in (("f", first_size, has_first), ("a", all_size, m.n_a > 0)):
        ok, n = m[f"ok_{name}"], m[f"n_{name}"]
        total_ok, total_n = r[f"ok_{name}"], r[f"n_{name}"]
        rank, of = r[f"rank_{name}"], r[f"of_{name}"]
        columns += [
            case((answered, _share(ok, n)), else_=None).label(f"x_{name}"),
            case((and_(answered, total_n > n), _share(total_ok - ok, total_n - n)),
                 else_=None).label(f"r_{name}"),
            _if(and_(answered, rank <= size)).label(f"up_{name}"),
            _if(and_(answered, rank > of - size)).label(f"low_{name}")]
    joined = select(*columns).join(ranked, r.s == m.s).cte("joined")
    j = joined.c
    card = (j.d, j.k)
    # each card's means over its rows as they come sorted by card (the one sort), beside
    # each row: the sums of squares below need them
    windowed: list[Any] = [j.d, j.k]
    for name in SETS:
        x, rest = j[f"x_{name}"], j[f"r_{name}"]
        windowed += [x, rest, j[f"up_{name}"], j[f"low_{name}"],
                     func.avg(x).over(partition_by=card).label(f"mean_{name}"),
                     func.avg(case((rest.is_not(None), x))).over(partition_by=card)
                     .label(f"mx_{name}"),
                     func.avg(rest).over(partition_by=card).label(f"mr_{name}")]
    means = select(*windowed).cte("means")
    w = means.c
    sums: list[Any] = [w.d, w.k]
    for name in SETS:
        x, rest = w[f"x_{name}"], w[f"r_{name}"]
        up, low, mean = w[f"up_{name}"], w[f"low_{name}"], w[f"mean_{name}"]
        dx, dr = x - w[f"mx_{name}"], rest - w[f"mr_{name}"]
        sums += [column.label(f"{label}_{name}") for label, column in zip(SUMS, (
            func.count(x), func.max(mean), func.sum((x - mean) * (x - mean)),
            func.sum(case((up == 1, x), else_=0.0)), func.sum(up),
            func.sum(case((low == 1, x), else_=0.0)), func.sum(low), func.count(rest),
            func.sum(dx * dr), func.sum(case((rest.is_not(None), dx * dx))),
            func.sum(dr * dr)), strict=True)]
        if postgres:  # each card's sorted marks, read side by side below (C_max)
            sums += [func.max(w[f"mx_{name}"]).label(f"mx_{name}"),
                     func.max(w[f"mr_{name}"]).label(f"mr_{name}"),
                     func.array_agg(aggregate_order_by(x, x)).filter(rest.is_not(None))
                     .label(f"xs_{name}"),
                     func.array_agg(aggregate_order_by(rest, rest)).filter(rest.is_not(None))
                     .label(f"rs_{name}")]
    grouped = select(*sums).group_by(w.d, w.k).subquery("grouped")
    g = grouped.c
    out: list[Any] = [g.d, g.k]
    query = select(grouped)
    for name in SETS:
        out += [g[f"{label}_{name}"] for label in SUMS]
        if postgres:
            pair = func.unnest(g[f"xs_{name}"], g[f"rs_{name}"]).table_valued(
                "a", "b").render_derived()
            out.append(select(func.sum((pair.c.a - g[f"mx_{name}"])
                                       * (pair.c.b - g[f"mr_{name}"])))
                       .select_from(pair).scalar_subquery())
        else:
            paired = _sorted_pairs(means, name)
            query = query.outerjoin(paired, and_(paired.c.d == g.d, paired.c.k == g.k))
            out.append(paired.c.cmax)
    return query.with_only_columns(*out)


def _share(right: Any, attempts: Any) -> Any:
    """``right / attempts`` as a float (NULL for no attempts)."""
    return cast(right, Float) / cast(func.nullif(attempts, 0), Float)


def _sorted_pairs(means: CTE, name: str) -> Subquery:
    """Per card, Σ (x − x̄)(r − r̄) with the marks and the rest-of-deck marks each sorted
    (Moodle's C_max), by pairing the rows ranked each way (SQLite has no arrays)."""
    w = means.c
    x, rest = w[f"x_{name}"], w[f"r_{name}"]
    card = (w.d, w.k)
    ranks = select(w.d, w.k, x.label("x"), rest.label("r"), w[f"mx_{name}"].label("mx"),
                   w[f"mr_{name}"].label("mr"),
                   func.row_number().over(partition_by=card, order_by=x).label("by_x"),
                   func.row_number().over(partition_by=card, order_by=rest).label("by_r")
                   ).where(rest.is_not(None)).cte(f"ranks_{name}")
    a, b = ranks.alias(f"a_{name}"), ranks.alias(f"b_{name}")
    return (select(a.c.d, a.c.k, func.sum((a.c.x - a.c.mx) * (b.c.r - b.c.mr)).label("cmax"))
            .join(b, and_(b.c.d == a.c.d, b.c.k == a.c.k, b.c.by_r == a.c.by_x))
            .group_by(a.c.d, a.c.k).subquery(f"paired_{name}"))


__all__ = ["GROUP_SHARE", "ItemSums", "MarkSums", "card_keys", "group_size", "item_sums",
           "mark_sums"]
