"""The page data of a replay: the record, re-played in the browser for the referee's page (every view), or every
frame of one seat's view, re-simulated here, for a seat's page (so that it holds nothing else)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.errors import ReplayError
from arena.games import Game, GameError, State
from arena.match.record import DecisionRecord, GameRecord
from arena.match.replay import Reproduction, record_game, resimulate
from arena.viewer import patch
from arena.viewer.games import GAMES

STDERR_TAIL = 2000  # characters of a bot's stderr shown with a fault
PAGE_VERSION = 6  # of the page data and the scripts a page loads: a site's game pages of another version are made again
RECORD = "record"  # a page's mode: the browser re-plays the record with the game's engine
FRAMES = "frames"  # a page's mode: the page holds every frame of its one view


@dataclass
class _Frames:
    """Every frame of one seat's view: the public part and the seat's own part as patches, and the log lines the
    seat saw before each frame."""

    game: Game
    seat: int
    public: list[Any] = field(default_factory=list)
    own: list[Any] = field(default_factory=list)
    events: list[list[str]] = field(default_factory=list)
    last: tuple[Any, Any] = (None, None)
    shown: int = 0

    def add(self, state: State) -> None:
        """Record the frame of the state, and the log lines since the frame before."""
        public, own = state.public_view(), state.private_view(self.seat)
        first = not self.public
        self.public.append([public] if first else patch.diff(self.last[0], public))
        self.own.append([own] if first else patch.diff(self.last[1], own))
        self.last = (public, own)
        self.events.append([self.game.format_event(e) for e in state.events(self.seat, self.shown)])
        self.shown = state.num_events()

    def table(self) -> dict[str, Any]:
        """The last frame, whole."""
        return {**self.last[0], **self.last[1]}


def replay_data(record: GameRecord, seat: int | None = None, check: bool = True,
                bot_output: bool = True) -> dict[str, Any]:
    """The data of a replay page as plain data. The referee's page (seat None) holds the record, and the browser
    re-plays it with the game's JavaScript engine for every view; with check, the record is re-simulated here first.
    A seat's page holds exactly what that seat was sent, frame by frame. Without bot_output, the page holds no text
    a bot wrote but its handshake name and version (no decision logs, no fault details or stderr tails): a public
    page. ReplayError if the record does not reproduce or its game has no viewer."""
    game = record_game(record)
    if game.name not in GAMES:
        raise ReplayError(f"the viewer cannot draw {game.name!r}")
    if seat is not None and not 0 <= seat < record.num_players:
        raise ReplayError(f"seat must be from 0 to {record.num_players - 1}, got {seat}")
    data = _common(record, game, seat, bot_output)
    if seat is None:
        if check:
            _reproduced(resimulate(record))
        # [seat, index, wall time, fault, CPU time, charged, wait] per decision: a long game's page is mostly these.
        decided = [[d.seat, d.index, d.time, d.fault and d.fault.value, d.cpu, d.charged, d.wait]
                   for d in record.decisions]
        # Each decision's bot log, by decision number, only where there is one.
        logs = {str(k): [d.log, d.log_dropped] for k, d in enumerate(record.decisions)
                if bot_output and (d.log or d.log_dropped)}
        return {**data, "mode": RECORD, "seed": record.seed, "decisions": decided, "logs": logs}
    frames = _Frames(game, seat)
    decisions: list[dict[str, Any]] = []

    def visit(state: State, number: int, d: DecisionRecord) -> None:
        frames.add(state)
        decisions.append(_decision(state, d, seat, bot_output))

    final = _reproduced(resimulate(record, visit))
    frames.add(final)
    game_over = next((e for e in reversed(final.events(None)) if e.get("type") == "game_over"), None)
    scoring = GAMES[game.name].scoring(frames.table(), game_over)
    return {**data, "mode": FRAMES, "decisions": decisions, "public": frames.public, "events": frames.events,
            "views": {str(seat): {"frames": frames.own, "scoring": scoring}}}


def _reproduced(reproduction: Reproduction) -> State:
    if reproduction.problems:
        raise ReplayError("the replay does not reproduce the record: " + "; ".join(reproduction.problems))
    return reproduction.state


def _common(record: GameRecord, game: Game, seat: int | None, bot_output: bool) -> dict[str, Any]:
    # No seed: it would tell a seat's page every hidden card (only the referee's page, which shows them, has it).
    return {
        "format": "bali-arena-replay-page", "format_version": PAGE_VERSION, "game": record.game,
        "match": record.match_id, "game_index": record.game_index, "options": record.options,
        "parsed_options": _parsed_options(game, record.options),
        "num_players": record.num_players, "page_seat": seat,
        "seats": [{"seat": s.seat, "name": s.label, "version": s.version} for s in record.seats],  # entrant (handshake)
        "colours": list(GAMES[game.name].colours),
        "legend": GAMES[game.name].legend(),
        "faults": [_fault(f, seat, bot_output) for f in record.faults],
        "result": {**record.result.to_dict(), "match_ranks": list(record.ranks),
                   "disqualified": list(record.disqualified)},
    }


def _parsed_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """The options as the engine reads them, every one present: what the browser's engine is set up with."""
    try:
        return game.parse_options(options).to_dict()
    except GameError as exc:
        raise ReplayError(f"the record's setup is not valid: {exc}") from None


def _decision(state: State, d: DecisionRecord, page_seat: int | None, bot_output: bool) -> dict[str, Any]:
    decision = state.decision()
    plain: dict[str, Any] = {"seat": d.seat, "kind": decision["kind"], "time": d.time, "cpu": d.cpu,
                             "charged": d.charged, "wait": d.wait,
                             "fault": d.fault.value if d.fault is not None else None}
    # A seat is sent only its own options; another seat's options (and its choice) could name its hidden cards.
    if page_seat is None or page_seat == d.seat:
        plain["options"] = state.options()
        plain["index"] = d.index
        if bot_output and (d.log or d.log_dropped):  # a bot's log may name its cards: only its seat's page
            plain["log"], plain["log_dropped"] = d.log, d.log_dropped
    return plain


def _fault(f: Any, page_seat: int | None, bot_output: bool) -> dict[str, Any]:
    plain = {"seat": f.seat, "bot": f.bot, "decision": f.decision, "phase": f.phase.value, "kind": f.kind.value}
    # Details and stderr are whatever a bot sent or printed, perhaps its own cards: only its seat and the referee,
    # and only on the organiser's pages unless asked (a detail may quote what a bot sent).
    if bot_output and (page_seat is None or page_seat == f.seat):
        plain["detail"] = f.detail[-STDERR_TAIL:]
        plain["stderr"] = f.stderr[-STDERR_TAIL:]
    return plain
