"""The page data of a replay: every frame of every view the page may show, re-simulated from the record.

The views share most of the table: its public part is kept once, and each view adds only its own part."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.errors import ReplayError
from arena.games import Game, State
from arena.record import DecisionRecord, GameRecord
from arena.replay import record_game, resimulate
from arena.viewer import patch
from arena.viewer.tables import GAMES, REFEREE

STDERR_TAIL = 2000  # characters of a bot's stderr shown with a fault


@dataclass
class _Perspective:
    """One view's own part of the table (beside the public part every view shares), frame by frame as patches."""

    seat: int | None
    frames: list[Any] = field(default_factory=list)
    last: Any = None

    @property
    def key(self) -> str:
        return REFEREE if self.seat is None else str(self.seat)

    def add(self, own: dict[str, Any]) -> None:
        """Record this view's own part of the next frame."""
        self.frames.append(patch.diff(self.last, own) if self.frames else [own])
        self.last = own


@dataclass
class _Frames:
    """Every frame of the page's views: the public part once, each view's own part, and the log lines before each
    frame (a line a seat sees in another version is kept in both, with the seat, unless the page is one seat's)."""

    game: Game
    players: int
    page_seat: int | None
    public: list[Any] = field(default_factory=list)
    events: list[list[Any]] = field(default_factory=list)
    last: Any = None
    shown: int = 0

    def __post_init__(self) -> None:
        seats = [None, *range(self.players)] if self.page_seat is None else [self.page_seat]
        self.views = [_Perspective(s) for s in seats]

    def add(self, state: State) -> None:
        """Record the frame of the state in every view, and the log lines since the frame before."""
        public = state.public_view()
        self.public.append(patch.diff(self.last, public) if self.public else [public])
        self.last = public
        if self.page_seat is None:
            privates = [state.private_view(s) for s in range(self.players)]
            self.views[0].add(GAMES[self.game.name].referee(state, privates))
            for view, own in zip(self.views[1:], privates):
                view.add(own)
        else:
            self.views[0].add(state.private_view(self.page_seat))
        self.events.append([self._line(*entry) for entry in state.event_versions(self.shown)])
        self.shown = state.num_events()

    def _line(self, public: dict[str, Any], who: int, private: dict[str, Any] | None) -> Any:
        if private is None or (self.page_seat is not None and who != self.page_seat):
            return self.game.format_event(public)
        if self.page_seat is not None:
            return self.game.format_event(private)
        return [self.game.format_event(public), who, self.game.format_event(private)]

    def table(self, view: _Perspective) -> dict[str, Any]:
        """The last frame of a view, whole."""
        return {**self.last, **view.last}


def replay_data(record: GameRecord, seat: int | None = None) -> dict[str, Any]:
    """The data of a replay page as plain data: the referee's view and every seat's (seat None), or exactly what
    one seat was sent. ReplayError if the record does not reproduce or its game has no viewer."""
    game = record_game(record)
    if game.name not in GAMES:
        raise ReplayError(f"the viewer cannot draw {game.name!r}")
    if seat is not None and not 0 <= seat < record.num_players:
        raise ReplayError(f"seat must be from 0 to {record.num_players - 1}, got {seat}")
    frames = _Frames(game, record.num_players, seat)
    decisions: list[dict[str, Any]] = []

    def visit(state: State, number: int, d: DecisionRecord) -> None:
        frames.add(state)
        decisions.append(_decision(state, d, seat))

    reproduction = resimulate(record, visit)
    if reproduction.problems:
        raise ReplayError("the replay does not reproduce the record: " + "; ".join(reproduction.problems))
    final = reproduction.state
    frames.add(final)
    game_over = next((e for e in reversed(final.events(None)) if e.get("type") == "game_over"), None)
    scoring = GAMES[game.name].scoring
    return {
        "format": "bali-arena-replay-page", "game": record.game, "match": record.match_id,
        "game_index": record.game_index, "seed": record.seed, "options": record.options,
        "num_players": record.num_players, "page_seat": seat,
        "seats": [{"seat": s.seat, "name": s.label, "version": s.version} for s in record.seats],  # entrant (handshake)
        "colours": list(GAMES[game.name].colours),
        "decisions": decisions,
        "faults": [_fault(f, seat) for f in record.faults],
        "public": frames.public,
        "events": frames.events,
        "views": {v.key: {"frames": v.frames, "scoring": scoring(frames.table(v), game_over)} for v in frames.views},
        "result": {**record.result.to_dict(), "match_ranks": list(record.ranks),
                   "disqualified": list(record.disqualified)},
    }


def _decision(state: State, d: DecisionRecord, page_seat: int | None) -> dict[str, Any]:
    decision = state.decision()
    plain: dict[str, Any] = {"seat": d.seat, "kind": decision["kind"], "time": d.time,
                             "fault": d.fault.value if d.fault is not None else None}
    # A seat is sent only its own options; another seat's options (and its choice) could name its hidden cards.
    if page_seat is None or page_seat == d.seat:
        plain["options"] = state.options()
        plain["index"] = d.index
    return plain


def _fault(f: Any, page_seat: int | None) -> dict[str, Any]:
    plain = {"seat": f.seat, "bot": f.bot, "decision": f.decision, "phase": f.phase.value, "kind": f.kind.value}
    # Details and stderr are whatever a bot sent or printed, perhaps its own cards: only its seat and the referee.
    if page_seat is None or page_seat == f.seat:
        plain["detail"] = f.detail[-STDERR_TAIL:]
        plain["stderr"] = f.stderr[-STDERR_TAIL:]
    return plain
