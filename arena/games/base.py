"""The game interface every registered game offers (docs/ARCHITECTURE.md, "The game interface"), its errors,
its shared result type, and the machinery both engines share."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import IntEnum
from types import ModuleType
from typing import Any, Callable, ClassVar, Protocol, Sequence


class GameError(ValueError):
    """Bad input to a game: options, player count, seed, option index, seat or a saved state that does not fit."""


class GameInvariantError(RuntimeError):
    """An engine broke one of its own rules (a bug, never bad input); no caller may read it as bad input."""


class WireEnum(IntEnum):
    """An integer enum whose members carry the name they have in options, views and events."""

    wire: str

    def __new__(cls, value: int, wire: str) -> "WireEnum":
        member = int.__new__(cls, value)
        member._value_ = value
        member.wire = wire
        return member

    @classmethod
    def wires(cls) -> tuple[str, ...]:
        """Every member's wire name, in member order."""
        return tuple(member.wire for member in cls)

    @classmethod
    def by_wire(cls) -> dict[str, Any]:
        """The members by wire name."""
        return {member.wire: member for member in cls}


class DecisionKind(WireEnum):
    """A game's kinds of pending decision (its phases); the wire name is the decision's `kind`."""


class ActionKind(WireEnum):
    """A game's kinds of choice a seat can make; the wire name is the option's `action`."""


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
        """The inverse of to_dict; raises GameError on a malformed dict."""
        try:
            return cls(tuple(int(s) for s in d["scores"]), tuple(int(r) for r in d["ranks"]),
                       str(d["reason"]), bool(d.get("cut_short", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"malformed game result: {exc}") from None


def is_int(value: Any) -> bool:
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_players_and_seed(num_players: Any, seed: Any, low: int, high: int) -> None:
    """GameError naming the field unless num_players is in [low, high] and seed is an integer."""
    if not is_int(num_players) or not low <= num_players <= high:
        raise GameError(f"players must be an integer from {low} to {high}, got {num_players!r}")
    if not is_int(seed):
        raise GameError(f"seed must be an integer, got {seed!r}")


def seat_or_none(seat: int) -> int | None:
    """A seat as plain data: inside the engines -1 means nobody, on the wire null does."""
    return None if seat < 0 else seat


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

    def current_player(self) -> int | None:
        """The seat that must decide, or None once the game is over."""

    def options(self) -> list[dict[str, Any]]:
        """The legal choices of the pending decision (option 0 its documented default)."""

    def decision(self) -> dict[str, Any]:
        """What is being decided: `kind`, `seat`, `active` and the fields the game documents."""

    def apply(self, index: int) -> None:
        """Apply options()[index]; GameError for a bad index, changing nothing."""

    def view(self, seat: int) -> dict[str, Any]:
        """Everything seat may know and nothing more: the public view merged with its private one."""

    def public_view(self) -> dict[str, Any]:
        """The part of the view every seat shares."""

    def private_view(self, seat: int) -> dict[str, Any]:
        """The seat's own part of its view."""

    def referee_view(self) -> dict[str, Any]:
        """What no seat's view holds (the hidden cards a referee's table shows)."""

    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The log from entry `since` as seat saw it (None: as a spectator)."""

    def referee_events(self, since: int = 0) -> list[dict[str, Any]]:
        """The log from entry `since` with every hidden detail."""

    def event_versions(self, since: int = 0) -> list[LogEntry]:
        """Each log entry's public version, the seat that sees another version, and that version."""

    def num_events(self) -> int:
        """How many entries the log holds."""

    def is_terminal(self) -> bool:
        """True once the game is over."""

    def result(self) -> GameResult:
        """Scores, ranks (1 = best, ties share) and why the game ended."""

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data, which Game.state_from_dict restores exactly."""


class Game(Protocol):
    """A registered game: makes states and knows its option defaults."""

    name: str
    min_players: int
    max_players: int
    variants: tuple[str, ...]  # the options that switch a variant on (NAME=true)
    game_clock: float  # the default game clock: seconds of thinking time per seat and game (README.md of the game)
    draw_probability: float  # the share of seat pairs that tie in random play: TrueSkill's prior for a draw

    def default_options(self) -> dict[str, Any]:
        """The game's options, all at their defaults, as a plain dict."""

    def parse_options(self, options: dict[str, Any] | None) -> OptionsLike:
        """The options validated (None: the defaults); GameError naming a bad one."""

    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        """A new game: the same seed and options always give the same game."""

    def state_from_dict(self, d: dict[str, Any]) -> State:
        """The state State.to_dict saved; GameError if d does not fit."""

    def format_event(self, event: dict[str, Any]) -> str:
        """One log entry as a line of text."""


class Rules(Protocol):
    """What a game's rules module offers the shared machinery (module functions, each taking the state)."""

    def setup(self, state: Any) -> None:
        """Deal the game's start from the state's own generator."""

    def legal_actions(self, state: Any) -> list[Any]:
        """The legal actions of the pending decision."""

    def apply_one(self, state: Any, action: Any) -> None:
        """Apply one legal action and its effects."""

    def game_result(self, state: Any) -> GameResult:
        """The result of a finished game."""


class Views(Protocol):
    """What a game's views module offers the shared machinery."""

    def public_dict(self, state: Any) -> dict[str, Any]:
        """The part of the view every seat shares."""

    def private_dict(self, state: Any, seat: int) -> dict[str, Any]:
        """The seat's own part of its view."""

    def referee_dict(self, state: Any) -> dict[str, Any]:
        """What no seat's view holds."""

    def decision_dict(self, state: Any) -> dict[str, Any]:
        """The pending decision as plain data."""

    def format_event(self, event: dict[str, Any]) -> str:
        """One log entry as a line of text."""


class OptionsLike(Protocol):
    """An engine's validated options."""

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""


class EngineState(ABC):
    """What every engine's state shares: the checked apply, the per-seat event log, seat and result guards.

    The game object wires a state to its rules and views modules, so that the state module imports neither.
    A subclass declares its game's name and the phase of a finished game, lays out its own data (`_lay_out`) and
    gives the fields of to_dict.
    """

    game_name: ClassVar[str]
    over: ClassVar[DecisionKind]  # the phase of a finished game
    pending: Any  # the pending decision; its `seat` decides and its `phase` is what is decided

    def __init__(self, num_players: int, options: OptionsLike, rng: random.Random, rules: Rules, views: Views) -> None:
        self.num_players = num_players
        self.opts = options
        self.rng = rng
        self.rules = rules
        self.views = views
        self.log: list[LogEntry] = []
        self._legal: list[Any] | None = None  # the legal actions of the pending decision, once computed
        self._lay_out(num_players)

    @abstractmethod
    def _lay_out(self, n: int) -> None:
        """Set up the game's own data for n players, before any card is dealt (rules' setup deals them)."""

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.pending.phase == self.over

    @abstractmethod
    def _fields(self) -> dict[str, Any]:
        """The game's own fields of to_dict()."""

    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        return None if self.is_terminal() else self.pending.seat

    def legal_actions(self) -> list[Any]:
        """The legal choices as typed actions, in the order of options()."""
        if self._legal is None:
            self._legal = self.rules.legal_actions(self)
        return self._legal

    def options(self) -> list[dict[str, Any]]:
        """The legal choices as plain dicts; index 0 is the default."""
        return [action.to_dict() for action in self.legal_actions()]

    def decision(self) -> dict[str, Any]:
        """What is being decided: a plain dict with 'kind', 'seat' (None once the game is over) and 'active'."""
        return self.views.decision_dict(self)

    def apply(self, index: int) -> None:
        """Apply options()[index]; GameError for a bad index or a finished game, changing nothing."""
        if self.is_terminal():
            raise GameError("the game is over; no choice can be applied")
        legal = self.legal_actions()
        if not is_int(index) or not 0 <= index < len(legal):
            raise GameError(f"option index must be an integer from 0 to {len(legal) - 1}, got {index!r}")
        self.rules.apply_one(self, legal[index])
        self.settle()

    def settle(self) -> None:
        """Apply every forced decision (a single legal choice) that follows, so that players are only asked real
        choices; forced choices are logged like any other."""
        while True:
            self._legal = None
            if self.is_terminal():
                return
            legal = self.rules.legal_actions(self)
            if len(legal) != 1:
                self._legal = legal
                return
            self.rules.apply_one(self, legal[0])

    def log_event(self, public: dict[str, Any], seat: int = -1, extra: dict[str, Any] | None = None) -> None:
        """Append an event; seat (if any) sees the public event plus extra."""
        self.log.append((public, seat, None if extra is None else {**public, **extra}))

    def clockwise_from(self, seat: int) -> list[int]:
        """Every seat in clockwise order, starting with seat itself (drop the first for the others)."""
        n = self.num_players
        return [(seat + i) % n for i in range(n)]

    def view(self, seat: int) -> dict[str, Any]:
        """Everything seat may know, and nothing more."""
        return {**self.public_view(), **self.private_view(seat)}

    def public_view(self) -> dict[str, Any]:
        """The part of every seat's view that all seats share: view(seat) is public_view() and private_view(seat)."""
        return {"game": self.game_name, "num_players": self.num_players, **self.views.public_dict(self)}

    def private_view(self, seat: int) -> dict[str, Any]:
        """The part of seat's view that is its own (no key of public_view() among them)."""
        self._check_seat(seat)
        return self.views.private_dict(self, seat)

    def referee_view(self) -> dict[str, Any]:
        """What no seat's view holds and a referee sees: the hidden cards beside the public and private views."""
        return self.views.referee_dict(self)

    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The log entries from index since on, each as seat may see it (None: as a spectator sees it)."""
        if seat is not None:
            self._check_seat(seat)
        return [dict(private) if who == seat and private is not None else dict(public)
                for public, who, private in self.log[since:]]

    def referee_events(self, since: int = 0) -> list[dict[str, Any]]:
        """The log entries from index since on with every hidden detail, for referees and debugging."""
        return [dict(private if private is not None else public) for public, _, private in self.log[since:]]

    def event_versions(self, since: int = 0) -> list[LogEntry]:
        """The log entries from index since on, each as (the public event, the seat that sees the private version
        instead or -1, that version or None): events(seat) and referee_events() at once, without copies."""
        return self.log[since:]

    def num_events(self) -> int:
        """How many log entries there are so far."""
        return len(self.log)

    def result(self) -> GameResult:
        """Scores and ranks of a finished game; GameError while it runs."""
        if not self.is_terminal():
            raise GameError("the game is not over")
        return self.rules.game_result(self)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data; the game's state_from_dict restores it exactly."""
        version, internal, gauss = self.rng.getstate()
        return {"game": self.game_name, "num_players": self.num_players, "options": self.opts.to_dict(),
                "rng": [version, list(internal), gauss], **self._fields(),
                "log": [[dict(pub), who, None if priv is None else dict(priv)] for pub, who, priv in self.log]}

    def _check_seat(self, seat: int) -> None:
        if not is_int(seat) or not 0 <= seat < self.num_players:
            raise GameError(f"seat must be an integer from 0 to {self.num_players - 1}, got {seat!r}")


def rng_from_dict(data: Any, game: str) -> random.Random:
    """The generator a state's to_dict() saved; GameError if data is not such a state."""
    rng = random.Random()
    try:
        version, internal, gauss = data
        rng.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError) as exc:
        raise GameError(f"not a {game} state: bad rng state ({exc})") from None
    return rng


def log_from_dicts(entries: Any) -> list[LogEntry]:
    """The event log a state's to_dict() saved."""
    return [(dict(pub), int(who), None if priv is None else dict(priv)) for pub, who, priv in entries]


class EngineGame(ABC):
    """What every engine's game object shares: checked arguments, seeded setup, guarded restore, the wiring of a
    state to its rules and views. A game names its modules where it subclasses this one (its name and player range
    are its cards module's GAME_NAME, MIN_PLAYERS and MAX_PLAYERS):

        class MyGame(EngineGame, cards=cards, rules=rules, views=views, state=State, options=parse_options)

    and says how to restore a saved state's own fields."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    game_clock: ClassVar[float]
    draw_probability: ClassVar[float]
    rules: ClassVar[Rules]
    views: ClassVar[Views]
    variants: ClassVar[tuple[str, ...]] = ()
    state_class: ClassVar[Callable[..., EngineState]]
    options_parser: ClassVar[Callable[[dict[str, Any] | None], OptionsLike]]

    def __init_subclass__(cls, *, cards: ModuleType, rules: Rules, views: Views, state: Callable[..., EngineState],
                          options: Callable[[dict[str, Any] | None], OptionsLike], **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.name, cls.min_players, cls.max_players = cards.GAME_NAME, cards.MIN_PLAYERS, cards.MAX_PLAYERS
        cls.rules, cls.views, cls.state_class = rules, views, state
        cls.options_parser = staticmethod(options)

    def parse_options(self, options: dict[str, Any] | None) -> OptionsLike:
        """Validated options from a plain dict; GameError naming the field if one is bad."""
        return self.options_parser(options)

    def _empty_state(self, num_players: int, options: Any, rng: random.Random) -> EngineState:
        return self.state_class(num_players, options, rng, self.rules, self.views)

    @abstractmethod
    def _restore_fields(self, state: Any, d: dict[str, Any]) -> None:
        """Fill an empty state from the game's own fields of a to_dict(); GameError if they do not fit together."""

    def default_options(self) -> dict[str, Any]:
        """The options a game gets when none are given."""
        return self.parse_options(None).to_dict()

    def format_event(self, event: dict[str, Any]) -> str:
        """One event as a line of text."""
        return self.views.format_event(event)

    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> EngineState:
        """A new game; the same seed and options always give the same game."""
        check_players_and_seed(num_players, seed, self.min_players, self.max_players)
        state = self._empty_state(num_players, self.parse_options(options), random.Random(seed))
        self.rules.setup(state)
        state.settle()
        return state

    def state_from_dict(self, d: dict[str, Any]) -> EngineState:
        """The state that to_dict() described; GameError if d is not such a description."""
        if not isinstance(d, dict) or d.get("game") != self.name:
            found = d.get("game") if isinstance(d, dict) else type(d).__name__
            raise GameError(f"not a {self.name} state: game is {found!r}")
        try:
            check_players_and_seed(d["num_players"], 0, self.min_players, self.max_players)
            state = self._empty_state(d["num_players"], self.parse_options(d["options"]),
                                      rng_from_dict(d["rng"], self.name))
            self._restore_fields(state, d)
            state.log = log_from_dicts(d["log"])
            return state
        except GameError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
            raise GameError(f"not a {self.name} state: {type(exc).__name__}: {exc}") from None
