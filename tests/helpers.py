"""What many tests need: waiting for a condition, finding processes, running `arena` and reading its store."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATIENCE = 20.0  # seconds; generous for a busy machine, and only ever waited in full on failure
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


def wait_until(condition: Callable[[], object], seconds: float = PATIENCE, interval: float = 0.05) -> bool:
    """True as soon as condition() holds, False if it still does not after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def processes_with(marker: str, besides: int) -> list[int]:
    """Live processes (zombies excluded) but `besides` whose command line holds marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == besides:
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes() and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return found


def processes_in(directory: Path) -> list[int]:
    """Pids of live processes whose working directory is directory (the arena's bots inherit it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd") == str(directory):
                found.append(int(pid))
        except OSError:
            continue
    return found


def parent_of(pid: int) -> int | None:
    """The parent pid of a live (not zombie) process, or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None if fields[0] == "Z" else int(fields[1])


def bots(n: int) -> list[str]:
    """n random bots as NAME=COMMAND entrants r0, r1, ..."""
    return [f"r{i}={RANDOM}" for i in range(n)]


def arena(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m arena ARGS` in cwd, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def stored(db: Path) -> dict[int, tuple]:
    """The stored games by seq: (match id, seat, bot, score, rank) per seat."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT m.seq, m.id, s.seat, s.name, s.score, s.rank FROM games m "
                           "JOIN seats s ON s.game_id = m.id ORDER BY m.seq, s.seat").fetchall()
    games: dict[int, tuple] = {}
    for seq, mid, seat, name, score, rank in rows:
        games[seq] = games.get(seq, ()) + ((mid, seat, name, score, rank),)
    return games


def stored_count(db: Path) -> int:
    """Games stored so far; 0 while the arena is still creating the database."""
    try:
        return len(stored(db)) if db.exists() else 0
    except sqlite3.OperationalError:
        return 0


def ratings(db: Path) -> dict[str, tuple[float, float]]:
    """The stored ratings: (mu, sigma) by bot."""
    with sqlite3.connect(db) as con:
        return {n: (mu, sigma) for n, mu, sigma in con.execute("SELECT name, mu, sigma FROM ratings")}


def sandbox_levels() -> list[Any]:
    """The default level and every named one, as test parameters. The quick run attacks the level users get
    (auto); none and rlimit are marked slow (CI runs them); the named level auto resolves to here repeats the auto
    run, so it is left to the soak run; bwrap skips where it cannot run."""
    from arena.bots.sandbox import Isolation, bwrap_problem

    problem = bwrap_problem()
    chosen = Isolation.RLIMIT if problem else Isolation.BWRAP
    params = []
    for level in (Isolation.AUTO, Isolation.NONE, Isolation.RLIMIT, Isolation.BWRAP):
        marks = [] if level == Isolation.AUTO else [pytest.mark.soak if level == chosen else pytest.mark.slow]
        if level == Isolation.BWRAP and problem:
            marks.append(pytest.mark.skip(reason=f"bubblewrap: {problem}"))
        params.append(pytest.param(level.value, marks=marks, id=level.value))
    return params


def quick_run(values: Any, quick: Any, ids: Callable[[Any], str] | None = None) -> list[Any]:
    """Test parameters of which only those in `quick` run in the quick default run; the others repeat the same
    claim on more cases and are marked slow (the README's test command, and so CI, runs them)."""
    return [pytest.param(v, marks=[] if v in quick else [pytest.mark.slow], id=ids(v) if ids else None)
            for v in values]


def dask_command(*args: str) -> list[str]:
    """The `dask` command of this interpreter's environment."""
    return [str(Path(sys.executable).parent / "dask"), *args]


def free_port() -> int:
    """A tcp port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_trees(procs: list[subprocess.Popen[Any]]) -> None:
    """Kill the processes and whatever they started (a Dask scheduler's and workers' children among them)."""
    from arena.tournament.worker import descendants
    for proc in procs:
        for pid in [proc.pid, *(pid for pid, _ in descendants(proc.pid))]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()


class Receiver:
    """A local HTTP receiver of webhooks: every POST it is sent (path, headers, body), answered with the status its
    path's first part names (/200, /500, /302), 500 under /fail, else 200; a redirect's Location leads nowhere."""

    def __init__(self) -> None:
        self.got: list[tuple[str, dict[str, str], bytes]] = []
        got = self.got

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                named = self.path.strip("/")[:3]
                self.send_response(int(named) if named.isdigit() else 500 if self.path.startswith("/fail") else 200)
                self.send_header("Location", "http://127.0.0.1:1/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def events(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(body) for p, _, body in list(self.got) if p == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
