"""Phase 1, the deal and the declarations (发牌、亮主): the hand's start, the deal or a set-up
position, each declaration (亮主 / 反主), trump named by an event, and trump and level settled
before the first play.

Asks of the ruleset (its "deal and declarations" section): ``hand_size``, ``kitty_size``,
``decks``, ``round_length``, ``match_target``, ``declaration``, ``first_dealer_declares_last``,
``team_of``, ``trumps_without_declaration``.
"""

from __future__ import annotations

from typing import Final

from gamelog.cards import UNKNOWN, Card, Rank, Suit
from gamelog.model import Deal, Declare, HandStart, Setup, TrumpChosen
from replay.rulesets.base import Declaration
from replay.state import INDEX, RANK_OF, SUIT_OF, HandState, held_list, ruleset_tables
from replay.units import counts_of
from replay.violations import show

DECLARATIONS: Final[dict[tuple, Declaration | str]] = {}
"""What shown cards declare, keyed on the ruleset's identity (its class and every option),
the cards and the level."""


def hand_start(s: HandState, ev: HandStart) -> None:
    """The hand's dealer, declarer and levels, checked against what the match so far gives."""
    length = s.rules.round_length
    if length and (ev.hand - 1) % length == 0:
        s.context.round_declarers = []
    s.dealer = ev.dealer
    s.declarer = ev.declarer if ev.declarer is not None else ev.dealer
    s.first_draw = ev.first_draw or 0
    s.levels = list(ev.levels) if ev.levels else s.context.levels
    s.level = ev.level
    ctx = s.context
    target = s.rules.match_target
    if target is not None and ctx.scores is not None and max(ctx.scores) >= target:
        s.violation("hand.after-match-end",
                    f"a hand is played after team {ctx.scores.index(max(ctx.scores))} "
                    f"reached {target:,} points (scores {ctx.scores}), which won the "
                    "match.", required="no further hand")
    dealers = ctx.accepted_dealers or ([ctx.next_dealer] if ctx.next_dealer is not None else [])
    if dealers and ev.dealer is not None and ev.dealer not in dealers:
        s.violation("hand.dealer-mismatch",
                    f"seat {ev.dealer} deals, but the previous hand's result gives the "
                    f"deal to seat {ctx.next_dealer}.", seat=ev.dealer,
                    required=f"seat {ctx.next_dealer} deals")
    accepted = ctx.accepted_levels or ([ctx.levels] if ctx.levels is not None else [])
    if accepted and ev.levels is not None and list(ev.levels) not in accepted:
        s.violation("hand.level-mismatch",
                    f"the hand starts with levels {'/'.join(ev.levels)}, but the previous "
                    f"hands give {'/'.join(accepted[0])}.",
                    required="levels " + "/".join(accepted[0]))
    if s.dealer is None and ctx.next_dealer is not None:
        s.dealer = s.declarer = ctx.next_dealer


def deal(s: HandState, ev: Deal) -> None:
    """The cards dealt: counts per seat and kitty, and whether they make whole decks."""
    r = s.rules
    _set_holdings(s, ev.holdings, ev.kitty)
    s.drawn = [list(h) for h in ev.holdings]
    s.dealt_kitty = list(ev.kitty) if ev.kitty is not None else None
    sizes = [len(h) for h in ev.holdings]
    _, _, hand_size, kitty_size = ruleset_tables(r)
    if len(ev.holdings) != s.players or any(n != hand_size for n in sizes) or (
            ev.kitty is not None and len(ev.kitty) != kitty_size):
        s.violation("deal.card-count",
                    f"the deal gives {sizes} cards and a kitty of "
                    f"{len(ev.kitty) if ev.kitty is not None else 'none'}; "
                    f"{r.title} deals {hand_size} to each of {s.players} seats and "
                    f"{kitty_size} to the kitty.",
                    required=f"{s.players} × {hand_size} + {kitty_size}")
    _check_conservation(s, exact=ev.kitty is not None)
    _find_bombs(s)


def setup(s: HandState, ev: Setup) -> None:
    """A position set up mid-hand (at a trick boundary): holdings, trump, level, points."""
    _set_holdings(s, ev.holdings, ev.kitty)
    if ev.trump is not None:
        s.trump = None if ev.trump == "NT" else SUIT_OF[ev.trump]
        s.trump_known = True
    if ev.level is not None:
        s.level = ev.level
    if ev.declarer is not None:
        s.declarer = ev.declarer
        if s.dealer is None:
            s.dealer = ev.declarer
    s.leader = ev.leader
    s.defender_points = ev.points
    s.tricks_before = ev.tricks
    s.kitty_buried = True  # a set-up starts at a trick boundary
    if ev.contract is not None:  # an auction game past its auction
        s.contract = ev.contract
        s.auction_closed = True
    _check_conservation(s, exact=False)
    _find_bombs(s)


def _find_bombs(s: HandState) -> None:
    """Seats holding eight cards of one rank (标分's 炸弹, ruling 58), in a deal or a set-up
    position alike."""
    found: list[int] = []
    if s.rules.decks >= 2:  # one deck holds four of a rank
        for seat, h in enumerate(s.held):
            for r in range(13):
                n: int = h[r] + h[13 + r] + h[26 + r] + h[39 + r]
                if n >= 8:
                    found.append(seat)
                    break
    s.bombs = tuple(found)


def _set_holdings(s: HandState, holdings: list[list[str]], kitty: list[str] | None) -> None:
    for seat, tokens in enumerate(holdings[: s.players]):
        held = s.held[seat]
        hidden = 0
        for t in tokens:  # plain reads and writes: mypyc compiles `x[i] += 1` generically
            if t == UNKNOWN:
                hidden += 1
            else:
                c = INDEX[t]
                n: int = held[c]
                held[c] = n + 1
        left: int = s.left[seat]
        s.left[seat] = left + len(tokens)
        if hidden:
            before: int = s.hidden[seat]
            s.hidden[seat] = before + hidden
    if kitty is not None:
        s.kitty = [INDEX[t] for t in kitty if t != UNKNOWN]
        s.kitty_hidden = sum(1 for t in kitty if t == UNKNOWN)
    s.known = True


def _check_conservation(s: HandState, exact: bool) -> None:
    decks = s.rules.decks
    total = [0] * 54
    for held in s.held:
        for c in range(54):
            n: int = held[c]
            if n:
                t: int = total[c]
                total[c] = t + n
    for c in s.kitty:
        t = total[c]
        total[c] = t + 1
    extra = [c for c in range(54) if total[c] > decks]
    hidden = sum(s.hidden) + s.kitty_hidden
    missing = [c for c in range(54) if total[c] < decks]
    if extra:
        s.violation("deal.not-a-deck",
                    f"the deal has more copies of {show(extra)} than {decks} deck(s) hold.",
                    cards=extra, required=f"at most {decks} of each card")
    elif exact and not hidden and missing:
        s.violation("deal.not-a-deck",
                    f"the deal lacks {show(missing)}: it is not {decks} full deck(s).",
                    cards=missing, required=f"exactly {decks} of each card")


def declare(s: HandState, ev: Declare) -> None:
    """A declaration (亮主) or an override (反主): a step the ruleset knows, of cards held by
    then, above the one standing; the first hand's dealer may be whoever declares."""
    r = s.rules
    cards = [INDEX[t] for t in ev.cards]
    level = RANK_OF.get(current_level(s), Rank.TWO)
    key = (r.identity, tuple(cards), level)
    decl = DECLARATIONS.get(key)
    if decl is None:
        if len(DECLARATIONS) > 1000:
            DECLARATIONS.clear()
        decl = DECLARATIONS[key] = r.declaration([Card(c) for c in cards], level)
    if isinstance(decl, str):
        s.violation("declare.not-a-step", f"seat {ev.seat} shows {show(cards)}: {decl}.",
                    seat=ev.seat, cards=cards)
        return
    dealt = sum(map(len, s.drawn)) if s.drawn is not None else 0
    if s.drawn is not None and ev.drawn is not None and not 0 <= ev.drawn <= dealt:
        s.violation("declare.cards-not-held",
                    f"seat {ev.seat} declares with {show(cards)} after {ev.drawn} cards "
                    f"had been dealt, but the deal has {dealt} cards in all.",
                    seat=ev.seat, cards=cards)
    elif s.drawn is not None and 0 <= ev.seat < len(s.drawn):
        held_then = _held_at(s, ev.seat, ev.drawn)
        if held_then is not None:
            need = counts_of(cards)
            lacking = [c for c, n in need.items() if held_then.get(c, 0) < n]
            if lacking:
                when = (f"after {ev.drawn} cards had been dealt" if ev.drawn is not None
                        else "after the deal")
                s.violation("declare.cards-not-held",
                            f"seat {ev.seat} declares with {show(cards)} but did not hold "
                            f"them {when}.", seat=ev.seat, cards=cards,
                            required=f"seat {ev.seat} held {show(held_list(held_then))}")
    prev = s.declaration
    if prev is not None:
        pseat, pdecl = prev
        switched = pdecl.trump != decl.trump or (
            pdecl.card is not None and decl.card is not None and pdecl.card != decl.card)
        if pseat == ev.seat and switched:
            s.violation("declare.own-switch",
                        f"seat {ev.seat} overrides its own declaration of {pdecl.label} "
                        f"with {decl.label}; a seat may only reinforce its own suit.",
                        seat=ev.seat, cards=cards)
        elif decl.step <= pdecl.step:
            s.violation("declare.not-higher",
                        f"seat {ev.seat} declares {decl.label}, which does not rank "
                        f"above seat {pseat}'s declaration ({pdecl.label}).",
                        seat=ev.seat, cards=cards, required="a strictly higher declaration")
    s.declaration = (ev.seat, decl)
    s.trump = decl.trump
    s.trump_known = True
    if (s.dealer is None and prev is None) or (
            s.dealer_by_declaring and r.first_dealer_declares_last):
        # 第一局的庄家由翻主方担任: the seat whose declaration stands at the end of declaring,
        # after every override, deals and takes the kitty (ruling 33c)
        s.dealer = s.declarer = ev.seat
        s.dealer_by_declaring = True


def current_level(s: HandState) -> str:
    """The rank played this hand, as far as the record says so far."""
    if s.level:
        return s.level
    if s.levels and s.dealer is not None:
        return s.levels[s.rules.team_of(s.dealer, s.declarer)]
    if s.levels and len(set(s.levels)) == 1:
        return s.levels[0]
    return "2"


def _held_at(s: HandState, seat: int, drawn: int | None) -> dict[int, int] | None:
    assert s.drawn is not None
    cards = s.drawn[seat]
    if drawn is not None:
        offset = (seat - s.first_draw) % s.players  # the seat's first card
        k = 0 if drawn <= offset else (drawn - offset - 1) // s.players + 1
        cards = cards[:k]
    if any(t == UNKNOWN for t in cards):
        return None
    return counts_of([INDEX[t] for t in cards])


def trump_named(s: HandState, ev: TrumpChosen) -> None:
    """Trump named by an event: where nobody declared, it must be one the kitty's rule allows."""
    named = None if ev.trump == "NT" else SUIT_OF[ev.trump]
    if s.declaration is None:
        options = kitty_trumps(s)
        if options is not None and named not in options:
            what = " or ".join("no-trump" if due is None else due.name.lower()
                               for due in options)
            s.violation("trump.wrong",
                        f"nobody declared, so the kitty's cards name trump ({what}), but "
                        f"the record makes {ev.trump} trump.", seat=ev.seat,
                        required=f"trump {what}")
    s.trump = named
    s.trump_known = True


def kitty_trumps(s: HandState) -> list[Suit | None] | None:
    """Every trump the ruleset's rule allows for a deal without declarations (``None``: the
    rule decides nothing here)."""
    if s.dealt_kitty is None or UNKNOWN in s.dealt_kitty:
        return None
    return s.rules.trumps_without_declaration([Card(INDEX[t]) for t in s.dealt_kitty], s.level)


def settle(s: HandState) -> bool:
    """Before the first play: trump (by the kitty's rule where nobody declared) and the level;
    ``False`` (with a notice, once) when trump cannot be known."""
    if s.undetermined:
        return False
    if not s.trump_known:
        options = kitty_trumps(s)
        if options is not None and len(options) == 1:
            s.trump = options[0]
            s.trump_known = True
    if not s.trump_known:
        s.log.notice("the record never says which suit is trump (nobody declared and no "
                     "trump event); the seed is silent, so the play is not checked", s.seq)
        s.undetermined = True
        return False
    if s.level is None:
        s.level = current_level(s)
    return True
