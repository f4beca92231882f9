"""The engine's memos keyed on a holding's shape (copies, and how the powers touch) give the
answers a fresh search gives: holdings alike but for where they sit in the suit share an entry,
and nothing else does (replay.units.shape_codes)."""

from __future__ import annotations

import random

import pytest

from gamelog.cards import Rank, Suit
from gamelog.model import Hand
from replay import get_ruleset
from replay.engine import HandReplay
from replay.order import CardOrder, standard_order
from replay.phases.follow import answer_ranks, compute_answers
from replay.units import _best_value, best_value, decompose, shape_codes

KINDS = [[(2, 1)], [(2, 2)], [(3, 1)], [(2, 3)], [(2, 1), (1, 1)], [(2, 2), (2, 1)], [(3, 2)],
         [(4, 1)], [(2, 1), (2, 1)], [(3, 1), (2, 1)]]
TRUMPS = [Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, None]
LEVELS = [Rank.TWO, Rank.SEVEN, Rank.TEN, Rank.ACE]


def _holding(rng: random.Random, cards: list[int], most: int) -> dict[int, int]:
    avail: dict[int, int] = {}
    for _ in range(rng.randrange(1, 14)):
        c = rng.choice(cards)
        avail[c] = min(most, avail.get(c, 0) + rng.randrange(1, 3))
    return avail


def _random_order_and_cards(rng: random.Random) -> tuple[CardOrder, list[int]]:
    """A random trump and level's card order, and the cards each kept when a fresh draw of a
    suit class names its own (a random mix, mostly of one class or none)."""
    order = standard_order(rng.choice(TRUMPS), rng.choice(LEVELS))
    return order, [c for c in range(54) if order.klass[c] == rng.randrange(5)]


def test_shape_codes_keep_touching_powers_and_close_wider_gaps() -> None:
    power = tuple(range(54))
    a, b = [-9], [-9]
    shape_codes({3: 2, 4: 2, 9: 3}, power, 1, a)
    shape_codes({20: 2, 21: 2, 23: 3}, power, 1, b)  # the same shape higher up
    assert a == b
    c = [-9]
    shape_codes({20: 2, 22: 2, 23: 3}, power, 1, c)  # the first two no longer touch
    assert c != a
    d = [-9]
    ranks: dict[int, int] = {}
    shape_codes({3: 2, 4: 1, 9: 3}, power, 2, d, ranks)  # cards with fewer copies left out
    assert d == [-9, 2 * 64 + 2, 4 * 64 + 3]
    assert ranks == {3: 2, 9: 4}


@pytest.mark.parametrize("seed", [1, 2])
def test_best_value_memo_matches_a_fresh_search(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for _ in range(3000):
        order, cards = _random_order_and_cards(rng)
        if not cards:
            continue
        avail = _holding(rng, cards, 4)
        kinds = rng.choice(KINDS)
        assert best_value(avail, order, kinds) == _best_value(avail, order, kinds), \
            (avail, kinds, order.trump, order.level)
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize(("name", "options"), [("tractor", {"decks": 2}),
                                               ("tractor", {"decks": 3}),
                                               ("four-deck", {})])
def test_answer_ranks_memo_matches_a_fresh_search(name: str, options: dict) -> None:
    rules = get_ruleset(name, **options)
    state = HandReplay(rules, Hand(match="m", number=1, events=[]))
    rng = random.Random(name + str(options))
    checked = 0
    for _ in range(1500):
        order, cards = _random_order_and_cards(rng)
        state.order = order
        if not cards:
            continue
        most = 4 if name == "four-deck" else options["decks"]
        lead = [c for c, n in _holding(rng, cards, most).items() for _ in range(n)]
        units = decompose(lead, order)
        if all(u.width == 1 for u in units):
            continue
        avail = _holding(rng, cards, most)
        budget = sum(u.size for u in units) - rng.randrange(2)
        fresh = tuple(got for _, got, _ in compute_answers(state, avail, units, budget))
        assert answer_ranks(state, avail, units, budget) == fresh, (avail, lead, budget)
        checked += 1
    assert checked > 500


def test_a_ruleset_unpickled_elsewhere_takes_that_process_memo_key() -> None:
    """Memo keys are numbered per process: a ruleset sent to a worker must not arrive with a
    number the worker gave another ruleset."""
    import base64
    import pickle
    import subprocess
    import sys

    sent = base64.b64encode(pickle.dumps(get_ruleset("tractor", decks=3))).decode()
    worker = (  # a fresh process that met another ruleset first
        "import base64, pickle, sys\n"
        "from replay import get_ruleset\n"
        "other = get_ruleset('wanfen')\n"
        "arrived = pickle.loads(base64.b64decode(sys.argv[1]))\n"
        "again = get_ruleset('tractor', decks=3)\n"
        "print(other.memo_key, arrived.memo_key, again.memo_key)\n")
    out = subprocess.run([sys.executable, "-c", worker, sent], capture_output=True, text=True,
                         check=True).stdout.split()
    other, arrived, again = map(int, out)
    assert arrived != other and arrived == again


@pytest.mark.parametrize(("name", "options"), [("tractor", {"decks": 2}),
                                               ("tractor", {"decks": 3}),
                                               ("four-deck", {})])
def test_the_legal_follows_memo_matches_a_fresh_search(name: str, options: dict) -> None:
    """replay.legal memoises the answers a follow owes and whether a suit holding shows them
    on the holding's shape, and builds the suit parts of the follows from the placements of
    the answers owed: the required answers, each holding's verdict, the suit parts and the
    legal follows are those its own search finds afresh, holding by holding."""
    from replay.legal import (
        _achieving,
        _find_required,
        _multisets,
        _multisets_count,
        _search,
        follow_spec,
    )
    from replay.trick import Trick, TrickPlay
    from replay.units import counts_of

    rules = get_ruleset(name, **options)
    state = HandReplay(rules, Hand(match="m", number=1, events=[]))
    rng = random.Random("follows" + name + str(options))
    most = 4 if name == "four-deck" else options["decks"]
    checked = built = 0
    for _ in range(800):
        order = standard_order(rng.choice(TRUMPS), rng.choice(LEVELS))
        state.order = order
        klass = rng.randrange(5)
        cards = [c for c in range(54) if order.klass[c] == klass]
        if not cards:  # no-trump: no trump suit cards but the jokers and levels
            continue
        lead = [c for c, n in _holding(rng, cards, most).items() for _ in range(n)]
        units = decompose(lead, order)
        if all(u.width == 1 for u in units):
            continue
        trick = Trick(1, 0)
        trick.plays = [TrickPlay(0, lead, 1)]
        trick.lead_units, trick.lead_class, trick.lead_size = units, klass, len(lead)
        trick.singles_only = False
        state.trick = trick
        held = [0] * 54
        for c, n in _holding(rng, cards, most).items():
            held[c] = n
        for c in rng.sample(range(54), 6):
            held[c] = min(most, held[c] + 1)
        state.held[1] = held
        spec = follow_spec(state, 1)
        assert spec.memo
        assert spec.required == _find_required(spec.suit, order, spec.units, spec.answers,
                                               spec.m), (spec.suit, lead)
        suit = [c for c, n in spec.suit.items() for _ in range(n)]
        for _ in range(10):
            part = counts_of(rng.sample(suit, spec.m))
            assert spec._achieves(part, spec.m) == _search(
                part, order, spec.units, spec.answers, spec.required, 0, spec.m), (part, lead)
        items = sorted(spec.suit.items())
        if _multisets_count(items, spec.m) <= 3000:  # built from placements: the same list
            assert _achieving(items, spec.m, order, spec.units, spec.answers, spec.required,
                              -1) == [s for s in _multisets(items, spec.m)
                                      if spec._achieves(counts_of(s), spec.m)], (items, lead)
            built += 1
        memoised = spec.follows(limit=200)
        spec.memo = []
        assert memoised == spec.follows(limit=200)
        checked += 1
    assert checked > 300 and built > 200


@pytest.mark.parametrize("seed", [3, 4])
def test_beats_unit_finds_the_unit_the_chain_walk_finds(seed: int) -> None:
    """beats_unit answers a single, pair, triple or quad without walking the chains: the same
    unit the walk finds first (the highest, the first of equal powers: the off-suit level
    cards), or none."""
    from replay.units import beats_unit, find_chains

    rng = random.Random(seed)
    checked = 0
    for _ in range(3000):
        order, cards = _random_order_and_cards(rng)
        if not cards:
            continue
        lead = [c for c, n in _holding(rng, cards, 4).items() for _ in range(n)]
        avail = _holding(rng, cards, 4)
        for unit in decompose(lead, order):
            first = next(find_chains(avail, order, unit.width, unit.length, descending=True),
                         None)
            want = first if first is not None and first.low > unit.low else None
            assert beats_unit(avail, order, unit) == want, (avail, unit.kind, unit.low)
            checked += unit.width > 1
    assert checked > 1000
