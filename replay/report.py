"""Plain renderings of a hand's replay for the command line: text lines and JSON objects.

The JSON object per hand is documented in docs/validate.md.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gamelog.cards import Card, format_cards
from gamelog.safetext import visible
from replay.engine import HandReport

_ENC = msgspec.json.Encoder()


def hand_dict(report: HandReport) -> dict[str, Any]:
    out = report.outcome
    return {
        "match": report.match,
        "hand": report.hand,
        "ruleset": report.ruleset,
        "ok": report.ok,
        "complete": report.complete,
        "incomplete": incomplete_text(report),
        "dealer": report.dealer,
        "declarer": report.declarer,
        "trump": report.trump,
        "level": report.level,
        "contract": report.contract,
        "bids": [{"seat": seat, "points": points} for seat, points in report.bids],
        "surrendered": report.surrendered,
        "violations": [msgspec.to_builtins(v) for v in report.violations],
        "record_issues": [str(i) for i in report.record_issues],
        "notices": [n.message for n in report.notices],
        "tricks": [
            {"trick": t.number, "leader": t.leader, "winner": t.winner, "points": t.points,
             "plays": [{"seat": p.seat, "cards": [str(Card(c)) for c in p.cards],
                        "role": p.role or None} for p in t.plays],
             "throw": t.throw, "trumped": t.trumped,
             "failed_throw": ([str(Card(c)) for c in t.failed_throw]
                              if t.failed_throw is not None else None),
             "forced": ([[str(Card(c)) for c in option] for option in t.forced]
                        if t.forced is not None else None)}
            for t in report.tricks
        ],
        "outcome": None if out is None else {
            "defender_points": out.defender_points, "kitty_points": out.kitty_points,
            "kitty_multiplier": out.kitty_multiplier, "level_change": out.level_change,
            "next_dealer": out.next_dealer, "settlement": out.settlement,
            "round_settlement": out.round_settlement,
        },
    }


def hand_json(report: HandReport) -> str:
    return _ENC.encode(hand_dict(report)).decode()


def incomplete_text(report: HandReport) -> str | None:
    """``"incomplete: stops after trick 3"`` for a hand whose record ends before its last trick
    (``None`` for a complete hand)."""
    if report.complete:
        return None
    done = sum(1 for t in report.tricks if t.winner is not None)
    return f"incomplete: stops after trick {done}" if done else (
        "incomplete: stops before the first trick is complete")


def hand_text(report: HandReport) -> str:
    head = f"match {visible(report.match)} hand {report.hand} ({visible(report.ruleset)})"
    incomplete = incomplete_text(report)
    if report.ok and not report.notices:
        out = report.outcome
        if incomplete is not None:
            return f"{head}: {incomplete}, no violation in what is recorded"
        tail = ""
        if out is not None:
            tail = f": defenders {out.defender_points} points"
        return f"{head}: OK{tail}"
    lines = [f"{head}: {len(report.violations)} violation(s)"
             + (f"; {incomplete}" if incomplete is not None else "")]
    for issue in report.record_issues:
        lines.append(f"  record: {visible(issue)}")
    for v in report.violations:
        where = ", ".join(x for x in (
            f"trick {v.trick}" if v.trick is not None else None,
            f"event {v.seq}" if v.seq is not None else None,
            f"seat {v.seat}" if v.seat is not None else None) if x)
        cards = f" [{format_cards([Card.parse(c) for c in v.cards])}]" if v.cards else ""
        lines.append(f"  {v.rule} ({where}){cards}: {visible(v.message)}")
        if v.required:
            lines.append(f"      required: {visible(v.required)}")
    for n in report.notices:
        lines.append(f"  undetermined: {visible(n.message)}")
    return "\n".join(lines)


def totals_text(counts: dict[str, int], bad_lines: int) -> str:
    dirty = counts["hands"] - counts["clean"] - counts.get("incomplete", 0)
    incomplete = counts.get("incomplete", 0)
    return (f"{counts['hands']} hand(s): {counts['clean']} clean, {dirty} with problems, "
            + (f"{incomplete} incomplete, " if incomplete else "")
            + f"{counts['violations']} violation(s), {bad_lines} bad line(s)")
