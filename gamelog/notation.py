"""The typed text notation: what ``shengji show`` prints, read back as a record (``.sjn``,
``.txt``). Spec and a worked example: docs/import.md.

A file is a sequence of matches and hands::

    Match club-7  ruleset tractor  4 players  2 deck(s)  format 1.2
      seat 0: Ann [p1] team 0
      starting levels: 2 / 2

    Hand 1 of match club-7
      seat 0 holds ♠A ♠K ...
      kitty ...
      events:
          0 hand level="2" levels=["2", "2"] first_draw=0
          1 deal
          2 declare seat 0 ♠2 drawn=5   # a note
          5 play seat 0 10h 10h

Cards take every spelling :func:`gamelog.parse_cards` knows; ``+N hidden`` stands for hidden
cards and ``-`` for none; other fields are ``name=JSON``; ``#`` after three spaces starts an
event's note, and a line of its own starting with ``#`` is a comment (kept as the note of the
next event that has none). Every mistake is a :class:`MalformedRecordError` naming the line and
column. Rendering and parsing are inverse: render → parse → render gives the same text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

import msgspec

from gamelog.cards import (
    UNKNOWN,
    cards_from_tokens,
    format_cards,
    parse_cards,
    sort_key_by_suit,
    tokens,
)
from gamelog.errors import CardError, MalformedRecordError, RecordError
from gamelog.model import EVENT_BY_TAG, Deal, Event, Hand, Match, MatchStart, Setup
from gamelog.safetext import visible, visible_json

NOTE = "   # "


# -- rendering ---------------------------------------------------------------------------------

def header_text(h: MatchStart, max_tag: int | None = None) -> str:
    """A match header as the notation writes it; ``max_tag``: cut longer tag values (for
    reading on a screen: the cut text no longer reads back as the record)."""
    lines = [f"Match {visible(h.match)}  ruleset {visible(h.ruleset)}  {h.players} players  "
             f"{h.decks} deck(s)  format {visible(h.version)}"]
    if h.note:
        lines.append(f"  note: {visible(h.note)}")
    if h.options:
        lines.append("  options: " + visible_json(h.options))
    for s in h.seats:
        who = " ".join(x for x in (_plain(s.name) if s.name is not None else None,
                                   f"[{_plain(s.player)}]" if s.player is not None else None)
                       if x)
        team = f" team {s.team}" if s.team is not None else ""
        lines.append(f"  seat {s.seat}: {who or '-'}{team}")
    if h.levels:
        lines.append("  starting levels: " + " / ".join(h.levels))
    if h.source:
        lines.append(f"  source: {visible(h.source)}")
    for k, v in h.tags.items():
        if max_tag is not None and len(v) > max_tag:
            v = f"{v[:max_tag]}... ({len(v):,} characters; --full shows all)"
        lines.append(f"  tag {visible_json(k)}: {visible(v)}")
    return "\n".join(lines)


_PLAIN = re.compile(r"[^\s\[\]\"]([^\[\]\"]*[^\s\[\]\"])?")


def _plain(text: str) -> str:
    """A name as written: as it is when it reads back unchanged, else as a JSON string."""
    if _PLAIN.fullmatch(text) and text != "-" and not re.search(r" team \d+$", text) and \
            visible(text) == text:
        return text
    return visible_json(text)


def cards_text(toks: list[str], style: str = "symbol", *, keep_order: bool = False) -> str:
    """Cards for reading: sorted by suit (``keep_order``: as given), hidden ones counted."""
    known = list(cards_from_tokens(t for t in toks if t != UNKNOWN))
    if not keep_order:
        known.sort(key=sort_key_by_suit)
    hidden = len(toks) - len(known)
    text = format_cards(known, style)
    if hidden:
        text = f"{text} +{hidden} hidden".strip()
    return text or "-"


def hand_text(hand: Hand, style: str = "symbol") -> str:
    """A hand as the notation writes it (a blank line first)."""
    start = hand.start
    lines = [f"\nHand {hand.number} of match {visible(hand.match)}"]
    if start is not None:
        bits = [f"{k} {v}" for k, v in (("dealer", start.dealer), ("declarer", start.declarer),
                ("level", start.level), ("first draw", start.first_draw)) if v is not None]
        if bits:
            lines[0] += "  (" + ", ".join(bits) + ")"
    # The order dealt matters where a declaration says how many cards had been dealt (then
    # the holdings are written as dealt), and for the kitty (some rules turn its cards in
    # order); otherwise holdings are sorted for reading.
    dealt = any(getattr(e, "drawn", None) is not None for e in hand.events)
    for ev in hand.events:
        if isinstance(ev, (Deal, Setup)):
            for seat, held in enumerate(ev.holdings):
                lines.append(f"  seat {seat} holds {cards_text(held, style, keep_order=dealt)}")
            if ev.kitty is not None:
                lines.append(f"  kitty {cards_text(ev.kitty, style, keep_order=True)}")
    lines.append("  events:")
    for ev in hand.events:
        lines.append(f"    {ev.seq:>3} {event_text(ev, style)}")
    for issue in hand.issues:
        lines.append(f"  ! {visible(issue)}")
    return "\n".join(lines)


def event_text(ev: Event, style: str = "symbol") -> str:
    data = msgspec.to_builtins(ev)
    kind = data.pop("type")
    for key in ("match", "hand", "seq"):
        data.pop(key, None)
    note = data.pop("note", None)
    parts = [kind]
    if "seat" in data:
        parts.append(f"seat {data.pop('seat')}")
    if "cards" in data and data["cards"] is not None:
        parts.append(cards_text(data.pop("cards"), style, keep_order=kind == "play"))
    data.pop("holdings", None)
    data.pop("kitty", None)
    for key, value in data.items():
        parts.append(f"{key}={visible_json(value)}")
    text = " ".join(parts)
    if note:
        text += f"{NOTE}{visible(note)}"
    return text


def dumps(items: Iterable[Event | Hand | Match]) -> str:
    """The notation of events, hands or matches, grouped by match as a reader groups them."""
    from gamelog.jsonl import dumps as jsonl_dumps
    from gamelog.jsonl import loads

    items = list(items)
    matches = items if all(isinstance(i, Match) for i in items) else \
        loads(jsonl_dumps(items), strict=False)
    out: list[str] = []
    for match in matches:
        out.append(header_text(match.header))  # type: ignore[union-attr]
        out.extend(hand_text(h) for h in match.hands)  # type: ignore[union-attr]
        out.append("")
    return "\n".join(out)


# -- parsing -----------------------------------------------------------------------------------

_MATCH_TAIL = re.compile(r"  ruleset (?P<ruleset>\S+)  (?P<players>\d+) players  "
                         r"(?P<decks>\d+) deck\(s\)  format (?P<version>\S+)\s*")
_HAND_HEAD = re.compile(r"Hand (?P<hand>\d+) of match ")
_SEAT = re.compile(r"  seat (?P<seat>\d+): (?P<who>.*)$")
_HOLDS = re.compile(r"  seat (?P<seat>\d+) holds (?P<cards>.*)$")
_EVENT = re.compile(r"\s+(?P<seq>\d+) (?P<type>[A-Za-z_]+)(?P<rest>.*)$")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_DECODER = json.JSONDecoder()
MAX_DIGITS = 9
"""The longest number the notation reads (hand, seq, seat, players, ...): a longer one is an
error at its column, never a huge integer."""
MAX_HIDDEN = 1000
"""The most hidden cards one ``+N hidden`` may stand for."""
MAX_SEATS = 64
"""Seats numbered 0 to 63 at most."""


def _match_line(line: str) -> dict[str, str] | None:
    """The parts of a ``Match ...`` line (the first ``  ruleset`` that the rest of the line
    fits), in linear time."""
    if not line.startswith("Match "):
        return None
    pos = line.find("  ruleset ", 7)
    while pos >= 0:
        m = _MATCH_TAIL.fullmatch(line, pos)
        if m:
            return {"match": line[6:pos], **m.groupdict()}
        pos = line.find("  ruleset ", pos + 1)
    return None


def _hand_line(line: str) -> tuple[str, str] | None:
    """``(number, match)`` of a ``Hand N of match ID  (dealer ..., ...)`` line, in linear time."""
    m = _HAND_HEAD.match(line)
    if m is None:
        return None
    rest = line[m.end():].rstrip()
    if rest.endswith(")"):
        cut = rest.find("  (")
        if cut > 0:
            rest = rest[:cut]
    return (m.group("hand"), rest) if rest else None


def _number(digits: str, column: int, what: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise _Error(f"the {what} {digits[:12]}... has {len(digits):,} digits (at most "
                     f"{MAX_DIGITS})", column, f"$.{what.replace(' ', '_')}")
    return int(digits)


def _json_value(text: str, pos: int) -> tuple[Any, int]:
    """A JSON value at ``pos``: its value and end; a ValueError, also for nesting too deep or
    a number too long."""
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise ValueError("nested too deeply") from None


class _Error(Exception):
    def __init__(self, message: str, column: int, field: str | None = None) -> None:
        super().__init__(message)
        self.message, self.column, self.field = message, column, field


def _cards(text: str, column: int) -> list[str]:
    """Card tokens of notation text: spellings, ``+N hidden``, or ``-``."""
    text = text.strip()
    if text in ("", "-"):
        return []
    hidden = 0
    m = re.search(r"\+(\d+) hidden$", text)
    if m:
        hidden = _number(m.group(1), column, "hidden count")
        if hidden > MAX_HIDDEN:
            raise _Error(f"+{hidden} hidden: at most {MAX_HIDDEN} hidden cards", column,
                         "$.cards")
        text = text[: m.start()].strip()
    try:
        known = tokens(parse_cards(text)) if text else []
    except CardError as err:
        raise _Error(f"not a card: {err}", column, "$.cards") from None
    return [*known, *[UNKNOWN] * hidden]


def _fields(rest: str, column: int) -> tuple[str, dict[str, Any]]:
    """Split what follows an event's type into its cards text and its ``name=JSON`` fields."""
    m = _KEY.search(rest)
    while m is not None and not (m.start() == 0 or rest[m.start() - 1] == " "):
        m = _KEY.search(rest, m.end())
    cards_part = rest if m is None else rest[: m.start()]
    fields: dict[str, Any] = {}
    pos = None if m is None else m.start()
    while pos is not None and pos < len(rest):
        km = _KEY.match(rest, pos)
        if km is None:
            raise _Error("expected name=value", column + pos)
        try:
            value, end = _json_value(rest, km.end())
        except ValueError as exc:
            raise _Error(f"the value of {km.group(1)} is not JSON "
                         f"({getattr(exc, 'msg', None) or exc})",
                         column + km.end(), f"$.{km.group(1)}") from None
        fields[km.group(1)] = value
        pos = end
        while pos < len(rest) and rest[pos] in ", ":
            pos += 1
    return cards_part, fields


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a notation text given as a string."""
    return enumerate(text.splitlines(), 1)


def file_lines(stream: IO[bytes], source: str) -> Iterator[tuple[int, str | RecordError]]:
    """``(line number, line or error)`` of a notation file, streamed: a line that is not
    UTF-8, or longer than :data:`gamelog.jsonl.MAX_LINE_BYTES`, is an error at that line and
    the other lines are read."""
    from gamelog.jsonl import MAX_LINE_BYTES, OversizedLine, numbered_lines

    for number, raw in numbered_lines(stream, source):
        if type(raw) is OversizedLine:
            yield number, MalformedRecordError(
                f"line of {int(raw):,} bytes is longer than the {MAX_LINE_BYTES >> 20} MiB "
                "limit; skipped")
            continue
        try:
            yield number, raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as err:
            yield number, MalformedRecordError(
                f"invalid UTF-8 at byte {err.start} of the line (byte 0x{raw[err.start]:02x}); "
                "the line is skipped")


MAX_COMMENT_LINES = 1000
"""Comment lines kept as one event's note; more are dropped (a hostile file cannot grow one
note without bound)."""


def iter_items(text: str | Iterable[tuple[int, str | RecordError]], decoder: Any = None
               ) -> Iterator[tuple[int, Event | RecordError]]:
    """``(line number, event or error)`` for a notation text (a string, or numbered lines as
    :func:`file_lines` gives them), headers and hands in order."""
    match: str | None = None
    header: dict[str, Any] | None = None
    header_line = 0
    hand: int | None = None
    holdings: dict[int, list[str]] = {}
    kitty: list[str] | None = None
    comment: list[str] = []

    def flush_header() -> Iterator[tuple[int, Event | RecordError]]:
        nonlocal header
        if header is not None:
            try:
                yield header_line, msgspec.convert(header, MatchStart)
            except msgspec.ValidationError as exc:
                yield header_line, MalformedRecordError(f"header: {exc}")
            header = None

    lines = text_lines(text) if isinstance(text, str) else text
    for number, line in lines:
        if isinstance(line, RecordError):
            yield number, line
            continue
        try:
            if not line.strip():
                continue
            stripped = line.lstrip()
            if stripped.startswith("#"):
                if len(comment) < MAX_COMMENT_LINES:
                    comment.append(stripped[1:].strip())
                continue
            if stripped.startswith("! "):  # a problem shown by `show`: not part of the record
                continue
            parts = _match_line(line)
            if parts is not None:
                yield from flush_header()
                match, hand = parts["match"], None
                header = {"type": "match", "match": match, "hand": 0, "seq": 0,
                          "version": parts["version"], "ruleset": parts["ruleset"],
                          "players": _number(parts["players"], 1, "players"),
                          "decks": _number(parts["decks"], 1, "decks"),
                          "seats": [], "tags": {}}
                header_line = number
                continue
            found = _hand_line(line)
            if found is not None:
                yield from flush_header()
                match, hand = found[1], _number(found[0], 6, "hand number")
                holdings, kitty = {}, None
                continue
            if header is not None and hand is None:
                _header_line(header, line)
                continue
            if hand is None or match is None:
                raise _Error("expected a 'Match ...' or 'Hand ...' line first", 1)
            m = _HOLDS.match(line)
            if m:
                seat = _number(m.group("seat"), m.start("seat") + 1, "seat")
                if seat >= MAX_SEATS:
                    raise _Error(f"seat {seat}: seats are numbered 0 to {MAX_SEATS - 1}",
                                 m.start("seat") + 1, "$.holdings")
                holdings[seat] = _cards(m.group("cards"), m.start("cards") + 1)
                continue
            if stripped.startswith("kitty "):
                kitty = _cards(stripped[len("kitty "):], line.index("kitty ") + 7)
                continue
            if stripped == "events:":
                continue
            m = _EVENT.match(line)
            if not m:
                raise _Error("not an event line ('SEQ TYPE ...')", len(line) - len(stripped) + 1)
            yield number, _event(m, match, hand, holdings, kitty, comment)
            comment = []
        except _Error as err:
            yield number, MalformedRecordError(f"column {err.column}: {err.message}",
                                               field=err.field)
    yield from flush_header()


def _header_line(header: dict[str, Any], line: str) -> None:
    body = line[2:] if line.startswith("  ") else line.lstrip()
    m = _SEAT.match(line)
    if m:
        seat = _number(m.group("seat"), m.start("seat") + 1, "seat")
        if seat >= MAX_SEATS:
            raise _Error(f"seat {seat}: seats are numbered 0 to {MAX_SEATS - 1}",
                         m.start("seat") + 1, "$.seats")
        header["seats"].append(_seat(seat, m.group("who"), m.start("who") + 1))
    elif body.startswith("options: "):
        try:
            options, end = _json_value(body, len("options: "))
            if body[end:].strip():
                raise ValueError("text after the object")
        except ValueError as exc:
            raise _Error(f"options are not a JSON object ({exc})", 12, "$.options") from None
        if not isinstance(options, dict):
            raise _Error("options are not a JSON object", 12, "$.options")
        header["options"] = options
    elif body.startswith("starting levels: "):
        header["levels"] = [x.strip() for x in body[len("starting levels: "):].split("/")]
    elif body.startswith("source: "):
        header["source"] = body[len("source: "):]
    elif body.startswith("note: "):
        header["note"] = body[len("note: "):]
    elif body.startswith("tag "):
        try:
            key, end = _json_value(body, 4)
        except ValueError:
            key, end = None, 0
        if not isinstance(key, str) or body[end:end + 2] != ": ":
            raise _Error('a tag is written tag "NAME": VALUE', 7, "$.tags")
        header["tags"][key] = body[end + 2:]
    else:
        raise _Error("not a header line (seat, options, starting levels, source, note, tag)",
                     len(line) - len(line.lstrip()) + 1)


def _seat(number: int, who: str, column: int) -> dict[str, Any]:
    """``NAME [PLAYER] team T`` (each part optional, ``-`` for none; a part that would not read
    back plainly is a JSON string)."""
    seat: dict[str, Any] = {"seat": number}
    tm = re.search(r"(?:^| )team (\d+)$", who)
    if tm:
        seat["team"] = _number(tm.group(1), column + tm.start(1), "team")
        who = who[: tm.start()]
    if who == "-":
        return seat

    def part(text: str, pos: int) -> tuple[str, int]:
        if text.startswith('"', pos):
            try:
                value, end = _json_value(text, pos)
            except ValueError as exc:
                raise _Error(f"a quoted name is not a JSON string "
                             f"({getattr(exc, 'msg', None) or exc})",
                             column + pos) from None
            return str(value), end
        end = text.find(" [", pos)
        end = len(text) if end < 0 else end
        if text.startswith("[", pos):
            end = pos
        return text[pos:end], end

    pos = 0
    if not who.startswith("["):
        name, pos = part(who, 0)
        seat["name"] = name
        if who.startswith(" ", pos):
            pos += 1
    if who.startswith("[", pos) and who.endswith("]"):
        inner = who[pos + 1:-1]
        player, _ = part(inner, 0) if inner.startswith('"') else (inner, 0)
        seat["player"] = player
    elif pos < len(who):
        raise _Error("expected NAME [PLAYER] team T", column + pos, "$.seats")
    return seat


def _event(m: re.Match[str], match: str, hand: int, holdings: dict[int, list[str]],
           kitty: list[str] | None, comment: list[str]) -> Event | RecordError:
    kind = m.group("type")
    cls = EVENT_BY_TAG.get(kind)
    if cls is None:
        import difflib

        near = difflib.get_close_matches(kind.lower(), list(EVENT_BY_TAG), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise _Error(f"unknown event type {kind!r}{hint}", m.start("type") + 1, "$.type")
    rest = m.group("rest")
    note = None
    if NOTE in rest:
        rest, note = rest.split(NOTE, 1)
    rest_col = m.start("rest") + 1
    body = rest.strip()
    data: dict[str, Any] = {"type": kind, "match": match, "hand": hand,
                            "seq": _number(m.group("seq"), m.start("seq") + 1, "seq")}
    sm = re.match(r"seat (\d+)\s*", body)
    if sm and "seat" in cls.__struct_fields__:
        data["seat"] = _number(sm.group(1), rest_col, "seat")
        body = body[sm.end():]
    cards_part, fields = _fields(body, rest_col)
    if "cards" in cls.__struct_fields__ and cards_part.strip():
        data["cards"] = _cards(cards_part, rest_col)
    elif cards_part.strip():
        raise _Error(f"unexpected text {cards_part.strip()!r}", rest_col)
    data.update(fields)
    if cls in (Deal, Setup):
        data["holdings"] = [holdings.get(s, []) for s in range(max(holdings, default=-1) + 1)]
        if kitty is not None:
            data["kitty"] = kitty
    if note is not None:
        data["note"] = note
    elif comment:
        data["note"] = " ".join(comment)
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as exc:
        from gamelog.reader import explain_validation

        message, path = explain_validation(exc)
        raise _Error(message, rest_col, path) from None


__all__ = ["dumps", "event_text", "file_lines", "hand_text", "header_text", "iter_items",
           "text_lines"]
