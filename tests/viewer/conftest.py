"""Game records for the viewer's tests (played in-process by random seats, or by bots through `arena match`),
the Chromium fixture, and what a seat was sent, re-simulated from a record."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.games import get_game
from arena.match.local import player_rng
from arena.match.record import DecisionRecord, GameRecord, SeatRecord, load_record
from arena.match.replay import resimulate
from arena.match.wire import match_ranks
from arena.viewer.games import GAMES
from protocol import TimeControl
from tests.browser import start_chromium

ROOT = Path(__file__).resolve().parents[2]
ARENA = (sys.executable, "-m", "arena")
LONG_2001 = ("bali-2001", 4, 11)  # random play of this game takes 1,136 decisions


def engine_record(game_name: str, players: int, seed: int, options: dict[str, Any] | None = None) -> GameRecord:
    """A record of a game played in-process by random seats, each decision timed at a made-up 1-4 ms."""
    game = get_game(game_name)
    state = game.new_state(players, seed, options)
    rng, clock = player_rng(seed), random.Random(seed)
    decisions = []
    while not state.is_terminal():
        seat = state.current_player()
        index = rng.randrange(len(state.options()))
        decisions.append(DecisionRecord(seat, index, 0.001 + 0.003 * clock.random()))
        state.apply(index)
    result = state.result()
    seats = tuple(SeatRecord(seat=s, participant=s, name=f"random-{s}", version="1.0", command="in-process",
                             seed=seed + s, first_request=1, game_over_sent=True) for s in range(players))
    return GameRecord(match_id=f"engine-{game_name}-{seed}", game_index=0, game=game_name, options=options,
                      num_players=players, seed=seed, time=TimeControl(), seats=seats, decisions=tuple(decisions),
                      faults=(), disqualified=(), result=result, ranks=match_ranks(result.ranks, frozenset()),
                      max_faults=3)


def run_arena(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the arena's command line as a user would, in cwd."""
    done = subprocess.run([*ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def bot(name: str, *args: str) -> str:
    """The command line of a sample bot (or of a test double under tests/bot_programs)."""
    folder = "sample_bots" if (ROOT / "sample_bots" / f"{name}.py").is_file() else "tests/bot_programs"
    return " ".join([sys.executable, str(ROOT / folder / f"{name}.py"), *args])


def cli_match_record(folder: Path, game: str, bots: list[str], seed: int) -> Path:
    """Play one game with `arena match` in folder; the path of its record."""
    run_arena("match", game, *bots, "--games", "1", "--seed", str(seed), "--timeout", "2", "-q", cwd=folder)
    records = sorted((folder / "results" / "matches").glob("*/game-*.json"))
    assert len(records) == 1, records
    return records[0]


@pytest.fixture(scope="session")
def match_2001(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bali-2001 game of a heuristic, a random and an illegal-move bot, played by `arena match`."""
    return cli_match_record(tmp_path_factory.mktemp("match2001"), "bali-2001",
                            [bot("heuristic_bot"), bot("random_bot"), bot("faulty_bot", "illegal")], seed=5)


def seat_knowledge(record: GameRecord, seat: int) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """What the engine let seat know: its view before each decision and at the end, and the events it could see
    before each of those frames."""
    views: list[dict[str, Any]] = []
    events: list[list[dict[str, Any]]] = []
    shown = 0

    def visit(state: Any, number: int = 0, d: Any = None) -> None:
        nonlocal shown
        views.append(state.view(seat))
        events.append(state.events(seat, shown))
        shown = state.num_events()

    visit(resimulate(record, visit).state)
    return views, events


def referee_knowledge(record: GameRecord) -> tuple[list[dict[str, Any]], list[list[Any]], list[list[Any]]]:
    """What a referee's page must re-play in the browser, from the Python engine: the referee's table before each
    decision and at the end, the log lines before each (one text, or [public, seat, private] where a seat sees
    another version), and each decision's options."""
    table = GAMES[record.game]
    game = get_game(record.game)
    tables: list[dict[str, Any]] = []
    lines: list[list[Any]] = []
    options: list[list[Any]] = []
    shown = 0

    def text(public: dict[str, Any], who: int, private: dict[str, Any] | None) -> Any:
        if private is None:
            return game.format_event(public)
        return [game.format_event(public), who, game.format_event(private)]

    def visit(state: Any, number: int = 0, d: Any = None) -> None:
        nonlocal shown
        privates = [state.private_view(s) for s in range(record.num_players)]
        tables.append({**state.public_view(), **table.referee(state, privates)})
        lines.append([text(*entry) for entry in state.event_versions(shown)])
        shown = state.num_events()
        if d is not None:
            options.append(state.options())

    visit(resimulate(record, visit).state)
    return tables, lines, options


def card_ids(value: Any) -> set[int]:
    """The ids of every bali-2001 card (a map with id and kind) anywhere in value."""
    found: set[int] = set()
    if isinstance(value, dict):
        if isinstance(value.get("id"), int) and "kind" in value:
            found.add(value["id"])
        for item in value.values():
            found |= card_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids(item)
    return found


def page_data(html: str) -> dict[str, Any]:
    """The inline data of a replay page."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert match, "the page has no inline replay data"
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium for this module's tests (skips, or fails under ARENA_REQUIRE_BROWSER=1, without one)."""
    yield from start_chromium()


__all__ = ["LONG_2001", "card_ids", "cli_match_record", "engine_record", "load_record", "page_data",
           "referee_knowledge", "run_arena", "seat_knowledge"]
