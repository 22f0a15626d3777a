"""`arena replay`: re-simulate a game record, check that it reproduces, and show it."""

from __future__ import annotations

import json
from pathlib import Path

import click
from tabulate import tabulate

from arena.match.record import GameRecord, load_record
from arena.match.replay import AskedDecision, log_lines, resimulate, seat_transcript, took, turn_lines
from arena.viewer import write_replay

html_option = click.option(
    "--html", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Write the game as one self-contained HTML page (the referee's view, every seat's view selectable) "
         "instead of printing it.")


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="Print exactly what this seat's bot was sent, one JSON message per line, and on stderr after "
                   "each decision the time it took and what the bot wrote to stderr meanwhile; with --html, a page "
                   "of only this seat's view.")
@click.option("--verbose", "-v", is_flag=True, help="Show hidden details too: drawn cards, piles, private choices.")
@html_option
def replay(file: Path, seat: int | None, verbose: bool, html: Path | None) -> None:
    """Replay the game record FILE through its engine, turn by turn, and check that it reproduces.

    Exits 1 if the replay does not reproduce the recorded decisions and result.
    """
    record = load_record(file)
    if seat is not None and seat >= record.num_players:
        raise click.BadParameter(f"the game had seats 0 to {record.num_players - 1}", param_hint="'--seat'")
    if html is not None:
        write_replay(record, html, seat)
        click.echo(f"replay page written to {html}", err=True)
        return
    if seat is not None:
        for message, asked in seat_transcript(record, seat):
            click.echo(json.dumps(message.to_wire(), separators=(",", ":")))
            if asked is not None:
                click.echo(answer_lines(asked), err=True)
    else:
        click.echo(header(record))
        for line in turn_lines(record, referee=verbose):
            click.echo(line)
        click.echo(result_table(record))
    problems = resimulate(record).problems
    if problems:
        raise click.ClickException("the replay does not reproduce the record: " + "; ".join(problems))
    click.echo("the replay reproduces the recorded result", err=seat is not None)


def answer_lines(asked: AskedDecision) -> str:
    """How the bot answered a decide request: the decision, its time and fault, and its stderr meanwhile."""
    d = asked.record
    answer = "no answer" if d.time is None else f"answered in {took(d)}"
    fault = f", fault {d.fault.value}: default played" if d.fault is not None else ""
    return "\n".join([f"  # decision #{asked.number} (its decision {asked.asked}): {answer}{fault}", *log_lines(d)])


def header(record: GameRecord) -> str:
    """Who played what, with which seed and options."""
    lines = [f"{record.game}, game {record.game_index + 1} of match {record.match_id}: {record.num_players} seats, "
             f"seed {record.seed}, options {json.dumps(record.options)}"]
    lines += [f"seat {s.seat}: {s.label} {s.version} (participant {s.participant}: {s.command}; bot seed {s.seed})"
              for s in record.seats]
    return "\n".join(lines)


def result_table(record: GameRecord) -> str:
    """The recorded result: score, engine rank and match rank per seat, and every fault."""
    r = record.result
    rows = [(record.ranks[s.seat], f"seat {s.seat}", s.label, r.scores[s.seat], r.ranks[s.seat],
             "yes" if s.seat in record.disqualified else "")
            for s in sorted(record.seats, key=lambda s: record.ranks[s.seat])]
    table = tabulate(rows, headers=("rank", "seat", "bot", "score", "engine rank", "disqualified"))
    faults = [f"fault: seat {f.seat} ({f.bot}), {f.message()}" for f in record.faults]
    note = " (cut short)" if r.cut_short else ""
    return "\n".join([f"\nresult: {r.reason}{note}", table, *faults])
