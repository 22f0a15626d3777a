"""The heuristic bots beat three random bots clearly: at least 70% wins over 200 four-player games."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from arena.bots.process import BotCommand
from arena.games import get_game
from arena.match.play import MatchConfig, run_match
from protocol import NewGame, TimeControl
from sample_bots.heuristic_bot import STRATEGIES, HeuristicBot, Strategy
from tests.helpers import quick_run

ROOT = Path(__file__).resolve().parents[2]
GAMES = 200
TARGET = 0.70


def win_rate(game_name: str, strategy: Strategy, games: int) -> float:
    """Share of games the strategy wins (rank 1) against three random players, its seat rotating."""
    game = get_game(game_name)
    wins = 0
    for g in range(games):
        state, me, rng = game.new_state(4, 10_000 + g), g % 4, random.Random(g)
        while (seat := state.current_player()) is not None:
            options = state.options()
            index = strategy(state.view(seat), options, state.decision()) if seat == me \
                else rng.randrange(len(options))
            assert 0 <= index < len(options)
            state.apply(index)
        wins += state.result().ranks[me] == 1
    return wins / games


# The win rate over bali-2001's long games is a slow test.
@pytest.mark.parametrize("game", quick_run(sorted(STRATEGIES), {"bali-2017"}, str))
def test_the_heuristic_wins_at_least_70_percent_against_three_random_players(game: str) -> None:
    rate = win_rate(game, STRATEGIES[game], GAMES)
    assert rate >= TARGET, f"{game}: the heuristic won only {rate:.0%} of {GAMES} games"


def test_a_game_without_a_strategy_is_played_at_random_and_replays() -> None:
    bot = HeuristicBot()
    bot.new_game(NewGame(id=1, game="some-other-game", game_index=0, options={}, seat=0, num_players=2, seed=5,
                         time=TimeControl()))
    first = [bot.decide({}, [{}] * 9, {"kind": "x"}) for _ in range(20)]
    bot.new_game(NewGame(id=2, game="some-other-game", game_index=1, options={}, seat=1, num_players=2, seed=5,
                         time=TimeControl()))
    assert [bot.decide({}, [{}] * 9, {"kind": "x"}) for _ in range(20)] == first


@pytest.mark.soak
@pytest.mark.parametrize("game", sorted(STRATEGIES))
def test_the_heuristic_bot_wins_over_the_protocol_too(game: str, tmp_path: Path) -> None:
    bots = (BotCommand((sys.executable, str(ROOT / "sample_bots" / "heuristic_bot.py"))),) + \
        (BotCommand((sys.executable, str(ROOT / "sample_bots" / "random_bot.py"))),) * 3
    result = run_match(MatchConfig(get_game(game), bots, games=GAMES, seed=1, results_dir=tmp_path,
                                   time=TimeControl(timeout=2.0)))
    assert result.standings[0].wins / GAMES >= TARGET
