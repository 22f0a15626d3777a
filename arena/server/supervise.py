"""The processes of `arena serve`: the web server (uvicorn) answering requests in this process, the season
(admissions, the ladder) in a process of its own at a higher nice value, and the publisher of the public pages in
one of the season's; a stop ends them all at once. Also the checks of the address and the proxy before anything
starts, and the server's log (stderr, the secret codes hidden)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import errno
import ipaddress
import json
import logging
import logging.config
import os
import signal
import socket
import sys
import threading
import time
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path
from typing import IO, Any, Callable

from arena.competition import challenges
from arena.competition.addresses import AllowedHosts
from arena.competition.delivery import Deliveries
from arena.competition.queries import LadderTournament
from arena.competition.season import Season, SeasonSettings, enter_folders
from arena.competition.uploads import sweep as sweep_uploads
from arena.errors import ArenaError, ConfigError
from arena.interrupt import die_with
from arena.server.connections import GuardedConnection
from arena.server.hosting import Hosting
from arena.server.limits import MAX_HEADERS
from arena.storage import Store
from arena.tournament.worker import descendants, start_time

log = logging.getLogger("arena.serve")
MAX_CONNECTIONS = 200  # at once; more are answered 503 by the server itself
KEEP_ALIVE = 5  # seconds an idle connection is kept
STOP_GRACE = 2  # seconds the requests under way get at a stop
SEASON_NICE = 10  # added to the season's nice value (and so its workers' and bots'): the server answers first
PLAYING_BYTES = 64 * 1024  # the JSON list of the bots playing now, as the season tells the server
PLAYING_LOOK = 0.5  # seconds between two looks at which bots are playing
PUBLISH_REST = 2.0  # times as long as the last publish took that the publisher rests before the next
SECRET_PATHS = ("/signin/", "/join/")  # paths whose rest is a secret code, hidden in the access log
TRACKER_WARNING = "ignore:resource_tracker:UserWarning"  # its notice of a killed process's semaphores, removed


def publish_site(s: SeasonSettings) -> None:
    """Bring the public pages (leaderboard, bot pages, replay pages without bot output) up to date, and the season's
    export tables when they are due."""
    from arena.server.dataset import export_folder
    from arena.site.build import publish
    from arena.site.export import refresh as refresh_export

    with Store(s.db) as store:
        if LadderTournament(s.name)(store) is not None:
            publish(store, s.results_dir, s.site, names=[s.name], title=s.name, game_pages=True, jobs=1)
            refresh_export(store, s.results_dir, s.name, export_folder(s))


def serve(hosting: Hosting, host: str, port: int, out: IO[str] = sys.stdout, play: bool = True,
          submissions: Path | None = None, proxy: str | None = None) -> None:
    """Serve the competition until Ctrl-C (or SIGTERM): StoreBusy if another server holds the store. Prints
    `serving on http://HOST:PORT` to out once requests are answered. The organiser's own folders under
    `submissions` are queued for admission first; `proxy`, the address of a reverse proxy whose forwarded
    headers are believed (none by default)."""
    import uvicorn

    from arena.server.app import make_app

    check_address(host, port)
    # The store's server lock is taken before the store is read, brought up to date or swept: a start refused for
    # any reason changes nothing.
    with Store(hosting.settings.db, serving=True) as lock:
        for removed in sweep_uploads(lock, hosting.settings.uploads):
            log.info("removed %s, left by an upload cut off", removed)
        if submissions is not None:
            logging.config.dictConfig(_log_config())  # as the server will log, so these lines are on stderr too
            queued, problems = enter_folders(hosting.settings, submissions, hosting.reserved)
            for problem in problems:
                log.warning("not entered: %s", problem)
            log.info("%d of the folders in %s queued for admission", queued, submissions)
        season = SeasonProcess(hosting.settings)
        hosting.playing = season.playing
        deliveries = Deliveries(hosting.settings.db, AllowedHosts(hosting.settings.webhook_hosts))
        # Proxy headers (the client's address and scheme) are believed only from the proxy the organiser names.
        config = uvicorn.Config(make_app(hosting), host=host, port=port, log_config=_log_config(), access_log=True,
                                limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE,
                                h11_max_incomplete_event_size=MAX_HEADERS, http=GuardedConnection,
                                proxy_headers=proxy is not None, forwarded_allow_ips=proxy or "",
                                timeout_graceful_shutdown=STOP_GRACE)
        server = uvicorn.Server(config)
        if play:
            season.start()
        deliveries.start()  # the webhooks' deliveries, in threads of this process: the season's are queued in the store
        try:
            asyncio.run(_serve(server, out, f"{host}:{port}", lock.note_served_at))
        finally:
            deliveries.stop()
            season.stop()
            hosting.close()


class SeasonProcess:
    """The season (admissions, the ladder, publishing) in a process of its own, below the server: at a higher nice
    value, which its workers and their bots inherit, so that on a busy machine a request is answered before a
    game moves on (a bot is charged its wall time less its run-queue waits, so this costs it nothing), and with an
    interpreter of its own, so that no request waits on the ladder's bookkeeping. A stop cuts its games and
    admissions off at once: the store holds only what was finished, and the next start plays the rest again."""

    def __init__(self, settings: SeasonSettings) -> None:
        # A stop kills this process by design, and multiprocessing's resource tracker then removes the semaphores it
        # held, as it is there to: it need not warn of them on every Ctrl-C. Its command line takes this process's
        # warning filters when it starts, which is below (the first semaphore made).
        if TRACKER_WARNING not in sys.warnoptions:
            sys.warnoptions.append(TRACKER_WARNING)
        context = get_context("spawn")
        self._stop = context.Event()
        self._playing = context.Array("c", PLAYING_BYTES)
        self.process = context.Process(target=_season_main, args=(settings, os.getpid(), self._stop, self._playing),
                                        name="arena season")

    def start(self) -> None:
        """Start the season's process."""
        self.process.start()

    def playing(self) -> tuple[str, ...]:
        """The bots of the wave under way (none before the season has started one)."""
        with self._playing.get_lock():
            text = self._playing.value
        return tuple(json.loads(text)) if text else ()

    def stop(self) -> None:
        """End the season's process and everything it started (workers, bots, the publisher) at once."""
        self._stop.set()
        pid = self.process.pid
        if pid is None:
            return
        seen = [(pid, start_time(pid)), *descendants(pid)]
        for child, started in seen:  # a process only if it is still the one seen: its pid may have been reused
            if started is not None and start_time(child) == started:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(child, signal.SIGKILL)
        self.process.join()


def _season_main(settings: SeasonSettings, server: int, stop: Any, playing: Any) -> None:
    """The season's process: plays until the server says stop (then it is killed), telling the server which bots
    are playing."""
    die_with(server)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the whole process group: the server stops this
    os.nice(SEASON_NICE)
    logging.config.dictConfig(_log_config())
    # The pages are made in a process of their own, so that drawing them never holds up the ladder.
    publisher = get_context("spawn").Pool(1, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
    season = Season(settings, on_wave=Publishing(publisher, settings), between=challenges.play_some)
    season.start()
    shown: tuple[str, ...] = ()
    while not stop.wait(PLAYING_LOOK):
        now = season.playing
        if now != shown:
            text = json.dumps(list(now)).encode()
            with playing.get_lock():
                playing.value = text if len(text) < PLAYING_BYTES else b"[]"
            shown = now
    season.stopping.set()  # no new table, no admission, while the server kills this process


class Publishing:
    """The public pages brought up to date after each wave without holding up the ladder: one publish at a time,
    in the publisher's process; waves that end while one is under way are published once it is done, after a
    rest of PUBLISH_REST times as long as it took, so that publishing takes at most a third of a core from the
    games however large the site has grown."""

    def __init__(self, publisher: Pool, settings: SeasonSettings) -> None:
        self.publisher, self.settings = publisher, settings
        self.lock = threading.Lock()
        self.busy = self.again = False
        self.began = 0.0

    def __call__(self) -> None:
        with self.lock:
            if self.busy:
                self.again = True
                return
            self.busy = True
        self._start()

    def _start(self) -> None:
        self.began = time.monotonic()
        try:
            self.publisher.apply_async(publish_site, (self.settings,), callback=self._done,
                                       error_callback=self._failed)
        except ValueError:  # the server is stopping: the publisher is gone
            pass

    def _done(self, _: object = None) -> None:
        with self.lock:
            again, self.again = self.again, False
            self.busy = again
        if again:
            rest = threading.Timer(PUBLISH_REST * (time.monotonic() - self.began), self._start)
            rest.daemon = True
            rest.start()

    def _failed(self, exc: BaseException) -> None:
        # The pages stay as they were; the season goes on.
        log.error("the public pages could not be brought up to date: %s: %s", type(exc).__name__, exc)
        self._done()


def check_proxy(proxy: str | None) -> None:
    """ConfigError unless proxy (--proxy) is the address of the reverse proxy, or several, comma-separated: IP
    addresses or networks (a proxy named any other way would never be believed, and clients' addresses never
    known)."""
    for part in (proxy.split(",") if proxy is not None else ()):
        if part.strip() == "*":  # every address believed: behind a proxy that is the only way in
            continue
        try:
            ipaddress.ip_network(part.strip(), strict=False)
        except ValueError:
            raise ConfigError(f"--proxy {part.strip()[:80]!r} is not an IP address or network: give the reverse "
                              "proxy's address, such as 127.0.0.1") from None


def check_address(host: str, port: int) -> None:
    """ConfigError, before anything starts, if the server could not listen at host:port: an address that is not
    this machine's, or a port another program holds."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, OverflowError):
        raise ConfigError(f"--host {host[:80]!r} is not an address or a host name this machine resolves") from None
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as exc:
            said = "is in use by another program" if exc.errno == errno.EADDRINUSE else \
                f"cannot be listened on ({exc.strerror})"
            raise ConfigError(f"{host}:{port} {said}: choose another --port (0 picks a free one) or --host") from None


async def _serve(server: Any, out: IO[str], address: str, served: Callable[[str], None]) -> None:
    async def serving() -> bool:
        try:
            await server.serve()
        except SystemExit:  # uvicorn could not start (it has logged why): said below, without a traceback
            return False
        return True

    task = asyncio.create_task(serving())
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        host, port = server.servers[0].sockets[0].getsockname()[:2]
        served(f"http://{host}:{port}")
        out.write(f"serving on http://{host}:{port}\n")
        out.flush()
    if not await task:
        raise ArenaError(f"cannot serve on {address}: is the port taken, or the address not this machine's?")


def _log_config() -> dict[str, object]:
    """uvicorn's logging, every line (requests included) on stderr: stdout holds only the address."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    for handler in config["handlers"].values():  # type: ignore[union-attr]
        handler["stream"] = "ext://sys.stderr"
    config["loggers"]["arena"] = {"handlers": ["default"], "level": "INFO", "propagate": False}  # type: ignore[index]
    config.setdefault("filters", {})["codes"] = {"()": CodesHidden}  # type: ignore[union-attr]
    config["handlers"]["access"]["filters"] = ["codes"]  # type: ignore[index]
    return config


class CodesHidden(logging.Filter):
    """Takes the sign-in and invite codes out of the access log's paths: a log is read by more people than a
    code may be."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) >= 3 and isinstance(record.args[2], str):
            path = record.args[2]
            for prefix in SECRET_PATHS:
                if path.startswith(prefix):
                    record.args = (*record.args[:2], prefix + "[hidden]", *record.args[3:])
        return True
