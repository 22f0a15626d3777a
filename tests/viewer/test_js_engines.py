"""The viewer's JavaScript engines (arena/viewer/static/engines) re-play random games exactly as the Python engines
play them: every view of every seat, the referee's part of the table, each decision, its options, every event and
log line, and the result, compared in node before each decision (the browser tests check pages again in Chromium)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.viewer.engine_traces import CONFIGURATIONS, check, trace

BATCH = 10  # games checked by one node process


def _node() -> None:
    if shutil.which("node"):
        return
    reason = "node is not installed: the viewer's engines cannot be checked here"
    if "1" in (os.environ.get("ARENA_REQUIRE_BROWSER"), os.environ.get("ARENA_REQUIRE_KITS")):
        pytest.fail(reason)
    pytest.skip(reason)


def _check(games: int, tmp_path: Path) -> None:
    _node()
    for game, players, options in CONFIGURATIONS:
        for first in range(0, games, BATCH):  # a long game's trace is megabytes: a few at a time
            traces = [trace(game, players, seed, options) for seed in range(first, min(games, first + BATCH))]
            done = check(traces, tmp_path)
            assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
            assert f"0 of {len(traces)} games differ" in done.stdout


def test_the_browser_engines_replay_games_as_the_python_engines_play_them(tmp_path: Path) -> None:
    _check(2, tmp_path)


@pytest.mark.slow
def test_the_browser_engines_agree_over_many_games(tmp_path: Path) -> None:
    _check(25, tmp_path)


@pytest.mark.soak
def test_the_browser_engines_agree_over_a_soak(tmp_path: Path) -> None:
    _check(250, tmp_path)
