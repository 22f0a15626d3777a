"""`arena serve`: one process that hosts a competition: a web site (uploads, statuses, private logs, the live
leaderboard) over the results store, while it admits uploads and plays the ladder."""

from __future__ import annotations

import asyncio
import copy
import logging
import logging.config
import signal
import sys
import threading
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path
from typing import IO, Any

from arena.errors import ArenaError
from arena.server.hosting import Hosting
from arena.server.season import Season, SeasonSettings, enter_folders
from arena.tournament.store import Store

log = logging.getLogger("arena.serve")
MAX_CONNECTIONS = 200  # at once; more are answered 503 by the server itself
KEEP_ALIVE = 5  # seconds an idle connection is kept
MAX_HEADERS = 16 * 1024  # bytes of a request's line and headers


def publish_site(s: SeasonSettings) -> None:
    """Bring the public pages (leaderboard, bot pages, replay pages without bot output) up to date."""
    from arena.site.build import publish

    with Store(s.db) as store:
        if any(t.name == s.name for t in store.tournaments()):
            publish(store, s.results_dir, s.site, names=[s.name], title=s.name, game_pages=True, jobs=1)


def serve(hosting: Hosting, host: str, port: int, out: IO[str] = sys.stdout, play: bool = True,
          submissions: Path | None = None) -> None:
    """Serve the competition until Ctrl-C (or SIGTERM): StoreBusy if another server holds the store. Prints
    `serving on http://HOST:PORT` to out once requests are answered. The organiser's own folders under
    `submissions` are queued for admission first."""
    import uvicorn

    from arena.server.app import make_app

    with Store(hosting.settings.db) as lock:
        lock.hold_server()
        if submissions is not None:
            logging.config.dictConfig(_log_config())  # as the server will log, so these lines are on stderr too
            queued, problems = enter_folders(hosting.settings, submissions, hosting.reserved)
            for problem in problems:
                log.warning("not entered: %s", problem)
            log.info("%d of the folders in %s queued for admission", queued, submissions)
        # The pages are made in a process of their own, so that drawing them never holds up a request.
        # A Ctrl-C reaches it too: the server stops it, not the signal.
        publisher = get_context("spawn").Pool(1, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
        season = Season(hosting.settings, on_wave=Publishing(publisher, hosting.settings))
        hosting.playing = lambda: season.playing if season.runner is not None else ()
        config = uvicorn.Config(make_app(hosting), host=host, port=port, log_config=_log_config(), access_log=True,
                                limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE,
                                h11_max_incomplete_event_size=MAX_HEADERS, proxy_headers=True,
                                timeout_graceful_shutdown=5)
        server = uvicorn.Server(config)
        if play:
            season.start()
        try:
            asyncio.run(_serve(server, out, f"{host}:{port}"))
        finally:
            season.stop()
            # A publish under way is cut off, not waited for: its pages are written whole or not at all, and the
            # next start publishes again.
            publisher.terminate()


class Publishing:
    """The public pages brought up to date after each wave without holding up the ladder: one publish at a time,
    in the publisher's process; waves that end while one is under way are published once it is done."""

    def __init__(self, publisher: Pool, settings: SeasonSettings) -> None:
        self.publisher, self.settings = publisher, settings
        self.lock = threading.Lock()
        self.busy = self.again = False

    def __call__(self) -> None:
        with self.lock:
            if self.busy:
                self.again = True
                return
            self.busy = True
        self._start()

    def _start(self) -> None:
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
            self._start()

    def _failed(self, exc: BaseException) -> None:
        # The pages stay as they were; the season goes on.
        log.error("the public pages could not be brought up to date: %s: %s", type(exc).__name__, exc)
        self._done()


async def _serve(server: Any, out: IO[str], address: str) -> None:
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        host, port = server.servers[0].sockets[0].getsockname()[:2]
        out.write(f"serving on http://{host}:{port}\n")
        out.flush()
    try:
        await task
    except SystemExit:  # uvicorn could not start (it has logged why)
        raise ArenaError(f"cannot serve on {address}: is the port taken, or the address not this machine's?") \
            from None


def _log_config() -> dict[str, object]:
    """uvicorn's logging, every line (requests included) on stderr: stdout holds only the address."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    for handler in config["handlers"].values():  # type: ignore[union-attr]
        handler["stream"] = "ext://sys.stderr"
    config["loggers"]["arena"] = {"handlers": ["default"], "level": "INFO", "propagate": False}  # type: ignore[index]
    return config
