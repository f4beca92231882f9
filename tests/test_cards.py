"""Cards and seats: canonical spelling, every common spelling, ambiguity, display, multisets."""

import pytest

from gamelog import (
    BIG_JOKER,
    CARD_TOKENS,
    LITTLE_JOKER,
    AmbiguousCardError,
    Card,
    MalformedCardError,
    Rank,
    Seat,
    Suit,
    count_vector,
    parse_card,
    parse_cards,
)
from gamelog.cards import cards_from_tokens, format_cards, full_deck, tokens


def test_every_card_round_trips_through_its_canonical_spelling():
    assert len(CARD_TOKENS) == len(set(CARD_TOKENS)) == 54
    for i, token in enumerate(CARD_TOKENS):
        card = Card(i)
        assert str(card) == token
        assert parse_card(token) is card
        assert parse_card(card.symbol) is card


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AS", "AS"), ("as", "AS"), ("As", "AS"), ("SA", "AS"), ("sa", "AS"),
        ("10H", "TH"), ("TH", "TH"), ("th", "TH"), ("H10", "TH"), ("HT", "TH"),
        ("♠Q", "QS"), ("Q♠", "QS"), ("♤Q", "QS"), ("♥10", "TH"), ("♡10", "TH"),
        ("♦3", "3D"), ("♢3", "3D"), ("♣K", "KC"), ("♧K", "KC"),
        ("黑桃A", "AS"), ("红桃10", "TH"), ("梅花J", "JC"), ("方块2", "2D"), ("方片2", "2D"),
        ("A黑桃", "AS"), ("红心K", "KH"), ("草花5", "5C"),
        ("大王", "BJ"), ("小王", "LJ"), ("BJ", "BJ"), ("LJ", "LJ"), ("bj", "BJ"), ("RJ", "BJ"),
        ("big joker", "BJ"), ("little joker", "LJ"), ("small joker", "LJ"), ("XW", "LJ"),
        (" 7c ", "7C"),
    ],
)
def test_common_spellings(text, expected):
    assert str(parse_card(text)) == expected


@pytest.mark.parametrize("text", ["SJ", "sj", "joker", "王"])
def test_ambiguous_spellings_are_refused_with_advice(text):
    with pytest.raises(AmbiguousCardError) as err:
        parse_card(text)
    assert isinstance(err.value, ValueError)
    assert "BJ" in str(err.value) or "LJ" in str(err.value) or "大王" in str(err.value)


@pytest.mark.parametrize("text", ["", "1S", "11H", "ZZ", "S", "10", "AX", "♠", "黑桃1"])
def test_malformed_spellings(text):
    with pytest.raises(MalformedCardError):
        parse_card(text)


def test_parse_cards_separated_and_glued():
    assert tokens(parse_cards("AS, 10h ♠Q")) == ["AS", "TH", "QS"]
    assert tokens(parse_cards("♠Q♠Q")) == ["QS", "QS"]
    assert tokens(parse_cards("黑桃A红桃10大王")) == ["AS", "TH", "BJ"]
    with pytest.raises(MalformedCardError):
        parse_cards("♠Q♠Z")


def test_card_properties_and_display():
    ten_h = parse_card("TH")
    assert ten_h.suit is Suit.HEARTS and ten_h.rank is Rank.TEN
    assert ten_h.is_red and not parse_card("TS").is_red
    assert BIG_JOKER.is_red and not LITTLE_JOKER.is_red
    assert BIG_JOKER.suit is None and BIG_JOKER.rank is None and BIG_JOKER.is_joker
    assert ten_h.symbol == "♥10"
    assert BIG_JOKER.display("zh") == "大王" and LITTLE_JOKER.display("zh") == "小王"
    assert "\x1b[31m" in ten_h.ansi() and "\x1b[" not in parse_card("TS").ansi()
    assert format_cards([ten_h, BIG_JOKER], "ascii") == "TH BJ"
    assert [c.points for c in parse_cards("5S TS KS QS")] == [5, 10, 10, 0]
    with pytest.raises(MalformedCardError):
        Card(54)
    with pytest.raises(MalformedCardError):
        Card(-1)


def test_cards_are_a_multiset():
    deck = full_deck(4)
    assert len(deck) == 216
    counts = count_vector(deck)
    assert counts == [4] * 54
    assert count_vector(parse_cards("AS AS BJ"))[parse_card("AS")] == 2
    with pytest.raises(MalformedCardError):
        cards_from_tokens(["AS", "?"])


def test_seats_four_players():
    n, w, s, e = Seat
    assert [int(x) for x in (n, w, s, e)] == [0, 1, 2, 3]
    assert n.next() is w and e.next() is n and n.previous() is e
    assert n.partner() is s and w.partner() is e
    assert list(s.iter_from()) == [s, e, n, w]
    assert n.team() == 0 and w.team() == 1
    assert Seat.parse("W") is w and Seat.parse("2") is s and Seat.parse("east") is e


def test_seats_three_players():
    assert Seat(2).next(3) is Seat(0)
    assert list(Seat(1).iter_from(3)) == [Seat(1), Seat(2), Seat(0)]
    assert Seat(0).team(3) is None
    with pytest.raises(ValueError):
        Seat(0).partner(3)
    with pytest.raises(ValueError):
        Seat.parse("X")
