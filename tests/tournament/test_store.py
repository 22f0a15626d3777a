"""The results store as a user meets it: an old store migrated, a damaged or read-only store explained in one
line, one arena per tournament, and nothing left behind by a killed arena. Real arenas, real SQLite files."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Callable, Iterator

import pytest
from click.testing import CliRunner

from arena.bots import leftovers
from arena.bots.entrants import Entrant
from arena.cli import main
from arena.storage import (
    SCHEMA_VERSION,
    Store,
    StoreBusy,
    StoredFault,
    StoredGame,
    StoreError,
)
from arena.storage.authors import Status
from arena.storage.schema import _submissions_table
from tests.helpers import parent_of

ROOT = Path(__file__).resolve().parents[2]
RELEASE_0_1_0 = Path(__file__).parent / "data" / "store-0.1.0"  # made by `arena tournament` of release 0.1.0
RANDOM = f"{sys.executable} -m sample_bots.random_bot"
HELD_BOT = ROOT / "tests" / "bot_programs" / "held_bot.py"
RESUME_FIXTURE = ["tournament", "bali-2001", f"r1={RANDOM}", f"r2={RANDOM}", f"r3={RANDOM}", "--seats", "3"]


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None, prefix: tuple[str, ...] = (),
          timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "arena", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def start(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_until(condition: Callable[[], object], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting until {what}")
        time.sleep(0.05)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The single line a failed command printed; it must exit 1 without a traceback or other output."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# The held bot signals through files beside the test's folder, which only levels below bwrap let it write.
HELD_SANDBOX = ("--sandbox", "rlimit")


def held(hold: Path) -> str:
    """A bot entrant that holds every decision while the hold file exists (run it under HELD_SANDBOX)."""
    return f"held={sys.executable} {HELD_BOT} {hold}"


def old_store(tmp_path: Path) -> Path:
    """A copy of the release 0.1.0 store and its replay, as a results folder."""
    results = tmp_path / "results"
    shutil.copytree(RELEASE_0_1_0, results)
    return results


def current_store(tmp_path: Path) -> Path:
    results = old_store(tmp_path)
    Store(results / "arena.sqlite").close()  # migrated
    return results


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def tables(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as con:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def stored_seqs(db: Path) -> list[int]:
    try:
        with closing(sqlite3.connect(db)) as con:
            return [r[0] for r in con.execute("SELECT seq FROM games ORDER BY seq")]
    except sqlite3.OperationalError:  # not created yet
        return []


# --- schema version and migration -----------------------------------------------------------------------------------
def test_a_store_made_by_release_0_1_0_is_read_as_it_is_and_migrated_on_the_first_write(tmp_path: Path) -> None:
    results = old_store(tmp_path)
    db = results / "arena.sqlite"
    before = files(results)
    browse = [("leaderboard",), ("matches",), ("show", "1")]
    board, listing, shown = (CliRunner().invoke(main, [*args, "--results", str(results)]) for args in browse)
    assert board.exit_code == listing.exit_code == shown.exit_code == 0, (board.output, listing.output, shown.output)
    assert "fixture (bali-2001, round-robin): 3 games" in listing.stdout
    assert "illegal" in shown.stdout and "seat 2" in shown.stdout
    assert files(results) == before  # browsing does not write, not even to migrate
    rerated = arena("rerate", "--results", str(results), cwd=tmp_path)
    assert rerated.returncode == 0, rerated.stderr
    assert {"games", "seats", "faults"} <= tables(db) and "matches" not in tables(db)
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        counts = [con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("games", "seats", "faults")]
        assert counts == [3, 9, 9]
        assert con.execute("SELECT COUNT(*) FROM seats s JOIN games g ON g.id = s.game_id").fetchone()[0] == 9
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    again = [CliRunner().invoke(main, [*args, "--results", str(results)]) for args in browse]
    assert [r.stdout for r in again] == [board.stdout, listing.stdout, shown.stdout]


def test_a_migration_that_fails_leaves_the_old_store_as_it_was(tmp_path: Path) -> None:
    results = old_store(tmp_path)
    db = results / "arena.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE games (note TEXT)")  # someone's own table, in the way of the rename
    con.commit()
    con.close()
    before = files(results)
    line = one_line_error(arena("rerate", "--results", str(results), cwd=tmp_path))
    assert str(db) in line and f"from schema 1 to {SCHEMA_VERSION}" in line and "left as it was" in line
    assert files(results) == before
    assert "matches" in tables(db)


# --- damaged and read-only stores -------------------------------------------------------------------------------------
def scribble(db: Path, *table_names: str) -> None:
    """Garbage over the pages of these tables; the schema (page 1) stays intact."""
    with closing(sqlite3.connect(db)) as con:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        roots = [con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
                 for t in table_names]
    rng = random.Random(7)
    with open(db, "r+b") as handle:
        for page in roots:
            handle.seek((page - 1) * page_size)
            handle.write(rng.randbytes(page_size))


@pytest.mark.parametrize("command", [
    ("leaderboard",), ("matches",), ("show", "1"), ("rerate",), tuple(RESUME_FIXTURE)], ids=lambda c: c[0])
def test_a_store_with_garbage_in_its_data_pages_is_one_line_and_left_untouched(tmp_path: Path,
                                                                                 command: tuple[str, ...]) -> None:
    results = current_store(tmp_path)
    db = results / "arena.sqlite"
    scribble(db, "games", "seats")
    before = files(results)
    line = one_line_error(arena(*command, "--results", str(results), cwd=tmp_path))
    assert f"the results store {db} is damaged" in line and f'sqlite3 {db} ".recover"' in line
    assert files(results) == before  # not a byte written, no lock or journal left


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], tuple[str, ...]]]:
    """Makes a folder read-only for the arena commands run with the returned prefix: a read-only bind mount in a
    private mount namespace for root (who ignores permission bits), the permission bits for anyone else. Skips,
    saying why, where no read-only place can be made."""
    changed: list[tuple[Path, int]] = []

    def by_permissions(folder: Path) -> tuple[str, ...]:
        for path in [folder, *folder.rglob("*")]:
            changed.append((path, path.stat().st_mode))
            path.chmod(0o555 if path.is_dir() else 0o444)
        return ()

    def by_mount(folder: Path) -> tuple[str, ...]:
        return ("unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder))

    if os.geteuid() != 0:
        yield by_permissions
    else:
        if shutil.which("unshare") is None:
            pytest.skip("cannot make a read-only place for root: unshare (util-linux) is not installed")
        probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind -o ro / /"], capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip("cannot make a read-only place for root: a read-only bind mount in a private mount namespace "
                        f"failed ({(probe.stdout + probe.stderr).strip()[:200]})")
        yield by_mount
    for path, mode in reversed(changed):
        path.chmod(mode)


@pytest.mark.parametrize("make", [old_store, current_store], ids=["release-0.1.0", "current"])
def test_a_store_on_a_read_only_disk_is_browsed_and_writing_commands_say_it_is_read_only(
        tmp_path: Path, read_only: Callable[[Path], tuple[str, ...]], make: Callable[[Path], Path]) -> None:
    results = make(tmp_path)
    before = files(results)
    prefix = read_only(results)
    board = arena("leaderboard", "--results", str(results), cwd=tmp_path, prefix=prefix)
    listing = arena("matches", "--results", str(results), cwd=tmp_path, prefix=prefix)
    shown = arena("show", "1", "--results", str(results), cwd=tmp_path, prefix=prefix)
    assert board.returncode == listing.returncode == shown.returncode == 0, (board.stderr, listing.stderr, shown.stderr)
    assert "r1" in board.stdout and "3 games" in listing.stdout and "illegal" in shown.stdout
    for command in (("rerate",), RESUME_FIXTURE):
        line = one_line_error(arena(*command, "--results", str(results), cwd=tmp_path, prefix=prefix))
        assert "is read-only" in line and str(results / "arena.sqlite") in line
    assert files(results) == before


# --- one arena per tournament -----------------------------------------------------------------------------------------
@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """Arenas a test starts; killed with their process groups if the test ends before they do."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_two_arenas_started_at_once_on_one_tournament_one_plays_and_the_other_stops_naming_it(
        tmp_path: Path, processes: list[subprocess.Popen[str]]) -> None:
    hold = tmp_path / "hold"
    hold.touch()
    args = ["tournament", "bali-2017", held(hold), f"r1={RANDOM}", f"r2={RANDOM}", *HELD_SANDBOX, "--seats", "3",
            "--jobs", "1", "--timeout", "300"]
    processes += [start(*args, cwd=tmp_path), start(*args, cwd=tmp_path)]
    wait_until(lambda: any(p.poll() is not None for p in processes), "one of the two arenas stops")
    loser = next(p for p in processes if p.poll() is not None)
    winner = next(p for p in processes if p is not loser)
    out, err = loser.communicate()
    line = one_line_error(subprocess.CompletedProcess(loser.args, loser.returncode, out, err))
    assert "is already being played" in line and f"pid {winner.pid}:" in line and "tournament bali-2017" in line
    assert winner.poll() is None
    hold.unlink()
    out, err = winner.communicate(timeout=300)
    assert winner.returncode == 0, err
    assert stored_seqs(tmp_path / "results" / "arena.sqlite") == [0, 1, 2]  # each game once
    assert not list((tmp_path / "results").glob("*.lock"))


# --- leftovers of a killed arena --------------------------------------------------------------------------------------
def marked(parent: Path, prefix: str = "") -> dict[Path, leftovers.Owner]:
    """The marked folders directly under parent, with their owners."""
    found = {}
    for folder in (parent.glob(f"{prefix}*") if parent.is_dir() else ()):
        owner = leftovers.owner(folder)
        if owner is not None:
            found[folder] = owner
    return found


@pytest.mark.slow
def test_the_next_run_removes_what_a_sigkilled_arena_left_and_nothing_of_a_live_arena(
        tmp_path: Path, processes: list[subprocess.Popen[str]]) -> None:
    temp = Path(tempfile.mkdtemp(prefix="lo-"))  # short: ipc socket paths are limited to about 100 characters
    try:
        _sigkill_then_resume(tmp_path, temp, processes)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _sigkill_then_resume(tmp_path: Path, temp: Path, processes: list[subprocess.Popen[str]]) -> None:
    env = {**os.environ, "TMPDIR": str(temp)}
    results = tmp_path / "results"
    db, matches = results / "arena.sqlite", results / "matches"
    hold_a, hold_b = tmp_path / "hold-a", tmp_path / "hold-b"
    killed = ["tournament", "bali-2017", held(hold_a), f"r1={RANDOM}", f"r2={RANDOM}", *HELD_SANDBOX, "--seats", "3",
              "--rounds", "4", "--jobs", "2", "--timeout", "300"]  # 4 tables, each with the held bot
    live = ["tournament", "bali-2017", held(hold_b), f"r1={RANDOM}", f"r2={RANDOM}", *HELD_SANDBOX, "--seats", "3",
            "--jobs", "1", "--timeout", "300", "--name", "other"]
    first = start(*killed, cwd=tmp_path, env=env)
    processes.append(first)
    wait_until(lambda: len(stored_seqs(db)) >= 3, "a table is stored")
    hold_a.touch()
    wait_until(lambda: list(tmp_path.glob("hold-a.*")), "a table is held in play")
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    wait_until(lambda: all(o.gone() for o in [*marked(temp, "arena-").values(), *marked(matches).values()]),
               "the killed arena's workers are gone")
    left = [*marked(temp, "arena-"), *marked(matches)]
    assert any(f.parent == temp for f in left) and any(f.parent == matches for f in left)
    stored = {f for f in matches.iterdir() if f not in left}
    assert stored

    hold_b.touch()
    second = start(*live, cwd=tmp_path, env=env)
    processes.append(second)
    wait_until(lambda: list(tmp_path.glob("hold-b.*")), "the other tournament has a table held in play")
    # Tables are played in worker processes, so their folders belong to a child of the arena.
    others = [f for f in [*marked(temp, "arena-"), *marked(matches)]
              if second.pid in (leftovers.owner(f).pid, parent_of(leftovers.owner(f).pid))]
    assert len(others) == 2  # its private directory and its table's folder

    hold_a.unlink()
    resumed = arena(*killed, cwd=tmp_path, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert stored_seqs(db) == list(range(12))
    assert [f for f in left if f.exists()] == []
    assert all(f.exists() for f in stored) and all(f.exists() for f in others)
    assert set(marked(matches)) <= set(others)  # the resumed arena's stored tables are no longer marked

    hold_b.unlink()
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert marked(matches) == {} and list(temp.glob("arena-*")) == []
    with closing(sqlite3.connect(db)) as con:
        replays = {Path(r).parent.name for (r,) in con.execute("SELECT replay FROM games")}
    assert {f.name for f in matches.iterdir()} == replays  # every table folder left is a stored one


# --- the store's own rules, in-process --------------------------------------------------------------------------------
def test_a_tournament_is_locked_until_its_store_is_closed_and_a_killed_holder_blocks_no_one(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    name = "odd name/with ünicode"
    with Store(db) as first:
        first.open_tournament(name, "bali-2001", "round-robin", {}, [])
        with Store(db) as second, pytest.raises(StoreBusy) as busy:
            second.open_tournament(name, "bali-2001", "round-robin", {}, [])
        assert f"pid {os.getpid()}:" in str(busy.value) and "\n" not in str(busy.value)
        with Store(db) as other:
            other.open_tournament("another", "bali-2001", "round-robin", {}, [])  # another tournament: no wait
    assert [p.name for p in tmp_path.iterdir()] == ["arena.sqlite"]  # lock files go with their holders
    holder = subprocess.Popen([sys.executable, "-c", f"import sys, time; from arena.storage import Store; "
                               f"Store(sys.argv[1]).open_tournament({name!r}, 'g', 'f', {{}}, []); print(flush=True); "
                               "time.sleep(600)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        with Store(db) as blocked, pytest.raises(StoreBusy, match=f"pid {holder.pid}:"):
            blocked.open_tournament(name, "bali-2001", "round-robin", {}, [])
    finally:
        holder.kill()
        holder.wait()
    with Store(db) as after:
        assert after.open_tournament(name, "bali-2001", "round-robin", {}, []).name == name


def test_a_full_disk_is_one_line_and_the_stored_games_are_kept(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t", "bali-2001", "round-robin", {}, [Entrant("a", ("a",))])
        store.record_games(t.id, [StoredGame(0, 0, 1, ("a",), "done", "end", (1,), (1,))])
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")  # as if the disk were full now
        big = StoredFault(0, "malformed", "x" * 100_000)
        with pytest.raises(StoreError) as full:
            store.record_games(t.id, [StoredGame(1, 0, 1, ("a",), "done", "end", (1,), (1,), faults=(big,))])
        assert str(full.value).startswith(f"no space left for the results store {db}")
        assert store.done_seqs(t.id) == {0}


def test_each_outcome_reads_every_finished_game_in_schedule_order_a_block_at_a_time(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        t = store.open_tournament("t", "bali-2001", "ladder", {}, [Entrant(n, (n,)) for n in "abc"])
        games = [StoredGame(seq, seq, 1, ("a", "b", "c"), "failed" if seq in (3, 4, 5) else "done", "end",
                            (1, 2, 3), (3, 2, 1)) for seq in (9, 0, 2, 1, 3, 4, 5, 6, 7, 8, 10)]
        store.record_games(t.id, games)
        assert [o.seq for o in store.each_outcome(t.id, block=3)] == [0, 1, 2, 6, 7, 8, 9, 10]  # a block all failed
        assert list(store.each_outcome(t.id, block=3)) == store.outcomes(t.id)
        assert list(store.each_outcome(store.open_tournament("u", "bali-2001", "ladder", {}, []).id)) == []


@pytest.mark.parametrize("schema, expected", [("99", f"newer than this arena's {SCHEMA_VERSION}"),
                                              ("0", "which no release"), (None, "not an arena results store")])
def test_a_store_of_an_unknown_schema_is_refused_and_left_alone(tmp_path: Path, schema: str | None,
                                                                  expected: str) -> None:
    db = tmp_path / "arena.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    if schema is not None:
        con.execute("INSERT INTO meta VALUES ('schema', ?)", (schema,))
    con.commit()
    con.close()
    before = db.read_bytes()
    for readonly in (False, True):
        with pytest.raises(StoreError, match=expected):
            Store(db, readonly=readonly)
    assert db.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["arena.sqlite"]


def test_a_store_locked_by_another_process_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t", "bali-2001", "round-robin", {}, [])
        store.db.execute("PRAGMA busy_timeout = 100")  # not the 30 s an arena waits
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StoreError) as locked:
                store.finish_tournament(t.id)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert str(locked.value).startswith(f"the results store {db} is locked by another process")


def test_a_damaged_store_read_for_a_tournament_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        store.open_tournament("t", "bali-2001", "round-robin", {}, [])
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("DROP TABLE tournaments")  # damaged behind the arena's back
        other.close()
        for name in ("t", None):
            with pytest.raises(StoreError, match="tournaments"):
                store.tournament(name)
        with pytest.raises(StoreError, match="tournaments"):
            store.named_tournament("t")


def test_a_store_of_schema_2_gains_refusals_and_retirement_and_keeps_every_row(tmp_path: Path) -> None:
    from arena.storage import MIGRATIONS
    results = old_store(tmp_path)
    db = results / "arena.sqlite"
    with closing(sqlite3.connect(db)) as con:  # the fixture as release schema 2 had it
        for statement in MIGRATIONS[1]:
            con.execute(statement)
        con.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        con.commit()
        before = {t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                  for t in ("games", "seats", "faults", "bots", "tournaments")}
    with Store(db) as store:
        t = store.tournament()
        assert store.refusals(t.id) == [] and store.retired(t.id) == set()
        assert [key for key, *_ in store.roster(t.id)]
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert {t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in before} == before
        assert con.execute("SELECT COUNT(*) FROM entrants WHERE retired IS NULL").fetchone()[0] == 3
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_store_of_schema_5_gains_refused_uploads_and_invites_and_keeps_its_authors(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        author, token, _ = store.add_author("alice")
        store.add_submission(author, "alicebot", "1", str(tmp_path))
    with closing(sqlite3.connect(db)) as con:  # as schema 5 had it
        for table in ("refused_uploads", "invites", "sessions"):
            con.execute(f"DROP TABLE {table}")
        con.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
        con.commit()
    with Store(db) as store:
        assert store.author_by_token(token)[0] == author and store.uploads_since(author, 0) == 1
        store.refuse_upload(author, "not a readable zip archive")
        assert store.uploads_since(author, 0) == 2
        assert store.invites() == []
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_store_of_schema_6_takes_retired_submissions_and_keeps_every_row(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        author, _, _ = store.add_author("alice")
        kept = store.add_submission(author, "alicebot", "1", str(tmp_path))
        store.set_status(kept.id, Status.ADMITTED)
        kept = store.submission(kept.id)
    with closing(sqlite3.connect(db)) as con:  # the table of submissions as schema 6 had it
        con.execute("ALTER TABLE submissions RENAME TO s6")
        con.execute(_submissions_table("submissions").replace("'retired'", "'refused'"))
        con.execute("INSERT INTO submissions SELECT * FROM s6")
        con.execute("DROP TABLE s6")
        con.execute("DROP TABLE sessions")
        con.execute("UPDATE meta SET value = '6' WHERE key = 'schema'")
        con.commit()
        with pytest.raises(sqlite3.IntegrityError):
            con.execute("UPDATE submissions SET status = 'retired'")
    with Store(db) as store:
        assert store.submission(kept.id) == kept
        assert store.retire_bot("alicebot") == 1 and store.submission(kept.id).status == Status.RETIRED
        assert store.current_versions() == []
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("SELECT name FROM sqlite_master WHERE name = 'submissions_by_author'").fetchone()


def test_a_store_of_schema_7_gains_server_side_sessions_and_drops_its_signing_key(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        author, _, _ = store.add_author("alice")
    with closing(sqlite3.connect(db)) as con:  # as schema 7 had it: a key that signed session cookies
        con.execute("DROP TABLE sessions")
        con.execute("INSERT INTO meta VALUES ('session_key', 'ab')")
        con.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
        con.commit()
    with Store(db) as store:
        session = store.open_session(author, 60)
        assert store.session_author(session) == author
        store.end_session(session)
        assert store.session_author(session) is None
        expired = store.open_session(author, -1)
        assert store.session_author(expired) is None
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'session_key'").fetchone() is None
        assert all(len(h) == 32 and session.encode() not in h for h, in con.execute("SELECT hash FROM sessions"))
