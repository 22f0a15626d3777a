"""`arena bench`: throughput figures for the README."""

from __future__ import annotations

import click
from tabulate import tabulate

from arena.bench_protocol import bench_protocol
from arena.cli.params import GAME
from arena.games import Game, available, get_game
from arena.local import bench_engine


@click.command()
@click.option("--game", "games", type=GAME, multiple=True, help="Game to measure (default: every registered game).")
@click.option("--count", "-n", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games per game and player count.")
@click.option("--protocol", is_flag=True, help="Also measure the bot protocol: round trips and games/s with "
              "subprocess bots.")
@click.option("--round-trips", type=click.IntRange(min=10), default=5000, show_default=True,
              help="Round trips per protocol measurement.")
@click.option("--match-games", type=click.IntRange(min=1), default=20, show_default=True,
              help="Games per games/s measurement with subprocess bots.")
def bench(games: tuple[Game, ...], count: int, protocol: bool, round_trips: int, match_games: int) -> None:
    """Measure random-play games and decisions per second, in-process on one core; with --protocol, also the
    bot protocol's round trip against raw ZeroMQ and games per second with subprocess bots."""
    chosen = games or tuple(get_game(name) for name in available())
    click.echo(_engine_table(chosen, count))
    if protocol:
        click.echo()
        click.echo(_protocol_table(chosen, round_trips, match_games))


def _protocol_table(games: tuple[Game, ...], round_trips: int, match_games: int) -> str:
    rows = []
    for game in games:
        click.echo(f"measuring the protocol with {game.name}, {game.max_players} players ...", err=True)
        r = bench_protocol(game, game.max_players, round_trips, match_games)
        rows.append((r.game, r.players, f"{r.message_bytes:,}", f"{r.raw_us:.0f}", f"{r.arena_us:.0f}",
                     f"{r.ratio:.2f}", f"{r.in_process_gps:,.1f}", f"{r.reused_gps:,.1f}", f"{r.fresh_gps:,.2f}"))
    return tabulate(rows, headers=("game", "players", "decide bytes", "(a) raw µs", "(b) arena µs", "b/a",
                                   "(c) games/s in-process", "subprocess bots", "fresh processes"))


def _engine_table(games: tuple[Game, ...], count: int) -> str:
    rows = []
    for game in games:
        for players in range(game.min_players, game.max_players + 1):
            click.echo(f"measuring {game.name} with {players} players ...", err=True)
            r = bench_engine(game, players, count)
            rows.append((r.game, r.players, r.games, r.decisions, f"{r.games_per_second:,.1f}",
                         f"{r.decisions_per_second:,.0f}"))
    return tabulate(rows, headers=("game", "players", "games", "decisions", "games/s", "decisions/s"))
