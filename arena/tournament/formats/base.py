"""What every tournament format is: its tables, its entrants, how its schedule is built, and its checks; and the
spec of a tournament with its checks, which names its format and holds everything the format builds the schedule
from (the two name each other, so they share a module)."""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterator, Sequence

from arena.bots.entrants import Entrant, check_entrants
from arena.bots.sandbox import Sandbox
from arena.errors import ConfigError
from arena.games import Game, GameError, get_game
from arena.match.play import Seating
from arena.match.seeds import Seed, public_seed, table_seed
from arena.match.wire import time_identity
from arena.ratings.sprt import SprtSettings
from arena.ratings.trueskill import GameOutcome, RatingConfig
from protocol import TimeControl

DEFAULT_WAVE = 4  # an open-ended format's tables chosen at a time from the ratings so far

# The stored outcomes of the games with first <= seq < below, in schedule order: what an open-ended format
# chooses its next wave from.
Outcomes = Callable[[int, int], list[GameOutcome]]


@dataclass(frozen=True)
class Table:
    """One table of the schedule: bots played in every seat rotation, its games numbered from first_seq.

    The games of a table run as one match, sharing bot processes; seq numbers fix the order ratings use.
    """

    table: int
    first_seq: int
    bots: tuple[str, ...]
    seed: Seed  # the root its match derives its deals and bot seeds from (arena.match.seeds)
    duplicate: bool
    plan: tuple[Seating, ...] | None = None  # who sits where in each game, instead of every rotation of bots

    @property
    def games(self) -> int:
        return len(self.plan) if self.plan is not None else len(self.bots)

    def seated(self, game: int) -> tuple[str, ...]:
        """The names at each seat of the table's game number `game` (0 = its first)."""
        if self.plan is not None:
            return tuple(self.bots[p] for p in self.plan[game].participants)
        n = len(self.bots)
        return tuple(self.bots[(seat - game) % n] for seat in range(n))

    def deal(self, game: int) -> int:
        """The deal key of the table's game number `game`, as its match numbers deals."""
        if self.plan is not None:
            return self.plan[game].deal
        return game // len(self.bots) if self.duplicate else game

    @property
    def seqs(self) -> range:
        return range(self.first_seq, self.first_seq + self.games)


class TournamentFormat(ABC):
    """A tournament format: its schedule, wave by wave, and the rules a tournament of it must meet.

    A format is stateless: everything a tournament chose (seats, rounds, seed...) is in its TournamentSpec.
    """

    name: ClassVar[str]  # as the command line and the store spell it
    summary: ClassVar[str]  # what it plays, in a few words, for --help
    open_ended: ClassVar[bool] = False  # True: it plays until a number of games or a time limit
    # The settings a run may change and still resume the same tournament ("entrants": bots may join and retire).
    living: ClassVar[tuple[str, ...]] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)  # stateless: one of a kind

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def min_entrants(self, seats: int) -> int:
        """The entrants a tournament with tables of `seats` needs."""
        return seats

    @property
    def entrants_change(self) -> bool:
        """Whether bots may join and retire between the runs of one tournament."""
        return "entrants" in self.living

    def missing_opponents(self, given: int, seats: int) -> int:
        """How many opponents a caller with `given` entrants should add (sample bots, say) to play at all."""
        return 0

    def default_seats(self, game: Game, entrants: int) -> int:
        """The seats per table when none are asked for: as many as the game and the entrants allow."""
        return max(game.min_players, min(game.max_players, entrants))

    def default_rounds(self, entrants: int, seats: int) -> int:
        """The rounds when none are asked for."""
        return 1

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        """ConfigError naming the problem if a tournament of this spec cannot be played (or would not end)."""
        if self.open_ended and spec.max_games is None and time_limit is None:
            raise ConfigError(f"a {self.name} needs --games or --time-limit")

    @abstractmethod
    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """The schedule, wave by wave: a wave is asked for once every game before it is stored."""

    @abstractmethod
    def total_games(self, spec: TournamentSpec) -> int | None:
        """How many games the tournament plays (None: until its time limit)."""


class FixedFormat(TournamentFormat):
    """A format whose whole schedule is known before the first game: one wave, played `rounds` times over."""

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        if spec.rounds < 1:
            raise ConfigError(f"rounds must be at least 1, got {spec.rounds}")

    @abstractmethod
    def tables(self, names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
        """The tables of one round, as the entrants seated at each."""

    def schedule(self, spec: TournamentSpec) -> list[Table]:
        """The whole schedule."""
        return rounds_of(self.tables(spec.names(), spec.seats), spec.rounds, spec.duplicate, spec.seed)

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        yield self.schedule(spec)

    def total_games(self, spec: TournamentSpec) -> int | None:
        return sum(t.games for t in self.schedule(spec))


def rounds_of(tables: list[tuple[str, ...]], rounds: int, duplicate: bool, seed: Seed) -> list[Table]:
    """The tables, `rounds` times over, numbered and seeded in order."""
    schedule: list[Table] = []
    seq = 0
    for round_no in range(rounds):
        for bots in tables:
            number = len(schedule)
            schedule.append(Table(number, seq, bots, table_seed(seed, number, round_no), duplicate))
            seq += len(bots)
    return schedule


@dataclass(frozen=True, kw_only=True)
class Play:
    """How each game is played, as one value: the game and its options, the clocks, the sandbox and the ratings
    (None: the game's own)."""

    game: str
    options: dict[str, Any] | None = None
    time: TimeControl = field(default_factory=TimeControl)
    sandbox: Sandbox = field(default_factory=Sandbox)
    rating: RatingConfig | None = None


@dataclass(frozen=True)
class TournamentSpec:
    """What defines a tournament's games and ratings; the same spec resumes the same tournament."""

    play: Play
    fmt: TournamentFormat
    entrants: tuple[Entrant, ...]
    seats: int
    rounds: int = 1
    duplicate: bool = False
    max_games: int | None = None  # ladder: stop after this many games
    wave: int = DEFAULT_WAVE
    seed: Seed | None = None  # None: a secret the store draws and keeps (arena.match.seeds); a number: public-seeded
    fresh_processes: bool = False
    sprt: SprtSettings | None = None  # a comparison's sequential test (None: a fixed number of games)
    title: str | None = None  # shown with the tournament; not part of what it plays
    max_fault_rate: float | None = None  # bots above it are left off the leaderboard; not part of what it plays

    # The play's settings, read as the spec's own: every format and the runner ask the spec.
    @property
    def game(self) -> str:
        return self.play.game

    @property
    def options(self) -> dict[str, Any] | None:
        return self.play.options

    @property
    def time(self) -> TimeControl:
        return self.play.time

    @property
    def sandbox(self) -> Sandbox:
        return self.play.sandbox

    @property
    def rating(self) -> RatingConfig:
        """The play's ratings, else the game's own (its draw probability)."""
        return self.play.rating or RatingConfig.for_game(get_game(self.play.game))

    def identity(self) -> dict[str, Any]:
        """The spec as plain data, stored with the tournament and compared on resume."""
        found = {"game": self.game, "format": self.fmt.name, "entrants": [e.to_dict() for e in self.entrants],
                 "seats": self.seats, "options": self.options, "rounds": self.rounds, "duplicate": self.duplicate,
                 "max_games": self.max_games, "wave": self.wave, "seed": public_seed(self.seed),
                 "time": time_identity(self.time), "fresh_processes": self.fresh_processes,
                 "rating": self.rating.to_dict(),
                 "sandbox": self.sandbox.to_dict()}
        found = {**found, "sprt": self.sprt.to_dict()} if self.sprt is not None else found
        found = {**found, "max_fault_rate": self.max_fault_rate} if self.max_fault_rate is not None else found
        return {**found, "title": self.title} if self.title else found

    def default_name(self, today: str | None = None) -> str:
        """A readable name for a new tournament: its title, else game-format-date (UTC)."""
        if self.title:
            return name_of(self.title) or self.game
        return f"{self.game}-{self.fmt.name}-{today or time.strftime('%Y-%m-%d', time.gmtime())}"

    def names(self) -> list[str]:
        """The entrants' names, in order (a gauntlet's challenger first)."""
        return [e.name for e in self.entrants]


def check_options(game: str, options: dict[str, Any] | None) -> None:
    """ConfigError naming the problem if the game does not take these options."""
    try:
        rules = get_game(game)
        rules.new_state(rules.min_players, 0, options)
    except (GameError, ValueError) as exc:
        raise ConfigError(f"bad options for {game}: {exc}") from None


def check_spec(spec: TournamentSpec, time_limit: float | None = None) -> None:
    """ConfigError naming the problem, before any game starts (`time_limit`: the run's, if it has one)."""
    try:
        game = get_game(spec.game)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not game.min_players <= spec.seats <= game.max_players:
        raise ConfigError(f"{game.name} is played by {game.min_players} to {game.max_players} seats, "
                          f"not {spec.seats}")
    check_entrants(spec.entrants, spec.fmt.min_entrants(spec.seats))
    spec.fmt.check(spec, time_limit)
    spec.sandbox.check()
    spec.rating.validate()
    try:
        game.new_state(spec.seats, 0, spec.options)
    except GameError as exc:
        raise ConfigError(f"bad options for {game.name}: {exc}") from None


def name_of(title: str) -> str:
    """The tournament name a title gives: lower case, runs of other characters than letters, digits, `_.-` as one
    `-`, at most 64 characters ('' if nothing is left)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-.").lower()[:64]
