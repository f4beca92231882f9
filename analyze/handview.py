"""A hand as the report's viewer needs it: compact, language-free data, encoded once.

The report embeds one JSON array of these (``<script type="application/json">``) and the
viewer (templates/viewer.js) draws each hand from it when it is opened or scrolled into view.
Cards are ids 0-53 (``gamelog.cards.Card``), hidden cards -1; ``start`` is each seat's
holding as play starts (the deal, with the kitty taken and buried); every list of cards
is in the hand's trump order; a violation carries the
index of the play it was found at (in playing order over the hand) or null; the labels of the 54 cards in
each language are embedded once per report, not per hand.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from gamelog.cards import CARD_BY_TOKEN, UNKNOWN, Card, Rank, Suit
from gamelog.model import Deal, KittyBury, KittyTake, Setup
from replay import ruleset_for
from replay.engine import HandReport

HIDDEN = -1

_RULES: dict[tuple, Any] = {}


def rules_for(header: Any, name: str | None = None) -> Any:
    """The ruleset the hand was replayed with (``name``: the one a ``--ruleset`` chose, else the
    header's), built once per distinct settings (``None`` if unknown)."""
    if header is None:
        return None
    # keyed on everything replay.ruleset_for builds the ruleset from
    key = (name or header.ruleset, header.players, header.decks,
           tuple(sorted(header.options.items())))
    if key not in _RULES:
        try:
            _RULES[key] = ruleset_for(header, name)
        except ValueError:  # RulesetError: unknown, or options it does not accept
            _RULES[key] = None
    return _RULES[key]


def order_for(report: HandReport, rules: Any) -> Any:
    """The hand's card order (trump and level), or ``None`` while either is unknown."""
    if report.trump is None or rules is None:
        return None
    level = None if report.level in (None, "NT") else Rank.parse(report.level)
    trump = None if report.trump == "NT" else Suit(report.trump)
    return rules.order(trump, level)


def _ids(tokens: list[str]) -> list[int]:
    return [HIDDEN if t == UNKNOWN else CARD_BY_TOKEN[t] for t in tokens]


def _remove(holding: list[int], cards: list[int]) -> None:
    for c in cards:
        if c in holding:
            holding.remove(c)
        elif HIDDEN in holding:
            holding.remove(HIDDEN)


def hand_data(report: HandReport, players: list[str], anchor: str) -> dict[str, Any]:
    """The viewer's data for one hand; ``players`` are the seats' display names."""
    hand = report.record
    header = hand.header if hand is not None else None
    rules = rules_for(header, report.ruleset)
    order = order_for(report, rules)
    n = header.players if header is not None else len(players)
    start: list[list[int]] = [[] for _ in range(n)]
    kitty_before = kitty_after = None
    taker = None
    for ev in (hand.events if hand is not None else ()):
        if isinstance(ev, (Deal, Setup)):
            start = [_ids(h) for h in ev.holdings]
            if ev.kitty is not None:
                kitty_before = _ids(ev.kitty)
        elif isinstance(ev, KittyTake) and 0 <= ev.seat < n:
            taker = ev.seat
            cards = _ids(ev.cards)
            if kitty_before is None:
                kitty_before = cards
            start[ev.seat] += cards
        elif isinstance(ev, KittyBury) and 0 <= ev.seat < n:
            taker = ev.seat if taker is None else taker
            kitty_after = _ids(ev.cards)
            _remove(start[ev.seat], kitty_after)
    key = order.sort_key if order is not None else int

    def arranged(cards: list[int] | None) -> list[int] | None:
        """Cards in trump order (the hand's order, when known), hidden ones last."""
        if cards is None:
            return None
        return sorted((c for c in cards if c != HIDDEN), key=key) + [c for c in cards
                                                                     if c == HIDDEN]

    tricks = []
    at_seq: dict[int, int] = {}
    at_seat: dict[tuple[int, int], int] = {}
    for t in report.tricks:
        for p in t.plays:
            at_seat.setdefault((t.number, p.seat), len(at_seq))
            at_seq[p.seq] = len(at_seq)
        tricks.append([t.number, t.leader, t.winner, t.points, int(t.throw), int(t.trumped),
                       arranged(t.failed_throw), [[p.seat, arranged(p.cards)] for p in t.plays]])
    out = report.outcome
    outcome = None
    if out is not None:
        outcome = {"dp": out.defender_points, "mult": out.kitty_multiplier,
                   "lc": list(out.level_change) if out.level_change else None,
                   "nd": out.next_dealer,
                   "st": list(out.settlement) if out.settlement else None,
                   "award": out.kitty_award,
                   "scores": list(out.scores) if out.scores else None}
    thresholds = rules.point_thresholds() if rules is not None else []
    return {
        "id": anchor, "m": report.match, "h": report.hand, "rs": report.ruleset, "n": n,
        "names": players, "decl": report.declarer, "side": sorted(report.declarer_side),
        "trump": report.trump, "level": report.level, "contract": report.contract,
        "surr": bool(report.surrendered), "out": outcome,
        "start": [arranged(h) for h in start], "kb": arranged(kitty_before),
        "ka": arranged(kitty_after), "taker": taker,
        "tricks": tricks,
        "v": [[v.rule, v.message, v.message_zh, v.required, v.trick, v.seat,
               at_seq.get(v.seq) if v.seq in at_seq else at_seat.get((v.trick, v.seat)),
               [CARD_BY_TOKEN[c] for c in v.cards if c in CARD_BY_TOKEN]]
              for v in report.violations],
        "cls": list(order.klass) if order is not None else None,
        "notes": [n.message for n in report.notices],
        "incomplete": not report.complete,
        "thr": [[p, label] for p, label in thresholds],
    }


def encode(hands: list[str]) -> str:
    """A JSON array of already encoded hands, safe inside ``<script type=application/json>``:
    ``<``, ``>`` and ``&`` are written as JSON escapes so no string can end the element."""
    return "[" + ",".join(hands) + "]"


def dumps(data: Any) -> str:
    """Data as compact JSON with ``<``, ``>`` and ``&`` escaped."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_json(body: str, names: list[str], extra: dict[str, Any] | None = None) -> str:
    """A hand's viewer JSON: its data (:func:`dumps` of :func:`hand_data` without ``names``)
    and its seats' names, kept apart until the labels are final; and ``extra`` fields (the
    decision review's ``rv``)."""
    more = "".join(f',"{key}":{dumps(value)}' for key, value in (extra or {}).items())
    return f'{body[:-1]},"names":{dumps(names)}{more}}}'


def card_labels(lang: str) -> list[list[Any]]:
    """The 54 cards' labels in ``lang`` and whether each is red: ``[[label, red], ...]``."""
    return [[Card(i).display(lang), int(Card(i).is_red)] for i in range(54)]


_SLUG_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_SLUG_MAX = 120


def page_slug(match: str, hand: int) -> str:
    """The file name (without ``.html``) and anchor of a hand's page: ``hand-<match>-<hand>``,
    where the match id keeps lower-case letters, digits and ``-`` and writes every other byte
    of its UTF-8 as ``_XX`` (hex). Distinct ids never share a slug, even on a file system that
    ignores case, and the slug reads back to the id (:func:`match_of_slug`). An id whose slug
    would pass 120 characters is cut and followed by ``~`` and 16 hex digits of its SHA-256,
    so a page name stays well within file name limits."""
    body = "".join(ch if ch in _SLUG_SAFE else "".join(f"_{b:02X}" for b in ch.encode())
                   for ch in match)
    if len(body) > _SLUG_MAX:
        digest = hashlib.sha256(match.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        cut = body[:_SLUG_MAX - 17]
        cut = cut[:cut.rfind("_")] if "_" in cut[-2:] else cut  # never half an escape
        body = f"{cut}~{digest}"
    return f"hand-{body}-{hand}"


def match_of_slug(slug: str) -> str | None:
    """The match id of a :func:`page_slug` (``None`` for a cut, hashed one)."""
    body = slug.removeprefix("hand-").rsplit("-", 1)[0]
    if "~" in body:
        return None
    return re.sub(rb"_([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  body.encode("ascii")).decode("utf-8", "surrogatepass")
