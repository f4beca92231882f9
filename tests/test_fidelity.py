"""Issue 13: verdicts that depend only on the hand judged, on 3-deck positions with level cards
of several suits (which share a rank value).

- the issue's own case: a follower holding a triple of one off-suit level card and a pair of
  another must show the triple (the chain search used to try only one card per rank value);
- a hand validated alone and after other hands gets the same verdict (memos keyed on what
  decides the answer);
- every follow the legal-play generator produces validates, and the generator and the engine
  agree on random sets of cards.
"""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay
from gamelog import FORMAT_VERSION, Hand, MatchStart
from gamelog.cards import Card
from gamelog.model import Play
from replay import get_ruleset
from replay.engine import HandReplay
from replay.legal import follow_spec, legal_leads
from tests.rulehelp import add_plays, position, rules_of, run, toks

# Three decks, diamonds trump, level 3 (issue 13).
LEAD = "LJ LJ BJ BJ 3D 3D 3D"
FOLLOWER = "3S 3S 3S 3H 3H QD QD 4D"
OTHERS = ["5C 6C 7C 8C 9C TC JC", "5H 6H 7H 8H 9H TH JH"]


def issue_case(follow: str, holding: str = FOLLOWER):
    return run([LEAD, holding, *OTHERS], [(0, LEAD), (1, follow)], decks=3, trump="D",
               level="3")


def test_a_triple_of_one_level_suit_beside_a_pair_of_another_must_be_shown():
    assert rules_of(issue_case("QD QD 3H 3H 3S 3S 4D")) == ["follow.triple-required"]
    assert rules_of(issue_case("3S 3S 3S 3H 3H QD QD")) == []


def test_the_same_with_the_suits_of_the_triple_and_the_pair_swapped():
    swapped = "3H 3H 3H 3S 3S QD QD 4D"
    assert rules_of(issue_case("QD QD 3S 3S 3H 3H 4D", swapped)) == ["follow.triple-required"]
    assert rules_of(issue_case("3H 3H 3H 3S 3S QD QD", swapped)) == []


def _verdicts(cases: list[tuple[str, str]]) -> list[list[str]]:
    return [rules_of(issue_case(follow, holding)) for follow, holding in cases]


def test_a_verdict_does_not_depend_on_the_hands_validated_before_it():
    cases = [("QD QD 3H 3H 3S 3S 4D", FOLLOWER), ("3S 3S 3S 3H 3H QD QD", FOLLOWER),
             ("QD QD 3S 3S 3H 3H 4D", "3H 3H 3H 3S 3S QD QD 4D"),
             ("3H 3H 3H 3S 3S QD QD", "3H 3H 3H 3S 3S QD QD 4D")]
    alone = []
    for case in cases:
        replay.clear_caches()
        alone.append(_verdicts([case])[0])
    for order in (cases, cases[::-1], cases[1:] + cases[:1]):
        replay.clear_caches()
        after = dict(zip(order, _verdicts(order), strict=True))
        assert [after[c] for c in cases] == alone


# -- random 3-deck positions with level cards in several suits ---------------------------------

SUITS = "SHCD"
RANKS = "23456789TJQKA"


def random_position(rng: random.Random) -> tuple[list[str], str, str, str]:
    """Holdings of four seats (seat 0 leads a trump lead, seat 1 follows), trump and level,
    drawn from three decks with the trumps (jokers, level cards of every suit, trump suit)
    over-represented."""
    trump, level = rng.choice(SUITS), rng.choice(RANKS[:-1])
    pool = [c for c in [f"{r}{s}" for r in RANKS for s in SUITS] + ["LJ", "BJ"]
            for _ in range(3)]
    trumps = [c for c in pool if c in ("LJ", "BJ") or c[0] == level or c[1] == trump]
    rng.shuffle(trumps)
    rng.shuffle(pool)
    holdings: list[list[str]] = [[] for _ in range(4)]
    counts: dict[str, int] = {}

    def give(seat: int, card: str) -> bool:
        if counts.get(card, 0) >= 3:
            return False
        counts[card] = counts.get(card, 0) + 1
        holdings[seat].append(card)
        return True

    for seat, want in ((0, 9), (1, 10)):  # trump-heavy leader and follower
        for card in trumps:
            if len(holdings[seat]) >= want:
                break
            if rng.random() < 0.5:
                give(seat, card)
    for seat in range(4):
        for card in pool:
            if len(holdings[seat]) >= 13:
                break
            if rng.random() < 0.1:
                give(seat, card)
    return [" ".join(h) for h in holdings], trump, level, ""


def state_after_lead(rng: random.Random):
    holdings, trump, level, _ = random_position(rng)
    events = position(holdings, trump=trump, level=level)
    header = MatchStart(match="t", hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor",
                        players=4, decks=3)
    rules = get_ruleset("tractor", decks=3)
    hand = Hand(match="t", number=1, events=list(events), header=header)
    state = HandReplay(rules, hand)
    for ev in events:
        state.apply(ev)
    state.start_play()
    from replay.order import TRUMP

    leads = [lead for lead in legal_leads(state, 0, max_throw_units=2)
             if lead.stands and state.order.klass[lead.cards[0]] == TRUMP]
    if not leads:
        return None
    lead = rng.choice(leads)
    state.apply(Play(match="t", hand=1, seq=2, seat=0, cards=[str(Card(c)) for c in lead.cards]))
    return state


def verdict(state: HandReplay, cards: list[int]) -> list[str]:
    trial = copy.deepcopy(state)
    before = len(trial.log.items)
    trial.apply(Play(match="t", hand=1, seq=3, seat=1, cards=[str(Card(c)) for c in cards]))
    return [v.rule for v in trial.log.items[before:]]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32))
def test_generated_follows_validate_and_generator_and_engine_agree(seed):
    rng = random.Random(seed)
    state = state_after_lead(rng)
    if state is None:
        return
    spec = follow_spec(state, 1)
    for _ in range(4):  # (b) every follow the generator produces validates
        cards = spec.sample(rng)
        assert spec.contains(cards)
        assert verdict(state, cards) == [], (cards, spec.required)
    held = [c for c in range(54) for _ in range(state.held[1][c])]
    for _ in range(12):  # (c) the engine and legal.py agree on random card sets
        cards = rng.sample(held, spec.n) if len(held) >= spec.n else held
        assert spec.contains(cards) == (verdict(state, cards) == []), (cards, spec.required)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_random_position_is_judged_the_same_alone_and_after_another(first, second):
    """(a) on random 3-deck positions: the verdicts on one position's follows do not change
    with another position validated before it."""
    def judged(seed: int) -> list[list[str]] | None:
        rng = random.Random(seed)
        state = state_after_lead(rng)
        if state is None:
            return None
        held = [c for c in range(54) for _ in range(state.held[1][c])]
        n = sum(u.size for u in state.trick.lead_units)
        return [verdict(state, rng.sample(held, n) if len(held) >= n else held)
                for _ in range(6)]

    replay.clear_caches()
    alone = judged(second)
    replay.clear_caches()
    judged(first)
    assert judged(second) == alone


def test_rulehelp_builds_positions():
    assert toks("3S 3S") == ["3S", "3S"] and add_plays([], []) == []
