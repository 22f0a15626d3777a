"""The record of one played game (the replay file): typed inside, JSON on disk, every field checked on load."""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable, TypeVar

from arena.bots.logs import DECISION_LOG_CAP
from arena.errors import STOPPED_KINDS, FaultKind, ReplayError
from arena.games import GameError, GameResult
from arena.match.wire import outcome
from protocol import Outcome, SchemaError, TimeControl
from protocol.messages import boolean, integer, list_of, plain_map, seconds, text

FORMAT = "bali-arena-game"
FORMAT_VERSION = 2
# Version 1 records lack the seats' entrant names and the faults' own decision count, time taken and limit;
# they load with those fields empty.
READABLE_VERSIONS = (1, 2)
# A decision may carry what its bot wrote to stderr while deciding (`log`, only when there was some: up to
# DECISION_LOG_CAP bytes, and GAME_LOG_CAP over the bot's game) and the bytes written beyond the caps, counted, not
# kept (`log_dropped`, only when not 0; the bot's log file has them, up to its own cap). Both were added within
# version 2: older records have none, and readers that do not know them skip them, as any later field of a decision.
# So were a seat's `new_game_time` and `new_game_charged` (what its new_game took, and cost its game clock): an
# older record loads with None and 0, as its games were played (new_game charged nothing then).
T = TypeVar("T")


class Phase(StrEnum):
    """When a fault happened."""

    HANDSHAKE = "handshake"
    NEW_GAME = "new_game"
    DECIDE = "decide"
    GAME_OVER = "game_over"


# The option that raises the time limit of each phase.
LIMIT_OPTIONS = {Phase.HANDSHAKE: "--init-timeout", Phase.NEW_GAME: "--new-game-timeout", Phase.DECIDE: "--timeout",
                 Phase.GAME_OVER: "--timeout"}
CLOCK_OPTION = "--game-clock"  # the option that raises a game clock


@dataclass(frozen=True)
class SeatRecord:
    """Who sat where: the participant (its place on the command line), its bot and its seed."""

    seat: int
    participant: int
    name: str
    version: str
    command: str
    seed: int
    first_request: int | None  # the request id of the seat's new_game; None if the seat was sent nothing
    game_over_sent: bool
    entrant: str = ""  # the name the arena knows the participant by (name is the one it gave in its handshake)
    new_game_time: float | None = None  # the wall seconds its new_game took (None: not asked, or not recorded)
    new_game_charged: float = 0.0  # the seconds of its game clock that took beyond NEW_GAME_ALLOWANCE (wire.py)

    @property
    def label(self) -> str:
        """The entrant's name, with the handshake name beside it when that differs."""
        return entrant_label(self.entrant or self.name, self.name)


def entrant_label(entrant: str, handshake: str) -> str:
    """'entrant', or 'entrant (handshake name)' when the bot calls itself something else."""
    return entrant if not handshake or handshake == entrant else f"{entrant} ({handshake})"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class DecisionRecord:
    """One decision: the seat, the index played, the seconds the bot took on the wall clock (None: not asked), any
    fault, what the bot wrote to stderr while deciding (log, within the arena's caps; log_dropped bytes beyond
    them), the seconds it was charged and the seconds of its wall time it waited for a core (None: not measured;
    arena/bots/meter.py), and, in records made before that meter, the CPU seconds its processes used."""

    seat: int
    index: int
    time: float | None
    fault: FaultKind | None = None
    _: KW_ONLY  # what follows is named where it is given, so that a field added above cannot be taken for it
    log: str = ""
    log_dropped: int = 0
    cpu: float | None = None
    charged: float | None = None
    wait: float | None = None

    @property
    def spent(self) -> float | None:
        """The seconds the decision was charged: as recorded, else (an older record) its CPU time up to its wall
        time, else its wall time; None: the seat was not asked."""
        if self.time is None:
            return None
        if self.charged is not None:
            return self.charged
        return self.time if self.cpu is None else min(self.cpu, self.time)


@dataclass(frozen=True)
class FaultRecord:
    """One fault, with enough context to find it: game, decision number, phase, kind, detail, stderr tail.

    `decision` numbers the game's decisions from 0 (every seat's); `asked` is the bot's own count of the decide
    requests it was sent in that game, this one included (1 for its first), the number the bot itself can see.
    `elapsed` is how long the arena waited for the faulty answer, `charged` what it was charged of that (None: not
    measured, or a record made before the meter) and `limit` the time it had (None: not timed).
    """

    game_index: int
    seat: int
    participant: int
    bot: str
    decision: int | None
    phase: Phase
    kind: FaultKind
    detail: str
    stderr: str
    asked: int | None = None
    elapsed: float | None = None
    limit: float | None = None
    charged: float | None = None

    def where(self) -> str:
        """The game and the decision as the viewer numbers it (every seat's, from 0; its link takes #step=N), with
        the bot's own count beside it: 'game 2, decision #31 (its 7th)', or 'game 2, at new_game'."""
        if self.phase != Phase.DECIDE or self.decision is None:
            return f"game {self.game_index + 1}, at {self.phase.value}"
        own = f" (its {ordinal(self.asked)})" if self.asked is not None else ""
        return f"game {self.game_index + 1}, decision #{self.decision}{own}"

    def anchor(self) -> str:
        """The fragment of a replay page that opens at this fault, in the faulty seat's view ('' before the game)."""
        return f"#step={self.decision}&seat={self.seat}" if self.decision is not None else ""

    def timing(self) -> str:
        """How long the bot took against its limit, and the option that raises it ('' if it was not timed). Only a
        timeout is told of the limit: a longer one cures nothing else, and a crash is told where its cause is."""
        if self.kind == FaultKind.CRASH:
            return ("the cause is in its stderr" if self.stderr.strip()
                    else "it wrote nothing to stderr: run its command by hand to see why")
        if self.limit is None:
            return ""
        took = "no answer" if self.elapsed is None else f"took {self.elapsed:.3g} s" if self.charged is None \
            else f"charged {self.charged:.3g} s"
        if self.kind not in (FaultKind.TIMEOUT, FaultKind.CLOCK):
            return f"{took} of its {self.limit:.3g} s"
        option = CLOCK_OPTION if self.kind == FaultKind.CLOCK else LIMIT_OPTIONS[self.phase]
        return f"{took} of its {self.limit:.3g} s limit (raise it with {option})"

    def message(self) -> str:
        """The fault in one line: where, kind, detail, timing."""
        timing = self.timing()
        return f"{self.where()}: {self.kind.value}: {self.detail}" + (f"; {timing}" if timing else "")


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay one game and check it: setup, seats, decisions, faults, result."""

    match_id: str
    game_index: int
    game: str
    options: dict[str, Any] | None
    num_players: int
    seed: int
    time: TimeControl
    seats: tuple[SeatRecord, ...]
    decisions: tuple[DecisionRecord, ...]
    faults: tuple[FaultRecord, ...]
    disqualified: tuple[int, ...]
    result: GameResult
    ranks: tuple[int, ...]
    max_faults: int

    @property
    def outcome(self) -> Outcome:
        """The outcome as the match scores it (recomputed from the engine result and the disqualifications)."""
        return outcome(self.result, frozenset(self.disqualified))

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data for the JSON file."""
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION, "match": self.match_id,
            "game_index": self.game_index, "game": self.game, "options": self.options,
            "num_players": self.num_players, "seed": self.seed, "time": self.time.to_wire(),
            "seats": [vars(s) for s in self.seats],
            "decisions": [_decision_dict(d) for d in self.decisions],
            "faults": [{**vars(f), "phase": f.phase.value, "kind": f.kind.value} for f in self.faults],
            "disqualified": list(self.disqualified), "result": self.result.to_dict(), "ranks": list(self.ranks),
            "max_faults": self.max_faults,
        }

    def earned_disqualifications(self) -> frozenset[int]:
        """The seats that the recorded faults disqualify: a failed handshake or a crash, or max_faults faults."""
        counted = [f for f in self.faults if f.phase != Phase.GAME_OVER]
        at_once = {f.seat for f in counted if f.phase == Phase.HANDSHAKE or f.kind in STOPPED_KINDS}
        repeated = {seat for seat in range(self.num_players)
                    if sum(1 for f in counted if f.seat == seat) >= self.max_faults}
        return frozenset(at_once | repeated)


def _decision_dict(d: DecisionRecord) -> dict[str, Any]:
    plain: dict[str, Any] = {"seat": d.seat, "index": d.index, "time": d.time}
    if d.fault is not None:
        plain["fault"] = d.fault.value
    if d.log:
        plain["log"] = d.log
    if d.log_dropped:
        plain["log_dropped"] = d.log_dropped
    if d.cpu is not None:
        plain["cpu"] = d.cpu
    if d.charged is not None:
        plain["charged"] = d.charged
    if d.wait is not None:
        plain["wait"] = d.wait
    return plain


def record_file(game_index: int) -> str:
    """The file name of a match's record of its game number `game_index` (0 = its first): game-0001.json, ..."""
    return f"game-{game_index + 1:04d}.json"


def save_record(record: GameRecord, path: Path) -> None:
    """Write the record as JSON."""
    path.write_text(json.dumps(record.to_dict(), indent=1) + "\n", encoding="utf-8")


def load_record(path: Path) -> GameRecord:
    """Read a record; ReplayError naming the problem if the file is not a valid game record."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{path} is not JSON: {exc}") from None
    try:
        return record_from_dict(data)
    except SchemaError as exc:
        raise ReplayError(f"{path} is not a valid game record: {exc}") from None


def record_from_dict(data: Any) -> GameRecord:
    """The record from plain data; SchemaError naming the first bad field."""
    plain_map(data, "record")
    if data.get("format") != FORMAT:
        raise SchemaError("format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    if data.get("format_version") not in READABLE_VERSIONS:
        raise SchemaError("format_version", f"expected one of {READABLE_VERSIONS}, got {data.get('format_version')!r}")
    n = _field(data, "num_players", integer(1))
    seat_no = integer(0, n - 1)
    try:
        result = GameResult.from_dict(_field(data, "result", plain_map))
    except GameError as exc:
        raise SchemaError("result", str(exc)) from None
    return GameRecord(
        match_id=_field(data, "match", text(0, 200)), game_index=_field(data, "game_index", integer()),
        game=_field(data, "game", text(1)), options=_field(data, "options", _optional(plain_map)), num_players=n,
        seed=_field(data, "seed", integer(-(1 << 63), 1 << 63)),
        time=_field(data, "time", TimeControl.parse),
        seats=tuple(_field(data, "seats", list_of(lambda v, p: _seat(v, p, seat_no)))),
        decisions=tuple(_field(data, "decisions", list_of(lambda v, p: _decision(v, p, seat_no)))),
        faults=tuple(_field(data, "faults", list_of(lambda v, p: _fault(v, p, seat_no)))),
        disqualified=tuple(_field(data, "disqualified", list_of(seat_no))),
        result=result, ranks=tuple(_field(data, "ranks", list_of(integer(1)))),
        max_faults=_field(data, "max_faults", integer(1)),
    )


def _field(data: dict[str, Any], name: str, parse: Callable[[Any, str], T], path: str = "") -> T:
    where = f"{path}.{name}" if path else name
    if name not in data:
        raise SchemaError(where, "missing")
    return parse(data[name], where)


def _later(data: dict[str, Any], name: str, parse: Callable[[Any, str], Any], path: str, default: Any) -> Any:
    """A field added after version 1: parsed if present, else the default."""
    return _field(data, name, parse, path) if name in data else default


def _optional(parse: Callable[[Any, str], T]) -> Callable[[Any, str], T | None]:
    return lambda value, path: None if value is None else parse(value, path)


def _enum(cls: type[Any]) -> Callable[[Any, str], Any]:
    def parse(value: Any, path: str) -> Any:
        try:
            return cls(value)
        except ValueError:
            raise SchemaError(path, f"expected one of {', '.join(m.value for m in cls)}, got {value!r}") from None
    return parse


def _seat(value: Any, path: str, seat_no: Callable[[Any, str], int]) -> SeatRecord:
    plain_map(value, path)
    return SeatRecord(
        seat=_field(value, "seat", seat_no, path), participant=_field(value, "participant", integer(), path),
        name=_field(value, "name", text(0), path), version=_field(value, "version", text(0), path),
        command=_field(value, "command", _str_any, path), seed=_field(value, "seed", integer(), path),
        first_request=_field(value, "first_request", _optional(integer()), path),
        game_over_sent=_field(value, "game_over_sent", boolean, path),
        entrant=_later(value, "entrant", text(0, 200), path, ""),
        new_game_time=_later(value, "new_game_time", _optional(seconds), path, None),
        new_game_charged=_later(value, "new_game_charged", seconds, path, 0.0),
    )


def _decision(value: Any, path: str, seat_no: Callable[[Any, str], int]) -> DecisionRecord:
    # A long game's record holds thousands of decisions: the parsers are made once, not per decision.
    plain_map(value, path)
    try:
        seat, index, time = value["seat"], value["index"], value["time"]
    except KeyError as exc:
        raise SchemaError(f"{path}.{exc.args[0]}", "missing") from None
    fault = _FAULT_KIND(value["fault"], path + ".fault") if "fault" in value else None
    log = _log_text(value["log"], path + ".log") if "log" in value else ""
    dropped = _COUNT(value["log_dropped"], path + ".log_dropped") if "log_dropped" in value else 0
    cpu, charged, wait = (_TIME(value[key], f"{path}.{key}") if key in value else None
                          for key in ("cpu", "charged", "wait"))
    return DecisionRecord(seat_no(seat, path + ".seat"), _INDEX(index, path + ".index"), _TIME(time, path + ".time"),
                          fault, log=log, log_dropped=dropped, cpu=cpu, charged=charged, wait=wait)


_INDEX = integer()
_COUNT = integer(0)
_TIME = _optional(seconds)
_FAULT_KIND = _enum(FaultKind)


def _log_text(value: Any, path: str) -> str:
    text = _str_any(value, path)
    if len(text) > DECISION_LOG_CAP:  # a decoded log is never longer than the bytes it was cut to
        raise SchemaError(path, f"expected at most {DECISION_LOG_CAP} characters, got {len(text)}")
    return text


def _fault(value: Any, path: str, seat_no: Callable[[Any, str], int]) -> FaultRecord:
    plain_map(value, path)
    return FaultRecord(
        game_index=_field(value, "game_index", integer(), path), seat=_field(value, "seat", seat_no, path),
        participant=_field(value, "participant", integer(), path), bot=_field(value, "bot", text(0), path),
        decision=_field(value, "decision", _optional(integer()), path),
        phase=_field(value, "phase", _enum(Phase), path), kind=_field(value, "kind", _enum(FaultKind), path),
        detail=_field(value, "detail", _str_any, path), stderr=_field(value, "stderr", _str_any, path),
        asked=_later(value, "asked", _optional(integer(1)), path, None),
        elapsed=_later(value, "elapsed", _optional(seconds), path, None),
        limit=_later(value, "limit", _optional(seconds), path, None),
        charged=_later(value, "charged", _optional(seconds), path, None),
    )


def _str_any(value: Any, path: str) -> str:
    # Details and stderr tails hold whatever a bot printed or sent, control characters included.
    if not isinstance(value, str):
        raise SchemaError(path, "expected a string")
    return value
