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


# -- ruling 33a: Titanics of three or more triples ----------------------------------------------

def test_a_follower_owes_three_pairs_against_a_titanic_of_three_as_against_a_tractor():
    others = ["5C 6C 7C 8C 9C TC JC QC KC", "5D 6D 7D 8D 9D TD JD QD KD"]
    holding = "4H 4H 9H 9H JH JH 3H 8H KH QH"
    cases = [  # (lead, a follow with three pairs, a follow with only two)
        ("5H 5H 6H 6H 7H 7H", "4H 4H 9H 9H JH JH", "4H 4H 9H 9H JH 3H"),
        ("5H 5H 5H 6H 6H 6H 7H 7H 7H", "4H 4H 9H 9H JH JH 3H 8H KH",
         "4H 4H 9H 9H JH 3H 8H KH QH"),
    ]
    for lead, good, bad in cases:
        assert rules_of(run([lead, holding, *others], [(0, lead), (1, good)], decks=3)) == []
        found = rules_of(run([lead, holding, *others], [(0, lead), (1, bad)], decks=3))
        assert len(found) == 1 and found[0].endswith("-required"), (lead, found)


def test_the_titanic_list_for_two_triples_is_the_seeds():
    from replay.rulesets.tractor import TITANIC_ANSWERS, titanic_answers

    assert titanic_answers(2) == TITANIC_ANSWERS
    three = titanic_answers(3)
    assert three[:3] == [((3, 3),), ((3, 1),) * 3, ((2, 3),)]
    assert three.index(((2, 1),) * 3) < three.index(((2, 1),) * 2) < three.index(((2, 1),))
    assert three.index(((3, 1), (2, 1), (2, 1))) < three.index(((2, 2), (2, 1)))


# -- ruling 33b: tied failing units of a throw -------------------------------------------------

def test_either_of_two_equally_low_failing_units_is_the_forced_play():
    holdings = ["2H 2D 5C 6C", "2S 3C 4C 7C", "8C 9C TC JC", "QC KC AC 3D"]
    for forced in ("2D", "2H"):
        report = run(holdings, [(0, "fail:2H 2D"), (0, forced)], trump="S", level="2")
        assert rules_of(report) == [], (forced, rules_of(report))
    report = run(holdings, [(0, "fail:2H 2D"), (0, "5C")], trump="S", level="2")
    assert "throw.wrong-forced-play" in rules_of(report)


# -- ruling 33c: the first hand's dealer after overrides ----------------------------------------

def test_the_seat_whose_declaration_stands_deals_the_first_hand_and_takes_the_kitty():
    from gamelog import Deal, Declare, HandStart, KittyTake

    def first_hand(taker: int):
        deal = [["2S", "2S", "2H", "BJ", "BJ"], ["2D", "2D", "LJ", "LJ", "3C"],
                ["2C", "2C", "2C", "4C", "5C"], ["3D", "4D", "5D", "6D", "7D"]]
        events = [HandStart(match="d", hand=1, seq=0, level="2", first_draw=0),
                  Deal(match="d", hand=1, seq=1, holdings=deal),
                  Declare(match="d", hand=1, seq=2, seat=0, cards=["2S"]),
                  Declare(match="d", hand=1, seq=3, seat=1, cards=["2D", "2D"]),
                  KittyTake(match="d", hand=1, seq=4, seat=taker, cards=["?"] * 8)]
        header = MatchStart(match="d", hand=0, seq=0, version=FORMAT_VERSION,
                            ruleset="tractor", players=4, decks=2)
        report = replay.replay_hand(Hand(match="d", number=1, events=events, header=header),
                                    get_ruleset("tractor", decks=2))
        return report, [v.rule for v in report.violations if not v.rule.startswith("deal.")]

    report, found = first_hand(1)
    assert report.dealer == 1 and report.declarer == 1 and found == []
    report, found = first_hand(0)
    assert found == ["kitty.wrong-seat"]


# -- the rule API: set-up positions ------------------------------------------------------------

def test_a_bomb_is_recognised_in_a_set_up_position_as_in_a_deal():
    from replay.api import Position

    eight = "6S 6S 6H 6H 6C 6C 6D 6D"
    p = Position.of([eight + " 2S", "4C 5C 7C 8C 9C TC JC QC KC", "4D 5D 7D 8D 9D TD JD QD KD"],
                    ruleset="biaofen", trump="H", declarer=0, contract=60)
    state = p.replay()
    assert state.bombs == (0,) and state.contract == 60


def test_the_json_output_names_each_plays_role_and_the_forced_cards():
    from replay.report import hand_dict

    holdings = ["2H 2D 5C 6C", "2S 3C 4C 7C", "8C 9C TC JC", "QC KC AC 3D"]
    report = run(holdings, [(0, "fail:2H 2D"), (0, "2D"), (1, "2S"), (2, "8C"), (3, "3D")],
                 trump="S", level="2")
    trick = hand_dict(report)["tricks"][0]
    assert sorted(map(tuple, trick["forced"])) == [("2D",), ("2H",)]
    assert [p["role"] for p in trick["plays"]] == ["lead", "follow", "discard", "discard"]
