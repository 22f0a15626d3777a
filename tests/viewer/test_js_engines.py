"""The viewer's JavaScript engines (arena/viewer/static/engines) re-play random games exactly as the Python engines
play them: every view of every seat, the referee's part of the table, each decision, its options, every event and
log line, and the result, compared in node before each decision (the browser tests check pages again in Chromium;
tests/stored_games.py re-plays every game the suite stores). A difference is named by game, decision and field."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.viewer.engine_traces import CONFIGURATIONS, check, check_all, random_traces, trace


def _node() -> None:
    if shutil.which("node"):
        return
    reason = "node is not installed: the viewer's engines cannot be checked here"
    if "1" in (os.environ.get("ARENA_REQUIRE_BROWSER"), os.environ.get("ARENA_REQUIRE_KITS")):
        pytest.fail(reason)
    pytest.skip(reason)


def _check(games: int, tmp_path: Path) -> None:
    _node()
    count, problems = check_all(random_traces(games), tmp_path)
    assert count == games * len(CONFIGURATIONS)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_the_browser_engines_replay_games_as_the_python_engines_play_them(tmp_path: Path) -> None:
    _check(1, tmp_path)  # a game of each of the 16 configurations: the quick run's share


def test_a_difference_is_named_by_game_decision_and_field(tmp_path: Path) -> None:
    _node()
    wrong = trace("bali-2017", 3, 4, {"oracle": True})
    wrong["name"] = "a game told wrong"
    wrong["steps"][5]["public"]["stones"][1] += 1
    done = check([wrong], tmp_path)
    assert done.returncode == 1
    assert "a game told wrong: bali-2017 players 3 seed 4" in done.stdout
    assert f"decision 5 (seat {wrong['steps'][5]['seat']}), public.stones[1]: " in done.stdout
    assert "1 of 1 games differ" in done.stdout


@pytest.mark.slow
def test_the_browser_engines_agree_over_many_games(tmp_path: Path) -> None:
    _check(25, tmp_path)


@pytest.mark.soak
def test_the_browser_engines_agree_over_a_soak(tmp_path: Path) -> None:
    _check(1000, tmp_path)
