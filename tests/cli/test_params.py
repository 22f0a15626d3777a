"""The option groups: each gathers its options into one typed value, with the documented defaults."""

from __future__ import annotations

from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from arena.cli import ArenaGroup
from arena.cli.params import GAME, game_options, rating_options, time_options
from arena.games import Game, get_game
from arena.ratings.trueskill import RatingConfig
from protocol import TimeControl

seen: dict[str, Any] = {}


@click.group(cls=ArenaGroup)
def group() -> None:
    """A group with one command that keeps what it was given."""


@group.command()
@click.argument("game", type=GAME)
@time_options
@rating_options
@game_options
def keep(game: Game, time: TimeControl, rating: RatingConfig, options: dict[str, Any] | None) -> None:
    """Keep the gathered values."""
    seen.update(game=game, time=time, rating=rating, options=options)


def invoke(*args: str) -> Result:
    seen.clear()
    return CliRunner().invoke(group, ["keep", *args])


def test_the_defaults() -> None:
    assert invoke("bali-2017").exit_code == 0
    # The game clock defaults to the game's own (get_game("bali-2017").game_clock).
    assert seen["time"] == TimeControl(timeout=1.0, init=10.0, bank=0.0, increment=0.0, game_clock=20.0)
    assert seen["rating"] == RatingConfig(draw_probability=get_game("bali-2017").draw_probability)
    assert seen["options"] is None


def test_every_option_reaches_its_value() -> None:
    r = invoke("bali-2017", "--timeout", "0.5", "--init-timeout", "3", "--time-bank", "2", "--increment", "0.1",
               "--mu", "30", "--sigma", "5", "--beta", "2", "--tau", "0", "--draw-probability", "0.2",
               "-o", "max_turns=50", "--option", "name=text", "--variant", "oracle", "--game-clock", "7")
    assert r.exit_code == 0, r.output
    assert seen["time"] == TimeControl(timeout=0.5, init=3.0, bank=2.0, increment=0.1, game_clock=7.0)
    assert seen["rating"] == RatingConfig(mu=30, sigma=5, beta=2, tau=0, draw_probability=0.2)
    assert seen["options"] == {"max_turns": 50, "name": "text", "oracle": True}


@pytest.mark.parametrize("args, message", [
    (["--timeout", "0"], "--timeout"),
    (["--sigma", "0"], "--sigma"),
    (["--draw-probability", "1"], "--draw-probability"),
    (["-o", "nonsense"], "expected KEY=VALUE"),
])
def test_bad_values_are_usage_errors(args: list[str], message: str) -> None:
    r = invoke("bali-2001", *args)
    assert r.exit_code == 2 and message in r.output and not seen
