"""`arena compare`: NEW against BASE in paired duplicate games, with a sequential test and its verdict."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import click

from arena.bots.sandbox import Sandbox
from arena.cli.params import (
    GAME,
    announce_crowding,
    announce_sandbox,
    db_option,
    game_options,
    results_option,
    sandbox_options,
    store_path,
    time_options,
)
from arena.games import Game
from arena.match.seeds import PUBLIC_SEED_HELP
from arena.ratings.sprt import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_ELO0,
    DEFAULT_ELO1,
    PairCounts,
    SprtSettings,
    TestKind,
    Verdict,
    report,
)
from arena.ratings.trueskill import RatingConfig
from arena.storage import Store
from arena.tournament import compare as comparison
from arena.tournament.formats.base import Play, TournamentSpec
from arena.tournament.run import Runner
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
@click.option("--test", type=click.Choice([k.value for k in TestKind]),
              help="The sequential test: mixture (a ladder of three gains, elo1 - elo0 times 1, 6 and 24, so that a "
                   "large difference is decided in few pairs) or classic (one ratio, elo0 against elo1, as fishtest). "
                   "Default: classic if --elo0 or --elo1 is given, else mixture.")
@click.option("--elo0", type=float, help=f"H0: NEW is at most this many Elo better than BASE [default: "
              f"{DEFAULT_ELO0:g}].")
@click.option("--elo1", type=float, help=f"H1: NEW is at least this many Elo better than BASE (the mixture's "
              f"smallest gain) [default: {DEFAULT_ELO1:g}].")
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
@game_options(short=False)
@results_option
@db_option
def compare(new: str, base: str, game: Game, opponents: tuple[str, ...], seats: int | None, test: str | None,
            elo0: float | None, elo1: float | None, alpha: float, beta: float, max_games: int,
            fixed_games: int | None, seed: int | None, jobs: int, name: str | None, as_json: bool,
            time: TimeControl, sandbox: Sandbox, options: dict[str, Any] | None, results_dir: Path,
            db: Path | None) -> None:
    """Is NEW better than BASE at GAME? Each deal is played twice, NEW and then BASE in the tested seat against
    the same opponents, and a sequential probability ratio test (SPRT) stops as soon as the answer is clear: by
    default a mixture over the size of the gain, which decides a large difference in few pairs.

    NEW and BASE are bot command lines (NAME=COMMAND too) or submission folders. Killed or stopped, the same
    command resumes the comparison.
    """
    sprt = None if fixed_games is not None else comparison.sequential_test(test, elo0, elo1, alpha, beta)
    play = Play(game=game.name, options=options, time=time, sandbox=sandbox.resolved(),
                rating=RatingConfig.for_game(game))
    spec = comparison.assemble(play, new, base, opponents, seats, sprt=sprt, max_games=fixed_games or max_games,
                               seed=seed)  # checked before the store is created
    live = LiveLine(spec.sprt, sys.stderr.isatty(), comparison.pairs_cap(spec))
    with Store(store_path(results_dir, db)) as store:
        runner = Runner(spec, store, results_dir, jobs=jobs, name=name,
                        on_start=lambda _: (announce_sandbox(spec.sandbox), announce_crowding(jobs, spec.seats)),
                        on_progress=lambda _: progress(store, runner, spec, live))
        try:
            runner.run()
        except KeyboardInterrupt:
            click.echo("\ninterrupted: finished pairs are stored; run the same command to resume", err=True)
            raise SystemExit(130) from None
        finally:
            live.close()
        result = comparison.final_report(store, runner.tournament, spec)
    click.echo(json.dumps(result) if as_json else text_report(result))
    if result["verdict"] == comparison.FAULTED:
        raise SystemExit(1)


def progress(store: Store, runner: Runner, spec: TournamentSpec, live: LiveLine) -> None:
    """After each table: the progress line, and no new table once a side has faulted in most of its games (its
    fault is the answer: the pairs it loses would only make a verdict about the fault)."""
    live.show(*comparison.current(store, runner.tournament, spec))
    if spec.sprt is not None and comparison.faulted(store, runner.tournament, spec) is not None:
        runner.start_no_new_table()


class LiveLine:
    """The progress line on stderr, shown when the pairs counted change (a table that finishes before an earlier
    one adds no pair yet: pairs count in deal order): on a terminal one line rewritten in place, elsewhere a line
    each time."""

    def __init__(self, sprt: SprtSettings | None, terminal: bool = False, cap: int | None = None) -> None:
        self.sprt = sprt
        self.terminal = terminal
        self.cap = cap
        self.shown = 0
        self.open = False

    def show(self, counts: PairCounts, verdict: Verdict) -> None:
        """Show the line for these counts unless it is the one shown last."""
        if counts.pairs == self.shown:
            return
        self.shown = counts.pairs
        line = live_line(report(counts, self.sprt, verdict), self.cap, short=self.terminal)
        if self.terminal:
            click.echo(f"\r{line}\x1b[K", err=True, nl=False)
            self.open = True
        else:
            click.echo(line, err=True)

    def close(self) -> None:
        """End the line rewritten in place, so that what follows starts on a line of its own."""
        if self.open:
            click.echo("", err=True)
            self.open = False


def live_line(r: dict[str, Any], cap: int | None = None, short: bool = False) -> str:
    """One line: the pairs, the estimate with its interval, the verdict so far (with its evidence, unless short)
    and the pairs still expected."""
    low, high = r["interval"]
    line = (f"pairs {r['pairs']} (+{r['wins']} ={r['draws']} -{r['losses']}): elo {_elo(r['estimate'])} "
            f"[{_elo(low, '-inf')}, {_elo(high)}]")
    if r["test"] is None:
        return line
    line += f"; {r['verdict']}" + ("" if short else f": {_evidence(r)}")
    if r["verdict"] == Verdict.UNDECIDED.value:
        line += expected_text(r, cap)
    return line


def expected_text(r: dict[str, Any], cap: int | None) -> str:
    """'; about 1,200 more pairs expected' (two significant figures: the estimate moves with every pair), or
    that more are expected than the cap leaves; '' where no figure can be given."""
    remaining = r["expected_pairs"]["remaining"] if r["expected_pairs"] else None
    left = None if cap is None else max(0, cap - r["pairs"])
    if remaining is None:
        return "" if left is None else f"; not expected to decide within the {left:,} pairs left"
    if left is not None and remaining > left:
        return f"; more pairs expected than the {left:,} left (--max-games)"
    shown = int(float(f"{remaining:.2g}")) if remaining >= 10 else remaining
    return f"; about {shown:,} more pairs expected"


def _evidence(r: dict[str, Any]) -> str:
    lower, upper = r["bounds"]
    return f"log-evidence for better {r['llr']:+.2f} of {upper:.2f}, for not better {r['llr_not_better']:+.2f} of " \
           f"{-lower:.2f}"


def _elo(value: float | None, unbounded: str = "+inf") -> str:
    if value is None or not math.isfinite(value):
        return unbounded if value is None else f"{value}"
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
        f"elo: {_elo(r['estimate'])} [{_elo(low, '-inf')}, {_elo(high)}] (95%)",
        f"LOS: {100 * r['los']:.1f}%",
    ]
    lines += _faults(r)
    if r["test"] is None:
        lines.append("verdict: none (a fixed number of games)")
        return "\n".join(lines)
    if r["verdict"] == comparison.FAULTED:
        f = r["faulted"]
        lines.append(f"verdict: none: {f['bot']} faulted in {100 * f['share']:.0f}% of its games after {r['pairs']} "
                     f"pairs, so the test would only measure its faults; its first fault: {f['fault']} "
                     f"(arena matches -t {r['tournament']} --faults)")
        return "\n".join(lines)
    lines.append(f"test: {_test(r['sprt'])}")
    lines.append(_evidence(r))
    if r["verdict"] == Verdict.UNDECIDED.value and not r.get("stopped_early"):
        expected = expected_text(r, r.get("pairs_cap"))
        if expected:
            lines.append(f"expected: {expected[2:]} ({r['expected_pairs']['model']})")
    if r.get("stopped_early"):
        lines.append(f"stopped early after {r['pairs']} pairs: with so many drawn pairs the test was not expected "
                     f"to decide within the cap")
    lines.append(f"verdict: {r['verdict']} after {r['pairs']} pairs, elo {_elo(r['estimate'])} "
                 f"[{_elo(low, '-inf')}, {_elo(high)}]")
    if r.get("advice"):
        lines.append(f"advice: {r['advice']}")
    return "\n".join(lines)


def _faults(r: dict[str, Any]) -> list[str]:
    """A line on the bots that faulted, and a warning when one faulted in most of its games: a bot that crashes
    every game loses every pair, or draws it where BASE loses too, and the verdict is then about the crash."""
    rates = r["fault_rates"]
    if not any(rates.values()):
        return []
    lines = ["faults: " + ", ".join(f"{name} in {100 * rate:.0f}% of its games" for name, rate in rates.items())]
    for name, rate in rates.items():
        if rate >= 0.5:
            lines.append(f"warning: {name} faulted in {100 * rate:.0f}% of its games; the verdict says more about "
                         f"its faults than its play (arena matches -t {r['tournament']} --faults)")
    return lines


def _test(sprt: dict[str, Any]) -> str:
    errors = f"alpha {sprt['alpha']:g}, beta {sprt['beta']:g}"
    if sprt["test"] == TestKind.CLASSIC.value:
        return f"classic SPRT, elo0 {sprt['elo0']:g} against elo1 {sprt['elo1']:g}, {errors}"
    gains = ", ".join(f"{g:+g}" for g, _ in sprt["gains"])
    weights = ", ".join(f"{w:.3g}" for _, w in sprt["gains"])
    return f"mixture SPRT against elo0 {sprt['elo0']:g}, gains {gains} Elo (weights {weights}), {errors}"
