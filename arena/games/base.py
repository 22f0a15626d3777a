"""The game interface every registered game offers (see DESIGN.md), and its shared result type."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

# One event log entry: the public event, and the seat (or -1) that sees the private version instead.
LogEntry = tuple[dict[str, Any], int, "dict[str, Any] | None"]


@dataclass(frozen=True)
class GameResult:
    """How a finished game came out: a score and a rank (1 = best, ties share) per seat."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    reason: str
    cut_short: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The result as a plain dict."""
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "reason": self.reason,
            "cut_short": self.cut_short,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameResult":
        """The inverse of to_dict; raises ValueError on a malformed dict."""
        try:
            return cls(tuple(int(s) for s in d["scores"]), tuple(int(r) for r in d["ranks"]),
                       str(d["reason"]), bool(d.get("cut_short", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed game result: {exc}") from None


def check_players_and_seed(num_players: Any, seed: Any, low: int, high: int) -> None:
    """ValueError naming the field unless num_players is in [low, high] and seed is an integer."""
    if not isinstance(num_players, int) or isinstance(num_players, bool) or not low <= num_players <= high:
        raise ValueError(f"players must be an integer from {low} to {high}, got {num_players!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, got {seed!r}")


def seat_label(seat: Any, colours: Sequence[str]) -> str:
    """A seat as log text, 'seat 2 (red)'; 'nobody' for None or -1."""
    if seat is None or seat == -1:
        return "nobody"
    return f"seat {seat} ({colours[seat]})"


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Ranks for sort keys where higher is better: 1 + the number of strictly better seats."""
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)


class State(Protocol):
    """One position of a game, with the seat to move and its legal choices."""

    def current_player(self) -> int | None: ...
    def options(self) -> list[dict[str, Any]]: ...
    def decision(self) -> dict[str, Any]: ...
    def apply(self, index: int) -> None: ...
    def view(self, seat: int) -> dict[str, Any]: ...
    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]: ...
    def referee_events(self, since: int = 0) -> list[dict[str, Any]]: ...
    def num_events(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def result(self) -> GameResult: ...
    def to_dict(self) -> dict[str, Any]: ...


class Game(Protocol):
    """A registered game: makes states and knows its option defaults."""

    name: str
    min_players: int
    max_players: int

    def default_options(self) -> dict[str, Any]: ...
    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> State: ...
    def state_from_dict(self, d: dict[str, Any]) -> State: ...
    def format_event(self, event: dict[str, Any]) -> str: ...


class EngineState(ABC):
    """What every engine's state shares: the checked apply, the per-seat event log, seat and result guards.

    A subclass keeps `num_players`, `log` and `rng`, and supplies the legal actions, their effect, the view and
    the result.
    """

    num_players: int
    log: list[LogEntry]
    rng: random.Random
    pending: Any  # the pending decision; its `seat` decides
    _legal: list[Any] | None = None  # the legal actions of the pending decision, once computed

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def _compute_legal(self) -> list[Any]: ...

    @abstractmethod
    def _apply_one(self, action: Any) -> None: ...

    @abstractmethod
    def _view(self, seat: int) -> dict[str, Any]: ...

    @abstractmethod
    def _result(self) -> GameResult: ...

    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        return None if self.is_terminal() else self.pending.seat

    def legal_actions(self) -> list[Any]:
        """The legal choices as typed actions, in the order of options()."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def apply(self, index: int) -> None:
        """Apply options()[index]; ValueError for a bad index or a finished game, changing nothing."""
        if self.is_terminal():
            raise ValueError("the game is over; no choice can be applied")
        legal = self.legal_actions()
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
            raise ValueError(f"option index must be an integer from 0 to {len(legal) - 1}, got {index!r}")
        self._apply_one(legal[index])
        self._settle()

    def _settle(self) -> None:
        """Apply every forced decision (a single legal choice) that follows, so that players are only asked real
        choices; forced choices are logged like any other."""
        while True:
            self._legal = None
            if self.is_terminal():
                return
            legal = self._compute_legal()
            if len(legal) != 1:
                self._legal = legal
                return
            self._apply_one(legal[0])

    def view(self, seat: int) -> dict[str, Any]:
        """Everything seat may know, and nothing more."""
        self._check_seat(seat)
        return self._view(seat)

    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The log entries from index since on, each as seat may see it (None: as a spectator sees it)."""
        if seat is not None:
            self._check_seat(seat)
        return [dict(private) if who == seat and private is not None else dict(public)
                for public, who, private in self.log[since:]]

    def referee_events(self, since: int = 0) -> list[dict[str, Any]]:
        """The log entries from index since on with every hidden detail, for referees and debugging."""
        return [dict(private if private is not None else public) for public, _, private in self.log[since:]]

    def num_events(self) -> int:
        """How many log entries there are so far."""
        return len(self.log)

    def result(self) -> GameResult:
        """Scores and ranks of a finished game; ValueError while it runs."""
        if not self.is_terminal():
            raise ValueError("the game is not over")
        return self._result()

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be an integer from 0 to {self.num_players - 1}, got {seat!r}")

    def _rng_dict(self) -> list[Any]:
        version, internal, gauss = self.rng.getstate()
        return [version, list(internal), gauss]

    def _log_dicts(self) -> list[list[Any]]:
        return [[dict(pub), who, None if priv is None else dict(priv)] for pub, who, priv in self.log]


def rng_from_dict(data: Any, game: str) -> random.Random:
    """The generator a state's to_dict() saved; ValueError if data is not such a state."""
    rng = random.Random()
    try:
        version, internal, gauss = data
        rng.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a {game} state: bad rng state ({exc})") from None
    return rng


def log_from_dicts(entries: Any) -> list[LogEntry]:
    """The event log a state's to_dict() saved."""
    return [(dict(pub), int(who), None if priv is None else dict(priv)) for pub, who, priv in entries]


class EngineGame(ABC):
    """What every engine's game object shares: checked arguments, seeded setup, guarded restore."""

    name: str
    min_players: int
    max_players: int

    @abstractmethod
    def _setup(self, num_players: int, options: dict[str, Any] | None, rng: random.Random) -> EngineState: ...

    @abstractmethod
    def _restore(self, d: dict[str, Any]) -> EngineState: ...

    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> EngineState:
        """A new game; the same seed and options always give the same game."""
        check_players_and_seed(num_players, seed, self.min_players, self.max_players)
        return self._setup(num_players, options, random.Random(seed))

    def state_from_dict(self, d: dict[str, Any]) -> EngineState:
        """The state that to_dict() described; ValueError if d is not such a description."""
        if not isinstance(d, dict) or d.get("game") != self.name:
            found = d.get("game") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"not a {self.name} state: game is {found!r}")
        try:
            check_players_and_seed(d["num_players"], 0, self.min_players, self.max_players)
            return self._restore(d)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"not a {self.name} state: {type(exc).__name__}: {exc}") from None
