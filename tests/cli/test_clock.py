"""The game clock through the command line: on by default with each game's own, set by --game-clock or a competition
file's [time] game_clock, reported by validate, and bounding how long a last-millisecond bot makes a game last."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.games import available, get_game
from arena.match.record import load_record
from tests.cli.conftest import FAST, RANDOM_BOT, records, run
from tests.helpers import arena, bots
from tests.match.conftest import ROOT

LAST_MS = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'last_ms_bot.py'}"


@pytest.mark.parametrize("command", ["match", "validate", "tournament", "compare"])
def test_every_command_that_plays_games_shows_each_games_default_game_clock(command: str) -> None:
    shown = " ".join(run(command, "--help").output.split())
    defaults = ", ".join(f"{get_game(name).game_clock:g} for {name}" for name in available())
    assert "--game-clock SECONDS" in shown and f"[default: ({defaults}); x>=0.0]" in shown


def test_validate_reports_how_much_of_its_game_clock_a_bot_used(tmp_path: Path) -> None:
    r = run("validate", RANDOM_BOT, "--game", "bali-2017", "--games", "1", "--players", "2", "--results",
            str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    assert "1 s per decision" not in r.output and "0.5 s per decision, a 20 s game clock" in r.output
    assert "game 1 (seat 0): ok: " in r.output and " s of its 20 s (wall " in r.output
    assert " s waiting for a core), rank " in r.output


def test_a_competition_files_game_clock_is_the_tournaments(tmp_path: Path) -> None:
    path = tmp_path / "competition.toml"
    entrants = ", ".join(f'"{bot}"' for bot in bots(2))
    path.write_text(f'game = "bali-2017"\nbots = [{entrants}]\nrounds = 1\njobs = 1\nresults = "out"\n'
                    '[time]\ntimeout = 0.5\ninit_timeout = 20\ngame_clock = 7.5\n', encoding="utf-8")
    done = arena("tournament", "--config", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(tmp_path / "out" / "arena.sqlite")) as db:
        config = json.loads(db.execute("SELECT config FROM tournaments").fetchone()[0])
    assert config["time"]["game_clock"] == 7.5
    replays = sorted((tmp_path / "out").glob("**/game-*.json"))
    assert replays and load_record(replays[0]).time.game_clock == 7.5


def played(tmp_path: Path, name: str, bot: str, *args: str) -> tuple[float, Path]:
    """Seconds a one-game bali-2017 match of bot against a random bot took, and its record."""
    results = tmp_path / name
    start = time.monotonic()
    done = arena("match", "bali-2017", bot, RANDOM_BOT, "--seed", "3", "--results", str(results),
                 "--init-timeout", "20", *args, cwd=tmp_path)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    return seconds, records(results)[0]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["watching", "blind", "asleep"])
def test_a_last_millisecond_bot_makes_its_game_last_at_most_its_game_clock_longer(how: str, tmp_path: Path) -> None:
    # A watching bot computes until just before `time.remaining`, which the game clock shortens as it runs low; a
    # blind one until just before the per-decision timeout alone, and so runs out of clock; an asleep one sleeps
    # until then. Asleep or thinking, each is charged at most the 5 s of its game clock, and waited for no longer
    # than that plus the time it waited for a core: its game lasts at most about 5 s longer than the same game
    # played at once, besides the arena's own time.
    mode = {"watching": "spin", "blind": "blind", "asleep": "blind sleep"}[how]
    at_once, _ = played(tmp_path, "at-once", RANDOM_BOT)
    slow, path = played(tmp_path, "slow", f"{LAST_MS} {mode}", "--game-clock", "5", "--timeout", "1")
    record = load_record(path)
    mine = [d for d in record.decisions if d.seat == 0 and d.time is not None]
    spent = sum(d.spent or 0.0 for d in mine)
    waited = sum(d.time or 0.0 for d in mine)
    for_a_core = sum(d.wait or 0.0 for d in mine)
    assert all(d.charged is not None and d.wait is not None for d in mine)
    assert spent <= 5.0 + 0.1 and waited == pytest.approx(spent + for_a_core), (spent, waited, for_a_core)
    assert spent > 4.0  # it used its clock up
    clock_faults = [f for f in record.faults if f.kind == FaultKind.CLOCK]
    # Watching, it stays within the game clock, unless the machine is so busy that it waits past the guard.
    assert len(clock_faults) == 1 or how == "watching" and not clock_faults
    assert len([d for d in record.decisions if d.seat == 0]) > 5  # without the clock, ~1 s each
    # The arena's own time besides: starting the bots and the rest of the game, as in the game played at once.
    assert slow <= at_once + waited + max(2.0, at_once), (slow, at_once, waited)
    assert waited <= 5.0 + 0.1 + for_a_core


def test_where_waiting_for_a_core_cannot_be_measured_a_command_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.cli.params
    monkeypatch.setattr(arena.cli.params, "wait_accounting", lambda: None)
    r = run("match", "bali-2017", RANDOM_BOT, RANDOM_BOT, "--games", "2", "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    assert r.output.count("time warning: the time a bot waits for a core cannot be read here") == 1
