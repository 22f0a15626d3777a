"""`arena play`: one game in-process with built-in random players."""

from __future__ import annotations

from typing import Any

import click
from tabulate import tabulate

from arena.cli.params import GAME, game_options
from arena.games import Game, State
from arena.match.local import new_game, player_rng


@click.command()
@click.argument("game", type=GAME)
@click.option("--players", "-p", type=int, required=True, help="Number of seats.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Seed of the deal and of the players.")
@game_options
@click.option("--verbose", "-v", is_flag=True, help="Show hidden details too: drawn cards, piles, private choices.")
def play(game: Game, players: int, seed: int, options: dict[str, Any] | None, verbose: bool) -> None:
    """Play one GAME with random players and print its log and result."""
    state = new_game(game, players, seed, options)
    rng = player_rng(seed)
    shown = 0
    while True:
        events = state.referee_events(shown) if verbose else state.events(None, shown)
        for event in events:
            click.echo(game.format_event(event))
        shown = state.num_events()
        if state.is_terminal():
            break
        state.apply(rng.randrange(len(state.options())))
    click.echo(_result_table(state))


def _result_table(state: State) -> str:
    result = state.result()
    rows = sorted(zip(result.ranks, range(len(result.scores)), result.scores))
    table = tabulate([(rank, f"seat {seat}", score) for rank, seat, score in rows],
                     headers=("rank", "seat", "score"))
    note = " (cut short by max_turns)" if result.cut_short else ""
    return f"\nresult: {result.reason}{note}\n{table}"
