"""`arena bench`: throughput figures for the README."""

from __future__ import annotations

import click
from tabulate import tabulate

from arena.cli.params import GAME
from arena.games import Game, available, get_game
from arena.local import bench_engine


@click.command()
@click.option("--game", "games", type=GAME, multiple=True, help="Game to measure (default: every registered game).")
@click.option("--count", "-n", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games per game and player count.")
def bench(games: tuple[Game, ...], count: int) -> None:
    """Measure random-play games and decisions per second, in-process on one core."""
    rows = []
    for game in games or tuple(get_game(name) for name in available()):
        for players in range(game.min_players, game.max_players + 1):
            click.echo(f"measuring {game.name} with {players} players ...", err=True)
            r = bench_engine(game, players, count)
            rows.append((r.game, r.players, r.games, r.decisions, f"{r.games_per_second:,.1f}",
                         f"{r.decisions_per_second:,.0f}"))
    click.echo(tabulate(rows, headers=("game", "players", "games", "decisions", "games/s", "decisions/s")))
