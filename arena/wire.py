"""What the arena sends a seat, built from a game state; shared by the match runner and by replays.

Keeping these builders in one place is what lets `arena replay --seat N` show exactly what a seat was sent.
"""

from __future__ import annotations

from typing import Any

from arena.games import Game, GameResult, State
from arena.games.base import competition_ranks
from protocol import Clock, Decide, GameOver, NewGame, Outcome, TimeControl


def effective_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """The game's default options overridden by the given ones: what a bot is told the game runs with."""
    return {**game.default_options(), **(options or {})}


class SeatClock:
    """One seat's clock in one game: a per-decision timeout plus an optional bank with an increment.

    A decision may take up to timeout + bank; time beyond the timeout is drawn from the bank, and
    every decision then adds the increment. A timeout empties the bank.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank

    def allowance(self) -> float:
        """The seconds the next decision may take."""
        return self.control.timeout + self.bank

    def clock(self) -> Clock:
        """The clock as a bot is told it."""
        return Clock(remaining=self.allowance(), bank=self.bank)

    def charge(self, elapsed: float | None, timed_out: bool) -> None:
        """Account for one decision that took `elapsed` seconds (None: the seat was not asked)."""
        if elapsed is None:
            return
        overage = max(0.0, elapsed - self.control.timeout)
        self.bank = (0.0 if timed_out else max(0.0, self.bank - overage)) + self.control.increment


def new_game_request(game: Game, options: dict[str, Any] | None, game_index: int, seat: int, num_players: int,
                     seed: int, control: TimeControl) -> NewGame:
    """The new_game message for one seat (id 0: the channel sets it)."""
    return NewGame(id=0, game=game.name, game_index=game_index, options=effective_options(game, options),
                   seat=seat, num_players=num_players, seed=seed, time=control)


def decide_request(state: State, seat: int, since: int, game_index: int, clock: Clock) -> Decide:
    """The decide message for the seat to move: its view, its events from `since` on, and the options."""
    return Decide(id=0, game_index=game_index, decision=state.decision(), view=state.view(seat),
                  events=state.events(seat, since), event_index=since, options=state.options(), time=clock)


def game_over_request(state: State, seat: int, since: int, game_index: int, outcome: Outcome) -> GameOver:
    """The game_over message for one seat, with the events it has not been sent yet."""
    return GameOver(id=0, game_index=game_index, seat=seat, result=outcome, events=state.events(seat, since),
                    event_index=since)


def match_ranks(engine_ranks: tuple[int, ...], disqualified: frozenset[int]) -> tuple[int, ...]:
    """Ranks with every disqualified seat below every other; the engine's order holds within each group."""
    return competition_ranks([(seat not in disqualified, -rank) for seat, rank in enumerate(engine_ranks)])


def outcome(result: GameResult, disqualified: frozenset[int]) -> Outcome:
    """The outcome of a game as the match scores it and as bots are told it."""
    return Outcome(scores=result.scores, ranks=match_ranks(result.ranks, disqualified), reason=result.reason,
                   cut_short=result.cut_short, disqualified=tuple(sorted(disqualified)))
