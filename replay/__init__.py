"""replay: the rule engine. Replays recorded hands against a ruleset and reports violations.

``validate(paths)`` streams a whole file (or directory) and yields a :class:`HandReport` per
hand; ``replay_hand(hand, ruleset)`` checks one hand; ``steps(hand, ruleset)`` yields the state
after every event. This layer knows rules but no reports.
"""

from __future__ import annotations

from replay import _native

NATIVE = _native.select()
"""Whether the mypyc-compiled engine runs (see setup.py); the sources give identical results."""

import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from gamelog import files
from gamelog.errors import RecordError
from gamelog.gcpause import gc_paused
from gamelog.model import Hand, KittyTake, MatchStart, Result, TrumpChosen
from replay.engine import (
    HandReplay,
    HandReport,
    MatchContext,
    Trick,
    advance_levels,
    replay_hand,
    steps,
)
from replay.rulesets import Ruleset, RulesetError, all_rulesets, get_ruleset
from replay.violations import Notice, Violation


class RulesetProblem(RecordError):
    """A match whose header names an unknown ruleset, or options it does not accept: none of
    its hands can be replayed. Reported once per match by the command line."""


def ruleset_for(header: MatchStart | None, name: str | None = None,
                overrides: dict[str, Any] | None = None) -> Ruleset:
    """The ruleset a match header names, with its options (``name`` / ``overrides`` win)."""
    options: dict[str, Any] = {}
    if header is not None:
        options.update(header.options)
        options["players"] = header.players
        options["decks"] = header.decks
    options.update(overrides or {})
    chosen = name or (header.ruleset if header is not None else None)
    if chosen is None:
        raise RulesetError("the match has no header naming its ruleset; give --ruleset")
    return get_ruleset(chosen, **options)


_OPEN_MATCHES = 4096


def validate_hands(hands: Iterable[Hand], *, ruleset: str | None = None,
                   options: dict[str, Any] | None = None, strict: bool = False,
                   contexts: OrderedDict[tuple[str | None, str], MatchContext] | None = None
                   ) -> Iterator[HandReport]:
    """Replay hands in order, carrying levels and the next dealer from hand to hand.

    ``contexts`` (by ``(source, match)``) lets a caller start a match from a known context
    (a part of a match validated in another process) and read each match's context after."""
    # Each match's context, the most recently used last; bounded, so that memory stays flat
    # however many matches a file holds. A match first met after its first hand (a partial
    # file, or hands more than that many matches apart) has no known previous result: its
    # dealer and levels are then not checked, rather than checked against the match start.
    if contexts is None:
        contexts = OrderedDict()
    configured: tuple[MatchStart | None, Ruleset] | None = None  # the last header's ruleset
    for hand in hands:
        key = (hand.source, hand.match)  # the same match in two files is two replays
        ctx = contexts.get(key)
        if ctx is not None:
            contexts.move_to_end(key)
        else:
            if len(contexts) >= _OPEN_MATCHES:
                contexts.popitem(last=False)
            levels = list(hand.header.levels) if hand.header and hand.header.levels else None
            ctx = contexts[key] = MatchContext(levels=levels if hand.number <= 1 else None,
                                               scores=[0, 0] if hand.number <= 1 else None)
        try:
            if configured is not None and configured[0] is hand.header:
                rules = configured[1]
            else:
                rules = ruleset_for(hand.header, ruleset, options)
                configured = (hand.header, rules)
        except RulesetError as exc:
            named = ruleset or (hand.header.ruleset if hand.header else "?")
            problem = RulesetProblem(f"match {hand.match!r} cannot be replayed: {exc}",
                                     source=hand.source, field="$.ruleset")
            report = HandReport(hand.match, hand.number, named,
                                record_issues=[*hand.issues, problem], record=hand)
            yield report
            continue
        with gc_paused():  # a hand makes thousands of short-lived objects, no lasting cycles
            report = replay_hand(hand, rules, strict=strict, context=ctx)
        _carry(ctx, hand, report, rules.levels_past_ace)
        yield report


def _carry(ctx: MatchContext, hand: Hand, report: HandReport, past_ace: bool = False) -> None:
    """What the next hand is checked against: the outcome the rules compute, and also what the
    hand's own result records when the two differ (that mismatch is reported on this hand
    already), so that one broken hand does not condemn the next. With neither, the next hand's
    dealer and levels are not checked."""
    if report.round_length and report.declarer is not None:
        accepted = [report.declarer]
        if report.violations:
            seen = next((e.seat for e in hand.events if isinstance(e, (KittyTake, TrumpChosen))
                         and e.seat is not None), None)
            if seen is not None and seen != report.declarer:
                accepted.append(seen)
        ctx.round_declarers.append(accepted)
    start = hand.start
    levels = list(start.levels) if start is not None and start.levels else ctx.levels
    options: list[tuple[list[int] | None, int | None]] = []
    if report.outcome is not None:
        options.append((report.outcome.level_change, report.outcome.next_dealer))
    recorded = next((e for e in reversed(hand.events) if isinstance(e, Result)), None)
    ctx.scores = _running_scores(ctx.scores, report, recorded)
    if recorded is not None and (report.violations or report.outcome is None):
        options.append((recorded.level_change, recorded.next_dealer))
    ctx.levels = None
    ctx.next_dealer = None
    ctx.accepted_levels = [advance_levels(levels, change, past_ace) for change, _ in options
                           if levels is not None and change]
    ctx.accepted_dealers = [dealer for _, dealer in options if dealer is not None]
    if ctx.accepted_levels:
        ctx.levels = ctx.accepted_levels[0]
    if ctx.accepted_dealers:
        ctx.next_dealer = ctx.accepted_dealers[0]


def clear_caches() -> None:
    """Empty the engine's memos (answers, unit values, decompositions, declarations, card
    orders, a ruleset's tables). A verdict never depends on them (they are keyed on everything that decides an
    answer); this exists so that tests can show it, by validating a hand alone and after
    others."""
    from replay import legal, state, units
    from replay.phases import deal, follow, tricks

    follow.ANSWERS.clear()
    follow._ANSWERS_TO.clear()
    deal.DECLARATIONS.clear()
    units._DECOMPOSED.clear()
    units._VALUES.clear()
    legal._UNITS_IN.clear()
    legal._ACHIEVED.clear()
    legal._REQUIRED.clear()
    tricks._ORDERS.clear()
    state._TABLES.clear()


def _running_scores(before: list[int] | None, report: HandReport, recorded: Result | None
                    ) -> list[int] | None:
    """Each team's running score after a hand (打万分): the rules' own when the hand broke no
    rule, else the recorded settlement added to the scores before (so that one broken hand
    does not condemn the next), else the rules' own; ``None`` when unknown."""
    computed = report.outcome.scores if report.outcome is not None else None
    if computed is not None and not report.violations:
        return computed
    if before is not None and recorded is not None and recorded.settlement is not None \
            and len(recorded.settlement) >= 2:
        return [before[0] + recorded.settlement[0], before[1] + recorded.settlement[1]]
    return computed


def validate(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
             ruleset: str | None = None, options: dict[str, Any] | None = None,
             strict: bool = False, issues: list[RecordError] | None = None
             ) -> Iterator[HandReport]:
    """Validate every hand of files or directories (JSONL or Parquet), streaming."""
    hands = files.read_hands(paths, strict=False, issues=issues)
    yield from validate_hands(hands, ruleset=ruleset, options=options, strict=strict)


__all__ = [
    "HandReplay", "HandReport", "MatchContext", "Notice", "Ruleset", "RulesetError",
    "RulesetProblem", "Trick", "Violation", "all_rulesets", "clear_caches", "get_ruleset",
    "replay_hand", "ruleset_for", "steps", "validate", "validate_hands",
]
