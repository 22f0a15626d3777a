"""`arena serve`: host a competition from one command: uploads, statuses, private logs and a live leaderboard
over the results store, while the uploaded bots are admitted and the ladder is played."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from arena.bots.sandbox import Sandbox
from arena.cli.params import (
    DEFAULT_PORT,
    GAME,
    announce_sandbox,
    cluster_access_options,
    competition_defaults,
    db_option,
    game_options,
    rating_options,
    results_option,
    sandbox_options,
    store_path,
    time_options,
)
from arena.competition.ending import FINALS_CONFIDENCE, FINALS_GAMES, FINALS_TOP, end_moment
from arena.competition.season import CHALLENGE_GAMES, CHALLENGES_PER_DAY, PAUSE_AFTER
from arena.competition.uploads import MIB, UploadLimits
from arena.errors import ConfigError
from arena.games import SAMPLE_LEVELS, Game
from arena.ratings.trueskill import RatingConfig
from arena.server.events import STREAM_SECONDS
from arena.server.limits import BODY_SECONDS
from arena.tournament import competition_file
from arena.tournament.cluster_tls import ClusterAccess
from arena.tournament.formats.ladder import DEFAULT_WAVE
from arena.tournament.opponents import DEFAULT_LEVEL
from protocol import TimeControl

DEFAULTS = UploadLimits()


def _competition_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """Eager: the competition file's settings become the command's defaults; options given on the command line
    win. A ladder is what a server plays: another format, or a setting of a fixed schedule, is refused."""
    if value is None or ctx.resilient_parsing:
        return
    settings = competition_file.load(value)
    if settings.pop("fmt", "ladder") != "ladder":
        raise ConfigError(f"{value}: arena serve plays a ladder: remove 'format' or make it \"ladder\"")
    competition_defaults(ctx, value, settings, "serve")


@click.command()
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), is_eager=True, expose_value=False,
              callback=_competition_file, help="A competition file (TOML) holding the settings, its [serve] table "
              "the upload limits; options given on the command line override it.")
@click.argument("game", type=GAME)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              help="A folder of the organiser's own submission folders (as arena tournament takes it), queued for "
              "admission at start; a folder whose version is in already is not entered again.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (behind a reverse proxy, keep the default).")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="The port to listen on; 0 picks a free one (printed).")
@click.option("--proxy", metavar="ADDRESS", help="The address of the reverse proxy in front of the server, whose "
              "X-Forwarded-For and X-Forwarded-Proto headers are believed (default: none is: a client's address is "
              "the one it connects from).")
@click.option("--name", help="The ladder's name in the store (default: GAME-ladder).")
@click.option("--title", help="The competition's title, the front page's heading (default: the ladder's name); "
              "without --name it names the ladder too, as in a competition file.")
@click.option("--seats", type=click.IntRange(min=1), help="Seats per table (default: the game's fewest).")
@click.option("--samples", type=click.Choice(SAMPLE_LEVELS), default=DEFAULT_LEVEL, show_default=True,
              help="The strongest of the sample bots that always play in the ladder (seats - 1 of them, strongest "
              "first, then random bots): the bar every upload is measured against.")
@click.option("--wave", type=click.IntRange(min=1), default=DEFAULT_WAVE, show_default=True,
              help="Ladder tables (of one game each) chosen at a time from the ratings so far (with several "
              "workers, at least 4 a worker); a wave of the season plays as many such waves as a table has seats.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Ladder tables played at once, each in its own worker process.")
@click.option("--seed", "-s", type=int, default=None, help="A public seed for the ladder's deals (default: a "
              "secret one the store keeps).")
@click.option("--uploads-per-day", type=click.IntRange(min=1), default=DEFAULTS.uploads_per_day, show_default=True,
              help="Uploads an author may make in 24 hours.")
@click.option("--active-bots", type=click.IntRange(min=1), default=DEFAULTS.active_bots, show_default=True,
              help="Bot names an author may own.")
@click.option("--max-upload", type=click.IntRange(min=1), default=DEFAULTS.max_upload // MIB, show_default=True,
              metavar="MIB", help="The largest archive taken, in MiB.")
@click.option("--max-unpacked", type=click.IntRange(min=1), default=DEFAULTS.max_unpacked // MIB,
              show_default=True, metavar="MIB", help="The most an archive may unpack to, in MiB.")
@click.option("--max-members", type=click.IntRange(min=1), default=DEFAULTS.max_members, show_default=True,
              help="The most files and folders an archive may hold.")
@click.option("--body-timeout", type=click.FloatRange(min=0, min_open=True), default=BODY_SECONDS, show_default=True,
              metavar="SECONDS", help="A request's body must arrive whole within this (a slow or endless body is "
              "cut off with 408).")
@click.option("--stream-seconds", type=click.FloatRange(min=1, max=STREAM_SECONDS), default=STREAM_SECONDS,
              show_default=True, metavar="SECONDS", help="A page's live-update stream ends after this (the browser "
              "opens the next by itself), so that no client holds a connection for long.")
@click.option("--pause-after", type=click.IntRange(min=1), default=PAUSE_AFTER, show_default=True,
              metavar="GAMES", help="A bot whose last GAMES games each had a fault of its own sits out, with a "
              "notice on its author's page, until a new version is admitted.")
@click.option("--challenges-per-day", type=int, default=CHALLENGES_PER_DAY, show_default=True,
              help="Challenges (games against chosen rivals, or a test of two versions) an author may ask for in 24 "
              "hours.")
@click.option("--challenge-games", type=int, default=CHALLENGE_GAMES, show_default=True,
              help="Games a challenge may ask for (a version test's cap).")
@click.option("--description", metavar="MARKDOWN", help="What the front page says of the competition (Markdown; "
              "a competition file's [serve] description, usually).")
@click.option("--start", metavar="YYYY-MM-DD", help="The season's first day, shown on the front page.")
@click.option("--end", metavar="YYYY-MM-DD", help="The season's last day, shown on the front page; or the moment "
              "it ends (YYYY-MM-DDTHH:MM, UTC unless it says otherwise). When it ends (a day: at the next midnight "
              "UTC), uploads close, the ladder stops, and its top bots play the finals (--finals-top), whose table "
              "the front page shows.")
@click.option("--finals-top", type=click.IntRange(min=2), default=FINALS_TOP, show_default=True, metavar="K",
              help="How many of the leading bots play the finals when the season ends (fewer if fewer are ranked).")
@click.option("--finals-confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=FINALS_CONFIDENCE, show_default=True, metavar="C", help="The confidence at which each step "
              "of the final table is decided (as arena finals --confidence).")
@click.option("--finals-games", type=click.IntRange(min=1), default=FINALS_GAMES, show_default=True,
              metavar="GAMES", help="The finals' budget of games: pairs still undecided when it is spent share a "
              "rank.")
@click.option("--cluster", metavar="ADDRESS", help="Play the ladder and run each upload's build and first game on a "
              "Dask cluster: a scheduler's address (tls://HOST:8786 with --cluster-certs or Dask's own TLS "
              "settings; tcp:// only with --insecure-cluster), or 'local' for a local cluster of --jobs worker "
              "processes that only this run's credentials reach. This machine then starts no "
              "bot and no build; submissions reach the workers through the cluster (docs/cluster.md). Needs the "
              "cluster extra (pip install 'bali-arena[cluster]').")
@cluster_access_options
@click.option("--webhook-host", "webhook_hosts", multiple=True, metavar="HOST", help="A host webhooks may reach "
              "although its addresses are loopback, private or link-local (a name, an IP address or a network; "
              "repeat for more): by default only public addresses are, so that no author's hook reaches this "
              "machine or its network.")
@click.option("--no-play", is_flag=True, help="Serve only: admit no upload and play no game (the pages and the "
              "API over the store as it is).")
@time_options
@sandbox_options
@game_options
@rating_options
@results_option
@db_option
def serve(game: Game, submissions: Path | None, host: str, port: int, proxy: str | None, name: str | None,
          title: str | None,
          seats: int | None, samples: str, wave: int, jobs: int, seed: int | None, uploads_per_day: int,
          active_bots: int, max_upload: int, max_unpacked: int, max_members: int, body_timeout: float,
          stream_seconds: float, pause_after: int, challenges_per_day: int, challenge_games: int,
          description: str | None, start: str | None, end: str | None,
          finals_top: int, finals_confidence: float, finals_games: int,
          cluster: str | None, cluster_access: ClusterAccess, webhook_hosts: tuple[str, ...], no_play: bool,
          time: TimeControl, sandbox: Sandbox,
          options: dict[str, Any] | None, rating: RatingConfig, results_dir: Path, db: Path | None) -> None:
    """Host a competition at GAME: authors (added with `arena authors add`) upload bots in the browser or with
    their API token, follow their admission, and see their own bots' games with their logs; everyone sees the
    leaderboard and the games. The ladder of the admitted bots is played all the while.

    \b
    arena authors add alice        # prints her sign-in link and API token
    arena serve bali-2001 --port 8000 --submissions entries
    curl -H "Authorization: Bearer TOKEN" -F file=@bot.zip http://127.0.0.1:8000/api/submissions
    """
    from arena.competition.season import SeasonSettings
    from arena.server import check_proxy
    from arena.server import serve as run_server
    from arena.server.hosting import Hosting
    from arena.tournament.formats.base import Play

    about = competition_file.about(description, start, end, title)
    sandbox.check_strangers()
    if cluster is not None and not no_play:
        from arena.tournament.cluster import check_scheduler

        # A usage error now, not a season that waits for a scheduler that never was (or may not be trusted).
        check_scheduler(cluster, cluster_access)
    play = Play(game=game.name, options=options, time=time, sandbox=sandbox.resolved(), rating=rating)
    settings = SeasonSettings(play=play, name=name or title or f"{game.name}-ladder", results_dir=results_dir,
                              db=store_path(results_dir, db), seats=seats, wave=wave, jobs=jobs, samples=samples,
                              seed=seed, pause_after=pause_after, cluster=None if no_play else cluster,
                              cluster_access=cluster_access, max_built=max_unpacked * MIB, ends=end_moment(end),
                              finals_top=finals_top, finals_confidence=finals_confidence, finals_games=finals_games,
                              challenges_per_day=challenges_per_day, challenge_games=challenge_games,
                              webhook_hosts=tuple(webhook_hosts))
    settings.check()
    check_proxy(proxy)
    limits = UploadLimits(max_upload=max_upload * MIB, max_unpacked=max_unpacked * MIB, max_members=max_members,
                          uploads_per_day=uploads_per_day, active_bots=active_bots)
    announce_sandbox(play.sandbox)
    run_server(Hosting(settings, limits, body_timeout, stream_seconds, about), host, port, play=not no_play,
               submissions=submissions, proxy=proxy)
