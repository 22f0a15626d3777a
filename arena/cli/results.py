"""Browsing the results store: `arena leaderboard`, `arena matches`, `arena show`, `arena rerate`."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from tabulate import tabulate

from arena.cli.store_options import db_option, results_option, store_path
from arena.errors import ArenaError, ReplayError
from arena.games import get_game
from arena.ratings.trueskill import RatingConfig, Ratings, rate_all
from arena.site.boards import FORMATS, BoardRequest, render_leaderboard
from arena.storage import Store, StoredGameRow, replay_path
from arena.tournament.leaderboard import above_next

if TYPE_CHECKING:
    from arena.match.record import GameRecord

# `arena show`'s replay reading and page writing are imported when it runs: `arena leaderboard` does not need them.

_tournament_option = click.option("--tournament", "-t", "name",
                                  help="Tournament name (default: the latest one in the store).")


def _open(results_dir: Path, db: Path | None, readonly: bool = True) -> Store:
    return Store.existing(store_path(results_dir, db), readonly)


@click.command()
@_tournament_option
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format; html is one standalone page.")
@click.option("--max-fault-rate", type=click.FloatRange(0, 1),
              help="Leave bots whose share of faulty games is above this off the ranking (they stay in the store).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file.")
@click.option("--all-versions", is_flag=True, help="Rank the retired versions of a ladder's bots too, marked.")
@click.option("--rivals", "rivals_of", metavar="BOT",
              help="Instead of the board: BOT head to head with each rival it met (games together, how often it "
                   "finished ahead, behind or level, mean scores, by seat too); formats table, markdown, csv, json.")
@results_option
@db_option
def leaderboard(name: str | None, fmt: str, max_fault_rate: float | None, output: Path | None, all_versions: bool,
                rivals_of: str | None, results_dir: Path, db: Path | None) -> None:
    """Print a tournament's leaderboard, ranked by the conservative estimate mu - 3 sigma (each bot with the ranks
    it holds with 90% probability), or one bot's record against each rival."""
    with _open(results_dir, db) as store:
        t = store.tournament(name)
        if rivals_of is not None:
            from arena.tournament.rivals import bot_rivals, render_rivals
            text = render_rivals(rivals_of, bot_rivals(store, t, rivals_of), fmt)
        else:
            text = render_leaderboard(BoardRequest(store, t, results_dir, max_fault_rate, all_versions), fmt)
    if output is None:
        click.echo(text)
    else:
        try:
            output.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise ArenaError(f"cannot write the leaderboard to {str(output)!r}: {exc.strerror or exc}") from None
        click.echo(f"leaderboard written to {output}", err=True)


@click.command()
@_tournament_option
@click.option("--faults", "only_faults", is_flag=True, help="Only games in which some bot faulted.")
@results_option
@db_option
def matches(name: str | None, only_faults: bool, results_dir: Path, db: Path | None) -> None:
    """List a tournament's games in schedule order: id, seats, scores, ranks, faults."""
    with _open(results_dir, db) as store:
        t = store.tournament(name)
        rows = []
        for m in store.games(t.id):
            faults = sum(s.faults for s in m.seats)
            if only_faults and not faults:
                continue
            seats = ", ".join(f"{s.bot}:{s.score if s.score is not None else '-'}"
                              f"/{s.rank if s.rank is not None else '-'}" for s in m.seats)
            rows.append((m.seq + 1, m.table, m.status, seats, faults))
    click.echo(f"{t.name} ({t.game}, {t.format}): {len(rows)} games; arena show GAME -t {shlex.quote(t.name)} "
               "shows one")
    click.echo(tabulate(rows, headers=("game", "table", "status", "bot:score/rank by seat", "faults")))


@click.command()
@click.argument("number", type=click.IntRange(min=1), metavar="GAME")
@_tournament_option
@click.option("--verbose", "-v", is_flag=True, help="Show hidden details in the replay too.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the replay as one self-contained HTML page (the referee's view, every seat's view "
                   "selectable) instead of printing it turn by turn.")
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="With --html: a page of only what this seat was sent.")
@results_option
@db_option
def show(number: int, name: str | None, verbose: bool, html: Path | None, seat: int | None, results_dir: Path,
         db: Path | None) -> None:
    """Show game GAME of a tournament (its number in `arena matches`): seats, result, faults, and its replay turn
    by turn (or as an HTML page)."""
    if seat is not None and html is None:
        raise click.BadParameter("only with --html", param_hint="'--seat'")
    with _open(results_dir, db) as store:
        t = store.tournament(name)
        m = store.game_numbered(t, number)
    path = replay_path(m.replay, results_dir)
    click.echo(_describe(m, path, _show_command(number, t.name, results_dir, db)))
    if path is None:
        raise click.ClickException("this game has no replay file (it failed before it was played)")
    from arena.match.record import load_record
    from arena.match.replay import turn_lines
    try:
        record = load_record(path)
    except ReplayError as exc:
        raise ReplayError(f"cannot show the replay: {exc}") from None
    if html is not None:
        _write_page(record, html, seat)
        return
    for line in turn_lines(record, referee=verbose):
        click.echo(line)


def _write_page(record: GameRecord, path: Path, seat: int | None) -> None:
    if seat is not None and seat >= record.num_players:
        raise click.BadParameter(f"the game had seats 0 to {record.num_players - 1}", param_hint="'--seat'")
    from arena.viewer import write_replay
    write_replay(record, path, seat)
    click.echo(f"replay page written to {path}", err=True)


def _show_command(number: int, name: str, results_dir: Path, db: Path | None) -> str:
    """The `arena show` command of this game, as it can be pasted."""
    where = "" if results_dir == Path("results") else f" --results {shlex.quote(str(results_dir))}"
    where += "" if db is None else f" --db {shlex.quote(str(db))}"
    return f"arena show {number} -t {shlex.quote(name)}{where}"


def _describe(m: StoredGameRow, replay: Path | None, command: str) -> str:
    head = (f"game {m.seq + 1} of {m.tournament} (table {m.table}), seed {m.seed}, {m.status}: "
            f"{m.reason}{' (cut short)' if m.cut_short else ''}")
    seats = tabulate([(s.seat, s.bot, s.score, s.rank, "yes" if s.disqualified else "", s.faults)
                      for s in m.seats], headers=("seat", "bot", "score", "rank", "disqualified", "faults"))
    page = f"game-{m.seq + 1}.html"
    faults = "\n".join(f"  seat {f.seat}{_at(f.decision)}: {f.kind}: {f.detail}" + _tail(f.stderr_tail)
                       + (f"\n      see it: {command} --html {page}, then open "
                          f"{shlex.quote(f'{(Path.cwd() / page).as_uri()}#step={f.decision}&seat={f.seat}')}"
                          if f.decision is not None and replay else "")
                       for f in m.faults)
    where = f"arena replay {shlex.quote(str(replay))}" if replay else "none"
    return head + "\n" + seats + (f"\nfaults:\n{faults}" if faults else "") + f"\nreplay: {where}\n"


def _at(decision: int | None) -> str:
    return "" if decision is None else f", decision #{decision}"


def _tail(stderr: str) -> str:
    """A fault's stderr tail (bounded when it was stored), indented under it."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return "".join("\n      | " + "".join(c if c.isprintable() else "?" for c in line) for line in lines)


@click.command()
@_tournament_option
@click.option("--all", "every", is_flag=True, help="Rerate every tournament in the store.")
@click.option("--final", is_flag=True, help="Rate with the dynamics factor off (tau 0): the final ranking of bots "
              "that no longer change, at a season's end. Kept until the tournament's next run or rerate.")
@results_option
@db_option
def rerate(name: str | None, every: bool, final: bool, results_dir: Path, db: Path | None) -> None:
    """Recompute ratings from the stored results, in schedule order, and store them; print each bot's rating and
    the chance that it is truly above the next bot."""
    with _open(results_dir, db, readonly=False) as store:
        targets = store.tournaments() if every else [store.tournament(name)]
        for t in targets:
            outcomes = store.outcomes(t.id)
            config = RatingConfig.stored(get_game(t.game), t.config)
            ratings = rate_all(replace(config, tau=0.0) if final else config, outcomes)
            store.save_ratings(t.id, ratings, final)
            click.echo(f"{t.name}: {len(outcomes)} games rated{' with tau 0 (final)' if final else ''}, "
                       f"{len(ratings.table)} bots")
            click.echo(_rating_table(ratings) + "\n")


def _rating_table(ratings: Ratings) -> str:
    """The ratings ranked as the leaderboard ranks them, each with the chance it is truly above the next."""
    rows = sorted(((n, r.conservative, r.mu, r.sigma) for n, r in ratings.table.items()),
                  key=lambda row: (-row[1], row[0]))
    p = [above_next(a[2], a[3], b[2], b[3]) for a, b in zip(rows, rows[1:])]
    return tabulate([(*row, q) for row, q in zip(rows, [*p, None])],
                    headers=("bot", "conservative", "mu", "sigma", "p_above_next"), floatfmt=".4f")
