"""The game interface every registered game offers (see DESIGN.md), and its shared result type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence


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
