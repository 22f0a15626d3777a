"""`arena validate`: run one submission through the handshake and a few games against random bots."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from arena.bots.process import BotCommand
from arena.bots.sandbox import Sandbox
from arena.cli.match import INTERRUPTED, report_interrupted, store_match, where_to_look
from arena.cli.params import BOT, GAME, game_options, results_option, sandbox_options, time_options
from arena.cli.progress import BuildDisplay
from arena.errors import ReplayError
from arena.games import SAMPLE_LEVELS, Game
from arena.interrupt import cleanup_on_termination
from arena.match.play import MatchConfig, MatchInterrupted, MatchResult, run_match
from arena.match.record import DecisionRecord, FaultRecord, GameRecord, ordinal, record_file
from arena.match.seeds import PUBLIC_SEED_HELP, chosen
from arena.tournament.opponents import faulty_samples, sample_opponents
from arena.viewer import write_replay
from protocol import TimeControl

SLOW_SHARE = 0.5  # warn when a decision used more than this share of its time


@click.command()
@click.argument("bot", type=BOT)
@click.option("--game", "-g", type=GAME, required=True, help="The game to validate the bot for.")
@click.option("--players", "-p", type=int, default=None,
              help="Seats at the table (default: the game's largest table); the others are random bots.")
@click.option("--games", "-n", type=click.IntRange(min=1), default=None,
              help="Games to play (default: one per seat, so the bot plays every seat).")
@click.option("--seed", "-s", type=int, default=None, help=PUBLIC_SEED_HELP)
@click.option("--samples", type=click.Choice(SAMPLE_LEVELS), default="random", show_default=True,
              help="The strongest sample bot at the table, the rest random bots: 'heuristic', or 'search' (the "
                   "search bot and the heuristic bot), to see how the bot does against the next bar.")
@time_options
@sandbox_options
@game_options
@results_option
def validate(bot: BotCommand, game: Game, players: int | None, games: int | None, seed: int | None, samples: str,
             time: TimeControl, results_dir: Path, sandbox: Sandbox, options: dict[str, Any] | None) -> None:
    """Check that BOT (a command line, quoted) speaks the protocol: handshake, then a few games of GAME
    against random bots (or stronger sample bots), with a pass/fail report that lists every fault and how the bot
    did against each sample bot. Exits 1 on failure."""
    players = game.max_players if players is None else players
    opponents = sample_opponents(game.name, players - 1, {bot.label}, level=samples)
    config = MatchConfig(game=game, bots=(bot, *(BotCommand(o.command) for o in opponents)), games=games or players,
                         seed=chosen(seed), options=options, time=time, results_dir=results_dir, sandbox=sandbox,
                         build_watch=BuildDisplay(sys.stderr, sys.stderr.isatty()))
    config.check()
    clock = f", a {time.game_clock:g} s game clock" if time.game_clock else ""
    click.echo(f"validating {bot} on {game.name}: {config.games} games at a table of {players}, "
               f"{time.timeout:g} s per decision{clock}")
    shown: dict[tuple[object, ...], list[int]] = {}
    try:
        with cleanup_on_termination():
            result = run_match(config, on_game=lambda r: click.echo("\n".join(
                game_report(r, time.timeout, shown, results_dir / "matches" / r.match_id))))
    except MatchInterrupted as stop:
        report_interrupted(stop, config.games)
        if stop.result.records:
            faults = sum(1 for r in stop.result.records for f in r.faults if f.participant == 0)
            click.echo(f"so far: {summary(stop.result, faults)}")
        click.echo("no verdict: the validation did not finish", err=True)
        raise SystemExit(INTERRUPTED) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted before the first game", err=True)
        raise SystemExit(INTERRUPTED) from None
    faults = sum(1 for r in result.records for f in r.faults if f.participant == 0)
    for line in repeated_faults(shown, len(result.records)):
        click.echo(line)
    broken = faulty_samples({s.name: (s.disqualified, s.games) for s in result.standings[1:]})
    if faults or not broken:
        click.echo(summary(result, faults))
    click.echo("\n".join(broken) if broken else against_samples(result, samples))
    click.echo(where_to_look(result, store_match(result, config), results_dir))
    if faults:
        raise click.ClickException(f"validation failed: {faults} fault(s); see above")
    if broken:
        raise click.ClickException("no verdict: a sample bot faulted in most of its games; see above")


def fault_key(fault: FaultRecord) -> tuple[object, ...]:
    """What makes two faults the same fault, whatever game they happened in."""
    return fault.phase, fault.asked, fault.kind, fault.detail, fault.stderr


def game_report(record: GameRecord, timeout: float, shown: dict[tuple[object, ...], list[int]],
                folder: Path | None = None) -> list[str]:
    """What the candidate (participant 0) did in one game: decisions, slowest answer against the limit (in the time
    charged), how much of its game clock it used, rank, and every fault not already shown for an earlier game
    (`shown` collects the games of each fault), each with the link that opens the game's replay page (written into
    folder) at its moment."""
    seat = next(s.seat for s in record.seats if s.participant == 0)
    asked = [d for d in record.decisions if d.seat == seat and d.time is not None]
    times = [d.spent for d in asked if d.spent is not None]
    faults = [f for f in record.faults if f.participant == 0]
    status = "FAULTS" if faults else "ok"
    slowest = f", slowest {max(times) * 1000:.1f} ms of its {timeout:g} s" if times else ""
    lines = [f"game {record.game_index + 1} (seat {seat}): {status}: {len(times)} decisions{slowest}"
             f"{_clock_used(record, seat, asked)}, rank {record.ranks[seat]} of {record.num_players}"
             + (" (disqualified)" if seat in record.disqualified else "")]
    if times and max(times) > SLOW_SHARE * timeout and not faults:
        lines.append(f"  warning: the slowest decision used {100 * max(times) / timeout:.0f}% of the {timeout:g} s "
                     "limit (raise it with --timeout)")
    clock = record.time.game_clock
    used = sum(times) + record.seats[seat].new_game_charged
    if clock and used > SLOW_SHARE * clock and not faults:
        lines.append(f"  warning: the bot used {100 * used / clock:.0f}% of its {clock:g} s game clock (raise it "
                     "with --game-clock)")
    for f in faults:
        games = shown.setdefault(fault_key(f), [])
        games.append(record.game_index + 1)
        if len(games) > 1:
            lines.append(f"  fault: the same as in game {games[0]}")
            continue
        lines.append(f"  fault: {f.message()}")
        if f.stderr.strip():
            lines.extend(f"    stderr| {line}" for line in f.stderr.strip().splitlines()[-10:])
        page = _replay_page(record, folder) if f.anchor() else None
        if page is not None:
            lines.append(f"    see it: {page.resolve().as_uri()}{f.anchor()}")  # a browser opens it as it is
    return lines


def _clock_used(record: GameRecord, seat: int, asked: list[DecisionRecord]) -> str:
    """', game clock 0.0123 s of its 20 s (wall 0.5 s, 0.48 s waiting for a core)': the time charged for the seat's
    decisions against its game clock, and the wall time they took; with '2.1 s of it at new_game' where its new_game
    took longer than the allowance."""
    clock = record.time.game_clock
    at_start = record.seats[seat].new_game_charged
    used = sum(d.spent or 0.0 for d in asked) + at_start
    wall = sum(d.time or 0.0 for d in asked)
    waits = [d.wait for d in asked if d.wait is not None]
    waited = f", {sum(waits):.3g} s waiting for a core" if waits else ""
    started = f", {at_start:.3g} s of it at new_game" if at_start else ""
    return f", game clock {used:.3g} s of its {clock:g} s{started} (wall {wall:.3g} s{waited})" if clock else ""


def _replay_page(record: GameRecord, folder: Path | None) -> Path | None:
    """The game's replay page beside its record (written once), or None if it cannot be made."""
    if folder is None:
        return None
    page = (folder / record_file(record.game_index)).with_suffix(".html")
    try:
        if not page.exists():
            write_replay(record, page)
    except ReplayError:
        return None
    return page


def repeated_faults(shown: dict[tuple[object, ...], list[int]], games: int) -> list[str]:
    """One line per fault that happened in more than one game: how often, and in which games."""
    lines = []
    for (phase, asked, kind, detail, _), where in shown.items():
        if len(where) > 1:
            every = "every game" if len(where) == games else "games " + ", ".join(map(str, where))
            at = f"at its {ordinal(asked)} decision" if asked is not None else f"at {phase.value}"
            lines.append(f"the same fault {len(where)} times, in {every}: {at}: {kind.value}: {detail}")
    return lines


def against_samples(result: MatchResult, level: str) -> str:
    """How the bot did against each sample bot at its table (mean ranks, lower is better), and the next bar: the
    next stronger sample level, once it ranks ahead of every sample bot on average."""
    me, others = result.standings[0], result.standings[1:]
    ranks = ", ".join(f"{s.name} {s.mean_rank:.2f}" for s in others)
    line = f"against the samples ({level}): mean rank {me.mean_rank:.2f}; theirs: {ranks}"
    stronger = SAMPLE_LEVELS[SAMPLE_LEVELS.index(level) + 1:]
    if all(me.mean_rank < s.mean_rank for s in others) and stronger:
        line += f"; the next bar: --samples {stronger[0]}"
    return line


def summary(result: MatchResult, faults: int) -> str:
    """The verdict line, with the entrant's name and the name and version the bot gave in its handshake."""
    me = result.standings[0]
    who = f"bot {me.name}" + (f" (handshake: {me.handshake!r} version {me.version!r})" if me.handshake else "")
    if faults:
        return f"FAIL: {who}: {faults} fault(s) in {me.games} games"
    return f"PASS: {who}: {me.games} games without a fault, {me.wins} won, mean rank {me.mean_rank:.2f}"
