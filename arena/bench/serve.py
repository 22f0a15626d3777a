"""`arena serve` under load: many authors upload kit bots over the API at once, the ladder plays, and the public
leaderboard, a bot page and an author's game page are asked for again and again; their latencies and the server's
memory are measured."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.bench.season import counted
from arena.kits import Language, create
from arena.storage import DEFAULT_DB_NAME, Store

UPLOADERS = 20  # uploads sent at once
READERS = 4  # page readers at once while the ladder plays
READ_PAUSE = 0.25  # seconds a reader waits between two rounds of the pages (readers, not a flood)
PATIENCE = 60.0  # seconds the server may take to start, or a request to be answered
MEMORY_LOOKS = 40  # times the server's memory is looked at over a run
LOG_LINES = 30  # of the server's stderr told when a run fails
WAVE = 20  # the server's --wave: ladder tables chosen at a time, so that a wave's start and publish are shared widely


@dataclass(frozen=True)
class PageTimes:
    """Latencies of one page, in milliseconds."""

    page: str
    requests: int
    p50: float
    p95: float
    worst: float
    retried: int = 0  # requests sent again after the server closed their kept-alive connection


@dataclass(frozen=True)
class MemoryLook:
    """The server's resident memory at one moment of a run, in MiB: its own process, and with its children (the
    publisher and the ladder's workers; not the bots, which come and go with each game)."""

    games: int  # stored in the store by then
    server: float
    with_children: float


@dataclass(frozen=True)
class ServeBench:
    """What one run measured."""

    game: str
    authors: int
    jobs: int
    admitted: int
    seconds: float
    games: int
    uploads: PageTimes
    pages: tuple[PageTimes, ...]
    memory: tuple[MemoryLook, ...]

    @property
    def rss_start(self) -> float:
        """The server's memory (MiB) once the pages are read, at the first look."""
        return self.memory[0].server if self.memory else 0.0

    @property
    def rss_end(self) -> float:
        """The server's memory (MiB) at the last look."""
        return self.memory[-1].server if self.memory else 0.0

    @property
    def rss_games(self) -> tuple[int, int]:
        """The games stored at the first and the last look."""
        return (self.memory[0].games, self.memory[-1].games) if self.memory else (0, 0)


def _times(page: str, samples: list[float], retried: int = 0) -> PageTimes:
    ordered = sorted(samples) or [0.0]
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return PageTimes(page, len(samples), pick(0.5), pick(0.95), ordered[-1], retried)


def _kit_zip(folder: Path) -> bytes:
    create(folder, Language.PYTHON)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, str(path.relative_to(folder)))
    return buffer.getvalue()


def _rss(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:  # gone meanwhile
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    try:
        found = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return found


def _look(pid: int, db: Path) -> MemoryLook:
    """The server's memory now: its own, and with its long-lived children (a bot's process is a grandchild of a
    worker and is not counted)."""
    children = _children(pid)
    return MemoryLook(_games(db), _rss(pid), _rss(pid) + sum(_rss(c) for c in children))


def _games(db: Path) -> int:
    return counted(db, lambda store: store.finished_count())


def _admitted(db: Path) -> int:
    return counted(db, Store.admitted_count)


def bench_serve(game: str, authors: int, seconds: float, jobs: int, games: int | None = None,
                progress: Callable[[str], None] = lambda _: None) -> ServeBench:
    """Start a server (its ladder's sample bots the random ones, fast), have `authors` authors upload a kit bot
    each over the API, 20 at once, while the ladder plays, then read pages while the uploads are admitted and the
    ladder plays on, until `games` more games are stored or `seconds` pass; the server's memory is looked at
    throughout."""
    import httpx

    with tempfile.TemporaryDirectory(prefix="arena-bench-serve-") as work:
        results = Path(work) / "results"
        db = results / DEFAULT_DB_NAME
        progress(f"adding {authors} authors ...")
        with Store(db) as store:
            tokens = [store.add_author(f"author{i}")[1] for i in range(authors)]
        archives = [_kit_zip(Path(work) / "kits" / f"bot{i}") for i in range(authors)]
        # The kits run `python3`: this interpreter, with pyzmq and msgpack, first on PATH.
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", game, "--port", "0", "--jobs", str(jobs),
                                   "--samples", "random", "--wave", str(WAVE), "--results", str(results)], env=env,
                                  stdout=subprocess.PIPE, stderr=(Path(work) / "server.log").open("w"), text=True)
        try:
            url = server.stdout.readline().split()[-1]  # type: ignore[union-attr]
            client = httpx.Client(base_url=url, timeout=PATIENCE)
            uploads = _upload_all(client, tokens, archives, progress)
            start = _games(db)
            until = None if games is None else start + games
            progress(f"reading pages while the ladder plays, until {f'{games:,} more games or ' if games else ''}"
                     f"{seconds:.0f} s ...")
            memory: list[MemoryLook] = []
            began = time.monotonic()
            pages = _read_pages(client, tokens[0], seconds, lambda: _watch(server.pid, db, until, games or 0,
                                                                           memory, progress))
            elapsed = time.monotonic() - began
            memory.append(_look(server.pid, db))
            admitted = _admitted(db)
        except BaseException:
            _tell_log(Path(work) / "server.log", progress)
            raise
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(PATIENCE)
        return ServeBench(game, authors, jobs, admitted, elapsed, memory[-1].games - start,
                          _times("upload (POST /api/submissions)", uploads[1]), pages, tuple(memory))


def _tell_log(path: Path, progress: Callable[[str], None]) -> None:
    """The server's last lines on stderr other than its request log: why a run failed, from the server's side."""
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if 'HTTP/1.1"' not in line]
    except OSError:
        return
    for line in lines[-LOG_LINES:]:
        progress(f"server: {line}")


def _watch(pid: int, db: Path, until: int | None, games: int, memory: list[MemoryLook],
           progress: Callable[[str], None]) -> bool:
    """Look at the server's memory now and then: True once `until` games are stored."""
    look = _look(pid, db)
    every = max(games // MEMORY_LOOKS, 25)
    if not memory or look.games >= memory[-1].games + every:
        memory.append(look)
        progress(f"game {look.games:,}: server {look.server:.0f} MiB, with its children {look.with_children:.0f} MiB")
    return until is not None and look.games >= until


def _upload_all(client: object, tokens: list[str], archives: list[bytes],
                progress: Callable[[str], None]) -> tuple[list[int], list[float]]:
    progress(f"{len(tokens)} uploads, {UPLOADERS} at once ...")
    latencies: list[float] = []

    def send(i: int) -> int:
        start = time.perf_counter()
        answer = client.post("/api/submissions", headers={"Authorization": f"Bearer {tokens[i]}"},  # type: ignore
                             files={"file": ("bot.zip", archives[i])})
        latencies.append(1000 * (time.perf_counter() - start))
        return int(answer.json()["id"]) if answer.status_code == 202 else -1

    with ThreadPoolExecutor(UPLOADERS) as pool:
        ids = list(pool.map(send, range(len(tokens))))
    return ids, latencies


def _ready(get: Callable[..., object]) -> int:
    """The number of bot0's first game, once it has one and its published bot page is there."""
    deadline = time.monotonic() + 10 * PATIENCE
    while time.monotonic() < deadline:
        games = get("/api/games", params={"bot": "bot0"}).json()  # type: ignore[attr-defined]
        if games and get(f"/site/{_slug(get)}/bots/bot0.html").status_code == 200:  # type: ignore[attr-defined]
            return int(games[0]["number"])
        time.sleep(1.0)
    raise TimeoutError("bot0 played no game, or its page was not published, within ten minutes")


def _read_pages(client: object, token: str, seconds: float, done: Callable[[], bool]) -> tuple[PageTimes, ...]:
    import httpx

    get = client.get  # type: ignore[attr-defined]
    gid = _ready(get)
    pages = {"leaderboard (GET /)": ("/", {}), "leaderboard (GET /api/leaderboard)": ("/api/leaderboard", {}),
             "bot page (published)": (f"/site/{_slug(get)}/bots/bot0.html", {}),
             "author's game page (GET /me/games/ID)": (f"/me/games/{gid}?bot=bot0",
                                                        {"Authorization": f"Bearer {token}"})}
    samples: dict[str, list[float]] = {name: [] for name in pages}
    retried: list[str] = []
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    stop = threading.Event()

    def read(_: int) -> None:
        while time.monotonic() < deadline and not stop.is_set():
            for name, (path, headers) in pages.items():
                start = time.perf_counter()
                try:
                    answer = get(path, headers=headers)
                except httpx.RemoteProtocolError:
                    # A kept-alive connection the server closed as the request went out: sent again, as a browser
                    # does, its time counted from the first try.
                    with lock:
                        retried.append(name)
                    answer = get(path, headers=headers)
                answer.raise_for_status()
                with lock:
                    samples[name].append(1000 * (time.perf_counter() - start))
            stop.wait(READ_PAUSE)

    with ThreadPoolExecutor(READERS + 1) as pool:
        readers = [pool.submit(read, i) for i in range(READERS)]
        while time.monotonic() < deadline and not done() and not any(r.done() for r in readers):
            stop.wait(5.0)
        stop.set()
        for reader in readers:
            reader.result()  # a reader's failure is the run's
    return tuple(_times(name, samples[name], retried.count(name)) for name in pages)


def _slug(get: Callable[..., object]) -> str:
    name = get("/health").json()["tournament"] or ""  # type: ignore[attr-defined]
    from arena.site.data import slug

    return slug(name)
