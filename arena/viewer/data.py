"""The page data of a replay: every frame of every view the page may show, re-simulated from the record."""

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
    """One view's frames as patches, and the log lines that came before each frame, as that view sees them."""

    seat: int | None
    frames: list[Any] = field(default_factory=list)
    events: list[list[str]] = field(default_factory=list)
    last: Any = None
    shown: int = 0

    @property
    def key(self) -> str:
        return REFEREE if self.seat is None else str(self.seat)

    def add(self, state: State, game: Game, views: list[dict[str, Any]]) -> None:
        """Record the frame of the state as this view sees it (views: every seat's), and the events since."""
        table = GAMES[game.name].referee(state, views) if self.seat is None else views[self.seat]
        self.frames.append(patch.diff(self.last, table) if self.frames else [table])
        self.last = table
        events = state.referee_events(self.shown) if self.seat is None else state.events(self.seat, self.shown)
        self.events.append([game.format_event(e) for e in events])
        self.shown = state.num_events()


def replay_data(record: GameRecord, seat: int | None = None) -> dict[str, Any]:
    """The data of a replay page as plain data: the referee's view and every seat's (seat None), or exactly what
    one seat was sent. ReplayError if the record does not reproduce or its game has no viewer."""
    game = record_game(record)
    if game.name not in GAMES:
        raise ReplayError(f"the viewer cannot draw {game.name!r}")
    if seat is not None and not 0 <= seat < record.num_players:
        raise ReplayError(f"seat must be from 0 to {record.num_players - 1}, got {seat}")
    seats = [None, *range(record.num_players)] if seat is None else [seat]
    views = [_Perspective(s) for s in seats]
    decisions: list[dict[str, Any]] = []

    def add(state: State) -> None:
        seat_views = [state.view(s) if seat is None or s == seat else {} for s in range(record.num_players)]
        for view in views:
            view.add(state, game, seat_views)

    def visit(state: State, number: int, d: DecisionRecord) -> None:
        add(state)
        decisions.append(_decision(state, d, seat))

    reproduction = resimulate(record, visit)
    if reproduction.problems:
        raise ReplayError("the replay does not reproduce the record: " + "; ".join(reproduction.problems))
    final = reproduction.state
    add(final)
    game_over = next((e for e in reversed(final.events(None)) if e.get("type") == "game_over"), None)
    return {
        "format": "bali-arena-replay-page", "game": record.game, "match": record.match_id,
        "game_index": record.game_index, "seed": record.seed, "options": record.options,
        "num_players": record.num_players, "page_seat": seat,
        "seats": [{"seat": s.seat, "name": s.label, "version": s.version} for s in record.seats],  # entrant (handshake)
        "colours": list(GAMES[game.name].colours),
        "decisions": decisions,
        "faults": [_fault(f, seat) for f in record.faults],
        "views": {v.key: {"frames": v.frames, "events": v.events,
                          "scoring": GAMES[game.name].scoring(v.last, game_over)} for v in views},
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
