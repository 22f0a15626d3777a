"""Every game the test session stored, re-played by the viewer's JavaScript engines: at the end of a session, the
game records the tests wrote under their temporary folders (by `arena match`, tournaments, compare, publish, ...)
are played again by the Python engine and, decision by decision, by the browser's engine in node, and compared
(views, events, log lines, options, result). A difference fails the session and is named by the record, the
decision and the field. Records that do not reproduce (the tests make broken ones on purpose) are not the engines'
to match, and are left out; without node the check is skipped, or fails under ARENA_REQUIRE_BROWSER=1."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.errors import ReplayError
from arena.record import FORMAT, GameRecord, load_record
from arena.replay import resimulate
from arena.viewer.tables import GAMES
from tests.viewer.engine_traces import BATCH, check_all, record_trace

_HEAD = 200  # characters read to tell a game record from other JSON
WORKERS = 2  # the session's own workers are done by then: both cores of a CI machine are free


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
    indices = [d.index for d in record.decisions]
    return json.dumps([record.game, record.num_players, record.seed, record.options, indices], sort_keys=True)


def replayable(paths: list[Path], folder: Path) -> list[tuple[str, Path]]:
    """(name, path) of each distinct game among the records that reproduce with a game the viewer re-plays."""
    found: dict[str, tuple[str, Path]] = {}
    for path in paths:
        try:
            record = load_record(path)
        except ReplayError:
            continue
        if record.game not in GAMES or _key(record) in found:
            continue
        try:
            reproduces = resimulate(record).reproduces
        except ReplayError:
            continue
        if reproduces:
            found[_key(record)] = (str(path.relative_to(folder)), path)
    return list(found.values())


def _check_batch(games: list[tuple[str, Path]]) -> tuple[int, list[str]]:
    with tempfile.TemporaryDirectory() as scratch:
        return check_all((record_trace(load_record(path), name) for name, path in games), Path(scratch))


def check_stored(folder: Path) -> tuple[int, int, list[str]]:
    """Re-play every stored game below folder in node: how many records, how many distinct games, the differences."""
    paths = list(record_files(folder))
    games = replayable(paths, folder)
    batches = [games[i:i + BATCH] for i in range(0, len(games), BATCH)]
    problems: list[str] = []
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        for _, found in pool.map(_check_batch, batches):
            problems += found
    return len(paths), len(games), problems


def session_finish(session: pytest.Session) -> None:
    """At the end of a session (the controller's, under pytest-xdist, whose folder holds the workers'), check every
    stored game; a difference fails the session."""
    config = session.config
    if hasattr(config, "workerinput") or session.testscollected == 0:
        return
    reporter: Any = config.pluginmanager.get_plugin("terminalreporter")
    if not shutil.which("node"):
        if os.environ.get("ARENA_REQUIRE_BROWSER") == "1":
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            reporter.write_line("stored games: node is not installed, the viewer's engines cannot be checked")
        return
    folder = config._tmp_path_factory.getbasetemp()  # the session's folder of temporary folders
    records, games, problems = check_stored(folder)
    if not records:
        return
    reporter.write_line("")
    reporter.write_sep("-", "stored games")
    reporter.write_line(f"{records} records, {games} distinct games re-played by the viewer's "
                        f"engines in node, {len(problems)} batches with differences")
    if problems:
        reporter.write_line("\n".join(problems))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
