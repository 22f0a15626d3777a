"""What the store keeps of tournaments and games, as typed values."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    from arena.match.record import GameRecord


class GameStatus(StrEnum):
    """How a scheduled game ended: played to its end (whatever its bots did), or not played (the reason says why)."""

    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class StoredFault:
    """One fault of one seat in one game."""

    seat: int
    kind: str
    detail: str
    decision: int | None = None
    stderr_tail: str = ""


@dataclass(frozen=True)
class StoredGame:
    """A finished (or failed) scheduled game, as the store keeps it."""

    seq: int
    table: int
    seed: int
    bots: tuple[str, ...]
    status: GameStatus
    reason: str
    scores: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None
    disqualified: tuple[int, ...] = ()  # seats
    faults: tuple[StoredFault, ...] = ()
    cut_short: bool = False
    replay: str | None = None
    seconds: float = 0.0
    # Each seat's wall seconds over its decisions, as played (not stored): how long its bot keeps a table going.
    thought: tuple[float, ...] = ()

    @classmethod
    def from_record(cls, record: GameRecord, names: tuple[str, ...], directory: Path, results_dir: Path,
                    first_seq: int = 0, table: int = 0, seconds: float = 0.0) -> StoredGame:
        """A played game as the store keeps it: the seats' entrants (`names` by participant), ranks, faults, and its
        replay's path in the match's `directory`, relative to the results folder where it lies under it (the
        folder may move)."""
        from arena.match.record import record_file  # the record's module is loaded: here is a record

        replay = directory / record_file(record.game_index)
        try:
            path = str(replay.relative_to(results_dir))
        except ValueError:
            path = str(replay)
        faults = tuple(StoredFault(f.seat, f.kind.value, f"{f.phase.value}: {f.detail}", f.decision, f.stderr)
                       for f in record.faults)
        thought = [0.0] * len(record.seats)
        for decision in record.decisions:
            thought[decision.seat] += decision.time or 0.0
        return cls(first_seq + record.game_index, table, record.seed, tuple(names[s.participant] for s in record.seats),
                   GameStatus.DONE, record.result.reason, tuple(record.result.scores), tuple(record.ranks),
                   tuple(record.disqualified), faults, record.result.cut_short, path, seconds, tuple(thought))


@dataclass(frozen=True)
class Summary:
    """A tournament at a glance: its entrants and games, the finishing times of its first and last game (None
    before any), whether it is complete, and its seeding ('secret' or 'public (seed N)')."""

    name: str
    title: str
    game: str
    format: str
    complete: bool
    entrants: int
    games: int
    first: float | None
    last: float | None
    seeding: str


@dataclass(frozen=True)
class StoredSeat:
    """One seat of a stored game as read back: its entrant, score and rank (None in a failed game), faults."""

    seat: int
    bot: str
    score: int | None
    rank: int | None
    disqualified: bool
    faults: int


@dataclass(frozen=True)
class StoredGameRow:
    """A stored game as read back, with its seats; `game()` adds its faults and its tournament's name."""

    id: int
    seq: int
    table: int
    seed: int
    status: GameStatus
    reason: str
    cut_short: bool
    replay: str | None
    seconds: float
    seats: tuple[StoredSeat, ...]
    faults: tuple[StoredFault, ...] = ()
    tournament: str = ""


@dataclass(frozen=True)
class Tournament:
    """A tournament row: its id, name and the configuration it was started with."""

    id: int
    name: str
    game: str
    format: str
    config: dict[str, Any] = field(hash=False)
    finished: float | None = None


def replay_path(stored: str | None, results_dir: Path) -> Path | None:
    """A stored replay path as a path from here (the store keeps it relative to the results folder)."""
    if not stored:
        return None
    path = Path(stored)
    return path if path.is_absolute() else results_dir / path


