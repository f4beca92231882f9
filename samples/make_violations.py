"""Write samples/violations/tractor.jsonl: hand-made hands that each break one rule.

    python samples/make_violations.py

Every hand is its own match; its header's ``expect`` tag names the rule id(s) the validator
must report, and each hand's notes say what is wrong. Most hands start from a small set-up
position (a few cards each) so that the broken rule is plain to see. The expected output of
``shengji validate`` is written beside it (tractor.expected.txt), and tests/test_samples.py
holds the validator to both.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gamelog import files  # noqa: E402
from gamelog.cards import full_deck, parse_cards, tokens  # noqa: E402
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
    Play,
    Result,
    Setup,
    Surrender,
    ThrowFail,
    TrickEnd,
)


def toks(text: str) -> list[str]:
    return [t for part in text.split() for t in (["?"] if part == "?" else
                                                  tokens(parse_cards(part)))]


class Case:
    """One match of one (or two) hands, built event by event."""

    def __init__(self, name: str, expect: list[str], note: str, decks: int = 2) -> None:
        self.match = f"v-{name}"
        self.events: list[Event] = [MatchStart(
            match=self.match, hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor",
            players=4, decks=decks, levels=["2", "2"], note=note,
            tags={"expect": " ".join(expect)}, source="samples/make_violations.py")]
        self.hand = 0
        self.seq = 0

    def new_hand(self, **kw: object) -> Case:
        self.hand += 1
        self.seq = 0
        return self.add(HandStart, **kw)

    def add(self, kind: type[Event], note: str | None = None, **kw: object) -> Case:
        self.events.append(kind(match=self.match, hand=self.hand, seq=self.seq, note=note, **kw))
        self.seq += 1
        return self

    def setup(self, holdings: list[str], *, trump: str = "S", leader: int = 0,
              declarer: int = 0, note: str | None = None) -> Case:
        self.new_hand(dealer=declarer, level="2", levels=["2", "2"])
        return self.add(Setup, holdings=[toks(h) for h in holdings], trump=trump, level="2",
                        declarer=declarer, leader=leader, note=note)

    def plays(self, *plays: tuple[int, str], note: str | None = None) -> Case:
        for i, (seat, cards) in enumerate(plays):
            self.add(Play, seat=seat, cards=toks(cards), note=note if i == len(plays) - 1 else None)
        return self


def one_deck_deal(case: Case, **hand: object) -> list[list[str]]:
    deck = tokens(full_deck(1))
    holdings = [deck[i::4][:12] for i in range(4)]
    kitty = [c for c in deck if all(c not in h for h in holdings)]
    case.new_hand(level="2", levels=["2", "2"], first_draw=0, **hand)
    case.add(Deal, holdings=holdings, kitty=kitty, note="a 1-deck deal: seat s gets every 4th card")
    return [*holdings, kitty]


def cases() -> list[Case]:
    out: list[Case] = []

    c = Case("card-not-held", ["play.card-not-held"], "a seat plays a card it does not hold")
    c.setup(["AH", "KH", "QH", "JH"]).plays((0, "AH"), (1, "3H"), note="seat 1 holds ♥K, not ♥3")
    out.append(c)

    c = Case("out-of-turn", ["play.out-of-turn"], "the wrong seat leads")
    c.setup(["AH", "KH", "QH", "JH"]).plays((1, "KH"), note="seat 0 leads, not seat 1")
    out.append(c)

    c = Case("wrong-count", ["play.wrong-count"], "a follow with more cards than the lead")
    c.setup(["AH KH", "QH JH", "TH 9H", "8H 7H"]).plays((0, "AH"), (1, "QH JH"))
    out.append(c)

    c = Case("mixed-lead", ["lead.mixed-suits"], "a lead of two suits")
    c.setup(["AH KS", "QH JH", "TH 9H", "8H 7H"]).plays((0, "AH KS"))
    out.append(c)

    c = Case("suit", ["follow.suit-required"], "a seat discards while holding the led suit")
    c.setup(["AH", "KH 3C", "QH", "JH"]).plays((0, "AH"), (1, "3C"),
                                               note="seat 1 had to play ♥K")
    out.append(c)

    c = Case("pair", ["follow.pair-required"], "two singles against a pair while holding a pair")
    c.setup(["AH AH", "3H 3H 5H", "KC QC", "KD QD"]).plays(
        (0, "AH AH"), (1, "3H 5H"), note="seat 1 holds ♥3 ♥3")
    out.append(c)

    c = Case("tractor", ["follow.tractor-required"], "two pairs against a tractor while holding one")
    c.setup(["AH AH KH KH", "3H 3H 4H 4H 9H 9H", "KC QC JC TC", "KD QD JD TD"]).plays(
        (0, "AH AH KH KH"), (1, "3H 3H 9H 9H"), note="seat 1 holds the tractor ♥3 ♥3 ♥4 ♥4")
    out.append(c)

    c = Case("triple", ["follow.triple-required"], "3 decks: a pair and a single against a triple",
             decks=3)
    c.setup(["AH AH AH", "3H 3H 3H 4H", "KC QC JC", "KD QD JD"]).plays(
        (0, "AH AH AH"), (1, "3H 3H 4H"))
    out.append(c)

    c = Case("titanic", ["follow.titanic-required"],
             "3 decks: a tractor against a Titanic while holding two triples", decks=3)
    c.setup(["QH QH QH KH KH KH", "3H 3H 3H 7H 7H 7H 8H 8H 9H 9H", "5C 6C 7C 8C 9C TC",
             "5D 6D 7D 8D 9D TD"]).plays(
        (0, "QH QH QH KH KH KH"), (1, "7H 7H 8H 8H 9H 9H"),
        note="the seed's list puts two triples before a tractor")
    out.append(c)

    c = Case("revoke", ["follow.revoke"], "a hidden hand shows a heart after showing void")
    c.setup(["AH KH", "? ?", "QH JH", "3D 4D"]).plays(
        (0, "AH"), (1, "5D"), (2, "QH"), (3, "3D"), (0, "KH"), (1, "9H"),
        note="seat 1 discarded on a heart lead, so it had no hearts")
    out.append(c)

    c = Case("throw-beatable", ["throw.beatable"], "a throw that fails, played as if it stood")
    c.setup(["AH KH 2C 3C", "AH 4H 5H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"]).plays(
        (0, "AH KH"), (1, "4H AH"), (2, "7H 8H"), (3, "TH JH"),
        note="seat 1's ♥A beats the ♥K: only ♥K should have been played")
    out.append(c)

    c = Case("forced", ["throw.wrong-forced-play"], "3 decks: 33344 fails; the wrong part is played",
             decks=3)
    c.setup(["3H 3H 3H 4H 4H", "KH KH KH 6D 7D", "5D 5D 6H 7H 8H", "6C 7C 8C 9C TC"])
    c.add(ThrowFail, seat=0, cards=toks("3H 3H 3H 4H 4H"),
          blockers=[Blocker(seat=1, cards=toks("KH KH KH"))],
          note="seat 1's ♥K ♥K ♥K beats ♥3 ♥3 ♥3: the seed forces 333")
    c.plays((0, "4H 4H"), note="but 44 is played")
    out.append(c)

    c = Case("fail-unfounded", ["throw.fail-unfounded"], "a throw recorded as failed that stands")
    c.setup(["AH KH 2C 3C", "4H 5H 6H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"])
    c.add(ThrowFail, seat=0, cards=toks("AH KH"))
    c.plays((0, "KH"))
    out.append(c)

    c = Case("blocker", ["throw.blocker-wrong"], "a failed throw blamed on the wrong seat")
    c.setup(["AH KH 2C 3C", "AH 5H 6H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"])
    c.add(ThrowFail, seat=0, cards=toks("AH KH"), blockers=[Blocker(seat=2, cards=toks("AH"))],
          note="seat 2 has no ♥A; seat 1 has")
    c.plays((0, "KH"))
    out.append(c)

    c = Case("trick-claims", ["result.trick-number-mismatch", "result.winner-mismatch",
                              "result.trick-points-mismatch"], "a wrong trick claim")
    c.setup(["3H", "KH", "4H", "5H"]).plays((0, "3H"), (1, "KH"), (2, "4H"), (3, "5H"))
    c.add(TrickEnd, trick=2, winner=0, points=5, note="trick 1, won by seat 1 with 15 points")
    out.append(c)

    c = Case("result", ["result.points-mismatch", "result.kitty-points-mismatch",
                        "result.multiplier-mismatch", "result.level-change-mismatch",
                        "result.next-dealer-mismatch"], "every field of a result wrong")
    c.setup(["3H", "KH", "4H", "5H"]).plays((0, "3H"), (1, "KH"), (2, "4H"), (3, "5H"))
    c.add(Result, defender_points=10, kitty_points=5, kitty_multiplier=4, level_change=[3, 0],
          next_dealer=1, note="defenders 15 + nothing from a set-up's kitty; declarer +2; "
                              "seat 2 deals")
    out.append(c)

    c = Case("unfinished", ["result.hand-unfinished"], "a result while cards remain")
    c.setup(["3H 4C", "KH 5C", "4H 6C", "5H 7C"]).plays((0, "3H"), (1, "KH"), (2, "4H"), (3, "5H"))
    c.add(Result, defender_points=15)
    out.append(c)

    c = Case("claim-early", ["result.trick-claim-early"], "a trick closed before all have played")
    c.setup(["3H", "KH", "4H", "5H"]).plays((0, "3H"), (1, "KH"))
    c.add(TrickEnd, trick=1, winner=1)
    out.append(c)

    c = Case("after-end", ["hand.event-after-end"], "a play after the last trick")
    c.setup(["3H", "KH", "4H", "5H"]).plays((0, "3H"), (1, "KH"), (2, "4H"), (3, "5H"), (1, "AS"))
    out.append(c)

    c = Case("next-hand", ["hand.dealer-mismatch", "hand.level-mismatch"],
             "hand 2 starts with the wrong dealer and levels")
    c.setup(["3H", "KH", "4H", "5H"]).plays((0, "3H"), (1, "KH"), (2, "4H"), (3, "5H"))
    c.add(Result, defender_points=15, level_change=[2, 0], next_dealer=2,
          note="15 points: the declarer side (team 0) goes up two levels; the partner deals")
    c.new_hand(dealer=1, level="2", levels=["2", "2"], note="must be dealer 2, levels 4/2")
    out.append(c)

    c = Case("auction", ["auction.not-allowed", "surrender.not-allowed"],
             "标分's bids and surrender in a tractor game")
    c.setup(["3H", "KH", "4H", "5H"]).add(Bid, seat=0, points=80).add(Surrender, seat=0)
    out.append(c)

    c = Case("deal-count", ["deal.card-count"], "a 1-deck deal with 13 cards to one seat", decks=1)
    c.new_hand(level="2", first_draw=0)
    deck = tokens(full_deck(1))
    c.add(Deal, holdings=[deck[0:13], deck[13:24], deck[24:36], deck[36:48]], kitty=deck[48:])
    out.append(c)

    c = Case("not-a-deck", ["deal.not-a-deck"], "a 1-deck deal with two ♠A", decks=1)
    c.new_hand(level="2", first_draw=0)
    bad = list(deck)
    bad[bad.index("KS")] = "AS"
    c.add(Deal, holdings=[bad[0:12], bad[12:24], bad[24:36], bad[36:48]], kitty=bad[48:])
    out.append(c)

    c = Case("declare-held", ["declare.cards-not-held"], "a declaration before the card is drawn",
             decks=1)
    hands = one_deck_deal(c)
    two = next(t for t in hands[1] if t[0] == "2")
    c.add(Declare, seat=1, cards=[two], drawn=1, note=f"seat 1 draws {two} later")
    out.append(c)

    c = Case("declare-step", ["declare.not-a-step"], "a king is no declaration at level 2", decks=1)
    hands = one_deck_deal(c)
    c.add(Declare, seat=0, cards=[next(t for t in hands[0] if t[0] == "K")])
    out.append(c)

    c = Case("declare-higher", ["declare.not-higher"], "1 deck: a second single cannot override",
             decks=1)
    hands = one_deck_deal(c)
    twos = [(s, t) for s in range(4) for t in hands[s] if t[0] == "2"]
    c.add(Declare, seat=twos[0][0], cards=[twos[0][1]])
    other = next((s, t) for s, t in twos if s != twos[0][0])
    c.add(Declare, seat=other[0], cards=[other[1]])
    out.append(c)

    c = Case("own-switch", ["declare.own-switch"], "a seat switches its own declaration to no-trump")
    deck2 = tokens(full_deck(2))
    holdings = [deck2[i * 25:(i + 1) * 25] for i in range(4)]
    kitty = deck2[100:]
    holdings[0][-2:], kitty[-2:] = kitty[-2:], holdings[0][-2:]  # seat 0 gets both big jokers
    c.new_hand(level="2", first_draw=0)
    c.add(Deal, holdings=holdings, kitty=kitty)
    c.add(Declare, seat=0, cards=["2S"]).add(Declare, seat=0, cards=["2S", "2S"])
    c.add(Declare, seat=0, cards=["BJ", "BJ"], note="seat 0 reinforced spades, then switches")
    out.append(c)

    def kitty_case(name: str, expect: str, note: str, take_seat: int, taken: list[str] | None,
                   buried: list[str] | None, play_first: bool = False) -> Case:
        k = Case(name, [expect], note, decks=1)
        hands = one_deck_deal(k, dealer=0)
        k.add(Declare, seat=0, cards=[next(t for t in hands[0] if t[0] == "2")])
        if taken is not None:
            k.add(KittyTake, seat=take_seat, cards=taken if taken else hands[4])
        if play_first:
            k.add(Play, seat=0, cards=[hands[0][0]])
        elif buried is not None:
            k.add(KittyBury, seat=take_seat, cards=buried)
        return k

    hands1 = [tokens(full_deck(1))[i::4][:12] for i in range(4)]
    out.append(kitty_case("kitty-seat", "kitty.wrong-seat", "seat 1 takes seat 0's kitty", 1, [],
                          None))
    out.append(kitty_case("kitty-size", "kitty.wrong-size", "five cards buried for six", 0, [],
                          hands1[0][:5]))
    out.append(kitty_case("kitty-take", "kitty.take-mismatch", "the kitty taken is not the one "
                          "dealt", 0, hands1[1][:6], None))
    out.append(kitty_case("kitty-bury", "kitty.bury-not-held", "seat 0 buries seat 1's cards", 0,
                          [], hands1[1][:6]))
    out.append(kitty_case("kitty-not-buried", "kitty.not-buried", "play starts before the burial",
                          0, [], None, play_first=True))
    return out


def main(root: Path = ROOT / "samples") -> None:
    out = root / "violations"
    out.mkdir(parents=True, exist_ok=True)
    events = [e for case in cases() for e in case.events]
    files.dump(events, out / "tractor.jsonl")
    result = subprocess.run([sys.executable, "-m", "shengji.cli", "validate",
                             str(out / "tractor.jsonl")], capture_output=True, text=True,
                            cwd=ROOT)
    text = result.stdout.replace(str(out / "tractor.jsonl"), "samples/violations/tractor.jsonl")
    (out / "tractor.expected.txt").write_text(text)
    print(f"samples/violations/tractor.jsonl: {len(events)} events; exit {result.returncode}")


if __name__ == "__main__":
    main()
