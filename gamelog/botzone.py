"""Botzone "Tractor" match logs (Peking University's game-AI platform), read into the game
record and written back out. Spec: docs/import.md.

A Botzone log is one JSON object: ``initdata`` (``allocation``: each seat's 25 cards in the
order dealt, ``publiccard``: the 8 kitty cards, ``level``, ``seed``) and ``log``, alternating
judge requests (``output.content`` keyed by the seat asked, with ``stage`` ``deal`` / ``cover``
/ ``play``) and bot responses (``{seat: {"response": [card ids], "verdict", "time",
"memory"}}``). Cards are integers 0-107, mapped as the platform's own judge maps them
(:func:`card_of`). This module knows records, not rules: it maps what the log says and leaves
judging it to the replayer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from gamelog.errors import MalformedRecordError
from gamelog.model import (
    FORMAT_VERSION,
    Deal,
    Declare,
    Event,
    Hand,
    HandStart,
    KittyBury,
    KittyTake,
    MatchStart,
    Play,
    SeatInfo,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)

BOTZONE_RANKS = "A234567890JQK"
"""The judge's ``cardscale``: a card's rank is ``BOTZONE_RANKS[(id % 54) // 4]`` ('0' is 10)."""
BOTZONE_SUITS = "hdsc"
"""The judge's ``suitset``: a card's suit is ``BOTZONE_SUITS[(id % 54) % 4]`` (hearts,
diamonds, spades, clubs: not the order some copies of the environment use)."""
_RANK_TOKEN = {r: ("T" if r == "0" else r) for r in BOTZONE_RANKS}
_SUIT_TOKEN = {"h": "H", "d": "D", "s": "S", "c": "C"}


def card_of(card_id: int) -> str:
    """Our token of a Botzone card id: ids 0-53 are one deck, 54-107 the other; 52 is the small
    joker (``jo``), 53 the big one (``Jo``); otherwise ``id % 54 = 4 * rank + suit``."""
    if not isinstance(card_id, int) or isinstance(card_id, bool) or not 0 <= card_id < 108:
        raise MalformedRecordError(f"{card_id!r} is not a Botzone card id (0-107)")
    d = card_id % 54
    if d == 52:
        return "LJ"
    if d == 53:
        return "BJ"
    return _RANK_TOKEN[BOTZONE_RANKS[d // 4]] + _SUIT_TOKEN[BOTZONE_SUITS[d % 4]]


def id_of(token: str, copy: int = 0) -> int:
    """The Botzone id of one of our tokens (``copy`` 0 or 1: which deck)."""
    if token == "LJ":
        d = 52
    elif token == "BJ":
        d = 53
    else:
        rank = "0" if token[0] == "T" else token[0]
        suit = {v: k for k, v in _SUIT_TOKEN.items()}[token[1]]
        d = BOTZONE_RANKS.index(rank) * 4 + BOTZONE_SUITS.index(suit)
    return d + 54 * copy


def _tokens(ids: list[Any], where: str) -> list[str]:
    if not isinstance(ids, list):
        raise MalformedRecordError(f"{where}: expected a list of card ids, got {ids!r}")
    try:
        return [card_of(i) for i in ids]
    except MalformedRecordError as err:
        raise MalformedRecordError(f"{where}: {err.message}") from None


LEVELS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def _level(text: Any) -> str:
    """``initdata.level``: the rank played at (``"2"``-``"9"``, ``"0"`` or ``"10"`` for ten,
    ``"J"``, ``"Q"``, ``"K"``, ``"A"``; default 2)."""
    if text is None or text == "":
        return "2"
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise MalformedRecordError(f"initdata.level: {_short(text)} is not a level (2-10, J, Q, "
                                   "K, A)")
    level = str(text).strip().upper()
    level = "T" if level in ("0", "10") else level
    if level not in LEVELS:
        raise MalformedRecordError(f"initdata.level: {_short(text)} is not a level (2-10, J, Q, "
                                   "K, A)")
    return level


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _seat_key(key: Any, where: str) -> int:
    """A seat number given as a JSON object key (``"0"``-``"3"``)."""
    if isinstance(key, str) and key in ("0", "1", "2", "3"):
        return int(key)
    raise MalformedRecordError(f"{where}: keyed {_short(key)}, which is not a seat (0-3)")


def _looks_like_record(data: str | bytes) -> bool:
    first = (data.encode() if isinstance(data, str) else data).lstrip()[:4096].split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return False
    return isinstance(obj, dict) and "type" in obj and "match" in obj


def read_log(data: dict[str, Any] | str | bytes, *, match: str | None = None) -> list[Event]:
    """The events of one Botzone Tractor match log (see :func:`_read_log`); anything that is
    not the shape of one is a :class:`MalformedRecordError`, never another exception."""
    try:
        return _read_log(data, match=match)
    except MalformedRecordError:
        raise
    except RecursionError:
        raise MalformedRecordError("not a Botzone Tractor log: nested too deeply") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise MalformedRecordError(f"not a Botzone Tractor log ({type(exc).__name__}: "
                                   f"{exc})") from None


def _read_log(data: dict[str, Any] | str | bytes, *, match: str | None = None) -> list[Event]:
    """The events of one Botzone Tractor match log (one hand; a log that stops mid-hand gives
    an incomplete hand, with no result). Botzone's own fields that the record does not model
    (each bot's verdict, time and memory, the judge's time and memory) are kept in the
    header's tag ``botzone.meta`` as JSON, so nothing is lost."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            if _looks_like_record(data):
                raise MalformedRecordError(
                    "this is a game record (JSON Lines), not a Botzone log: it needs no import "
                    "(validate, report or convert it as it is)") from None
            raise MalformedRecordError(f"not JSON: {exc}") from None
    if isinstance(data, dict) and "type" in data and "match" in data and "log" not in data:
        raise MalformedRecordError(
            "this is a line of a game record, not a Botzone log: it needs no import") from None
    if not isinstance(data, dict) or not isinstance(data.get("log"), list):
        raise MalformedRecordError("not a Botzone match log: no 'log' list")
    init = data.get("initdata") or {}
    if isinstance(init, str):
        try:
            init = json.loads(init)
        except ValueError:
            init = {}
    allocation = init.get("allocation")
    if not isinstance(allocation, list) or len(allocation) != 4:
        raise MalformedRecordError("initdata.allocation: expected the four seats' cards")
    kitty_ids = init.get("publiccard")
    level = _level(init.get("level"))
    seed = str(init.get("seed", ""))
    match = match or f"botzone-{seed or 'log'}"
    holdings = [_tokens(a, f"initdata.allocation[{s}]") for s, a in enumerate(allocation)]
    kitty = _tokens(kitty_ids, "initdata.publiccard") if kitty_ids is not None else None

    meta: list[list[Any]] = []  # [entry, seat or -1 for the judge, verdict, time, memory]
    steps = list(_steps(data["log"], meta))
    banking: dict[str, Any] = {}
    body: list[tuple[type[Event], dict[str, Any]]] = []
    drawn = 0
    tricks = _Tricks()
    responses: list[tuple[int, list[int]]] = []  # each play response: (seat, cards)
    for stage, seat, request, response in steps:
        glob = request.get("global") or {}
        if isinstance(glob.get("banking"), dict):
            banking = glob["banking"]
        if stage == "deal":
            drawn += len(request.get("deliver") or [])
            if response:
                body.append((Declare, {"seat": seat, "cards": _tokens(response, "response"),
                                       "drawn": drawn}))
        elif stage == "cover":
            body.append((KittyTake, {"seat": seat, "cards": _tokens(
                request.get("deliver") or kitty_ids or [], "cover.deliver")}))
            if response is not None:
                body.append((KittyBury, {"seat": seat, "cards": _tokens(response, "response")}))
        elif stage == "play":
            tricks.note(request.get("history") or [[], [], 0, 0])
            if response is not None:
                responses.append((seat, response))
    # the plays the judge recorded (its forced play after a failed throw), matched in order
    # with what each bot answered
    seen = tricks.plays()
    for k, (seat, answered) in enumerate(responses):
        actual = seen[k][1] if k < len(seen) else list(answered)  # the last: as answered
        if sorted(answered) != sorted(actual):
            body.append((ThrowFail, {"seat": seat, "cards": _tokens(answered, "response")}))
        body.append((Play, {"seat": seat, "cards": _tokens(actual, "history")}))
        if k % 4 == 3 and k // 4 < len(tricks.completed):
            body.append((TrickEnd, {"trick": k // 4 + 1,
                                    "winner": tricks.completed[k // 4][2]}))
    banker = banking.get("banker")
    banker = banker if isinstance(banker, int) and 0 <= banker < 4 else None
    declared = any(kind is Declare for kind, _ in body)
    if not declared and banker is not None and banking.get("major"):
        major = banking["major"]
        body.insert(0, (TrumpChosen, {"trump": "NT" if major == "n" else
                                      _SUIT_TOKEN.get(major, "S"), "seat": banker}))
    header = MatchStart(
        match=match, hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor", players=4,
        decks=2, seats=[SeatInfo(seat=s, player=f"botzone-{s}", team=s % 2) for s in range(4)],
        levels=[level, level], source="botzone",
        tags={"botzone.seed": seed, "botzone.meta": json.dumps(meta, separators=(",", ":"))})
    events: list[Event] = [header,
                           HandStart(match=match, hand=1, seq=0, dealer=banker,
                                     declarer=banker, level=level, levels=[level, level],
                                     first_draw=0),
                           Deal(match=match, hand=1, seq=1, holdings=holdings, kitty=kitty)]
    for kind, fields in body:
        events.append(kind(match=match, hand=1, seq=len(events) - 1, **fields))
    return events


def _steps(log: list[Any], meta: list[list[Any]]
           ) -> Iterator[tuple[str, int, dict[str, Any], list[int] | None]]:
    """``(stage, seat, request, response)`` for each judge request and the answer to it."""
    pending: tuple[str, int, dict[str, Any]] | None = None
    for n, entry in enumerate(log):
        if not isinstance(entry, dict):
            raise MalformedRecordError(f"log[{n}]: expected an object")
        if "output" in entry:
            meta.append([n, -1, entry.get("verdict"), entry.get("time"), entry.get("memory")])
            if pending is not None:
                yield (*pending, None)
                pending = None
            output = entry["output"] or {}
            if output.get("command") != "request":
                continue
            for key, request in (output.get("content") or {}).items():
                if isinstance(request, dict) and "stage" in request:
                    pending = (request["stage"], _seat_key(key, f"log[{n}].output.content"),
                               request)
            continue
        for key, answer in entry.items():
            if not isinstance(answer, dict):
                continue
            seat = _seat_key(key, f"log[{n}]: an answer")
            meta.append([n, seat, answer.get("verdict"), answer.get("time"),
                         answer.get("memory")])
            response = answer.get("response", answer.get("content"))
            if pending is not None and seat == pending[1]:
                yield (*pending, response if isinstance(response, list) else None)
                pending = None
    if pending is not None:
        yield (*pending, None)


class _Tricks:
    """The plays as the judge recorded them, rebuilt from the ``history`` of each play request:
    ``[previous trick, current trick so far, previous trick's leader, current trick's leader]``
    (after a failed throw the judge records the forced play, not the bot's answer)."""

    def __init__(self) -> None:
        self.completed: list[tuple[int, list[list[int]], int]] = []  # leader, plays, winner
        self.leader: int | None = None
        self.current: list[list[int]] = []

    def note(self, history: list[Any]) -> None:
        if not isinstance(history, list):
            raise MalformedRecordError(f"a play request's history is not a list: {history!r}")
        previous, current, prev_leader, leader = [*history, [], [], 0, 0][:4]
        if not all(isinstance(x, list) for x in (previous, current)) or not all(
                isinstance(x, int) and 0 <= x < 4 for x in (prev_leader, leader)):
            raise MalformedRecordError(f"a play request's history is not "
                                       f"[trick, trick, seat, seat]: {history!r}")
        if not current:
            if previous and self.leader is not None:
                self.completed.append((prev_leader, [list(c) for c in previous], leader))
            self.leader, self.current = leader, []
        else:
            self.leader, self.current = leader, [list(c) for c in current]

    def plays(self) -> list[tuple[int, list[int]]]:
        out = [((lead + k) % 4, cards) for lead, plays, _ in self.completed
               for k, cards in enumerate(plays)]
        if self.leader is not None:
            out += [((self.leader + k) % 4, cards) for k, cards in enumerate(self.current)]
        return out


def write_log(hand: Hand) -> dict[str, Any]:
    """A Botzone Tractor log of one two-deck tractor hand dealt from seat 0 (the platform
    always deals so): initdata, each deal step with any declaration, the kitty, every play
    with the judge's history. Verdicts are "OK", times and memory 0."""
    deal = next((e for e in hand.events if isinstance(e, Deal)), None)
    start = hand.start
    if deal is None or start is None or (start.first_draw or 0) != 0 or deal.kitty is None:
        raise ValueError("a Botzone log needs a deal from seat 0 with its kitty")
    copies: dict[str, int] = {}

    def ids(tokens: list[str]) -> list[int]:
        out = []
        for t in tokens:
            n = copies.get(t, 0)
            out.append(id_of(t, n))
            copies[t] = n + 1
        return out

    allocation = [ids(h) for h in deal.holdings]
    publiccard = ids(deal.kitty)

    taker = next((e.seat for e in hand.events if isinstance(e, KittyTake)), start.declarer)

    def id_for(seat: int, tokens: list[str]) -> list[int]:  # the ids this seat holds
        pool = list(allocation[seat]) + (publiccard if seat == taker else [])
        out = []
        for t in tokens:
            found = next(i for i in pool if card_of(i) == t and i not in out)
            out.append(found)
        return out

    level = start.level or "2"
    banking = {"called": -1, "snatched": -1, "major": "", "banker": -1}
    log: list[dict[str, Any]] = []
    declares = [e for e in hand.events if isinstance(e, Declare)]
    for k in range(100):
        seat = k % 4
        card = allocation[seat][k // 4]
        log.append({"output": {"command": "request", "content": {str(seat): {
            "stage": "deal", "deliver": [card],
            "global": {"level": level, "banking": dict(banking)}}}}, "verdict": "OK"})
        said = [d for d in declares if d.seat == seat and (d.drawn or 100) == k + 1]
        response = id_for(seat, said[0].cards) if said else []
        if said:
            key = "called" if banking["called"] == -1 else "snatched"
            banking[key] = seat
            banking["banker"] = seat
            first = said[0].cards[0]
            banking["major"] = "n" if first in ("LJ", "BJ") else first[1].lower()
        log.append({str(seat): {"verdict": "OK", "time": 0, "memory": 0,
                                "response": response}})
    banker = taker if taker is not None else banking["banker"]
    bury = next((e for e in hand.events if isinstance(e, KittyBury)), None)
    log.append({"output": {"command": "request", "content": {str(banker): {
        "stage": "cover", "deliver": publiccard,
        "global": {"level": level, "banking": dict(banking)}}}}, "verdict": "OK"})
    log.append({str(banker): {"verdict": "OK", "time": 0, "memory": 0,
                              "response": id_for(banker, bury.cards) if bury else []}})
    previous: list[list[int]] = []
    current: list[list[int]] = []
    prev_leader = leader = banker
    attempted: dict[int, list[str]] = {}
    used: dict[int, list[int]] = {s: [] for s in range(4)}

    def take(seat: int, tokens: list[str]) -> list[int]:
        pool = [i for i in allocation[seat] + (publiccard if seat == banker else [])
                if i not in used[seat]]
        out = []
        for t in tokens:
            found = next(i for i in pool if card_of(i) == t and i not in out)
            out.append(found)
        used[seat].extend(out)
        return out

    for ev in hand.events:
        if isinstance(ev, ThrowFail):
            attempted[ev.seat] = list(ev.cards)
        elif isinstance(ev, Play):
            log.append({"output": {"command": "request", "content": {str(ev.seat): {
                "stage": "play", "history": [previous, current, prev_leader, leader],
                "global": {"level": level, "banking": dict(banking)}}}}, "verdict": "OK"})
            cards = take(ev.seat, list(ev.cards))
            if ev.seat in attempted:  # the bot answered the throw; the judge forced a part
                pool = [i for i in allocation[ev.seat] + (publiccard if ev.seat == banker
                                                          else []) if i not in used[ev.seat]]
                forced = list(cards)
                answered = []
                for t in attempted.pop(ev.seat):
                    same = next((i for i in forced if card_of(i) == t), None)
                    if same is not None:
                        forced.remove(same)
                        answered.append(same)
                    else:
                        found = next(i for i in pool if card_of(i) == t and i not in answered)
                        answered.append(found)
            else:
                answered = cards
            log.append({str(ev.seat): {"verdict": "OK", "time": 0, "memory": 0,
                                       "response": answered}})
            if not current:
                leader = ev.seat
            current = [*current, cards]
        elif isinstance(ev, TrickEnd):
            previous, current = current, []
            prev_leader, leader = leader, ev.winner
    if previous or current:
        log.append({"output": {"command": "request", "content": {str(leader): {
            "stage": "play", "history": [previous, current, prev_leader, leader],
            "global": {"level": level, "banking": dict(banking)}}}}, "verdict": "OK"})
    return {"initdata": {"allocation": allocation, "publiccard": publiccard,
                         "level": "0" if level == "T" else level, "seed": hand.match},
            "log": log}
