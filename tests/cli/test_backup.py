"""`arena backup`: a consistent, private copy of the store while another process writes it, which a season restarts
from; and every DEST or store it cannot copy refused in one line."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from arena.storage import Store
from tests.cli.conftest import run
from tests.helpers import RANDOM, arena, wait_until

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store-schema7.sqlite"
LADDER = ("tournament", "bali-2017", f"a={RANDOM}", f"b={RANDOM}", "--format", "ladder", "--seats", "2", "--wave",
          "1", "--jobs", "1", "--sandbox", "rlimit", "--init-timeout", "20", "--name", "season")


def _games(db: Path) -> list[tuple]:
    """Every stored game with its seats, in schedule order, read without writing."""
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as con:
        return con.execute("SELECT g.seq, g.seed, g.status, s.seat, s.name, s.score, s.rank FROM games g "
                           "JOIN seats s ON s.game_id = g.id ORDER BY g.seq, s.seat").fetchall()


def _count(db: Path) -> int:
    try:
        return len({row[0] for row in _games(db)})
    except sqlite3.OperationalError:  # not made yet
        return 0


def _intact(db: Path) -> list[str]:
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as con:
        return [row[0] for row in con.execute("PRAGMA integrity_check")]


def _store(folder: Path) -> Path:
    """A copy of the fixture store as folder's results store."""
    db = folder / "results" / "arena.sqlite"
    db.parent.mkdir(parents=True)
    shutil.copyfile(FIXTURE, db)
    return db


@pytest.mark.slow
def test_a_backup_taken_while_a_ladder_plays_holds_every_game_before_it_and_the_season_restarts_on_it(
        tmp_path: Path) -> None:
    db = tmp_path / "results" / "arena.sqlite"
    ladder = subprocess.Popen([sys.executable, "-m", "arena", *LADDER, "--games", "500"], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: _count(db) >= 2), "the ladder stored no games"
        before = _games(db)
        done = arena("backup", "copy.sqlite", cwd=tmp_path)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        copy = tmp_path / "copy.sqlite"
        taken = _count(copy)
        assert f"pages, {copy.stat().st_size} bytes" in done.stderr
        # The ladder went on writing the store while and after it was copied.
        assert wait_until(lambda: _count(db) > taken) and ladder.poll() is None, "the ladder stopped"
    finally:
        ladder.send_signal(signal.SIGINT)
        ladder.wait(60)
    assert _intact(copy) == ["ok"]
    assert copy.stat().st_mode & 0o777 == 0o600
    kept = _games(copy)
    assert kept[:len(before)] == before  # every game stored before the backup, as it was
    assert kept == _games(db)[:len(kept)]  # and nothing but the store's games, in its order
    # Restored: the copy put back as a stopped season's store reads and plays on.
    restored = tmp_path / "restored"
    (restored / "results").mkdir(parents=True)
    shutil.copyfile(copy, restored / "results" / "arena.sqlite")
    listed = arena("matches", "-t", "season", cwd=restored)
    assert listed.returncode == 0 and f"season (bali-2017, ladder): {taken} games" in listed.stdout, listed.stderr
    more = arena(*LADDER, "--games", str(taken + 1), cwd=restored)
    assert more.returncode == 0, more.stderr
    again = _games(restored / "results" / "arena.sqlite")
    assert again[:len(kept)] == kept and _count(restored / "results" / "arena.sqlite") == taken + 1


WRITER = """
import itertools, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
for i in itertools.count():
    con.execute("INSERT INTO tick VALUES (?)", (i,))
"""


def test_a_backup_beside_a_writer_that_never_pauses_is_the_store_at_one_moment(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    Store(db).close()
    with closing(sqlite3.connect(db, isolation_level=None)) as con:
        # Some 8 MB: the copy takes steps, between which the writer commits.
        con.execute("CREATE TABLE pad (b BLOB)")
        con.executemany("INSERT INTO pad VALUES (?)", [(os.urandom(4000),) for _ in range(2000)])
        con.execute("CREATE TABLE tick (i INTEGER PRIMARY KEY)")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)])
    try:
        assert wait_until(lambda: _ticks(db)[0] > 100), "the writer wrote nothing"
        before = _ticks(db)[0]
        done = arena("backup", "copy.sqlite", "--db", "arena.sqlite", cwd=tmp_path)
        assert writer.poll() is None, "the writer stopped"
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "copy.sqlite"
    count, last = _ticks(copy)
    assert count >= before and last == count - 1  # every commit before it, and no commit in part
    assert count < _ticks(db)[0]  # the writer went on meanwhile
    assert _intact(copy) == ["ok"]


def test_a_backup_copies_each_page_once_however_often_the_store_is_written_between_its_steps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library under the command: a copy that started again at every commit would never end under a busy
    ladder, so every step goes on from the last, on the snapshot the copy began with."""
    import arena.storage.connection
    db = _store(tmp_path)
    with closing(sqlite3.connect(db, isolation_level=None)) as con:
        con.execute("CREATE TABLE tick (i INTEGER PRIMARY KEY)")
    monkeypatch.setattr(arena.storage.connection, "BACKUP_STEP", 4)  # the fixture's 30 pages and more: 8 steps or more
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)])
    steps: list[tuple[int, int]] = []

    def step(copied: int, total: int) -> None:
        steps.append((copied, total))
        assert copied == min(4 * len(steps), total), f"the copy started again: {steps}"
        seen = _ticks(db)[0]
        assert wait_until(lambda: _ticks(db)[0] > seen), "the writer wrote nothing"  # a commit between steps

    try:
        with Store.existing(db) as store:
            pages, size = store.backup(tmp_path / "copy.sqlite", step)
    finally:
        writer.kill()
        writer.wait()
    assert steps[-1] == (pages, pages) and len(steps) == -(-pages // 4) >= 8 and size == pages * 4096
    count, last = _ticks(tmp_path / "copy.sqlite")
    assert last == count - 1 and count < _ticks(db)[0]


def _ticks(db: Path) -> tuple[int, int]:
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as con:
        return con.execute("SELECT COUNT(*), COALESCE(MAX(i), -1) FROM tick").fetchone()


def test_an_existing_dest_is_kept_unless_forced_and_the_copy_is_private(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    db = _store(tmp_path)
    monkeypatch.chdir(tmp_path)
    dest = tmp_path / "backups" / "monday.sqlite"
    dest.parent.mkdir()
    dest.write_text("last week's")
    refused = run("backup", str(dest))
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert refused.output.strip().splitlines() == [f"Error: {dest} exists: give --force to replace it, or another "
                                                   "file"]
    assert dest.read_text() == "last week's"
    forced = run("backup", str(dest), "--force")
    assert forced.exit_code == 0, forced.output
    assert "30 pages, 122880 bytes" in forced.output
    assert sorted(p.name for p in dest.parent.iterdir()) == ["monday.sqlite"]  # no partial copy left beside it
    assert dest.stat().st_mode & 0o777 == 0o600 and _intact(dest) == ["ok"]
    assert _games(dest) == _games(db) and len(_games(dest)) == 8  # 4 games of 2 seats


@pytest.mark.parametrize("dest", ["results/arena.sqlite", "results/../results/arena.sqlite", "link.sqlite",
                                  "results/arena.sqlite-wal", "results"])
def test_the_store_itself_or_a_folder_is_no_dest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dest: str) -> None:
    db = _store(tmp_path)
    monkeypatch.chdir(tmp_path)
    os.link(db, "link.sqlite")
    stored = db.read_bytes()
    done = run("backup", dest, "--force")
    assert done.exit_code == 2 and "Traceback" not in done.output and len(done.output.strip().splitlines()) == 1
    assert ("is a folder" if dest == "results" else "is the results store") in done.output
    assert db.read_bytes() == stored and _intact(db) == ["ok"]


def test_a_missing_or_damaged_store_is_one_line_and_no_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    missing = run("backup", "copy.sqlite")
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert missing.output.strip() == "Error: no results store at 'results/arena.sqlite': run a tournament first, " \
                                     "or give --db"
    (tmp_path / "noise.sqlite").write_bytes(os.urandom(8192))
    noise = run("backup", "copy.sqlite", "--db", "noise.sqlite")
    assert noise.exit_code == 2 and "noise.sqlite is damaged" in noise.output and "Traceback" not in noise.output
    db = _store(tmp_path)
    data = bytearray(db.read_bytes())
    data[9 * 4096:10 * 4096] = b"\xff" * 4096  # the games' page (10), which opening the store does not read
    db.write_bytes(bytes(data))
    broken = run("backup", "copy.sqlite")
    assert broken.exit_code == 2 and "Traceback" not in broken.output
    assert "the results store results/arena.sqlite is damaged" in broken.output and ".recover" in broken.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["noise.sqlite", "results"]  # no copy, whole or partial
