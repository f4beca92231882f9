"""The shortcuts of the replay's hot paths give what the long way gives (session 17): the
strength bound that spares valuing a play that cannot win a trick (the trick's winner and the
rollout player's follows), and a follow's suit holding rebuilt after the play."""

from __future__ import annotations

import random

import pytest

from gamelog.model import Hand
from replay import get_ruleset
from replay.engine import HandReplay
from replay.legal import _multisets, _multisets_count
from replay.order import TRUMP, CardOrder
from replay.phases.follow import _holding_before
from replay.trick import play_strength, strength_bound
from tests.test_shape_memo import _random_order_and_cards


def _may_beat(order: CardOrder, lead_class: int, cards: list[int], best: int) -> bool:
    """Whether a play's bound says it could beat the strength code ``best`` (how the trick's
    winner and the rollout player use it)."""
    return strength_bound(order, lead_class, cards) > best


KINDS = [[(1, 1)], [(1, 1), (1, 1)], [(2, 1)], [(2, 2)], [(3, 1)], [(2, 1), (1, 1)],
         [(2, 2), (2, 1)], [(4, 1)], [(3, 2)]]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_play_is_never_stronger_than_its_bound(seed: int) -> None:
    """``play_strength`` is at most (its rank, its highest card's power): the bound says
    no only when the exact strength does not beat the best so far, so skipping those plays
    never changes a trick's winner."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(4000):
        order, _ = _random_order_and_cards(rng)
        lead_class = rng.randrange(5)
        kinds = rng.choice(KINDS)
        size = sum(w * n for w, n in kinds)
        pool = [c for c in range(54) if rng.random() < 0.6 or order.klass[c] in (lead_class, TRUMP)]
        cards = [rng.choice(pool) for _ in range(size)]
        key = play_strength(order, lead_class, kinds, cards)
        code = None if key is None else key[0] * 65536 + key[1]
        top = max(order.power[c] for c in cards)
        for best in (0, top - 1, top, top + 1, 65536 + top - 1, 65536 + top, 65536 + top + 1):
            if code is not None and code > best:
                assert _may_beat(order, lead_class, cards, best), (cards, kinds, best)
                checked += 1
            if not _may_beat(order, lead_class, cards, best):
                assert code is None or code <= best
    assert checked > 1000


@pytest.mark.parametrize(("name", "options"), [("tractor", {"decks": 2}), ("four-deck", {})])
def test_a_follows_holding_before_is_what_was_held_or_played(name: str, options: dict) -> None:
    """What ``follow`` judges structure on: for each card of the suit, the copies held before
    the play or the copies played, whichever is more (a card played out of hidden ones, or not
    held at all, counts as held), rebuilt from the holding after the play."""
    rules = get_ruleset(name, **options)
    rng = random.Random(name)
    copies = rules.decks
    for _ in range(600):
        state = HandReplay(rules, Hand(match="m", number=1, events=[]))
        order, cards = _random_order_and_cards(rng)
        if not cards:
            continue
        state.order = order
        klass = order.klass[cards[0]]
        suit = [c for c in range(54) if order.klass[c] == klass]
        seat = rng.randrange(4)
        held = state.held[seat]
        for c in suit:
            held[c] = rng.randrange(copies + 1) if rng.random() < 0.5 else 0
        state.hidden[seat] = rng.randrange(3)
        before = {c: held[c] for c in suit if held[c]}
        played_cards = [rng.choice(suit) for _ in range(rng.randrange(1, 7))]
        state.remove(seat, played_cards)  # held copies first, then hidden ones, else missing
        played: dict[int, int] = {}
        for c in played_cards:
            played[c] = played.get(c, 0) + 1
        want = {c: max(before.get(c, 0), played.get(c, 0)) for c in suit
                if max(before.get(c, 0), played.get(c, 0))}
        assert _holding_before(state, seat, klass, played) == want


def test_the_count_of_multisets_is_the_number_the_walk_lists() -> None:
    """``_multisets_count`` (a count by sizes) decides
    whether the follows are listed at all: it must be the number ``_multisets`` lists."""
    rng = random.Random(5)
    for _ in range(400):
        items = [(c, rng.randrange(0, 5)) for c in sorted(rng.sample(range(54), rng.randrange(8)))]
        for n in range(6):
            assert _multisets_count(items, n) == len(_multisets(items, n)), (items, n)


def test_a_deals_draws_are_random_randoms_own() -> None:
    """``replay.deals`` draws without ``random.Random``'s Python frames (session 18): the same
    numbers as ``_randbelow``, the same swaps as ``shuffle``, and the bucketed order of the
    cards by how many seats may take them is the stable sort's."""
    from replay.deals import _below, _by_takers, _shuffle

    for seed in range(20):
        mine, theirs = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 8, 13, 54, 107, 1 << 20):
            assert [_below(mine, n) for _ in range(30)] == \
                [theirs._randbelow(n) for _ in range(30)]  # type: ignore[attr-defined]
        pool, other = list(range(60)) * 2, list(range(60)) * 2
        _shuffle(mine, pool, True)
        theirs.shuffle(other)
        assert pool == other
        takers = [mine.randrange(4) for _ in range(5)]
        klass = tuple(mine.randrange(5) for _ in range(54))
        cards = [mine.randrange(54) for _ in range(40)]
        assert _by_takers(cards, takers, klass) == \
            sorted(cards, key=lambda c: takers[klass[c]])


class _OwnRandom(random.Random):
    """A ``random.Random`` subclass: ``determinize`` then calls its methods, not its own
    draws (a subclass may draw differently)."""


def test_a_deal_is_the_same_through_random_randoms_methods() -> None:
    """The fast draws deal exactly what ``rng.shuffle`` and ``rng.choice`` deal (the subclass
    takes the methods' path), for every decision of a two-deck hand."""
    from pathlib import Path

    import gamelog
    from gamelog.model import Play
    from replay.deals import determinize
    from replay.search import to_play

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-2deck.jsonl"
    hand = next(iter(gamelog.read_hands(path)))
    state = HandReplay(get_ruleset("tractor", decks=2), hand)
    checked = 0
    for ev in hand.events:
        if isinstance(ev, Play) and to_play(state) == ev.seat and not state.log.items:
            for k in (1, 2):
                fast = determinize(state, ev.seat, random.Random(k))
                slow = determinize(state, ev.seat, _OwnRandom(k))
                assert (fast.held, fast.kitty) == (slow.held, slow.kitty)
                checked += 1
        state.apply(ev)
    assert checked > 100


def _plain_straight(held: list[int], eligible: tuple[bool, ...]) -> list[int] | None:
    """The first eight eligible cards held in a row of one suit, by a plain scan of every
    window (what 打万分's ``holds_pattern`` must find)."""
    for suit in range(4):
        cards = [suit * 13 + r for r in range(13)]
        for start in range(6):
            window = cards[start:start + 8]
            if all(held[c] and eligible[c] for c in window):
                return window
    return None


def test_wanfens_pattern_shortcuts_find_what_a_plain_scan_finds() -> None:
    """打万分's patterns are asked on every lead of a rollout (session 18 made them cheap): a
    straight found only through the 7, 8 and 9 it must hold, 发财 and 四季 by rank, and
    ``special_lead`` on card indices, against plain scans on random holdings and plays."""
    from gamelog.cards import Card
    from replay.rulesets import wanfen

    rules = get_ruleset("wanfen")
    rng = random.Random(18)
    found = 0
    for _ in range(3000):
        order = wanfen.wanfen_order(rng.choice([None, *wanfen.SUITS]),
                                    rng.choice(list(wanfen.Rank)))
        eligible = wanfen._straight_cards(order.trump, order.level)
        held = [0] * 54
        for _ in range(rng.choice([4, 12, 25])):
            held[rng.randrange(54)] += 1
        suit, start = rng.randrange(4), rng.randrange(6)
        for r in range(start, start + rng.choice([7, 8, 9])):
            held[suit * 13 + r] += 1
        straight = rules.holds_pattern(wanfen.STRAIGHT, held, order, 0)
        assert straight == _plain_straight(held, eligible)
        found += straight is not None
        rank = rng.randrange(13)
        for s in range(4):
            held[s * 13 + rank] += rng.randrange(3)
        ranks = [[s * 13 + r for s in range(4)] for r in range(13)]
        fortune = next((r for r in ranks if sum(held[c] for c in r) >= 8), None)
        seasons = next((r for r in ranks if all(held[c] for c in r)), None)
        assert (rules.holds_pattern(wanfen.FORTUNE, held, order, 0) is None) == (fortune is None)
        assert rules.holds_pattern(wanfen.SEASONS, held, order, 0) == seasons
        play = rng.choice([list(range(suit * 13 + start, suit * 13 + start + 8)),
                           [s * 13 + rank for s in range(4)], [rank] * 4 + [13 + rank] * 4,
                           [52, 52, 53, 53], [rng.randrange(54) for _ in range(8)]])
        as_cards = [Card(c) for c in play]
        if sorted(play) == [52, 52, 53, 53]:
            expected: str | None = wanfen.JOKERS
        elif any(c.is_joker for c in as_cards):
            expected = None
        elif len({c.rank for c in as_cards}) == 1:
            expected = wanfen.FORTUNE if len(play) == 8 else (
                wanfen.SEASONS if len({c.suit for c in as_cards}) == 4 else None)
        else:
            values = sorted(int(c.rank) for c in as_cards)  # type: ignore[arg-type]
            expected = wanfen.STRAIGHT if (
                len({c.suit for c in as_cards}) == 1
                and values == list(range(values[0], values[0] + 8))
                and all(eligible[c] for c in play)) else None
        assert rules.special_lead(play, order) == expected, play
    assert found > 500
