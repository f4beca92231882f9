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
from typing import Any, get_args, get_origin

import msgspec

from gamelog.cards import suggest_token
from gamelog.errors import (
    FileReadError,
    GamelogIOError,
    MalformedRecordError,
    RecordError,
    UnsupportedVersionError,
)
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


MAX_ISSUES_PER_FILE = 1000
"""Problems kept per file (and per hand, :data:`MAX_ISSUES_PER_HAND`); past that they are
counted and summed up in one last problem, so a hostile file cannot exhaust memory."""
MAX_ISSUES_PER_HAND = 100


class RecordWarning(RecordError):
    """A problem that loses nothing a reader of this version understands (e.g. an event type
    from a newer minor version, skipped)."""


_VERSION = re.compile(r"(\d{1,6})\.(\d{1,6})")


def check_version(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a header's version; raises if the major is not supported."""
    m = _VERSION.fullmatch(version)
    if not m:
        shown = version if len(version) <= 40 else f"{version[:37]}..."
        raise MalformedRecordError(
            f"version {shown!r} is not MAJOR.MINOR, each at most 6 digits (this reader writes "
            f"{FORMAT_VERSION})",
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
    bound = re.match(r"Expected `(?:int|float)` ([<>]=?) (-?\d+)", message)
    if bound:
        what = "at most" if bound.group(1).startswith("<") else "at least"
        return f"number out of range: {what} {bound.group(2)}", path
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
        self.fast_decode_lines = self._json.decode_lines
        """The same for a block of lines at once (:func:`gamelog.jsonl.canonical_block`)."""
        self._generic = msgspec.json.Decoder()
        self.newer_minor: set[str] = set()
        self.unsupported: set[str] = set()

    def note_header(self, header: MatchStart) -> None:
        _, minor = check_version(header.version)
        if minor > SUPPORTED_MINOR:
            self.newer_minor.add(header.match)

    def decode_line(self, line: bytes) -> Event:
        try:
            event = self._json.decode(line)
        except msgspec.ValidationError as exc:
            data = self._try_generic(line)
            if self._is_newer(data):
                return self._lenient(data)
            message, path = explain_validation(exc)
            raise MalformedRecordError(message, field=path) from None
        except msgspec.DecodeError as exc:
            raise MalformedRecordError(_explain_decode(line, exc)) from None
        except RecursionError:
            raise MalformedRecordError("JSON nested too deeply (no event nests more than a few "
                                       "levels)") from None
        if not keys_add_up(line, event) and has_duplicate_keys(line):
            raise duplicate_key_error()
        return event

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
        match = data.get("match")
        if not isinstance(match, str):
            return False
        if data.get("type") == "match" and isinstance(data.get("version"), str):
            m = _VERSION.fullmatch(data["version"])
            if m and int(m.group(1)) == SUPPORTED_MAJOR and int(m.group(2)) > SUPPORTED_MINOR:
                self.newer_minor.add(match)
        return match in self.newer_minor

    def _try_generic(self, line: bytes) -> Any:
        try:
            return self._generic.decode(line)
        except (msgspec.DecodeError, RecursionError):
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


_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _explain_decode(line: bytes, exc: msgspec.DecodeError) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"invalid UTF-8 at byte {err.start} of the line"
    text = str(exc)
    if "truncated" in text:
        if _LONE_SURROGATE.search(line):
            return ("a \\u escape names half of a UTF-16 surrogate pair (\\ud800-\\udfff) "
                    "with no other half: not a character")
        return "the line ends in the middle of a JSON object (truncated)"
    return f"not valid JSON ({text.removeprefix('JSON is malformed: ')})"


def _key_counter(kind: type[Event]) -> Any:
    """``f(event)``: how many keys a line of this event type must have held, given the fields
    that are not at their default (``None`` for a type with nested objects, whose keys cannot be
    counted from the event alone). Generated per type, for speed."""
    fields = _flat_fields(kind)
    if fields is None:
        return None
    required = 1 + sum(f.required for f in fields)  # "type" and the required fields
    terms = [f"(ev.{f.name} != _d{i})" if f.default is not None else f"(ev.{f.name} is not None)"
             for i, f in enumerate(fields) if not f.required]
    env = {f"_d{i}": f.default for i, f in enumerate(fields) if not f.required}
    exec(f"def count(ev): return {' + '.join([str(required), *terms])}", env)
    return env["count"]


def _flat_fields(kind: Any) -> tuple[Any, ...] | None:
    """The fields of an event type, or ``None`` when one of them can hold a nested object (a
    struct or a mapping, whose keys a line also counts)."""
    fields = msgspec.structs.fields(kind)
    return None if any(_nested(f.type) for f in fields) else fields


def _nested(t: Any) -> bool:
    if get_origin(t) is dict or (isinstance(t, type) and issubclass(t, (msgspec.Struct, dict))):
        return True
    return any(_nested(a) for a in get_args(t))


class _KeyCounters(dict):  # type: ignore[type-arg]
    """Event type -> its :func:`_key_counter`, made on first use (generating them all costs
    start-up time that a clean file never needs)."""

    def __missing__(self, kind: type[Event]) -> Any:
        count = self[kind] = _key_counter(kind)
        return count


KEY_COUNT: dict[type, Any] = _KeyCounters()
"""Event type -> the number of keys its line holds (see :func:`keys_add_up`)."""


class _KeyBases(dict):  # type: ignore[type-arg]
    """Event type -> the keys every line of it holds (``type`` and the required fields), or
    ``None`` for a type with nested objects; made on first use, like :data:`KEY_COUNT`."""

    def __missing__(self, kind: Any) -> int | None:
        fields = _flat_fields(kind)
        base = self[kind] = None if fields is None else 1 + sum(f.required for f in fields)
        return base


KEY_BASE: dict[type, int | None] = _KeyBases()
"""Event type -> the keys every line of it holds (``type`` and the required fields): a line
with exactly that many colons holds no key twice, the hot loop's whole check."""


def has_duplicate_keys(line: bytes) -> bool:
    """Whether a JSON line has a key twice in one object (exact, slow: for lines the quick
    count of :func:`keys_add_up` could not settle)."""
    found = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        out = dict(items)
        found = found or len(out) != len(items)
        return out

    import json  # the slow path only

    try:
        json.loads(line, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return False
    return found


def keys_add_up(line: bytes, ev: Event) -> bool:
    """The quick check that a decoded line held no key twice (JSON lets a parser keep the last
    of two, silently): every key brings a colon, so a line with exactly as many colons as the
    event has keys has none twice. ``False`` means "not sure" (a colon inside a string, a key
    given its default value, a colon inside a string): check with :func:`has_duplicate_keys`."""
    count = KEY_COUNT[type(ev)]
    if count is None:
        return False
    n = count(ev)
    return line.count(b":") == n or quote_colons_add_up(line, n)


def quote_colons_add_up(line: bytes, keys: int) -> bool:
    """The second quick check, for lines with colons inside strings (a match id
    ``"club:7"``): exactly ``keys`` times ``":``, and no whitespace after a closing quote (which
    could hide a key written ``"seat" : 1``)."""
    return (line.count(b'":') == keys and b'" ' not in line and b'"\t' not in line
            and b'"\r' not in line)


def duplicate_key_error() -> MalformedRecordError:
    return MalformedRecordError(
        "a key appears twice in one JSON object; which value counts is not defined, so the "
        "line is rejected")


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


def duplicate_message(match: str, hands: int, first: str) -> str:
    """The warning for hands read before from another file."""
    return (f"{hands} hand(s) of match {match!r} from here on were already read from {first}: "
            "the same hands twice, counted once (these copies skipped)")


class HandsSeen:
    """Which hands of which matches have been read, and from which file, in little memory
    (per match, runs of consecutive hand numbers): so that the same hand read twice (the same
    records in two files) is counted once."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[str, list[list[int]]]] = {}

    def first_source(self, match: str, hand: int, source: str) -> str | None:
        """Note ``hand`` of ``match`` as read from ``source``; if it was read before from
        another file, return that file (and note nothing)."""
        entry = self._runs.get(match)
        if entry is None:
            self._runs[match] = (source, [[hand, hand]])
            return None
        first, runs = entry
        for run in runs:
            if run[0] <= hand <= run[1]:
                return first if first != source else None
        last = runs[-1]
        if hand == last[1] + 1:
            last[1] = hand
        else:
            runs.append([hand, hand])
        return None


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
                 headers: HeaderStore | dict[str, MatchStart] | None = None,
                 seen: HandsSeen | None = None) -> None:
        self.seen = seen
        self._headerless: set[str] = set()  # matches whose missing header was reported
        self._untold = 0  # problems past MAX_ISSUES_PER_FILE, counted only
        self._untold_errors = 0
        self._duplicates: dict[str, list[Any]] = {}  # match -> [first place, hands, other file]
        self._skipping: tuple[str, int] | None = None  # a hand read before from another file
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

    def file_problem(self, exc: Exception) -> None:
        """A problem with the whole file (it cannot be opened or read on)."""
        err = exc if isinstance(exc, RecordError) else FileReadError.of(exc, self.source)
        if self.strict:
            raise err
        self.issues.append(err)

    def _locate(self, err: RecordError, place: int | None) -> RecordError:
        if isinstance(err, FileReadError):  # a problem of the whole file, not of a line
            err.source = self.source
            err.args = (str(err),)
            return err
        err.source = self.source
        if self.place_kind == "line":
            err.line = place
        else:
            err.row = place
        err.args = (str(err),)
        return err

    def _problem(self, err: RecordError, place: int | None, hand: Hand | None) -> None:
        err = self._locate(err, place)
        if self.strict and not isinstance(err, RecordWarning):
            raise err
        if len(self.issues) >= MAX_ISSUES_PER_FILE:  # a hostile file: count, do not keep
            self._untold += 1
            self._untold_errors += not isinstance(err, RecordWarning)
        else:
            self.issues.append(err)
        if hand is not None:
            if len(hand.issues) < MAX_ISSUES_PER_HAND:
                hand.issues.append(err)
            elif not isinstance(err, RecordWarning) and not any(
                    not isinstance(i, RecordWarning) for i in hand.issues):
                hand.issues[-1] = err  # keep the hand marked bad

    # -- grouping -----------------------------------------------------------------------------

    def feed(self, items: Iterable[Item | tuple[int, EventRun]], *, with_headers: bool = False
             ) -> Iterator[Hand | MatchStart]:
        """Hands in file order; with ``with_headers`` also each new match header where it
        stands (for converters, which must write every line back).

        A failure to read on (a truncated or corrupt file: a :class:`GamelogIOError` from
        ``items``) ends the file with a :class:`FileReadError` problem, keeping the hands read
        so far (raised as it is in strict mode)."""
        try:
            yield from self._feed(items, with_headers)
        except GamelogIOError as exc:
            if self.strict:
                raise
            self._problem(FileReadError.of(exc, self.source), None, self._current)
        if self._current is not None:
            last, self._current = self._current, None
            yield last
        for match, (place, count, first) in self._duplicates.items():
            self._problem(RecordWarning(duplicate_message(match, count, first), field="$.hand"),
                          place, None)
        self._duplicates.clear()
        if self._untold:
            kind = MalformedRecordError if self._untold_errors else RecordWarning
            self.issues.append(kind(
                f"and {self._untold:,} more problem(s) in this file, not listed (only the first "
                f"{MAX_ISSUES_PER_FILE:,} are)", source=self.source))
            self._untold = self._untold_errors = 0

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
                self._bad_run += 1  # a line skipped, with an error or a warning, explains a gap
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
        if self._skipping is not None:
            if self._skipping == (ev.match, ev.hand):
                return None
            self._skipping = None
        cur = self._current
        finished = None
        if cur is None or cur.match != ev.match or cur.number != ev.hand:
            if self.seen is not None:
                first = self.seen.first_source(ev.match, ev.hand, self.source)
                if first is not None:
                    self._skipping = (ev.match, ev.hand)
                    dup = self._duplicates.setdefault(ev.match, [place, 0, first])
                    dup[1] += 1
                    self._current = None
                    return cur
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
            err = MalformedRecordError(
                f"no header line for match {ev.match!r} before its hand {ev.hand}",
                field="$.match")
            if ev.match in self._headerless:  # said once per match; each hand still marked
                hand.issues.append(self._locate(err, place))
            else:
                self._headerless.add(ev.match)
                self._problem(err, place, hand)
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
