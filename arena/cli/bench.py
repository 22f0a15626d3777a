"""`arena bench`: throughput figures for the README."""

from __future__ import annotations

import json
import os
from typing import Any

import click
from tabulate import tabulate

from arena.bench.claims import FINALS_BUDGET
from arena.bench.protocol import bench_protocol, bench_sandboxes
from arena.bench.publish import bench_publish
from arena.bench.ranking import PRECISION_AT, TAUS, RankingRow, bench_ranking
from arena.bench.season import Sample, bench_known_field, bench_season, bench_season_real
from arena.bench.serve_season import bench_serve_season
from arena.bench.tournament import bench_compare, bench_tournament
from arena.cli.params import GAME
from arena.games import Game, available, get_game
from arena.match.local import bench_engine


@click.command()
@click.option("--game", "games", type=GAME, multiple=True, help="Game to measure (default: every registered game).")
@click.option("--count", "-n", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games per game and player count.")
@click.option("--protocol", is_flag=True, help="Also measure the bot protocol: round trips and games/s with "
              "subprocess bots.")
@click.option("--sandbox", "sandboxes", is_flag=True, help="Also measure each sandbox level: a bot's start-up "
              "(spawn to ready) and the per-decision round trip, against none; and each limited level without the "
              "seccomp filter and the bots' own host uids, for what they cost.")
@click.option("--starts", type=click.IntRange(min=1), default=10, show_default=True,
              help="Bot starts per sandbox level measured (the median is reported).")
@click.option("--round-trips", type=click.IntRange(min=10), default=5000, show_default=True,
              help="Round trips per protocol measurement.")
@click.option("--match-games", type=click.IntRange(min=1), default=20, show_default=True,
              help="Games per games/s measurement with subprocess bots.")
@click.option("--tournament", is_flag=True, help="Also measure tournaments: games per minute with --jobs 1 and 2, "
              "bots reused and fresh.")
@click.option("--cluster", is_flag=True, help="With --tournament, also through a local Dask cluster of two "
              "workers (needs the cluster extra), against --jobs 2; with --season-real, the ladder plays on a local "
              "Dask cluster of --jobs workers.")
@click.option("--tournament-rounds", type=click.IntRange(min=1), default=2, show_default=True,
              help="Round-robin rounds of five random bots per tournament measurement.")
@click.option("--compare", "compare_pairs", type=click.IntRange(min=1), default=None, metavar="PAIRS",
              help="Also measure arena compare: pairs per minute of PAIRS pairs of random bots with --jobs 1 and 2, "
                   "against games per minute of a tournament of random bots at the same table size.")
@click.option("--publish", "publish_games", type=click.IntRange(min=1), default=None, metavar="GAMES",
              help="Also measure arena publish: a store of GAMES games of a ladder of six random bots (each --game, "
                   "default bali-2017), published cold with and without game pages, again unchanged, and again "
                   "after 1% more games.")
@click.option("--export", "export_games", type=click.IntRange(min=1), multiple=True, metavar="GAMES",
              help="Also measure arena export: a store of a ladder of random bots (the first --game, default "
                   "bali-2017) grown to each GAMES (repeatable: 1000 and 10000 show whether memory grows with the "
                   "games), exported cold in Parquet, again with nothing new, and again after 1% more games.")
@click.option("--serve", "serve_authors", type=click.IntRange(min=1), default=None, metavar="AUTHORS",
              help="Also measure arena serve: AUTHORS authors upload a kit bot each over the API, 20 at once, while "
                   "the ladder plays; then the leaderboard, a bot page and an author's game page are read for "
                   "--serve-seconds (or --serve-games) while they are admitted and the ladder plays on (latencies, "
                   "the server's memory).")
@click.option("--serve-seconds", type=click.FloatRange(min=1), default=60, show_default=True,
              help="How long the pages are read while the ladder plays, with --serve.")
@click.option("--serve-jobs", type=click.IntRange(min=1), default=2, show_default=True,
              help="The server's --jobs, with --serve.")
@click.option("--serve-games", type=click.IntRange(min=1), default=None, metavar="GAMES",
              help="With --serve: read the pages until the ladder has played GAMES more games (or --serve-seconds "
              "pass), the server's memory looked at throughout.")
@click.option("--ranking", is_flag=True, help="Instead, measure how fast the ladder's matchmaking ranks a field of "
              "known strength (simulated games, the arena's own matchmaking and ratings) against random tables and "
              "the previous rule.")
@click.option("--claims", is_flag=True, help="Instead, measure the board's claims over simulated fields of known "
              "strength: how often each bot's 90% interval of ranks holds its true rank, and how often finals call "
              "a step of their table in the wrong order, against 1 - the confidence asked for.")
@click.option("--real", "real_only", is_flag=True, help="With --claims: only its part on real games (the mixed "
              "sample bots at several probabilities of the heuristic's move, played by arena tournament and arena "
              "finals), not the simulated fields.")
@click.option("--json", "as_json", is_flag=True, help="With --ranking or --claims: print one JSON object.")
@click.option("--quick", is_flag=True, help="With --ranking or --claims: 2 seeds and a few games a bot (a check of "
              "the benchmark, not figures).")
@click.option("--season", "season_games", type=click.IntRange(min=1), multiple=True, metavar="GAMES",
              help="Instead, measure a season: a ladder's wave chosen at --entrants, and arena rerate and arena "
                   "leaderboard on a store of GAMES games filled through the store's API (repeatable).")
@click.option("--serve-season", "served_games", type=click.IntRange(min=0), multiple=True, metavar="GAMES",
              help="Instead, seed a served season's store with GAMES games (repeatable: 1000, 10000, 100000), start "
                   "it afresh as arena serve does, and time its next waves of the sample bots: the CPU of the "
                   "season's own process a wave, and its memory.")
@click.option("--season-real", "real_games", type=click.IntRange(min=1), default=None, metavar="GAMES",
              help="Instead, play a ladder of --entrants random bots for GAMES real games (bali-2017, 4 seats, "
                   "--jobs workers, sandbox none) and sample the games stored and the arena's memory as it plays.")
@click.option("--known-field", "known_games", type=click.IntRange(min=1), default=None, metavar="GAMES",
              help="Instead, play a ladder of 11 sample bots of known order (the heuristic's move with probability "
                   "0, 0.1, ..., 1, else a random one) for GAMES real games (bali-2017, 4 seats, --jobs workers) "
                   "and print the Kendall tau of its board with that order as the games were added.")
@click.option("--season-cluster", "cluster_seconds", type=click.FloatRange(min=1), default=None, metavar="SECONDS",
              help="Instead, run arena serve's season on a local Dask cluster of 1, then of 2 workers (bali-2017, 4 "
                   "seats, --entrants house folders of the random bot, sandbox none) and count the ladder's games "
                   "over SECONDS (and until one is stored) once every entrant is admitted: games per minute.")
@click.option("--think", "think_ms", type=click.FloatRange(min=0, max=1000), default=0, show_default=True,
              metavar="MS", help="With --season-cluster: the house bots sleep MS milliseconds before each answer, "
              "as bots that think on machines of their own (costing this one no CPU meanwhile).")
@click.option("--kill-worker-at", "kill_at", type=click.IntRange(min=1), default=None, metavar="GAMES",
              help="With --season-real: once GAMES games are stored, kill (SIGKILL) one of the arena's workers, as "
                   "a crash would; the run must still store every game (GAMES below --season-real's).")
@click.option("--sample-every", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds between samples of a --season-real.")
@click.option("--entrants", type=click.IntRange(min=4), default=1000, show_default=True,
              help="Entrants of a --season or --season-real.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --ranking: simulate in this many processes; with --season-real or --known-field: the "
                   "ladder's --jobs.")
def bench(games: tuple[Game, ...], count: int, protocol: bool, sandboxes: bool, starts: int, round_trips: int,
          match_games: int, tournament: bool, cluster: bool, tournament_rounds: int,
          compare_pairs: int | None, publish_games: int | None, export_games: tuple[int, ...],
          serve_authors: int | None, serve_seconds: float,
          serve_jobs: int, serve_games: int | None, ranking: bool, claims: bool, real_only: bool, as_json: bool,
          quick: bool,
          season_games: tuple[int, ...], served_games: tuple[int, ...], real_games: int | None,
          known_games: int | None, kill_at: int | None, cluster_seconds: float | None, think_ms: float,
          sample_every: float, entrants: int, jobs: int) -> None:
    """Measure random-play games and decisions per second, in-process on one core; with --protocol, also the
    bot protocol's round trip against raw ZeroMQ and games per second with subprocess bots; with --tournament,
    games per minute of whole tournaments; with --sandbox, what each sandbox level costs; with --ranking, only
    how many games the ladder needs to rank a field right."""
    if ((as_json or quick) and not (ranking or claims)) or (real_only and not claims):
        raise click.UsageError("--json and --quick go with --ranking or --claims, --real with --claims")
    if think_ms and not cluster_seconds:
        raise click.UsageError("--think goes with --season-cluster")
    if kill_at is not None and not (real_games and kill_at < real_games and not cluster):
        raise click.UsageError("--kill-worker-at goes with --season-real, below its GAMES, on the local pool "
                               "(not --cluster)")
    if ranking or claims:
        click.echo(_claims_output(quick, jobs, as_json, real_only) if claims else _ranking_output(quick, jobs, as_json))
        return
    season = _season_tables(entrants, season_games, served_games, real_games, known_games, cluster_seconds, jobs,
                            sample_every, cluster, kill_at, think_ms / 1000)
    if season:
        click.echo(season)
        return
    chosen = games or tuple(get_game(name) for name in available())
    click.echo(_engine_table(chosen, count))
    if protocol:
        click.echo()
        click.echo(_protocol_table(chosen, round_trips, match_games))
    if sandboxes:
        click.echo()
        click.echo(_sandbox_table(chosen, round_trips, starts))
    if tournament:
        click.echo()
        click.echo(_tournament_table(chosen, tournament_rounds, cluster))
    if compare_pairs:
        click.echo()
        click.echo(_compare_table(chosen, compare_pairs, tournament_rounds))
    if publish_games:
        click.echo("\n" + _publish_table(games or (get_game("bali-2017"),), publish_games))
    if export_games:
        click.echo("\n" + _export_table((games or (get_game("bali-2017"),))[0], export_games))
    if serve_authors:
        click.echo()
        click.echo(_serve_table((games or (get_game("bali-2001"),))[0], serve_authors, serve_seconds, serve_jobs,
                                serve_games))


def _serve_table(game: Game, authors: int, seconds: float, jobs: int, games: int | None) -> str:
    from arena.bench.serve import bench_serve

    r = bench_serve(game.name, authors, seconds, jobs, games, progress=lambda line: click.echo(line, err=True))
    rows = [(t.page, t.requests, f"{t.p50:.1f}", f"{t.p95:.1f}", f"{t.worst:.1f}", t.retried)
            for t in (r.uploads, *r.pages)]
    table = tabulate(rows, headers=("request", "requests", "p50 ms", "p95 ms", "worst ms", "sent again"))
    servers = [m.server for m in r.memory] or [0.0]
    memory = tabulate([(f"{m.games:,}", f"{m.server:.0f}", f"{m.with_children:.0f}") for m in r.memory],
                      headers=("games stored", "server MiB", "with its children MiB"))
    return "\n".join([table, f"{r.game}: {r.authors} authors, {r.admitted} admitted; {r.games:,} games played "
                              f"while the pages were read ({r.seconds:.0f} s, server --jobs {r.jobs}); the server's "
                              f"memory {r.rss_start:.0f} MiB at game {r.rss_games[0]:,}, {r.rss_end:.0f} MiB at "
                              f"game {r.rss_games[1]:,} (least {min(servers):.0f}, most {max(servers):.0f})",
                       "", memory])


def _ranking_table(rows: list[RankingRow]) -> str:
    def games(n: int | None) -> str:
        return "-" if n is None else f"{n:,}"
    table = [(r.bots, r.seats, f"{r.spread:g}", r.strategy, *(games(r.games_to_tau[str(t)]) for t in TAUS),
              games(r.games_to_top10), *(f"{r.top10_precision[str(k)]:.2f}" if str(k) in r.top10_precision else ""
                                         for k in PRECISION_AT),
              f"{r.busiest:,.0f} / {r.even_share:,.0f}") for r in rows]
    headers = ("bots", "seats", "spread (beta)", "matchmaking", *(f"games to tau {t}" for t in TAUS),
               "games to top-10 0.9", *(f"top-10 at {k}/bot" for k in PRECISION_AT), "busiest / even share")
    seeds = {r.seeds for r in rows}
    note = (f"mean over {', '.join(map(str, sorted(seeds)))} seeds of each field; '-': not reached in "
            f"{', '.join(f'{g:,}' for g in sorted({r.games for r in rows}))} games")
    return tabulate(table, headers=headers) + "\n" + note


def _ranking_output(quick: bool, jobs: int, as_json: bool) -> str:
    rows = bench_ranking(quick, jobs, progress=lambda line: click.echo(line, err=True))
    return json.dumps({"rows": [r.to_dict() for r in rows]}, indent=1) if as_json else _ranking_table(rows)


def _claims_output(quick: bool, jobs: int, as_json: bool, real_only: bool = False) -> str:
    from arena.bench.claims import bench_claims  # the finals' format and the match's modules: only here
    from arena.bench.claims_real import bench_claims_real

    say = lambda line: click.echo(line, err=True)  # noqa: E731
    intervals, finals = ([], []) if real_only else bench_claims(quick, jobs, progress=say)
    real_intervals, real_finals = bench_claims_real(quick, jobs, progress=say)
    if as_json:
        return json.dumps({"intervals": [r.to_dict() for r in intervals], "finals": [r.to_dict() for r in finals],
                           "real": {"intervals": [r.to_dict() for r in real_intervals],
                                    "finals": [r.to_dict() for r in real_finals]}}, indent=1)
    simulated = "" if real_only else _claims_tables(intervals, finals) + "\n\n"
    return simulated + _real_claims_tables(real_intervals, real_finals)


def _real_claims_tables(intervals: list[Any], finals: list[Any]) -> str:
    from arena.bench.claims_real import CONFIDENCE, FINALS_LEVELS, KNOWN_LEVELS

    first = tabulate([(r.games_a_bot, r.runs, f"{100 * r.coverage:.1f}%", f"{r.width:.1f}") for r in intervals],
                     headers=("games a bot", "ladders", "90% intervals holding the true rank", "mean width (ranks)"))
    second = tabulate([(r.seed, "yes" if r.wrong else "no", f"{r.decided} of {len(FINALS_LEVELS) - 1}", r.games,
                        "-" if r.rerun_deals is None else r.rerun_deals,
                        "-" if r.rerun_games is None else r.rerun_games) for r in finals],
                      headers=("finals seed", "a decided step in the wrong order", "steps decided", "games",
                               "rerun: deals a pair", "rerun: games"))
    wrong = sum(r.wrong for r in finals)
    return (f"real games (bali-2017, 2 seats): a ladder of {len(KNOWN_LEVELS)} mixed bots\n{first}\n\n"
            f"real finals of P = {', '.join(f'{p:g}' for p in FINALS_LEVELS)} at confidence {CONFIDENCE:g}\n{second}\n"
            f"({wrong} of {len(finals)} finals with a step in the wrong order, {1 - CONFIDENCE:.0%} allowed; the "
            f"rerun: equal deals for every pair, enough to get every step right with probability {CONFIDENCE:g})")


def _claims_tables(intervals: list[Any], finals: list[Any]) -> str:
    first = tabulate([(r.bots, r.seats, f"{r.spread:g}", r.games_a_bot, f"{100 * r.coverage:.1f}%", f"{r.width:.1f}")
                      for r in intervals],
                     headers=("bots", "seats", "spread (beta)", "games a bot", "90% intervals holding the true rank",
                              "mean width (ranks)"))
    second = tabulate([(r.field, " ".join(f"{e:g}" for e in r.elo), f"{r.confidence:g}",
                        f"{100 * r.wrong_runs:.1f}%", f"{100 * (1 - r.confidence):.1f}%",
                        f"{100 * r.decided_steps:.0f}%", f"{r.games:,.0f}", f"{100 * r.budget_spent:.0f}%")
                       for r in finals],
                      headers=("finals field", "Elo", "confidence", "runs with a step in the wrong order",
                               "allowed (1 - C)", "steps decided", "mean games", "budget spent"))
    seeds = f"{intervals[0].seeds} fields" if intervals else ""
    return (f"{first}\n(each over {seeds} of each size)\n\n{second}\n(each over {finals[0].seeds if finals else 0} "
            f"finals of 2-seat games, budget {FINALS_BUDGET:,} games)")


def _season_table(entrants: int, counts: tuple[int, ...]) -> str:
    rows = []
    for games in counts:
        click.echo(f"filling a store of {games:,} games of {entrants:,} entrants ...", err=True)
        s = bench_season(entrants, games)
        rows.append((f"{s.entrants:,}", f"{s.games:,}", *(f"{x:.1f}" for x in s.wave_ms), f"{s.fill_seconds:.0f}",
                     f"{s.store_mb:.1f}", *(f"{x:.1f}" for x in (*s.rerate, *s.leaderboard, *s.startup))))
    return tabulate(rows, headers=("entrants", "games stored", "ms a wave", "CPU ms a wave", "fill s", "store MB",
                                   "rerate s", "rerate CPU s", "leaderboard s", "leaderboard CPU s",
                                   "its start-up s", "its start-up CPU s"))


def _season_tables(entrants: int, season_games: tuple[int, ...], served_games: tuple[int, ...],
                   real_games: int | None, known_games: int | None, cluster_seconds: float | None, jobs: int,
                   sample_every: float, cluster: bool, kill_at: int | None, think: float = 0.0) -> str | None:
    """The table of the season benchmark asked for, or None where none is."""
    if season_games:
        return _season_table(entrants, season_games)
    if served_games:
        return _served_season_table(served_games)
    if cluster_seconds:
        return _cluster_season_table(entrants, cluster_seconds, think)
    if real_games:
        return _real_season_table(entrants, real_games, jobs, sample_every, cluster, kill_at)
    if known_games:
        return _known_field_table(known_games, jobs)
    return None


def _served_season_table(counts: tuple[int, ...]) -> str:
    rows = []
    for games in counts:
        click.echo(f"seeding a served season with {games:,} games ...", err=True)
        s = bench_serve_season(games)
        rows.append((f"{s.stored:,}", f"{s.seed_seconds:.0f}", f"{s.start_cpu:.2f}", f"{s.median_cpu:.3f}",
                     f"{s.cpu_per_game:.2f}", " ".join(map(str, s.wave_games)), f"{s.rss_mib:.0f}",
                     f"{s.peak_mib:.0f}"))
    return tabulate(rows, headers=("games stored", "seed s", "first wave CPU s", "wave CPU s (median)",
                                   "CPU ms a game", "games each wave", "RSS MiB after", "peak MiB"))


def _real_season_table(entrants: int, games: int, jobs: int, every: float, cluster: bool,
                       kill_at: int | None) -> str:
    def shown(s: Sample) -> tuple[str, ...]:
        return f"{s.seconds:.0f}", f"{s.games:,}", f"{s.arena_mib:.1f}", f"{s.workers_mib:.1f}"
    headers = ("seconds", "games stored", "arena MiB", "workers MiB")
    click.echo(f"a ladder of {entrants:,} random bots, {games:,} real games, --jobs {jobs}; every {every:g} s:",
               err=True)
    click.echo("  ".join(headers), err=True)
    r = bench_season_real(entrants, games, jobs, every, progress=lambda s: click.echo("  ".join(shown(s)), err=True),
                          cluster=cluster, kill_at=kill_at)
    note = (f"{r.entrants:,} entrants: {r.stored:,} of {r.games:,} games stored in {r.seconds:,.0f} s "
            f"({60 * r.stored / r.seconds:,.0f} a minute); store {r.store_mb:.1f} MB; the arena's peak "
            f"{r.peak_mib:.1f} MiB")
    if kill_at is not None:
        note += (f"\nworker {r.killed.pid} killed (SIGKILL) at {r.killed.games:,} games stored" if r.killed else
                 f"\nno worker killed: none was running once {kill_at:,} games were stored")
    return tabulate([shown(s) for s in r.samples], headers=headers) + "\n" + note


def _cluster_season_table(entrants: int, seconds: float, think: float) -> str:
    from arena.bench.season import bench_season_cluster

    click.echo(f"{os.cpu_count()} cores; the house bots answer at once" if not think else
               f"{os.cpu_count()} cores; the house bots sleep {1000 * think:g} ms before each answer", err=True)
    rows = []
    for workers in (1, 2):
        r = bench_season_cluster(workers, entrants, seconds, think, progress=lambda line: click.echo(line, err=True))
        rows.append((r.workers, r.entrants, r.games, f"{r.seconds:.0f}", f"{r.per_minute:.1f}", f"{r.page_p95:.1f}",
                     " ".join(f"{x:.2f}" for x in r.load)))
    return tabulate(rows, headers=("workers", "entrants", "games", "seconds", "games/min", "board p95 ms",
                                   "load 1/5/15 min"))


def _known_field_table(games: int, jobs: int) -> str:
    click.echo(f"a ladder of 11 mixed bots of known order, {games:,} real games, --jobs {jobs} ...", err=True)
    r = bench_known_field(games, jobs)
    taus = tabulate([(f"{n:,}", f"{t:.3f}", f"{final:.3f}") for n, t, final in r.taus],
                    headers=("games rated", "Kendall tau", "final (tau 0)"))
    board = tabulate([(i, name, f"{mu:.2f}", f"{sigma:.2f}") for i, (name, mu, sigma) in enumerate(r.board, 1)],
                     headers=("rank", "bot (p x 100)", "mu", "sigma"))
    return f"{taus}\n\n{board}\n{r.games:,} games stored in {r.seconds:,.0f} s"


def _publish_table(games: tuple[Game, ...], count: int) -> str:
    rows, notes = [], []
    for game in games:
        r = bench_publish(game, count, progress=lambda line: click.echo(line, err=True))
        notes.append(f"{r.game}: {r.games:,} games played in-process and stored in {r.build:.1f} s; the site with "
                     f"game pages takes {r.site_bytes / 1e6:,.1f} MB")
        runs = (("cold, with game pages", r.cold, r.games), ("cold, --no-games", r.cold_no_games, r.games),
                ("again, nothing changed", r.unchanged, r.games),
                (f"again, {r.added:,} game{'s' if r.added > 1 else ''} added", r.after_added, r.added))
        for (what, seconds, pages), cpu in zip(runs, r.cpu):
            rows.append((r.game, f"{r.games:,}", what, f"{seconds:.1f}", f"{1000 * seconds / pages:.1f}",
                         f"{cpu:.1f}"))
    table = tabulate(rows, headers=("game", "games stored", "publish", "seconds", "ms per game (per added game)",
                                    "CPU seconds"))
    return "\n".join([table, *notes])


def _export_table(game: Game, counts: tuple[int, ...]) -> str:
    from arena.bench.export import bench_export

    rows, notes = [], []
    for r in bench_export(game.name, counts, progress=lambda line: click.echo(line, err=True)):
        notes.append(f"{r.game}: {r.games:,} games ({r.decisions:,} decisions) played in-process and stored in "
                     f"{r.build:.1f} s; the Parquet tables take {r.bytes / 1e6:,.1f} MB")
        for what, run in (("cold", r.cold), ("again, nothing new", r.unchanged),
                          (f"again, {r.added.games:,} game{'s' if r.added.games != 1 else ''} added", r.added)):
            rows.append((r.game, f"{r.games:,}", what, f"{run.decisions:,}", f"{run.seconds:.1f}",
                         f"{run.decisions_per_second:,.0f}", f"{run.cpu:.1f}", f"{run.peak_mib:.0f}"))
    table = tabulate(rows, headers=("game", "games stored", "export", "decisions written", "seconds",
                                    "decisions/s", "CPU seconds", "peak MiB"))
    return "\n".join([table, *notes])


def _compare_table(games: tuple[Game, ...], pairs: int, rounds: int) -> str:
    rows = []
    for game in games:
        for jobs in (1, 2):
            click.echo(f"measuring {game.name} comparisons and tournaments, jobs {jobs} ...", err=True)
            t = bench_tournament(game.name, game.max_players, rounds, jobs, False)
            c = bench_compare(game.name, game.max_players, pairs, jobs)
            rows.append((game.name, game.max_players, jobs, c.pairs, f"{c.pairs_per_minute:,.0f}",
                         f"{t.games_per_minute:,.0f}", f"{c.pairs_per_minute / t.games_per_minute:.2f}"))
    return tabulate(rows, headers=("game", "seats", "jobs", "pairs", "compare pairs/min", "tournament games/min",
                                   "pairs per tournament game"))


def _tournament_table(games: tuple[Game, ...], rounds: int, cluster: bool) -> str:
    rows = []
    for game in games:
        base = None
        runs = [(jobs, fresh, False) for fresh in (False, True) for jobs in (1, 2)]
        for jobs, fresh, on_cluster in runs + ([(2, False, True)] if cluster else []):
            click.echo(f"measuring a {game.name} tournament, jobs {jobs}, {'fresh' if fresh else 'reused'} bots"
                       f"{', local Dask cluster' if on_cluster else ''} ...", err=True)
            r = bench_tournament(game.name, game.max_players, rounds, jobs, fresh, on_cluster)
            base = base or r.games_per_minute
            rows.append((r.game, r.seats, r.jobs, "dask" if r.cluster else "pool", "fresh" if r.fresh else "reused",
                         r.games, f"{r.seconds:.1f}", f"{r.games_per_minute:,.0f}",
                         f"{r.games_per_minute / base:.2f}"))
    return tabulate(rows, headers=("game", "seats", "jobs", "workers", "bots", "games", "seconds", "games/min",
                                   "vs jobs 1 reused"))


def _protocol_table(games: tuple[Game, ...], round_trips: int, match_games: int) -> str:
    rows = []
    for game in games:
        click.echo(f"measuring the protocol with {game.name}, {game.max_players} players ...", err=True)
        r = bench_protocol(game, game.max_players, round_trips, match_games)
        rows.append((r.game, r.players, f"{r.message_bytes:,}", f"{r.raw_us:.0f}", f"{r.arena_us:.0f}",
                     f"{r.meter_share:.0%}", f"{r.sdk_share:.0%}", f"{r.ratio:.2f}", f"{r.in_process_gps:,.1f}",
                     f"{r.socket_bound_gps:,.1f}", f"{r.reused_gps:,.1f}", f"{r.share:.0%}", f"{r.fresh_gps:,.2f}"))
    return tabulate(rows, headers=("game", "players", "decide bytes", "(a) raw µs", "(b) arena µs",
                                   "meter's share of (b)", "SDK's share of (b)", "b/a",
                                   "(c) games/s in-process", "socket-bound", "subprocess bots", "share",
                                   "fresh processes"))


def _sandbox_table(games: tuple[Game, ...], round_trips: int, starts: int) -> str:
    rows = []
    for game in games:
        click.echo(f"measuring the sandbox levels with {game.name} ...", err=True)
        found = bench_sandboxes(game, game.max_players, round_trips, starts)
        none = found[0].round_trip_us
        rows += [(game.name, b.level, f"{b.startup_ms:.0f}", f"{b.round_trip_us:.0f}", f"{b.round_trip_us / none:.2f}")
                 for b in found]
    return tabulate(rows, headers=("game", "sandbox", "start-up ms (spawn to ready)", "round trip µs", "vs none"))


def _engine_table(games: tuple[Game, ...], count: int) -> str:
    rows = []
    for game in games:
        for players in range(game.min_players, game.max_players + 1):
            click.echo(f"measuring {game.name} with {players} players ...", err=True)
            r = bench_engine(game, players, count)
            rows.append((r.game, r.players, r.games, r.decisions, f"{r.games_per_second:,.1f}",
                         f"{r.decisions_per_second:,.0f}"))
    return tabulate(rows, headers=("game", "players", "games", "decisions", "games/s", "decisions/s"))
