"""Write the annotated example hands in samples/ (one or more per seed ruleset).

    python samples/make_examples.py            # rewrites samples/examples/*.jsonl and *.parquet

Until the simulator exists these examples are built here with a small, deliberately simple
player: it leads singles and pairs only (and one failed throw in the tractor example), follows
suit and pairs as the seeds require, trumps singles when void and discards its lowest cards
otherwise. That keeps every play legal under all four rule texts with a few lines of logic.
Each event carries a ``note`` saying what it shows, so the files double as a tutorial of the
format. The card order used to decide tricks is written out per ruleset below, with the seed
text it comes from.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gamelog import files  # noqa: E402
from gamelog.cards import BIG_JOKER, LITTLE_JOKER, Card, Rank, Suit, full_deck  # noqa: E402
from gamelog.model import (  # noqa: E402
    FORMAT_VERSION,
    Bid,
    Blocker,
    Deal,
    Declare,
    Event,
    HandStart,
    KittyBury,
    KittyTake,
    MatchStart,
    Pass,
    Play,
    Result,
    SeatInfo,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)

RANK_TOKEN = {r: str(r) for r in Rank}


@dataclass
class Rules:
    """Just enough of a ruleset to play singles and pairs legally."""

    name: str
    players: int
    decks: int
    kitty: int
    level: Rank
    trump: Suit | None  # None = no-trump
    power: Callable[[Card], int]  # higher wins; trumps all above 100
    points: Callable[[Card], int] = lambda c: c.points


def tractor_power(level: Rank, trump: Suit | None) -> Callable[[Card], int]:
    """Seed 001: 「大王，小王，，主花色级牌，其它花色级牌」, then the trump suit A..2, then off-suit."""

    def power(c: Card) -> int:
        if c == BIG_JOKER:
            return 200
        if c == LITTLE_JOKER:
            return 199
        if c.rank == level:
            return 198 if c.suit == trump else 197  # other level cards tie (ruling 4)
        return (100 if c.suit == trump else 0) + int(c.rank)

    return power


def biaofen_power(trump: Suit) -> Callable[[Card], int]:
    """Seed 003: 「大王、小王、正2、副2、A、K…3」; 2s and jokers are permanent trumps."""
    return tractor_power(Rank.TWO, trump)


def wanfen_power(level: Rank, trump: Suit | None) -> Callable[[Card], int]:
    """Seed 000: 「书记>王牌>军长> 主级牌>副级牌 >救星>主花色牌 > 副牌」 (rulings 9-11)."""
    secretary = Rank.THREE if level == Rank.TWO else Rank.TWO

    def power(c: Card) -> int:
        if trump is not None and c.suit == trump and c.rank == secretary:
            return 210  # 书记
        if c == BIG_JOKER:
            return 200
        if c == LITTLE_JOKER:
            return 199
        if c == Card.of(Rank.ACE, Suit.SPADES):
            return 198  # 军长
        if c.rank == level:
            return 197 if c.suit == trump else 196
        if c == Card.of(Rank.ACE, Suit.HEARTS):
            return 195  # 救星
        return (100 if c.suit == trump else 0) + int(c.rank)

    return power


def wanfen_points(c: Card) -> int:
    """Seed 000: 5, 10, K and 救星 (♥A, 10 each)."""
    return 10 if c == Card.of(Rank.ACE, Suit.HEARTS) else c.points


@dataclass
class Table:
    rules: Rules
    match: str
    number: int
    hands: list[list[Card]]
    events: list[Event] = field(default_factory=list)

    def add(self, kind: type[Event], note: str | None = None, **kw: object) -> None:
        self.events.append(kind(match=self.match, hand=self.number, seq=len(self.events),
                                note=note, **kw))

    def suit_of(self, c: Card) -> str:
        """Trump, or the printed suit (ruling 5: trumps belong to no printed suit)."""
        return "T" if self.rules.power(c) >= 100 else c.suit.value  # type: ignore[union-attr]

    def of_suit(self, seat: int, suit: str) -> list[Card]:
        return sorted((c for c in self.hands[seat] if self.suit_of(c) == suit),
                      key=self.rules.power)

    def pairs(self, cards: list[Card]) -> list[Card]:
        """Cards of which the holder has at least two copies, lowest first."""
        return sorted({c for c in cards if cards.count(c) >= 2}, key=self.rules.power)

    def take(self, seat: int, cards: list[Card]) -> None:
        for c in cards:
            self.hands[seat].remove(c)


def lowest(table: Table, cards: list[Card], n: int) -> list[Card]:
    return sorted(cards, key=lambda c: (table.rules.power(c), c.points))[:n]


def choose_lead(table: Table, seat: int, rng: random.Random) -> list[Card]:
    hand = table.hands[seat]
    pairs = table.pairs(hand)
    off_pairs = [c for c in pairs if table.suit_of(c) != "T"]
    if off_pairs and rng.random() < 0.5:
        top = off_pairs[-1]
        return [top, top]
    best = max(hand, key=lambda c: (table.suit_of(c) != "T", table.rules.power(c)))
    return [best]


def choose_follow(table: Table, seat: int, lead: list[Card], winning: list[Card],
                  ) -> list[Card]:
    suit = table.suit_of(lead[0])
    mine = table.of_suit(seat, suit)
    n = len(lead)
    if n == 2:  # a pair led: a pair of the suit if held (seed 001 「如果首家出牌中包含对」)
        pairs = table.pairs(mine)
        if pairs:
            return [pairs[0], pairs[0]]
        if len(mine) >= 2:
            return mine[:2]
        rest = [c for c in table.hands[seat] if c not in mine]
        return mine + lowest(table, rest, n - len(mine))
    if mine:  # a single led: follow suit, win with the top card if it beats the trick
        top = mine[-1]
        if table.rules.power(top) > table.rules.power(winning[0]) and \
                table.suit_of(winning[0]) == suit:
            return [top]
        return [mine[0]]
    trumps = table.of_suit(seat, "T")
    if trumps and table.suit_of(winning[0]) != "T":
        return [trumps[0]]  # 毙: trump a single with the lowest trump
    return lowest(table, table.hands[seat], 1)


def beats(table: Table, play: list[Card], best: list[Card], lead_suit: str) -> bool:
    """Whether ``play`` beats the current best play (singles and pairs)."""
    p = table.rules.power
    if len(play) == 2 and play[0] != play[1]:
        return False
    s = table.suit_of(play[0])
    if any(table.suit_of(c) != s for c in play):
        return False
    if s != lead_suit and s != "T":
        return False
    best_s = table.suit_of(best[0])
    if s == "T" and best_s != "T":
        return True
    return s == best_s and p(play[0]) > p(best[0])


def play_hand(table: Table, leader: int, rng: random.Random, declarer_team: set[int],
              throw_at: int | None = None) -> tuple[int, int, list[Card]]:
    """Play every trick; returns (defender points, last winner, last winning cards)."""
    players = table.rules.players
    defender_points = 0
    trick_no = 0
    last_cards: list[Card] = []
    while table.hands[leader]:
        trick_no += 1
        lead = choose_lead(table, leader, rng)
        if throw_at is not None and trick_no >= throw_at:
            thrown = try_throw(table, leader)
            if thrown:
                lead, throw_at = thrown, None
        table.take(leader, lead)
        table.add(Play, seat=leader, cards=[str(c) for c in lead])
        best, winner = lead, leader
        played = list(lead)
        lead_suit = table.suit_of(lead[0])
        for k in range(1, players):
            seat = (leader + k) % players
            cards = choose_follow(table, seat, lead, best)
            table.take(seat, cards)
            table.add(Play, seat=seat, cards=[str(c) for c in cards])
            played += cards
            if beats(table, cards, best, lead_suit):
                best, winner = cards, seat
        pts = sum(table.rules.points(c) for c in played)
        if winner not in declarer_team:
            defender_points += pts
        table.add(TrickEnd, trick=trick_no, winner=winner, points=pts)
        leader, last_cards = winner, best
    return defender_points, leader, last_cards


def try_throw(table: Table, seat: int) -> list[Card] | None:
    """A throw of the two highest singles of an off-suit that fails on its lower card."""
    p = table.rules.power
    for suit in "SHCD":
        mine = table.of_suit(seat, suit)
        if len(mine) < 2 or mine[-1] == mine[-2]:
            continue
        hi, lo = mine[-1], mine[-2]
        blockers = []
        hi_beaten = False
        for other in range(table.rules.players):
            if other == seat:
                continue
            theirs = table.of_suit(other, suit)
            hi_beaten |= any(p(c) > p(hi) for c in theirs)
            over = [c for c in theirs if p(c) > p(lo)]
            if over:
                blockers.append((other, max(over, key=p)))
        if blockers and not hi_beaten:
            table.add(ThrowFail, seat=seat, cards=[str(hi), str(lo)],
                      blockers=[Blocker(seat=s, cards=[str(c)]) for s, c in blockers],
                      note=f"a throw (甩牌) of {hi.symbol} and {lo.symbol} fails: another seat "
                           f"holds a higher card than {lo.symbol}, so the lowest failing unit, "
                           f"{lo.symbol}, is forced")
            return [lo]
    return None


def deal(rules: Rules, seed: int, first_draw: int) -> tuple[list[list[Card]], list[Card]]:
    deck = full_deck(rules.decks)
    random.Random(seed).shuffle(deck)
    size = (len(deck) - rules.kitty) // rules.players
    hands: list[list[Card]] = [[] for _ in range(rules.players)]
    for i, c in enumerate(deck[: size * rules.players]):
        hands[(first_draw + i) % rules.players].append(c)
    return hands, deck[size * rules.players:]


def first_level_card(hands: list[list[Card]], first_draw: int, level: Rank, players: int,
                     ) -> tuple[int, Card, int]:
    """The first level card to be drawn: (seat, card, cards dealt in all at that moment)."""
    longest = max(len(h) for h in hands)
    drawn = 0
    for i in range(longest):
        for k in range(players):
            seat = (first_draw + k) % players
            drawn += 1
            if hands[seat][i].rank == level:
                return seat, hands[seat][i], drawn
    raise ValueError("nobody holds a level card")


def header(match: str, ruleset: str, players: int, decks: int, note: str,
           levels: list[str] | None = None, **options: object) -> MatchStart:
    names = ["Ann", "Bo", "Chen", "Dee"]
    return MatchStart(
        match=match, hand=0, seq=0, version=FORMAT_VERSION, ruleset=ruleset,
        players=players, decks=decks, options=dict(options),  # type: ignore[arg-type]
        seats=[SeatInfo(seat=i, player=f"p{i + 1}", name=names[i],
                        team=(i % 2 if players == 4 and ruleset != "biaofen" else None))
               for i in range(players)],
        levels=levels, source="samples/make_examples.py", note=note,
        tags={"event": "Example games", "date": "2026-11-30"},
    )


def bury(table: Table, seat: int, kitty: list[Card]) -> list[Card]:
    """Take the kitty, bury the lowest non-point cards."""
    table.hands[seat] += kitty
    table.add(KittyTake, seat=seat, cards=[str(c) for c in kitty],
              note="the declarer picks up the kitty")
    p = table.rules.power
    buried = sorted(table.hands[seat], key=lambda c: (c.points > 0, p(c) >= 100, p(c)))
    buried = buried[: len(kitty)]
    table.take(seat, buried)
    table.add(KittyBury, seat=seat, cards=[str(c) for c in buried],
              note="and buries the same number of cards, low non-point cards first")
    return buried


def tractor_example(decks: int, match: str, seed: int) -> list[Event]:
    """Seed 001 拖拉机: declaration during the deal, kitty, a failed throw, scoring."""
    kitty_size = {1: 6, 2: 8, 3: 6}[decks]
    level = Rank.TWO
    hands, kitty = deal(Rules("tractor", 4, decks, kitty_size, level, None, lambda c: 0),
                        seed, first_draw=0)
    seat, card, drawn = first_level_card(hands, 0, level, 4)
    trump = card.suit
    rules = Rules("tractor", 4, decks, kitty_size, level, trump, tractor_power(level, trump))
    events: list[Event] = [header(
        match, "tractor", 4, decks,
        f"拖拉机 with {decks} deck(s) (seed 001): the first hand of a match, level 2 for both "
        "teams; the first declarer becomes the dealer", levels=["2", "2"])]
    t = Table(rules, match, 1, [list(h) for h in hands])
    t.add(HandStart, dealer=None, level="2", levels=["2", "2"], first_draw=0,
          note="the first hand: nobody deals until someone declares (亮主)")
    t.add(Deal, holdings=[[str(c) for c in h] for h in hands], kitty=[str(c) for c in kitty],
          note="each seat's cards in the order drawn, seat 0 first; then the kitty")
    t.add(Declare, seat=seat, cards=[str(card)], drawn=drawn,
          note=f"seat {seat} shows {card.symbol} as card {drawn} is dealt: "
               f"{trump.name.lower()} are trump and seat {seat} is the declarer")
    bury(t, seat, kitty)
    declarers = {seat, (seat + 2) % 4}
    points, last, last_cards = play_hand(t, seat, random.Random(seed), declarers,
                                         throw_at=3 if decks >= 2 else None)
    burial = next(e for e in t.events if isinstance(e, KittyBury))
    kitty_points = sum(Card.parse(c).points for c in burial.cards)
    multiplier = None
    if last not in declarers:
        multiplier = 4 if len(last_cards) == 2 else 2
        points += kitty_points * multiplier
    change, next_dealer = tractor_outcome(decks, points, seat)
    t.add(Result, defender_points=points, kitty_points=kitty_points,
          kitty_multiplier=multiplier, level_change=change, next_dealer=next_dealer,
          note="the outcome as the source recorded it; the replayer recomputes it")
    return events + t.events


def tractor_outcome(decks: int, points: int, dealer: int) -> tuple[list[int], int]:
    """Seed 001's tables for 1 and 2 decks (and the 3-deck 60-point steps), rulings 38-40."""
    team = dealer % 2
    if decks == 1:
        if points == 0:
            up, declarer_side = 2, True
        elif points < 40:
            up, declarer_side = 1, True
        elif points < 80:
            up, declarer_side = 0, None
        elif points < 100:
            up, declarer_side = 1, False
        else:
            up, declarer_side = 2, False
    elif decks == 2:
        if points == 0:
            up, declarer_side = 3, True
        elif points < 40:
            up, declarer_side = 2, True
        elif points < 80:
            up, declarer_side = 1, True
        else:
            up, declarer_side = 1 + (points - 80) // 40, False
    else:
        if points == 0:
            up, declarer_side = 3, True
        elif points < 60:
            up, declarer_side = 2, True
        elif points < 120:
            up, declarer_side = 1, True
        else:
            up, declarer_side = (points - 120) // 60, False
    change = [0, 0]
    if declarer_side is True:
        change[team] = up
        return change, (dealer + 2) % 4
    if declarer_side is False:
        change[1 - team] = up
    return change, (dealer + 1) % 4


def four_deck_example(match: str, seed: int) -> list[Event]:
    """Seed 002 升级四副牌: level 10, a pair of 10s declares, 80-point steps."""
    level = Rank.TEN
    hands, kitty = deal(Rules("four-deck", 4, 4, 8, level, None, lambda c: 0), seed, 1)
    seat, card, drawn = first_level_card(hands, 1, level, 4)
    trump = card.suit
    rules = Rules("four-deck", 4, 4, 8, level, trump, tractor_power(level, trump))
    events: list[Event] = [header(
        match, "four-deck", 4, 4,
        "升级四副牌 (seed 002), the seed's own example level: team 0 plays 10", levels=["T", "6"])]
    t = Table(rules, match, 1, [list(h) for h in hands])
    t.add(HandStart, dealer=seat, declarer=seat, level="T", levels=["T", "6"], first_draw=1,
          note="the dealer's side is on 10, so 10s are the level cards")
    t.add(Deal, holdings=[[str(c) for c in h] for h in hands], kitty=[str(c) for c in kitty],
          note="216 cards: 52 to each seat from seat 1 on, 8 to the kitty")
    t.add(Declare, seat=seat, cards=[str(card)], drawn=drawn,
          note="第一次亮出的 10 的花色作为主牌花色: a single 10 is the lowest declaration")
    bury(t, seat, kitty)
    declarers = {seat, (seat + 2) % 4}
    points, last, last_cards = play_hand(t, seat, random.Random(seed), declarers)
    burial = next(e for e in t.events if isinstance(e, KittyBury))
    kitty_points = sum(Card.parse(c).points for c in burial.cards)
    multiplier = None
    if last not in declarers:
        multiplier = 4 if len(last_cards) == 2 else 2  # ruling 43: pair 2·2¹, single 2
        points += kitty_points * multiplier
    team = seat % 2
    change = [0, 0]
    if points < 160:
        change[team] = 3 if points == 0 else 2 if points < 80 else 1
        nxt = (seat + 2) % 4
    else:
        change[1 - team] = (points - 160) // 80
        nxt = (seat + 1) % 4
    t.add(Result, defender_points=points, kitty_points=kitty_points, kitty_multiplier=multiplier,
          level_change=change, next_dealer=nxt, note="80-point steps (ruling 44)")
    return events + t.events


def biaofen_example(players: int, match: str, seed: int) -> list[Event]:
    """Seed 003 标分: an auction from 80 down in fives, trump named before the kitty."""
    hands, kitty = deal(Rules("biaofen", players, 2, 12, Rank.TWO, None, lambda c: 0), seed, 0)
    events: list[Event] = [header(
        match, "biaofen", players, 2,
        f"标分 (seed 003) with {players} players: one declarer against the rest")]
    t = Table(Rules("biaofen", players, 2, 12, Rank.TWO, None, lambda c: 0), match, 1,
              [list(h) for h in hands])
    t.add(HandStart, level="2", first_draw=0, note="标分 is always played at level 2 (ruling 52)")
    t.add(Deal, holdings=[[str(c) for c in h] for h in hands], kitty=[str(c) for c in kitty],
          note=f"{len(hands[0])} cards each, 12 to the kitty")
    # The auction: each seat bids by the strength of its hand; a pass is final (ruling 54).
    strength = [sum(1 for c in h if c.is_joker or c.rank in (Rank.TWO, Rank.ACE)) for h in hands]
    limit = [max(40, 80 - 5 * s) for s in strength]
    bid, bidder, active, seat = 85, None, set(range(players)), 0
    while len(active) > 1 or bidder is None:
        if seat in active:
            if bid - 5 >= limit[seat]:
                bid -= 5
                bidder = seat
                t.add(Bid, seat=seat, points=bid, note="80分起叫，从大往小" if bid == 80 else None)
            else:
                active.discard(seat)
                t.add(Pass, seat=seat)
                if not active:
                    break
        seat = (seat + 1) % players
        if bidder is not None and active == {bidder}:
            break
    declarer = bidder if bidder is not None else 0
    suits = [s for s in Suit]
    trump = max(suits, key=lambda s: sum(1 for c in hands[declarer] if c.suit == s))
    t.add(TrumpChosen, seat=declarer, trump=trump.value,
          note="the lowest bidder names trump before seeing the kitty")
    rules = Rules("biaofen", players, 2, 12, Rank.TWO, trump, biaofen_power(trump))
    t.rules = rules
    bury(t, declarer, kitty)
    points, last, _last_cards = play_hand(t, declarer, random.Random(seed), {declarer})
    burial = next(e for e in t.events if isinstance(e, KittyBury))
    kitty_points = sum(Card.parse(c).points for c in burial.cards)
    multiplier = None
    if last != declarer:
        multiplier = 2  # 被“抠底”时底牌里的分牌的分数翻倍计算
        points += kitty_points * multiplier
    settlement = biaofen_settlement(players, declarer, bid, points)
    t.add(Result, defender_points=points, kitty_points=kitty_points, kitty_multiplier=multiplier,
          settlement=settlement, note="settlement in 档 per seat; it sums to zero")
    return events + t.events


def biaofen_settlement(players: int, declarer: int, n: int, points: int) -> list[int]:
    """Seed 003's 庄胜 / 打宕 arithmetic per defender (rulings 56, 57, 60)."""
    if points < n:
        each = 2 if n >= 55 else 3
        if points == 0:
            each += 3
        elif points <= n / 2:
            each += 1
    else:
        steps = [n, n + 40, n + 70, n + 90] if players == 4 else [n, n + 30, n + 50]
        k = sum(1 for s in steps if points >= s)
        if points >= steps[-1]:
            k += (points - steps[-1]) // 20
        each = -k
    out = [-each] * players
    out[declarer] = each * (players - 1)
    return out


def wanfen_example(match: str, seed: int) -> list[Event]:
    """Seed 000 打万分: 书记, 军长 and 救星 as trumps, ♥A worth 10."""
    level = Rank.TWO
    hands, kitty = deal(Rules("wanfen", 4, 2, 8, level, None, lambda c: 0), seed, 2)
    seat, card, drawn = first_level_card(hands, 2, level, 4)
    trump = card.suit
    rules = Rules("wanfen", 4, 2, 8, level, trump, wanfen_power(level, trump), wanfen_points)
    events: list[Event] = [header(
        match, "wanfen", 4, 2, "打万分 (seed 000): the race to 10000, level 2 for both teams",
        levels=["2", "2"])]
    t = Table(rules, match, 1, [list(h) for h in hands])
    t.add(HandStart, dealer=seat, declarer=seat, level="2", levels=["2", "2"], first_draw=2,
          note="the first deal's dealer as recorded (ruling 26)")
    t.add(Deal, holdings=[[str(c) for c in h] for h in hands], kitty=[str(c) for c in kitty],
          note="25 cards each, 8 in the kitty")
    t.add(Declare, seat=seat, cards=[str(card)], drawn=drawn,
          note=f"抢报: the first 2 shown makes {trump.name.lower()} trump; the trump-suit 3s "
               "are 书记, the highest cards (ruling 9)")
    bury(t, seat, kitty)
    declarers = {seat, (seat + 2) % 4}
    points, last, last_cards = play_hand(t, seat, random.Random(seed), declarers)
    burial = next(e for e in t.events if isinstance(e, KittyBury))
    kitty_points = sum(wanfen_points(Card.parse(c)) for c in burial.cards)
    if last not in declarers:
        trump_win = rules.power(last_cards[0]) >= 100
        if len(last_cards) == 2:
            points += kitty_points + 1000 if trump_win else kitty_points * 2
        else:
            points += kitty_points + 100 if trump_win else kitty_points
    t.add(Result, defender_points=points, kitty_points=kitty_points,
          note="face points plus the 抠底 award (ruling 18); under 100 the defenders record 0")
    return events + t.events


def main(root: Path = ROOT / "samples") -> None:
    out = root / "examples"
    out.mkdir(parents=True, exist_ok=True)
    examples = {
        "tractor-1deck": tractor_example(1, "ex-tractor-1", 11),
        "tractor-2deck": tractor_example(2, "ex-tractor-2", 7),
        "tractor-3deck": tractor_example(3, "ex-tractor-3", 5),
        "four-deck": four_deck_example("ex-four-deck", 3),
        "biaofen-3p": biaofen_example(3, "ex-biaofen-3", 21),
        "biaofen-4p": biaofen_example(4, "ex-biaofen-4", 22),
        "wanfen": wanfen_example("ex-wanfen", 9),
    }
    for name, events in examples.items():
        files.dump(events, out / f"{name}.jsonl")
        files.dump(events, out / f"{name}.parquet")
        print(f"samples/examples/{name}: {len(events)} events")


if __name__ == "__main__":
    main()
