"""What goes over the wire to a seat is that seat's view and events, exactly, and nothing else.

The bots here record every message as they receive it; the test then replays each game through the
engine on its own and compares, message by message.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest

from arena.bots.process import BotCommand
from arena.bots.sandbox import NO_SANDBOX
from arena.games import available, get_game
from arena.match.record import GameRecord
from arena.match.replay import seat_messages
from arena.match.wire import effective_options
from protocol import TimeControl, encode
from tests.helpers import quick_run
from tests.match.conftest import FAST, Spawned, play

RECORDER = BotCommand((sys.executable, str(Path(__file__).parents[1] / "bot_programs" / "recording_bot.py")))
DECIDE_FIELDS = {"type", "version", "id", "game_index", "decision", "view", "events", "event_index", "options",
                 "time"}
GAME_OVER_FIELDS = {"type", "version", "id", "game_index", "seat", "result", "events", "event_index"}


def wire(value: Any) -> Any:
    """value as it looks after a trip through msgpack (tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(value))


def received_by_seat(folder: Path) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """(game index, seat) -> the new_game, decide and game_over messages that seat's bot received."""
    by_seat: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for stream in folder.glob("*.bin"):
        current = None
        for message in msgpack.Unpacker(stream.open("rb")):
            if message["type"] == "new_game":
                current = (message["game_index"], message["seat"])
                by_seat[current] = []
            if message["type"] in ("new_game", "decide", "game_over"):
                by_seat[current].append(message)  # type: ignore[index]
    return by_seat


def check_game(record: GameRecord, received: dict[tuple[int, int], list[dict[str, Any]]]) -> None:
    game = get_game(record.game)
    state = game.new_state(record.num_players, record.seed, record.options)
    sent = {seat: iter(received[(record.game_index, seat)]) for seat in range(record.num_players)}
    for seat, messages in sent.items():
        new_game = next(messages)
        assert new_game["seat"] == seat and new_game["num_players"] == record.num_players
        assert new_game["seed"] == record.seats[seat].seed and new_game["game"] == record.game
        assert new_game["options"] == wire(effective_options(game, record.options))
    since = [0] * record.num_players
    for decision in record.decisions:
        seat = state.current_player()
        assert seat == decision.seat
        message = next(sent[seat])
        assert set(message) == DECIDE_FIELDS
        assert message["view"] == wire(state.view(seat))
        assert message["events"] == wire(state.events(seat, since[seat]))
        assert message["event_index"] == since[seat]
        assert message["options"] == wire(state.options())
        assert message["decision"] == wire(state.decision())
        since[seat] = state.num_events()
        state.apply(decision.index)
    for seat, messages in sent.items():
        over = next(messages)
        assert set(over) == GAME_OVER_FIELDS
        assert over["events"] == wire(state.events(seat, since[seat])) and over["event_index"] == since[seat]
        assert over["result"]["ranks"] == list(record.ranks)
        assert next(messages, None) is None  # nothing else was sent


# Both games with plain time in the quick run; with a time bank (the same messages, other limits), a slow test.
@pytest.mark.parametrize("time", [
    pytest.param(FAST, id="plain"),
    pytest.param(TimeControl(timeout=0.5, init=20.0, bank=2.0, increment=0.01), marks=pytest.mark.slow, id="time-bank"),
])
@pytest.mark.parametrize("game", quick_run(available(), {"bali-2017"}))  # the long game: slow
def test_each_seat_is_sent_exactly_its_view_and_its_events(game: str, time: TimeControl, tmp_path: Path,
                                                          spawned: Spawned, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "received"
    folder.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(folder))
    # The recording bot finds its folder in the environment, which every sandbox but none scrubs.
    result = play(tmp_path / "results", game, [RECORDER] * get_game(game).max_players, games=2, seed=8, time=time,
                  sandbox=NO_SANDBOX)
    received = received_by_seat(folder)
    for record in result.records:
        assert not record.faults
        check_game(record, received)
        # `arena replay --seat` shows exactly these messages, ids and clocks included.
        for seat in range(record.num_players):
            shown = [msgpack.unpackb(encode(m)) for m in seat_messages(record, seat)]
            assert shown == received[(record.game_index, seat)]
    spawned.assert_all_gone()
