"""Every game the test session stored, re-played by the viewer's JavaScript engines: at the end of a session, the
game records the tests wrote under their temporary folders (by `arena match`, tournaments, compare, publish, the
benchmarks...) are played again by the Python engine and, decision by decision, by the browser's engine in node,
and compared (views, events, log lines, options, result). A difference fails the session and is named by the
record, the decision and the field. Records that do not reproduce (the tests make broken ones on purpose) are not
the engines' to match, and are left out. A game found equal is remembered in pytest's cache with a fingerprint of
both engines, the facts, the checker and node: while none of them changes, it is not played again (`pytest
--cache-clear` forgets). Without node the check is skipped, or fails under ARENA_REQUIRE_BROWSER=1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterator

import pytest

from arena.errors import ReplayError
from arena.match.record import FORMAT, GameRecord, load_record
from arena.match.replay import resimulate
from arena.viewer.games import GAMES
from tests.viewer.engine_traces import BATCH, check_all, record_trace

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "arena" / "viewer" / "static" / "engines"
_HEAD = 200  # characters read to tell a game record from other JSON
WORKERS = 2  # the session's own workers are done by then: both cores of a CI machine are free
CACHE = "arena/stored-games"  # pytest's cache: the games found equal, with the fingerprint they were checked under
CACHE_LIMIT = 50_000  # games remembered at the most


@dataclass
class Checked:
    """What a check of the stored games found."""

    records: int
    games: int  # distinct games among the records
    known: int  # games checked before with the same engines, not played again
    left_out: int = 0  # records that do not reproduce
    problems: list[str] = field(default_factory=list)
    agreed: set[str] = field(default_factory=set)  # keys of the games played again and found equal


def record_files(folder: Path) -> Iterator[Path]:
    """Every game record (a JSON file of the record format) below folder."""
    marker = f'"format": "{FORMAT}"'
    for path in sorted(folder.rglob("*.json")):
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                head = f.read(_HEAD)
        except OSError:
            continue
        if marker in head:
            yield path


def _key(record: GameRecord) -> str:
    """What makes a game the same game: the same seats, seed, options and choices give the same views."""
    indices = [d.index for d in record.decisions]
    plain = json.dumps([record.game, record.num_players, record.seed, record.options, indices], sort_keys=True)
    return hashlib.sha256(plain.encode()).hexdigest()


def fingerprint() -> str:
    """A digest of everything a check's outcome depends on: both engines, the facts, the checker and node."""
    files = [*sorted((ROOT / "arena" / "games").rglob("*.py")), *sorted(ENGINES.glob("*.js")),
             ROOT / "arena" / "viewer" / "facts.py", *sorted((ROOT / "arena" / "viewer" / "games").glob("*.py")),
             *(ROOT / "tests" / "viewer" / name for name in ("check_engines.js", "engine_traces.py")), Path(__file__)]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=60).stdout
    digest.update(node.encode())
    return digest.hexdigest()


def distinct_games(paths: list[Path], folder: Path) -> dict[str, tuple[str, Path]]:
    """Each distinct game among the records with a game the viewer re-plays: key -> (name, path)."""
    found: dict[str, tuple[str, Path]] = {}
    for path in paths:
        try:
            record = load_record(path)
        except ReplayError:
            continue
        if record.game in GAMES:
            found.setdefault(_key(record), (str(path.relative_to(folder)), path))
    return found


def _traces(games: list[tuple[str, Path]], left_out: list[str]) -> Iterator[dict[str, Any]]:
    for name, path in games:
        record = load_record(path)
        try:
            reproduces = resimulate(record).reproduces
        except ReplayError:
            reproduces = False
        if reproduces:
            yield record_trace(record, name)
        else:
            left_out.append(name)


def _check_batch(games: list[tuple[str, Path]]) -> tuple[list[str], list[str]]:
    """The names of the games that do not reproduce (left out), and the differences of the others."""
    left_out: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        _, problems = check_all(_traces(games, left_out), Path(scratch))
    return left_out, problems


def check_stored(folder: Path, checked: Collection[str] = ()) -> Checked:
    """Re-play in node every stored game below folder but those already checked (keys of distinct_games)."""
    paths = list(record_files(folder))
    games = distinct_games(paths, folder)
    todo = [(key, game) for key, game in games.items() if key not in checked]
    batches = [todo[i:i + BATCH] for i in range(0, len(todo), BATCH)]
    result = Checked(len(paths), len(games), len(games) - len(todo))
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        for batch, (left_out, problems) in zip(batches, pool.map(_check_batch, [[g for _, g in b] for b in batches])):
            result.left_out += len(left_out)
            result.problems += problems
            if not problems:  # a game that agreed once agrees again with the same engines
                result.agreed.update(key for key, (name, _) in batch if name not in left_out)
    return result


def session_finish(session: pytest.Session) -> None:
    """At the end of a session (the controller's, under pytest-xdist, whose folder holds the workers'), check every
    stored game; a difference fails the session."""
    config = session.config
    if hasattr(config, "workerinput") or session.testscollected == 0:
        return
    reporter: Any = config.pluginmanager.get_plugin("terminalreporter")
    if "not slow" in (config.getoption("markexpr") or ""):
        # The quick tier stays quick: the CI tier (-m "not soak") stores every game of the quick tier and more.
        reporter.write_line("stored games: re-played in node by the CI tier (-m \"not soak\"), not by the quick run")
        return
    if not shutil.which("node"):
        if os.environ.get("ARENA_REQUIRE_BROWSER") == "1":
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            reporter.write_line("stored games: node is not installed, the viewer's engines cannot be checked")
        return
    folder = config._tmp_path_factory.getbasetemp()  # the session's folder of temporary folders
    start = time.monotonic()
    stamp = fingerprint()
    cache = getattr(config, "cache", None)  # none under -p no:cacheprovider
    cached = cache.get(CACHE, {}) if cache is not None else {}
    known = set(cached.get("games", [])) if cached.get("fingerprint") == stamp else set()
    found = check_stored(folder, known)
    if cache is not None:
        cache.set(CACHE, {"fingerprint": stamp, "games": sorted(known | found.agreed)[-CACHE_LIMIT:]})
    if not found.records:
        return
    reporter.write_line("")
    reporter.write_sep("-", "stored games")
    reporter.write_line(
        f"{found.records} records, {found.games} distinct games: {found.games - found.known - found.left_out} "
        f"re-played by the viewer's engines in node ({time.monotonic() - start:.1f} s), {found.known} found equal "
        f"before with the same engines, {found.left_out} left out (they do not reproduce); "
        f"{len(found.problems)} batches with differences")
    if found.problems:
        reporter.write_line("\n".join(found.problems))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
