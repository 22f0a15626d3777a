"""A store the release before this one wrote (schema 7) opens and plays on with today's arena, through the CLI."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from arena.storage import SCHEMA_VERSION
from tests.helpers import RANDOM, arena

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store-schema7.sqlite"
# The command that wrote the fixture (tests/fixtures/README.md), its bots run by this interpreter.
LADDER = ("tournament", "bali-2017", f"a={RANDOM}", f"b={RANDOM}", "--format", "ladder", "--seats", "2", "--wave", "2",
          "--jobs", "1", "--sandbox", "rlimit", "--name", "old-season", "--seed", "7")


def _read(db: Path) -> tuple[str, list[tuple]]:
    """The store's schema number and its games with their seats, in schedule order."""
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as con:
        schema = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        games = con.execute("SELECT g.seq, g.seed, g.status, g.reason, s.seat, s.name, s.score, s.rank FROM games g "
                            "JOIN seats s ON s.game_id = g.id ORDER BY g.seq, s.seat").fetchall()
    return schema, games


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    """A copy of the schema-7 fixture as tmp_path's results store."""
    db = tmp_path / "results" / "arena.sqlite"
    db.parent.mkdir()
    shutil.copyfile(FIXTURE, db)
    return db


def test_an_older_store_reads_as_it_is_and_is_left_at_its_schema(old_store: Path) -> None:
    schema, games = _read(old_store)
    assert schema == "7" and SCHEMA_VERSION > 7 and len({g[0] for g in games}) == 4
    listed = arena("matches", "-t", "old-season", cwd=old_store.parents[1])
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    assert "old-season (bali-2017, ladder): 4 games" in listed.stdout
    for seq, _, _, _, seat, name, score, rank in games:  # every seat's score and rank, as stored
        assert f"{name}:{score}/{rank}" in listed.stdout.splitlines()[3 + seq]
    board = arena("tournaments", cwd=old_store.parents[1])
    assert board.returncode == 0 and "old-season" in board.stdout and " 4 " in board.stdout, board.stderr
    assert _read(old_store) == (schema, games)  # reading changes nothing, not even the schema number


def test_an_older_ladder_plays_on_keeping_its_games(old_store: Path) -> None:
    _, before = _read(old_store)
    more = arena(*LADDER, "--games", "6", cwd=old_store.parents[1])
    assert more.returncode == 0 and "Traceback" not in more.stderr, more.stderr
    schema, after = _read(old_store)
    assert schema == str(SCHEMA_VERSION)
    assert after[:len(before)] == before  # every old game as it was
    assert len({g[0] for g in after}) == 6 and {g[5] for g in after[len(before):]} == {"a", "b"}  # 2 more, same bots
    listed = arena("matches", "-t", "old-season", cwd=old_store.parents[1])
    assert listed.returncode == 0 and "old-season (bali-2017, ladder): 6 games" in listed.stdout, listed.stderr
    assert "a (random)" in more.stdout and "b (random)" in more.stdout and "@" not in more.stdout  # no new keys
