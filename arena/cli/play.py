"""`arena play`: one game in-process with built-in random players."""

from __future__ import annotations

import click
from tabulate import tabulate

from arena.cli.params import GAME, parse_game_options
from arena.games import Game, GameError, State
from arena.local import player_rng


@click.command()
@click.argument("game", type=GAME)
@click.option("--players", "-p", type=int, required=True, help="Number of seats.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Seed of the deal and of the players.")
@click.option("--option", "-o", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="A game option, VALUE as JSON (e.g. max_turns=50); repeatable.")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Switch on a variant of the game (the option NAME=true); repeatable.")
@click.option("--verbose", "-v", is_flag=True, help="Show hidden details too: drawn cards, piles, private choices.")
def play(game: Game, players: int, seed: int, option_pairs: tuple[str, ...], variants: tuple[str, ...],
         verbose: bool) -> None:
    """Play one GAME with random players and print its log and result."""
    options = parse_game_options(option_pairs, variants)
    try:
        state = game.new_state(players, seed, options)
    except GameError as exc:
        raise click.UsageError(str(exc)) from None
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
