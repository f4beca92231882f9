"""Decision review as tables and report data (from :mod:`replay.review`).

``decisions``: one row per reviewed decision (the export's ``export --review`` table); the marks
a hand's viewer shows at their plays; and per-player accuracy for the report's dashboard.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import polars as pl

from replay.review import HandReview, accuracy

DECISION_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "trick": pl.Int32, "seat": pl.Int32,
    "kind": pl.String, "lead": pl.Boolean, "side": pl.String, "cards": pl.List(pl.String),
    "best": pl.List(pl.String), "value_made": pl.Float64, "value_best": pl.Float64,
    "swing": pl.Float64, "mark": pl.String, "alternatives": pl.Int32, "exact": pl.Boolean,
}
"""The ``decisions`` table: values are the defenders' expected final points; ``swing`` is from
the deciding seat's side (docs/review.md)."""


def decision_rows(review: HandReview) -> list[dict[str, Any]]:
    return [{"match": review.match, "hand": review.hand, "trick": d.trick, "seat": d.seat,
             "kind": d.kind, "lead": d.lead, "side": "defenders" if d.defender else "declarer",
             "cards": d.made, "best": d.best, "value_made": round(d.value_made, 2),
             "value_best": round(d.value_best, 2), "swing": round(d.swing, 2), "mark": d.mark,
             "alternatives": len(d.alternatives), "exact": d.exact}
            for d in review.decisions]


def decision_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=DECISION_SCHEMA, orient="row") if rows else \
        pl.DataFrame(schema=DECISION_SCHEMA)


def decision_slices(reviews: Iterable[HandReview], every: int = 200
                    ) -> Iterator[dict[str, pl.DataFrame]]:
    """The ``decisions`` table in slices of ``every`` hands (memory stays flat)."""
    rows: list[dict[str, Any]] = []
    hands = 0
    for review in reviews:
        rows.extend(decision_rows(review))
        hands += 1
        if hands >= every:
            yield {"decisions": decision_frame(rows)}
            rows, hands = [], 0
    yield {"decisions": decision_frame(rows)}


def viewer_marks(review: HandReview) -> dict[str, Any]:
    """What a hand's viewer shows: each decision's place, swing and mark (``d``: ``[trick,
    seat, mark or null, swing, best cards]``, trick 0 for the kitty burial) and each seat's
    accuracy (``acc``)."""
    seats = sorted({d.seat for d in review.decisions})
    return {"d": [[d.trick, d.seat, d.mark, round(d.swing, 1), d.best]
                  for d in review.decisions],
            "acc": {str(s): round(a, 1) for s in seats
                    if (a := review.accuracy(s)) is not None},
            "skipped": review.skipped}


def player_accuracy(reviews: Iterable[tuple[HandReview, list[str]]]) -> list[dict[str, Any]]:
    """Per player (by the report's labels, given per hand as the seats' names): decisions,
    accuracy, inaccuracies, mistakes and blunders over every reviewed hand."""
    by: dict[str, list] = {}
    scores: dict[str, float] = {}
    for review, names in reviews:
        for d in review.decisions:
            who = names[d.seat] if d.seat < len(names) else f"seat {d.seat}"
            by.setdefault(who, []).append(d)
            # each decision scored on its own game's scale (a mixed report adds them fairly)
            scores[who] = scores.get(who, 0.0) + (accuracy([d], review.scale) or 0.0)
    out = []
    for who in sorted(by):
        ds = by[who]
        out.append({"player": who, "decisions": len(ds),
                    "accuracy": scores[who] / len(ds),
                    "inaccuracies": sum(d.mark == "inaccuracy" for d in ds),
                    "mistakes": sum(d.mark == "mistake" for d in ds),
                    "blunders": sum(d.mark == "blunder" for d in ds)})
    return out
