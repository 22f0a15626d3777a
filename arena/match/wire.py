"""What the arena sends a seat, built from a game state; shared by the match runner and by replays.

Keeping these builders in one place is what lets `arena replay --seat N` show exactly what a seat was sent.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.bots.sandbox import WALL_CEILING
from arena.games import Game, GameResult, State
from arena.games.base import competition_ranks
from protocol import Clock, Decide, GameOver, NewGame, Outcome, TimeControl
from protocol.messages import NEW_GAME_TIMEOUT


def effective_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """The game's default options overridden by the given ones: what a bot is told the game runs with."""
    return {**game.default_options(), **(options or {})}


def with_game_clock(control: TimeControl, game: Game, seconds: float | None = None) -> TimeControl:
    """The time control with a game clock of `seconds` (0: none), or the game's own default where None."""
    return replace(control, game_clock=game.game_clock if seconds is None else seconds)


def time_identity(control: TimeControl) -> dict[str, Any]:
    """The time control as a tournament is identified by it: without a game clock, as tournaments were before there
    was one (so that they resume with --game-clock 0), and without the new_game limit where it is the default, as
    they were before it had one of its own (so that they resume as they are)."""
    wire = control.to_wire()
    if not control.game_clock:
        del wire["game_clock"]
    if control.new_game == NEW_GAME_TIMEOUT:
        del wire["new_game"]
    return wire


_RUN_OUT = 1e-6  # seconds: a game clock with less left than this has run out (sums of float seconds are inexact)

# Wall seconds of a seat's new_game that its game clock is not charged: as much as one decision at the default
# timeout, far more than an honest bot needs to reset its state (start-up work belongs before `ready`). The time
# beyond it comes off the game clock, so that a bot stalling each new_game under its limit (--new-game-timeout) does
# not hold a table up for free; without a game clock, that limit alone bounds it.
NEW_GAME_ALLOWANCE = 1.0


class SeatClock:
    """One seat's clock in one game: a per-decision timeout plus an optional bank with an increment, and the game
    clock.

    Every limit counts charged time (the wall time less the time the bot waited for a core: arena/bots/meter.py),
    and the arena waits at most WALL_CEILING times a limit on the wall clock besides that wait, a guard for what
    the meter cannot see. A decision may take up to timeout + bank;
    time beyond the timeout is drawn from the bank, and every decision then adds the increment. A timeout empties
    the bank. The game clock bounds the seat's decisions of one game, all together: once it (or its ceiling on the
    wall clock) runs out, the seat is asked nothing more that game. A new_game is timed by the wall clock, and
    what it took beyond NEW_GAME_ALLOWANCE is taken from the game clock and its guard alike before the first
    decision.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank
        clock = control.game_clock if control.game_clock > 0 else None
        self.left = clock  # charged seconds left on the game clock (None: no game clock)
        self.wall_left = None if clock is None else WALL_CEILING * clock  # the guard's, beside the waits for a core
        self.used = 0.0  # charged seconds the seat's decisions took
        self.waited = 0.0  # wall seconds the arena waited for them

    def allowance(self) -> float:
        """The charged seconds the next decision may take: the timeout and bank, no more than the game clock left."""
        move = self.control.timeout + self.bank
        return move if self.left is None else min(move, self.left)

    def wall_limit(self) -> float:
        """The wall seconds the arena waits for the next decision: the ceiling, no more than the game clock's."""
        ceiling = WALL_CEILING * (self.control.timeout + self.bank)
        return ceiling if self.wall_left is None else min(ceiling, self.wall_left)

    def out_of_time(self) -> bool:
        """True once the game clock (or its ceiling on the wall clock) has run out."""
        return self.left is not None and self.wall_left is not None and (
            self.left < _RUN_OUT or self.wall_left < _RUN_OUT)

    def runs_out(self, elapsed: float, charged: float | None) -> bool:
        """True if a decision of `elapsed` wall seconds, charged `charged` (None: the wall time), would run the game
        clock (or the guard's share of it) out."""
        spent = elapsed if charged is None else charged
        return self.left is not None and self.wall_left is not None and (
            spent > self.left - _RUN_OUT or spent > self.wall_left - _RUN_OUT)

    def new_game_limit(self) -> float:
        """The wall seconds the arena waits for the seat's new_game: its limit (`new_game`), no more than the
        allowance and the game clock together."""
        if self.left is None or self.wall_left is None:
            return self.control.new_game
        return min(self.control.new_game, NEW_GAME_ALLOWANCE + min(self.left, self.wall_left))

    def new_game_charge(self, elapsed: float) -> float:
        """The seconds of the game clock a new_game that took `elapsed` wall seconds costs: its time beyond
        NEW_GAME_ALLOWANCE, or nothing without a game clock."""
        return 0.0 if self.left is None else max(0.0, elapsed - NEW_GAME_ALLOWANCE)

    def spend(self, seconds: float) -> None:
        """Take `seconds` off the game clock and its guard: a decision's charge, or a new_game's."""
        if self.left is not None and self.wall_left is not None:
            self.left = max(0.0, self.left - seconds)
            self.wall_left = max(0.0, self.wall_left - seconds)

    def clock(self) -> Clock:
        """The clock as a bot is told it: `remaining` never goes past the game clock left."""
        return Clock(remaining=self.allowance(), bank=self.bank, game_clock=self.left or 0.0)

    def charge(self, elapsed: float | None, timed_out: bool, charged: float | None = None) -> None:
        """Account for one decision that took `elapsed` wall seconds and was charged `charged` (None: not measured,
        the wall time is charged; elapsed None: the seat was not asked)."""
        if elapsed is None:
            return
        spent = elapsed if charged is None else charged
        self.used += spent
        self.waited += elapsed
        self.spend(spent)
        overage = max(0.0, spent - self.control.timeout)
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
