"""The export's speed and memory: `arena export` of a store of real game records (a ladder of random bots played
in-process, as the publishing benchmark makes it) at growing sizes, each in a process of its own whose peak
resident memory is read from the kernel, so that a memory that grew with the games would show."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.bench.publish import ADDED, bench_store
from arena.site.export import TABLES
from arena.storage import DEFAULT_DB_NAME, Store


@dataclass(frozen=True)
class ExportRun:
    """One `arena export`: the games and decisions it wrote, its seconds and CPU seconds, its peak memory."""

    games: int
    decisions: int
    seconds: float
    cpu: float
    peak_mib: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class ExportBench:
    """A store of `games` games exported cold, again with nothing new, and again after `added` more games."""

    game: str
    games: int
    decisions: int
    build: float  # seconds to play and store the games (not exporting)
    cold: ExportRun
    unchanged: ExportRun
    added: ExportRun
    bytes: int  # the Parquet tables' size


def bench_export(game: str, counts: tuple[int, ...], progress: Callable[[str], None] = lambda _: None
                 ) -> list[ExportBench]:
    """Export one growing ladder's store at each size of `counts` (ascending) into a fresh folder, in Parquet."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        results = Path(tmp) / "results"
        for count in sorted(counts):
            progress(f"playing {game} games into a store until it holds {count:,} ...")
            start = time.perf_counter()
            stored = bench_store(game, count, results)
            build = time.perf_counter() - start
            with Store.existing(results / DEFAULT_DB_NAME) as store:
                name = store.tournament().name
            out = Path(tmp) / f"export-{count}"
            progress(f"exporting {stored:,} games ...")
            cold = _export(results, name, out)
            unchanged = _export(results, name, out)
            added = max(1, round(stored * ADDED))
            progress(f"playing {added:,} more games, exporting again ...")
            grown = bench_store(game, stored + added, results)
            after = _export(results, name, out)
            size = sum((out / f"{t}.parquet").stat().st_size for t in TABLES)
            rows.append(ExportBench(game, stored, cold.decisions, build, cold, unchanged,
                                    ExportRun(grown - stored, after.decisions, after.seconds, after.cpu,
                                              after.peak_mib), size))
    return rows


def _export(results: Path, name: str, out: Path) -> ExportRun:
    """`arena export` as a user runs it, in a process of its own: what it wrote, how long it took, its peak memory."""
    command = [sys.executable, "-m", "arena", "export", "-t", name, "--out", str(out), "--results", str(results)]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    output = proc.stdout.read() if proc.stdout else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"arena export failed ({proc.returncode}): {output}")
    added = {t: int(n.replace(",", "")) for n, t in (part.split()[:2] for part in
                                                        output.split(": ", 1)[1].split(" added")[0].split(", "))}
    return ExportRun(added["games"], added["decisions"], seconds, usage.ru_utime + usage.ru_stime,
                     usage.ru_maxrss / 1024)
