"""Decision review as tables and report data (from :mod:`replay.review`).

``decisions``: one row per reviewed decision (the export's ``export --review`` table); the marks
a hand's viewer shows at their plays; and per-player accuracy for the report's dashboard.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import polars as pl

from replay.marks import AccuracyTally
from replay.review import HandReview

DECISION_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "trick": pl.Int32, "seat": pl.Int32,
    "kind": pl.String, "lead": pl.Boolean, "side": pl.String, "cards": pl.List(pl.String),
    "best": pl.List(pl.String), "value_made": pl.Float64, "value_best": pl.Float64,
    "swing": pl.Float64, "mark": pl.String, "alternatives": pl.Int32, "exact": pl.Boolean,
}
"""The ``decisions`` table: values are the defenders' expected final points; ``swing`` is from
the deciding seat's side (docs/review.md)."""


BID_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "seat": pl.Int32, "bid": pl.Int32,
    "estimate": pl.Float64, "spread": pl.Float64, "deals": pl.Int32, "best": pl.Int32,
    "value_made": pl.Float64, "value_best": pl.Float64, "swing": pl.Float64, "mark": pl.String,
}
"""The ``bids`` table (标分's auction), one row per bid or pass (``bid`` and ``best`` null: a
pass): ``estimate`` is the defenders' expected final points with the seat as declarer; values
and swing are the seat's expected settlement in 档 (docs/review.md)."""


DECLARATION_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "seat": pl.Int32, "drawn": pl.Int32,
    "cards": pl.List(pl.String), "best": pl.List(pl.String), "value_made": pl.Float64,
    "value_best": pl.Float64, "swing": pl.Float64, "error": pl.Float64, "deals": pl.Int32,
    "mark": pl.String, "alternatives": pl.Int32,
}
"""The ``declarations`` table, one row per reviewed trump declaration (``cards`` null: a
declaration never made, reviewed at the seat's last card; ``best`` null: declaring nothing
was best): values are the seat's team's expected levels gained less the
other team's; ``swing`` in levels (docs/review.md)."""


def declaration_rows(review: HandReview) -> list[dict[str, Any]]:
    return [{"match": review.match, "hand": review.hand, "seat": c.seat, "drawn": c.drawn,
             "cards": c.made, "best": c.best, "value_made": round(c.value_made, 3),
             "value_best": round(c.value_best, 3), "swing": round(c.swing, 3),
             "error": round(c.error, 3), "deals": c.deals, "mark": c.mark,
             "alternatives": len(c.alternatives)}
            for c in review.declarations]


def bid_rows(review: HandReview) -> list[dict[str, Any]]:
    return [{"match": review.match, "hand": review.hand, "seat": b.seat, "bid": b.bid,
             "estimate": round(b.estimate, 1), "spread": round(b.spread, 1), "deals": b.deals,
             "best": b.best, "value_made": round(b.value_made, 2),
             "value_best": round(b.value_best, 2), "swing": round(b.swing, 2), "mark": b.mark}
            for b in review.bids]


def decision_rows(review: HandReview) -> list[dict[str, Any]]:
    return [{"match": review.match, "hand": review.hand, "trick": d.trick, "seat": d.seat,
             "kind": d.kind, "lead": d.lead, "side": "defenders" if d.defender else "declarer",
             "cards": d.made, "best": d.best, "value_made": round(d.value_made, 2),
             "value_best": round(d.value_best, 2), "swing": round(d.swing, 2), "mark": d.mark,
             "alternatives": len(d.alternatives), "exact": d.exact}
            for d in review.decisions]


def decision_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return _frame(rows, DECISION_SCHEMA)


def decision_slices(reviews: Iterable[HandReview], every: int = 200
                    ) -> Iterator[dict[str, pl.DataFrame]]:
    """The ``decisions``, ``bids`` and ``declarations`` tables in slices of ``every`` hands
    (memory stays flat)."""
    rows: list[dict[str, Any]] = []
    bids: list[dict[str, Any]] = []
    declarations: list[dict[str, Any]] = []

    def tables() -> dict[str, pl.DataFrame]:
        return {"decisions": decision_frame(rows), "bids": _frame(bids, BID_SCHEMA),
                "declarations": _frame(declarations, DECLARATION_SCHEMA)}

    hands = 0
    for review in reviews:
        rows.extend(decision_rows(review))
        bids.extend(bid_rows(review))
        declarations.extend(declaration_rows(review))
        hands += 1
        if hands >= every:
            yield tables()
            rows, bids, declarations, hands = [], [], [], 0
    yield tables()


def _frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else \
        pl.DataFrame(schema=schema)


def viewer_marks(review: HandReview) -> dict[str, Any]:
    """What a hand's viewer shows of its review.

    ``d``: one object per decision: ``t`` trick (0: the kitty burial), ``s`` seat, ``k`` kind,
    ``m`` mark or null, ``sw`` swing, ``est`` the estimate before the noise margin, ``u`` a worse
    mark left unclear, ``def`` whether the seat defends, ``x`` exact, ``e`` the swing's standard
    error, ``n`` legal alternatives up to equivalence, ``g`` how they were grouped, ``made`` /
    ``best`` cards with values ``vm`` / ``vb``, ``alts`` each valued alternative as ``[cards,
    value, standard error, deals]``, ``lines`` what may follow the play made and the best one;
    ``acc``: each seat's accuracy, ``acci`` its 95 % interval (the review's noise); in 标分
    ``b``: each bid or pass (``[seat, bid or null for a pass, estimated defenders' points as
    declarer, best bid or null, swing in 档, mark or null]``); ``dc``: each trump declaration
    (``[seat, cards dealt when made, cards shown (null: a declaration never made, reviewed at
    the seat's last card), best alternative or null for declaring nothing, levels it gave
    away, their standard error, mark or null]``)."""
    seats = sorted({d.seat for d in review.decisions})

    def alternative(i: int, cards: list[str], value: float, d: Any) -> list[Any]:
        error = d.errors[i] if i < len(d.errors) else None
        deals = d.counts[i] if i < len(d.counts) else None
        return [cards, round(value, 1), None if error is None else round(error, 1), deals]

    return {"d": [{"t": d.trick, "s": d.seat, "k": d.kind, "m": d.mark, "sw": round(d.swing, 1),
                   "est": round(d.estimate, 1), "u": d.unclear, "def": d.defender,
                   "x": d.exact, "e": round(d.error, 1), "n": d.considered, "g": d.grouped,
                   "made": d.made, "vm": round(d.value_made, 1), "best": d.best,
                   "vb": round(d.value_best, 1),
                   "alts": [alternative(i, c, v, d) for i, (c, v) in enumerate(d.alternatives)],
                   "lines": d.lines}
                  for d in review.decisions],
            "acc": {str(s): round(a, 1) for s in seats
                    if (a := review.accuracy(s)) is not None},
            "acci": {str(s): [round(x, 1) for x in i] for s in seats
                     if (i := review.accuracy_interval(s)) is not None},
            "b": [[b.seat, b.bid, round(b.estimate), b.best, round(b.swing, 1), b.mark]
                  for b in review.bids],
            "dc": [[c.seat, c.drawn, c.made, c.best, round(c.estimate, 2), round(c.error, 2),
                    c.mark] for c in review.declarations],
            "skipped": review.skipped}


def player_accuracy(reviews: Iterable[tuple[HandReview, list[str]]]) -> list[dict[str, Any]]:
    """Per player (by the report's labels, given per hand as the seats' names): decisions,
    accuracy (and its 95 % interval from the review's noise), inaccuracies, mistakes and
    blunders over every reviewed hand."""
    by: dict[str, AccuracyTally] = {}
    for review, names in reviews:
        for d in review.decisions:
            who = names[d.seat] if d.seat < len(names) else f"seat {d.seat}"
            by.setdefault(who, AccuracyTally()).add(d, review.scale)
    return [{"player": who, "decisions": t.decisions, "accuracy": t.accuracy,
             "interval": t.interval, "inaccuracies": t.marks["inaccuracy"],
             "mistakes": t.marks["mistake"], "blunders": t.marks["blunder"]}
            for who, t in sorted(by.items())]
