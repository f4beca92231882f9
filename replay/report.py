"""Plain renderings of a hand's replay for the command line: text lines and JSON objects.

The JSON object per hand is documented in docs/validate.md.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gamelog.cards import Card, format_cards
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
             "plays": [{"seat": p.seat, "cards": [str(Card(c)) for c in p.cards]}
                       for p in t.plays],
             "throw": t.throw, "trumped": t.trumped,
             "failed_throw": ([str(Card(c)) for c in t.failed_throw]
                              if t.failed_throw is not None else None)}
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


def hand_text(report: HandReport) -> str:
    head = f"match {report.match} hand {report.hand} ({report.ruleset})"
    if report.ok and not report.notices:
        out = report.outcome
        tail = ""
        if out is not None:
            tail = f": defenders {out.defender_points} points"
        return f"{head}: OK{tail}"
    lines = [f"{head}: {len(report.violations)} violation(s)"]
    for issue in report.record_issues:
        lines.append(f"  record: {issue}")
    for v in report.violations:
        where = ", ".join(x for x in (
            f"trick {v.trick}" if v.trick is not None else None,
            f"event {v.seq}" if v.seq is not None else None,
            f"seat {v.seat}" if v.seat is not None else None) if x)
        cards = f" [{format_cards([Card.parse(c) for c in v.cards])}]" if v.cards else ""
        lines.append(f"  {v.rule} ({where}){cards}: {v.message}")
        if v.required:
            lines.append(f"      required: {v.required}")
    for n in report.notices:
        lines.append(f"  undetermined: {n.message}")
    return "\n".join(lines)


def totals_text(counts: dict[str, int], bad_lines: int) -> str:
    dirty = counts["hands"] - counts["clean"]
    return (f"{counts['hands']} hand(s): {counts['clean']} clean, {dirty} with problems, "
            f"{counts['violations']} violation(s), {bad_lines} bad line(s)")
