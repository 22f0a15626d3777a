"""`arena compare`: NEW against BASE in paired duplicate games, with a sequential test and its verdict."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import click

from arena import compare as comparison
from arena.cli.params import (
    GAME,
    announce_sandbox,
    db_option,
    game_options,
    results_option,
    sandbox_options,
    store_path,
    time_options,
)
from arena.cli.tournament import sample_opponents
from arena.entrants import from_command
from arena.formats.compare import DEFAULT_WAVE
from arena.games import Game
from arena.ratings import RatingConfig
from arena.sandbox import Sandbox
from arena.seeds import PUBLIC_SEED_HELP
from arena.sprt import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_ELO0, DEFAULT_ELO1, SprtSettings
from arena.store import Store
from arena.tournament import Progress, Runner, TournamentSpec, check_spec
from protocol import TimeControl


@click.command()
@click.argument("new")
@click.argument("base")
@click.option("--game", "-g", type=GAME, required=True, help="The game to compare the bots at.")
@click.option("--opponents", "-o", multiple=True, metavar="BOT",
              help="An opponent (a command line, NAME=COMMAND or a submission folder); repeatable. Default: the "
                   "sample bots (the heuristic bot where it plays the game, then random bots).")
@click.option("--seats", type=click.IntRange(min=1),
              help="Seats per table (default: the game's smallest table, where pairs cancel the most luck).")
@click.option("--elo0", type=float, default=DEFAULT_ELO0, show_default=True,
              help="H0: NEW is at most this many Elo better than BASE.")
@click.option("--elo1", type=float, default=DEFAULT_ELO1, show_default=True,
              help="H1: NEW is at least this many Elo better than BASE.")
@click.option("--alpha", type=float, default=DEFAULT_ALPHA, show_default=True,
              help="The chance of declaring NEW better when H0 holds.")
@click.option("--beta", type=float, default=DEFAULT_BETA, show_default=True,
              help="The chance of declaring NEW not better when H1 holds.")
@click.option("--max-games", type=click.IntRange(min=2), default=comparison.DEFAULT_MAX_GAMES, show_default=True,
              help="The cap on the sequential test, in games (a pair is two games); undecided if reached.")
@click.option("--games", "fixed_games", type=click.IntRange(min=2),
              help="Play exactly this many games (in pairs) without a sequential test, and report the estimate.")
@click.option("--seed", "-s", type=int, default=None, help=PUBLIC_SEED_HELP)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Tables played at once, each in its own worker process.")
@click.option("--name", help="The comparison's name in the store (default: derived from the settings, so that "
              "the same command resumes it).")
@click.option("--json", "as_json", is_flag=True, help="Print the final report as one JSON object on stdout.")
@time_options
@sandbox_options
@game_options
@results_option
@db_option
def compare(new: str, base: str, game: Game, opponents: tuple[str, ...], seats: int | None, elo0: float,
            elo1: float, alpha: float, beta: float, max_games: int, fixed_games: int | None, seed: int | None,
            jobs: int, name: str | None, as_json: bool, time: TimeControl, sandbox: Sandbox,
            options: dict[str, Any] | None, results_dir: Path, db: Path | None) -> None:
    """Is NEW better than BASE at GAME? Each deal is played twice, NEW and then BASE in the tested seat against
    the same opponents, and a sequential probability ratio test (SPRT) stops as soon as the answer is clear.

    NEW and BASE are bot command lines (NAME=COMMAND too) or submission folders. Killed or stopped, the same
    command resumes the comparison.
    """
    seats = seats or game.min_players
    chosen = [from_command(o) for o in opponents]
    new_bot, base_bot = from_command(new), from_command(base)
    taken = {new_bot.name, base_bot.name, *(o.name for o in chosen)}
    chosen += sample_opponents(game.name, max(0, seats - 1 - len(chosen)), taken)
    players = comparison.entrants(new_bot, base_bot, chosen)
    sprt = None if fixed_games is not None else SprtSettings(elo0, elo1, alpha, beta)
    spec = comparison.spec(game.name, players, seats, sprt, fixed_games or max_games, options=options, seed=seed,
                           time=time, sandbox=sandbox.resolved(),
                           wave=DEFAULT_WAVE, rating=RatingConfig.for_game(game.name))
    check_spec(spec)  # before the store is created: a bad command leaves nothing behind
    with Store(store_path(results_dir, db)) as store:
        runner = Runner(spec, store, results_dir, jobs=jobs, name=name,
                        on_start=lambda _: announce_sandbox(spec.sandbox),
                        on_progress=lambda p: _live(store, runner, spec, p))
        try:
            runner.run()
        except KeyboardInterrupt:
            click.echo("\ninterrupted: finished pairs are stored; run the same command to resume", err=True)
            raise SystemExit(130) from None
        result = comparison.final_report(store, runner.tournament, spec)
    click.echo(json.dumps(result) if as_json else text_report(result))


def _live(store: Store, runner: Runner, spec: TournamentSpec, progress: Progress) -> None:
    counts, _ = comparison.current(store, runner.tournament, spec)
    line = f"pairs {counts.pairs}: +{counts.wins} ={counts.draws} -{counts.losses}"
    if spec.sprt is not None and counts.pairs:
        from arena.sprt import llr
        line += f", LLR {llr(counts, spec.sprt):+.2f} ({spec.sprt.lower:.2f}, {spec.sprt.upper:.2f})"
    click.echo(line, err=True)


def _elo(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "inf" if value is None else f"{value}"
    return f"{value:+.1f}"


def text_report(r: dict[str, Any]) -> str:
    """The report as a person reads it."""
    low, high = r["interval"]
    lines = [
        f"{r['new']} against {r['base']} at {r['game']} ({r['seats']} seats, opponents: {', '.join(r['opponents'])})",
        f"pairs: {r['pairs']} (wins {r['wins']}, draws {r['draws']}, losses {r['losses']})"
        + (f"; {r['failed_games']} games failed" if r["failed_games"] else ""),
        f"score: {100 * r['score']:.1f}% of pairs won, draws half "
        f"[{100 * r['score_interval'][0]:.1f}%, {100 * r['score_interval'][1]:.1f}%]",
        f"elo: {_elo(r['estimate'])} [{_elo(low) if low is not None else '-inf'}, {_elo(high)}] (95%)",
        f"LOS: {100 * r['los']:.1f}%",
    ]
    if r["llr"] is not None:
        lines.append(f"LLR: {r['llr']:.2f} (bounds {r['bounds'][0]:.2f}, {r['bounds'][1]:.2f}; "
                     f"elo0 {r['sprt']['elo0']:g}, elo1 {r['sprt']['elo1']:g}, alpha {r['sprt']['alpha']:g}, "
                     f"beta {r['sprt']['beta']:g})")
    lines.append(f"verdict: {r['verdict']}" if r["llr"] is not None else "verdict: none (a fixed number of games)")
    return "\n".join(lines)
