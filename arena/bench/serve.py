"""`arena serve` under load: many authors upload kit bots over the API at once, the ladder plays, and the public
leaderboard, a bot page and an author's game page are asked for again and again; their latencies and the server's
memory are measured."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
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

from arena.kits import Language, create
from arena.tournament.store import DEFAULT_DB_NAME, Store

UPLOADERS = 20  # uploads sent at once
READERS = 4  # page readers at once while the ladder plays
PATIENCE = 60.0  # seconds the server may take to start, or a request to be answered


@dataclass(frozen=True)
class PageTimes:
    """Latencies of one page, in milliseconds."""

    page: str
    requests: int
    p50: float
    p95: float
    worst: float


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
    rss_start: float  # MiB, the server process once the uploads are in
    rss_end: float
    rss_games: tuple[int, int]  # the games stored at those two moments


def _times(page: str, samples: list[float]) -> PageTimes:
    ordered = sorted(samples) or [0.0]
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return PageTimes(page, len(samples), pick(0.5), pick(0.95), ordered[-1])


def _kit_zip(folder: Path) -> bytes:
    create(folder, Language.PYTHON)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, str(path.relative_to(folder)))
    return buffer.getvalue()


def _rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _games(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]


def bench_serve(game: str, authors: int, seconds: float, jobs: int,
                progress: Callable[[str], None] = lambda _: None) -> ServeBench:
    """Start a server, have `authors` authors upload a kit bot each at once, then read pages for `seconds` while
    the ladder plays."""
    import httpx

    with tempfile.TemporaryDirectory(prefix="arena-bench-serve-") as work:
        results = Path(work) / "results"
        progress(f"adding {authors} authors ...")
        with Store(results / DEFAULT_DB_NAME) as store:
            tokens = [store.add_author(f"author{i}")[1] for i in range(authors)]
        archives = [_kit_zip(Path(work) / "kits" / f"bot{i}") for i in range(authors)]
        # The kits run `python3`: this interpreter, with pyzmq and msgpack, first on PATH.
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", game, "--port", "0", "--jobs", str(jobs),
                                   "--results", str(results)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        try:
            url = server.stdout.readline().split()[-1]  # type: ignore[union-attr]
            client = httpx.Client(base_url=url, timeout=PATIENCE)
            uploads = _upload_all(client, tokens, archives, progress)
            admitted = _wait_admitted(client, tokens, uploads, progress)
            rss_start, games_start = _rss(server.pid), _games(results / DEFAULT_DB_NAME)
            progress(f"reading pages for {seconds:.0f} s while the ladder plays ...")
            pages = _read_pages(client, tokens[0], seconds)
            rss_end, games_end = _rss(server.pid), _games(results / DEFAULT_DB_NAME)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(PATIENCE)
        return ServeBench(game, authors, jobs, admitted, seconds, games_end - games_start,
                          _times("upload (POST /api/submissions)", uploads[1]), pages, rss_start, rss_end,
                          (games_start, games_end))


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


def _wait_admitted(client: object, tokens: list[str], uploads: tuple[list[int], list[float]],
                   progress: Callable[[str], None]) -> int:
    progress("waiting for the admissions ...")
    pending = {i for i, sid in enumerate(uploads[0]) if sid >= 0}
    admitted = 0
    while pending:
        for i in list(pending):
            status = client.get(f"/api/submissions/{uploads[0][i]}",  # type: ignore[attr-defined]
                                headers={"Authorization": f"Bearer {tokens[i]}"}).json()["status"]
            if status in ("admitted", "refused"):
                pending.discard(i)
                admitted += status == "admitted"
        time.sleep(1.0)
    return admitted


def _ready(get: Callable[..., object]) -> int:
    """The id of bot0's first game, once it has one and its published bot page is there."""
    deadline = time.monotonic() + 10 * PATIENCE
    while time.monotonic() < deadline:
        games = get("/api/games", params={"bot": "bot0"}).json()  # type: ignore[attr-defined]
        if games and get(f"/site/{_slug(get)}/bots/bot0.html").status_code == 200:  # type: ignore[attr-defined]
            return int(games[0]["id"])
        time.sleep(1.0)
    raise TimeoutError("bot0 played no game, or its page was not published, within ten minutes")


def _read_pages(client: object, token: str, seconds: float) -> tuple[PageTimes, ...]:
    get = client.get  # type: ignore[attr-defined]
    gid = _ready(get)
    pages = {"leaderboard (GET /)": ("/", {}), "leaderboard (GET /api/leaderboard)": ("/api/leaderboard", {}),
             "bot page (published)": (f"/site/{_slug(get)}/bots/bot0.html", {}),
             "author's game page (GET /me/games/ID)": (f"/me/games/{gid}?bot=bot0",
                                                        {"Authorization": f"Bearer {token}"})}
    samples: dict[str, list[float]] = {name: [] for name in pages}
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def read(_: int) -> None:
        while time.monotonic() < deadline:
            for name, (path, headers) in pages.items():
                start = time.perf_counter()
                answer = get(path, headers=headers)
                answer.raise_for_status()
                with lock:
                    samples[name].append(1000 * (time.perf_counter() - start))

    with ThreadPoolExecutor(READERS) as pool:
        list(pool.map(read, range(READERS)))
    return tuple(_times(name, samples[name]) for name in pages)


def _slug(get: Callable[..., object]) -> str:
    name = get("/health").json()["tournament"] or ""  # type: ignore[attr-defined]
    from arena.site.data import slug

    return slug(name)
