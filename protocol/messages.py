"""The message schema: one frozen dataclass per message type, each field checked on the way in.

Every message on the wire is a msgpack map with `type`, `version` and `id`, plus the fields of its
type (see PROTOCOL.md). Messages the bot sends are checked strictly (an unknown field is an error,
to catch typos); messages the arena sends may grow new fields within a version, which bots ignore.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, ClassVar, TypeVar

from protocol.errors import SchemaError, show

PROTOCOL_VERSION = 1
DEFAULT_MAX_MESSAGE = 1 << 20  # 1 MiB, the default cap on a bot's reply
MAX_ID = (1 << 63) - 1
MAX_NAME = 64

Parser = Callable[[Any, str], Any]
T = TypeVar("T")


class MessageType(StrEnum):
    """The `type` field of every message."""

    HELLO = "hello"
    READY = "ready"
    NEW_GAME = "new_game"
    DECIDE = "decide"
    ACTION = "action"
    ACK = "ack"
    GAME_OVER = "game_over"
    SHUTDOWN = "shutdown"


# --- field parsers: each takes the raw value and its path (for the error) and returns the typed value ------------
def integer(low: int = 0, high: int = MAX_ID) -> Parser:
    """An integer (not a boolean) from low to high."""
    def parse(value: Any, path: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise SchemaError(path, f"expected an integer, got {describe(value)}")
        if not low <= value <= high:
            raise SchemaError(path, f"expected an integer from {low} to {high}, got {value}")
        return value
    return parse


def seconds(value: Any, path: str) -> float:
    """A finite, non-negative number of seconds (integers accepted)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise SchemaError(path, f"expected a number of seconds, got {describe(value)}")
    if not math.isfinite(value) or value < 0:
        raise SchemaError(path, f"expected a finite number >= 0, got {value}")
    return float(value)


def text(min_len: int = 0, max_len: int = MAX_NAME) -> Parser:
    """A string of printable characters, min_len to max_len long."""
    def parse(value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise SchemaError(path, f"expected a string, got {describe(value)}")
        if not min_len <= len(value) <= max_len:
            raise SchemaError(path, f"expected {min_len} to {max_len} characters, got {len(value)}")
        if not value.isprintable():
            raise SchemaError(path, "expected printable characters only")
        return value
    return parse


def boolean(value: Any, path: str) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise SchemaError(path, f"expected true or false, got {describe(value)}")
    return value


def plain_map(value: Any, path: str) -> dict[str, Any]:
    """A map whose keys are strings."""
    if not isinstance(value, dict):
        raise SchemaError(path, f"expected a map, got {describe(value)}")
    for key in value:
        if not isinstance(key, str):
            raise SchemaError(path, f"expected string keys, got the key {show(key)}")
    return value


def decision_map(value: Any, path: str) -> dict[str, Any]:
    """A map with at least a string `kind`."""
    plain_map(value, path)
    if not isinstance(value.get("kind"), str):
        raise SchemaError(f"{path}.kind", f"expected a string, got {describe(value.get('kind'))}")
    return value


def list_of(item: Parser, min_len: int = 0) -> Parser:
    """A list (at least min_len long) of items that each pass `item`."""
    def parse(value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise SchemaError(path, f"expected a list, got {describe(value)}")
        if len(value) < min_len:
            raise SchemaError(path, f"expected at least {min_len} items, got {len(value)}")
        try:
            return [item(v, path) for v in value]
        except SchemaError:
            pass  # go again, naming each item: slower, but only on the way to an error
        return [item(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return parse


def tuple_of(item: Parser) -> Parser:
    """A list of items, kept as a tuple."""
    parse_list = list_of(item)
    return lambda value, path: tuple(parse_list(value, path))


def describe(value: Any) -> str:
    """What kind of value this is, in a few words."""
    names = {dict: "a map", list: "a list", str: "a string", bytes: "binary data", bool: "a boolean",
             int: "an integer", float: "a float", type(None): "nil"}
    return names.get(type(value), type(value).__name__)


# --- structures --------------------------------------------------------------------------------------------------
class Struct:
    """A frozen dataclass whose fields are listed, with their parsers, in SCHEMA."""

    SCHEMA: ClassVar[dict[str, Parser]] = {}
    STRICT: ClassVar[bool] = False  # True: unknown fields are an error
    # Fields added within a version: taken as these values where a sender (an older arena, a stored record)
    # leaves them out.
    ADDED: ClassVar[dict[str, Any]] = {}

    def to_wire(self) -> dict[str, Any]:
        """The plain map that goes on the wire."""
        return self._fill({})

    def _fill(self, wire: dict[str, Any]) -> dict[str, Any]:
        for name in self.SCHEMA:
            value = getattr(self, name)
            wire[name] = value.to_wire() if isinstance(value, Struct) else value
        return wire

    @classmethod
    def parse(cls: type[T], value: Any, path: str) -> T:
        """The struct from its wire map; SchemaError naming the first bad field."""
        plain_map(value, path)
        return cls(**_parse_fields(cls, value, path, ()))  # type: ignore[attr-defined, call-arg]


_NONE = object()


def _parse_fields(cls: Any, value: dict[str, Any], path: str, header: tuple[str, ...]) -> dict[str, Any]:
    prefix = f"{path}." if path else ""
    if cls.STRICT:
        # The first unknown key in the sender's order: keys may be strings and binary data, which do not sort.
        unknown = next((key for key in value if key not in cls.SCHEMA and key not in header), _NONE)
        if unknown is not _NONE:
            name = unknown if isinstance(unknown, str) else show(unknown)
            raise SchemaError(prefix + name, "unknown field")
    fields = {}
    for name, parse in cls.SCHEMA.items():
        if name not in value:
            if name in cls.ADDED:
                fields[name] = cls.ADDED[name]
                continue
            raise SchemaError(prefix + name, "missing")
        fields[name] = parse(value[name], prefix + name)
    return fields


# The wall seconds a new_game may take by default: far more than resetting a bot's state needs (its start-up work
# belongs before `ready`), and all that a bot stalling at new_game costs its table-mates each game.
NEW_GAME_TIMEOUT = 2.0


@dataclass(frozen=True)
class TimeControl(Struct):
    """The clock rules of a match, in seconds: per decision, for start-up, the optional time bank, the game clock
    (each seat's thinking time in one game; 0: none), and for each new_game."""

    timeout: float = 1.0
    init: float = 10.0
    bank: float = 0.0
    increment: float = 0.0
    game_clock: float = 0.0
    new_game: float = NEW_GAME_TIMEOUT

    SCHEMA: ClassVar[dict[str, Parser]] = {"timeout": seconds, "init": seconds, "bank": seconds,
                                           "increment": seconds, "game_clock": seconds, "new_game": seconds}
    # An older arena's bots, records and tournaments have no new_game limit of their own: they take the default.
    ADDED: ClassVar[dict[str, Any]] = {"game_clock": 0.0, "new_game": NEW_GAME_TIMEOUT}


@dataclass(frozen=True)
class Clock(Struct):
    """The clock of one decision: the seconds it may take, the bank left before it, and the seconds left on the
    seat's game clock (0: the match has no game clock)."""

    remaining: float
    bank: float
    game_clock: float = 0.0

    SCHEMA: ClassVar[dict[str, Parser]] = {"remaining": seconds, "bank": seconds, "game_clock": seconds}
    ADDED: ClassVar[dict[str, Any]] = {"game_clock": 0.0}


@dataclass(frozen=True)
class Outcome(Struct):
    """How a game came out for the match: engine scores, ranks after disqualifications, and who was disqualified."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    reason: str
    cut_short: bool
    disqualified: tuple[int, ...]

    SCHEMA: ClassVar[dict[str, Parser]] = {
        "scores": tuple_of(integer(-MAX_ID, MAX_ID)), "ranks": tuple_of(integer(1)),
        "reason": text(0, 1000), "cut_short": boolean, "disqualified": tuple_of(integer()),
    }


# --- messages ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Message(Struct):
    """Any message: its type is the class, `id` pairs a reply with its request."""

    TYPE: ClassVar[MessageType]
    id: int

    def to_wire(self) -> dict[str, Any]:
        """The plain map that goes on the wire, header first."""
        return self._fill({"type": self.TYPE.value, "version": PROTOCOL_VERSION, "id": self.id})

    @classmethod
    def from_fields(cls: type[T], request_id: int, value: dict[str, Any]) -> T:
        """The message from a map whose header was already checked."""
        fields = _parse_fields(cls, value, "", ("type", "version", "id"))
        return cls(id=request_id, **fields)  # type: ignore[call-arg]

    @classmethod
    def from_trusted(cls: type[T], request_id: int, value: dict[str, Any]) -> T:
        """The message from a trusted sender's map (the arena's, read by a bot): every field checked, as
        from_fields, except where a message type knows it can take the sender's word."""
        return cls.from_fields(request_id, value)  # type: ignore[attr-defined, no-any-return]


@dataclass(frozen=True)
class Hello(Message):
    """Arena -> bot, once per process: who is asking, and the cap on replies."""

    TYPE = MessageType.HELLO
    arena: str
    max_message: int

    SCHEMA: ClassVar[dict[str, Parser]] = {"arena": text(0, 200), "max_message": integer(1)}


@dataclass(frozen=True)
class Ready(Message):
    """Bot -> arena, the answer to hello: the bot's name and version."""

    TYPE = MessageType.READY
    STRICT = True
    name: str
    bot_version: str

    SCHEMA: ClassVar[dict[str, Parser]] = {"name": text(1, MAX_NAME), "bot_version": text(0, MAX_NAME)}


@dataclass(frozen=True)
class NewGame(Message):
    """Arena -> bot, before every game: the game, its options, the bot's seat, its seed and the clock rules."""

    TYPE = MessageType.NEW_GAME
    game: str
    game_index: int
    options: dict[str, Any]
    seat: int
    num_players: int
    seed: int
    time: TimeControl

    SCHEMA: ClassVar[dict[str, Parser]] = {
        "game": text(1, MAX_NAME), "game_index": integer(), "options": plain_map, "seat": integer(),
        "num_players": integer(1), "seed": integer(), "time": TimeControl.parse,
    }


@dataclass(frozen=True)
class Decide(Message):
    """Arena -> bot, whenever the bot's seat must decide: its view, new events, the options and its clock."""

    TYPE = MessageType.DECIDE
    game_index: int
    decision: dict[str, Any]
    view: dict[str, Any]
    events: list[dict[str, Any]]
    event_index: int
    options: list[dict[str, Any]]
    time: Clock

    SCHEMA: ClassVar[dict[str, Parser]] = {
        "game_index": integer(), "decision": decision_map, "view": plain_map, "events": list_of(plain_map),
        "event_index": integer(), "options": list_of(plain_map, min_len=1), "time": Clock.parse,
    }

    @classmethod
    def from_trusted(cls, request_id: int, value: dict[str, Any]) -> "Decide":
        """The decide message as the arena sent it: the arena builds every event and option from its engine, so
        only the fields' presence and the clock (a nested struct) are checked, not each event and option again;
        this is most of what a bot spends per decision on its side of the protocol."""
        missing = next((name for name in cls.SCHEMA if name not in value), None)
        if missing is not None:
            raise SchemaError(missing, "missing")
        return cls(id=request_id, game_index=value["game_index"], decision=value["decision"], view=value["view"],
                   events=value["events"], event_index=value["event_index"], options=value["options"],
                   time=Clock.parse(value["time"], "time"))


@dataclass(frozen=True)
class Action(Message):
    """Bot -> arena, the answer to decide: the index of the chosen option."""

    TYPE = MessageType.ACTION
    STRICT = True
    index: int

    SCHEMA: ClassVar[dict[str, Parser]] = {"index": integer(-MAX_ID, MAX_ID)}


@dataclass(frozen=True)
class Ack(Message):
    """Bot -> arena, the answer to new_game, game_over and shutdown."""

    TYPE = MessageType.ACK
    STRICT = True

    SCHEMA: ClassVar[dict[str, Parser]] = {}


@dataclass(frozen=True)
class GameOver(Message):
    """Arena -> bot, after every game the bot sat in: the outcome and the events it has not seen yet."""

    TYPE = MessageType.GAME_OVER
    game_index: int
    seat: int
    result: Outcome
    events: list[dict[str, Any]]
    event_index: int

    SCHEMA: ClassVar[dict[str, Parser]] = {
        "game_index": integer(), "seat": integer(), "result": Outcome.parse, "events": list_of(plain_map),
        "event_index": integer(),
    }


@dataclass(frozen=True)
class Shutdown(Message):
    """Arena -> bot, at the end of the match (or of the process's game): ack, then exit."""

    TYPE = MessageType.SHUTDOWN
    reason: str

    SCHEMA: ClassVar[dict[str, Parser]] = {"reason": text(0, 1000)}


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE.value: cls for cls in (Hello, Ready, NewGame, Decide, Action, Ack, GameOver, Shutdown)
}
# What the bot must answer to each request.
REPLY_TO: dict[type[Message], type[Message]] = {
    Hello: Ready, NewGame: Ack, Decide: Action, GameOver: Ack, Shutdown: Ack,
}
