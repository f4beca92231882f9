"""Turning decoded lines or rows into hands, the one code path behind every reader.

Each format yields ``(place, event-or-error)`` pairs; :class:`HandAssembler` groups them into
:class:`~gamelog.model.Hand` objects in constant memory, checks the match / hand / sequence
structure and collects (or, in strict mode, raises) every problem with its file, line or row
and field.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from gamelog.cards import suggest_token
from gamelog.errors import MalformedRecordError, RecordError, UnsupportedVersionError
from gamelog.model import (
    EVENT_BY_TAG,
    EVENT_TYPES,
    FORMAT_VERSION,
    AnyEvent,
    Event,
    Hand,
    HandStart,
    MatchStart,
)

SUPPORTED_MAJOR = int(FORMAT_VERSION.split(".")[0])
SUPPORTED_MINOR = int(FORMAT_VERSION.split(".")[1])


class RecordWarning(RecordError):
    """A problem that loses nothing a reader of this version understands (e.g. an event type
    from a newer minor version, skipped)."""


def check_version(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a header's version; raises if the major is not supported."""
    m = re.fullmatch(r"(\d+)\.(\d+)", version)
    if not m:
        raise MalformedRecordError(
            f"version {version!r} is not MAJOR.MINOR (this reader writes {FORMAT_VERSION})",
            field="$.version",
        )
    major, minor = int(m.group(1)), int(m.group(2))
    if major != SUPPORTED_MAJOR:
        raise UnsupportedVersionError(
            f"format version {version} is not supported: this reader reads {SUPPORTED_MAJOR}.x",
            field="$.version",
        )
    return major, minor


_AT = re.compile(r"^(.*?)(?: - at `(\$[^`]*)`)?$", re.S)
_CARD_FIELDS = ("cards", "holdings", "kitty")


def explain_validation(exc: msgspec.ValidationError) -> tuple[str, str | None]:
    """A msgspec validation message as ``(plain message, field path)``."""
    text = str(exc)
    m = _AT.match(text)
    message, path = (m.group(1), m.group(2)) if m else (text, None)
    unknown = re.match(r"Object contains unknown field `([^`]*)`", message)
    if unknown:
        return f"unknown field {unknown.group(1)!r}", _join(path, unknown.group(1))
    missing = re.match(r"Object missing required field `([^`]*)`", message)
    if missing:
        return f"missing required field {missing.group(1)!r}", _join(path, missing.group(1))
    bad = re.match(r"Invalid enum value (.*)", message)
    if bad and path:
        value = bad.group(1)
        if any(part in path for part in _CARD_FIELDS):
            raw = value.strip("'\"")
            hint = suggest_token(raw)
            tail = f"; write it as {hint!r}" if hint else " (cards are written like 'AS', 'TH', 'BJ')"
            return f"unknown card {value}{tail}", path
        if path == "$.type":
            return f"unknown event type {value}", path
        return f"invalid value {value}", path
    if path == "$.type":
        return f"unknown event type ({message})", path
    wrong = re.match(r"Expected `([^`]*)`, got `([^`]*)`", message)
    if wrong:
        return f"wrong type: expected {wrong.group(1)}, got {wrong.group(2)}", path
    return message, path


def _join(path: str | None, name: str) -> str:
    return f"{path or '$'}.{name}"


class EventDecoder:
    """Decodes JSON lines or row dicts into events, knowing each match's format version.

    Records of the current or an older minor version are decoded strictly. For a newer minor
    version of the same major, unknown fields are dropped and unknown event types are skipped
    with a warning, as docs/format.md promises.
    """

    def __init__(self) -> None:
        self._json = msgspec.json.Decoder(AnyEvent)
        self.fast_decode = self._json.decode
        """Strict decoding of one line; raises msgspec's own errors (callers fall back to
        :meth:`decode_line` for the lenient path and a precise message)."""
        self._generic = msgspec.json.Decoder()
        self.newer_minor: set[str] = set()
        self.unsupported: set[str] = set()

    def note_header(self, header: MatchStart) -> None:
        _, minor = check_version(header.version)
        if minor > SUPPORTED_MINOR:
            self.newer_minor.add(header.match)

    def decode_line(self, line: bytes) -> Event:
        try:
            return self._json.decode(line)
        except msgspec.ValidationError as exc:
            data = self._try_generic(line)
            if self._is_newer(data):
                return self._lenient(data)
            message, path = explain_validation(exc)
            raise MalformedRecordError(message, field=path) from None
        except msgspec.DecodeError as exc:
            raise MalformedRecordError(_explain_decode(line, exc)) from None

    def decode_dict(self, data: dict[str, Any]) -> Event:
        try:
            return msgspec.convert(data, AnyEvent)
        except msgspec.ValidationError as exc:
            if self._is_newer(data):
                return self._lenient(data)
            message, path = explain_validation(exc)
            raise MalformedRecordError(message, field=path) from None

    def _is_newer(self, data: Any) -> bool:
        """Whether ``data`` belongs to a match written by a newer minor version."""
        if not isinstance(data, dict):
            return False
        if data.get("type") == "match" and isinstance(data.get("version"), str):
            m = re.fullmatch(r"(\d+)\.(\d+)", data["version"])
            if m and int(m.group(1)) == SUPPORTED_MAJOR and int(m.group(2)) > SUPPORTED_MINOR:
                self.newer_minor.add(data.get("match"))  # type: ignore[arg-type]
        return data.get("match") in self.newer_minor

    def _try_generic(self, line: bytes) -> Any:
        try:
            return self._generic.decode(line)
        except msgspec.DecodeError:
            return None

    def _lenient(self, data: dict[str, Any]) -> Event:
        kind = EVENT_BY_TAG.get(data.get("type"))  # type: ignore[arg-type]
        if kind is None:
            raise RecordWarning(
                f"event type {data.get('type')!r} from a newer minor version skipped",
                field="$.type",
            )
        known = set(kind.__struct_fields__) | {"type"}
        try:
            return msgspec.convert({k: v for k, v in data.items() if k in known}, AnyEvent)
        except msgspec.ValidationError as exc:
            message, path = explain_validation(exc)
            raise MalformedRecordError(message, field=path) from None


def _explain_decode(line: bytes, exc: msgspec.DecodeError) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"invalid UTF-8 at byte {err.start} of the line"
    text = str(exc)
    if "truncated" in text:
        return "the line ends in the middle of a JSON object (truncated)"
    return f"not valid JSON ({text.removeprefix('JSON is malformed: ')})"


Item = tuple[int, "Event | RecordError"]


class HeaderStore:
    """Every match header seen so far, by match id, in bounded memory: the most recently used
    ones as objects (hands of one match share it), the rest as compact MessagePack that is
    decoded again if a later hand of that match turns up. A file of a million hands in fifty
    thousand matches keeps about 0.3 KB per match instead of a few KB."""

    _ENCODE = msgspec.msgpack.Encoder()
    _DECODE = msgspec.msgpack.Decoder(MatchStart)

    def __init__(self, live: int = 1024) -> None:
        self._live: OrderedDict[str, MatchStart] = OrderedDict()
        self._archived: dict[str, bytes] = {}
        self._limit = live

    def get(self, match: str) -> MatchStart | None:
        header = self._live.get(match)
        if header is not None:
            self._live.move_to_end(match)
            return header
        packed = self._archived.pop(match, None)
        if packed is None:
            return None
        header = self._DECODE.decode(packed)
        self[match] = header
        return header

    def __setitem__(self, match: str, header: MatchStart) -> None:
        self._archived.pop(match, None)
        self._live[match] = header
        self._live.move_to_end(match)
        while len(self._live) > self._limit:
            old, evicted = self._live.popitem(last=False)
            self._archived[old] = self._ENCODE.encode(evicted)

    def __contains__(self, match: object) -> bool:
        return match in self._live or match in self._archived

    def __len__(self) -> int:
        return len(self._live) + len(self._archived)


class EventRun(list):  # type: ignore[type-arg]
    """Events of one hand that a reader has already checked (vectorised) to be plain events
    (neither a header nor a hand start) of one match and hand with consecutive sequence
    numbers. Fed as ``(place of the first, run)``, it extends the current hand in one step when
    it continues it, and is taken one event at a time otherwise."""

    __slots__ = ()


_PLAIN_EVENTS = frozenset(t for t in EVENT_TYPES if t not in (MatchStart, HandStart))


class HandAssembler:
    """Groups events into hands and checks the record's structure.

    ``place_kind`` is ``"line"`` (1-based JSON Lines line) or ``"row"`` (0-based Parquet row).
    """

    def __init__(self, source: str, place_kind: str, *, strict: bool, decoder: EventDecoder,
                 headers: HeaderStore | dict[str, MatchStart] | None = None) -> None:
        self.source = source
        self.place_kind = place_kind
        self.strict = strict
        self.decoder = decoder
        self.headers: HeaderStore | dict[str, MatchStart] = (
            headers if headers is not None else HeaderStore())
        self.issues: list[RecordError] = []
        self._last_hand: dict[str, int] = {}
        self._current: Hand | None = None
        self._next_seq = 0
        self._bad_run = 0  # undecodable lines just before this one (they explain a gap)

    # -- problems -----------------------------------------------------------------------------

    def _locate(self, err: RecordError, place: int) -> RecordError:
        err.source = self.source
        if self.place_kind == "line":
            err.line = place
        else:
            err.row = place
        err.args = (str(err),)
        return err

    def _problem(self, err: RecordError, place: int, hand: Hand | None) -> None:
        err = self._locate(err, place)
        if self.strict and not isinstance(err, RecordWarning):
            raise err
        self.issues.append(err)
        if hand is not None:
            hand.issues.append(err)

    # -- grouping -----------------------------------------------------------------------------

    def feed(self, items: Iterable[Item | tuple[int, EventRun]], *, with_headers: bool = False
             ) -> Iterator[Hand | MatchStart]:
        """Hands in file order; with ``with_headers`` also each new match header where it
        stands (for converters, which must write every line back)."""
        yield from self._feed(items, with_headers)
        if self._current is not None:
            last, self._current = self._current, None
            yield last

    def _feed(self, items: Iterable[Item | tuple[int, EventRun]], with_headers: bool
              ) -> Iterator[Hand | MatchStart]:
        plain = _PLAIN_EVENTS
        for place, item in items:
            if type(item) is EventRun:  # events known to follow one another (Parquet)
                cur = self._current
                first = item[0]
                if (cur is not None and first.seq == self._next_seq and first.hand == cur.number
                        and first.match == cur.match):
                    cur.events.extend(item)
                    self._next_seq += len(item)
                    self._bad_run = 0
                else:  # not the continuation of the current hand: one at a time
                    yield from self._feed(enumerate(item, place), with_headers)
                continue
            # Fast path: the next event of the current hand, in sequence.
            cur = self._current
            if (cur is not None and type(item) in plain and item.seq == self._next_seq
                    and item.hand == cur.number and item.match == cur.match):
                cur.events.append(item)
                self._next_seq += 1
                self._bad_run = 0
                continue
            if isinstance(item, RecordError):
                self._problem(item, place, self._current)
                self._bad_run += not isinstance(item, RecordWarning)
                continue
            if isinstance(item, MatchStart):
                if self._current is not None:
                    done, self._current = self._current, None
                    yield done
                if self._header(place, item) and with_headers:
                    yield item
                continue
            done = self._add(place, item)
            self._bad_run = 0
            if done is not None:
                yield done

    def _add(self, place: int, ev: Event) -> Hand | None:
        if ev.match in self.decoder.unsupported:
            return None
        cur = self._current
        finished = None
        if cur is None or cur.match != ev.match or cur.number != ev.hand:
            finished = cur
            cur = self._start_hand(place, ev)
        self._sequence(place, ev, cur)
        return finished

    def _header(self, place: int, ev: MatchStart) -> bool:
        """Record a header; ``True`` when it is new (not a repeat of a known one)."""
        if ev.hand != 0 or ev.seq != 0:
            self._problem(MalformedRecordError(
                f"a match header must have hand 0 and seq 0, not hand {ev.hand} seq {ev.seq}",
                field="$.hand"), place, None)
        try:
            self.decoder.note_header(ev)
        except RecordError as err:
            if isinstance(err, UnsupportedVersionError):
                self.decoder.unsupported.add(ev.match)
            self._problem(err, place, None)
            return False
        known = self.headers.get(ev.match)
        if known is not None:
            if known != ev:
                self._problem(MalformedRecordError(
                    f"a second, different header for match {ev.match!r}", field="$.match"),
                    place, None)
            return False
        self.headers[ev.match] = ev
        return True

    def _start_hand(self, place: int, ev: Event) -> Hand:
        header = self.headers.get(ev.match)
        hand = Hand(match=ev.match, number=ev.hand, events=[], header=header,
                    source=self.source, first_line=place)
        self._current = hand
        self._next_seq = 0
        if header is None:
            self._problem(MalformedRecordError(
                f"no header line for match {ev.match!r} before its hand {ev.hand}",
                field="$.match"), place, hand)
        if ev.hand < 1:
            self._problem(MalformedRecordError(
                f"hand numbers start at 1 (0 is the match header), got {ev.hand}",
                field="$.hand"), place, hand)
        last = self._last_hand.get(ev.match)
        if last is not None and ev.hand <= last:
            what = "appears again" if ev.hand == last else f"comes after hand {last}"
            self._problem(MalformedRecordError(
                f"hand {ev.hand} of match {ev.match!r} {what}: a hand's lines must be "
                "contiguous and hands in increasing order", field="$.hand"), place, hand)
        self._last_hand[ev.match] = max(ev.hand, last or 0)
        return hand

    def _sequence(self, place: int, ev: Event, hand: Hand) -> None:
        seq = ev.seq
        if seq < self._next_seq and any(e.seq == seq for e in hand.events):
            self._problem(MalformedRecordError(
                f"duplicate sequence number {seq} in hand {hand.number}; the line is skipped",
                field="$.seq"), place, hand)
            return
        if seq < self._next_seq:
            self._problem(MalformedRecordError(
                f"sequence number {seq} out of order (after {self._next_seq - 1}) "
                f"in hand {hand.number}", field="$.seq"), place, hand)
        elif seq > self._next_seq + self._bad_run:
            gap = seq - self._next_seq
            self._problem(MalformedRecordError(
                f"sequence number jumps from {self._next_seq - 1} to {seq} in hand "
                f"{hand.number}: {gap} event(s) missing", field="$.seq"), place, hand)
        if not hand.events and not isinstance(ev, HandStart):
            self._problem(MalformedRecordError(
                f"hand {hand.number} must begin with a 'hand' event, not {type(ev).__name__}",
                field="$.type"), place, hand)
        elif hand.events and isinstance(ev, HandStart):
            self._problem(MalformedRecordError(
                f"a second 'hand' event inside hand {hand.number}", field="$.type"), place, hand)
        self._next_seq = max(self._next_seq, seq + 1)
        hand.events.append(ev)
