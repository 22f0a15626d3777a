"""One arena per tournament: the same command started twice at once makes one tournament, whose games are each played
once; the other run is refused with one line naming the arena that plays it, or (started after the first finished)
resumes it with nothing left to play."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import bots
from tests.tournament.test_store import processes, start  # noqa: F401 - processes: the fixture

COMMAND = ("tournament", "bali-2017", *bots(3), "--seats", "2", "--jobs", "1", "--timeout", "0.5",
           "--sandbox", "rlimit")


def started_twice_at_once(tmp_path: Path, processes: list, attempt: int) -> None:  # noqa: F811
    folder = tmp_path / f"run-{attempt}"
    folder.mkdir()
    pair = [start(*COMMAND, cwd=folder), start(*COMMAND, cwd=folder)]
    processes += pair
    outcomes = [(p.wait(timeout=300), *p.communicate()) for p in pair]
    refused = [err for code, _, err in outcomes if code != 0]
    assert len(refused) <= 1, outcomes
    for err in refused:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "is already being played" in lines[0] and "by another arena (pid" in lines[0], err
    assert all(code in (0, 1) for code, _, _ in outcomes) and "Traceback" not in "".join(e for *_, e in outcomes)
    with closing(sqlite3.connect(folder / "results" / "arena.sqlite")) as db:
        names = [r[0] for r in db.execute("SELECT name FROM tournaments")]
        seqs = [r[0] for r in db.execute("SELECT seq FROM games ORDER BY seq")]
    assert len(names) == 1 and not names[0].endswith("-2"), names  # one tournament
    assert seqs == list(range(6))  # each of its games (3 pairs, both seatings), once
    assert not list((folder / "results").glob("*.lock"))


@pytest.mark.slow
def test_the_same_command_started_twice_at_once_makes_one_tournament(tmp_path: Path,
                                                                    processes: list) -> None:  # noqa: F811
    for attempt in range(3):
        started_twice_at_once(tmp_path, processes, attempt)


@pytest.mark.soak
def test_the_same_command_started_twice_at_once_thirty_times_makes_one_tournament_each_time(
        tmp_path: Path, processes: list) -> None:  # noqa: F811
    for attempt in range(30):
        started_twice_at_once(tmp_path, processes, attempt)
