"""What an organiser does to a served season from the command line: start it again from another folder, start it
twice, serve a season of the previous release: every upload kept and every bot playing."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from arena.storage import Store
from tests.helpers import PATIENCE, wait_until
from tests.server.conftest import ENV, Server, admitted, kit_bot, stop, upload, zipped

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "served-schema7"
GAME = "bali-2017"


def serve(cwd: Path, *args: str, results: str = "results") -> subprocess.Popen[str]:
    """`arena serve GAME --port 0` as an organiser types it in the folder cwd (its results folder as given)."""
    return subprocess.Popen([sys.executable, "-m", "arena", "serve", GAME, "--port", "0", "--sandbox", "rlimit",
                             "--results", results, *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def address(process: subprocess.Popen[str]) -> str:
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://"), line + process.stderr.read()  # type: ignore[union-attr]
    return line.split()[-1]


def games_of(db: Path, bot: str) -> int:
    """How many ladder games a bot (any version) has stored."""
    with sqlite3.connect(db) as con:
        try:
            return con.execute("SELECT COUNT(*) FROM seats WHERE name = ? OR name LIKE ?",
                               (bot, f"{bot}@%")).fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def tree(folder: Path) -> set[str]:
    """Every file under folder but the caches a run writes (Python's, the build's lock)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.name != ".arena-build.lock"}


@pytest.fixture
def season(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str], Server, dict[str, str]]]:
    """A season served from org/ with its results given as a relative folder, two bots uploaded and playing:
    (org, the server, its Server, the API token of each bot's author)."""
    org = tmp_path / "org"
    org.mkdir()
    process = serve(org, "--jobs", "1")
    server = Server(address(process), org / "results", process)
    tokens = {}
    try:
        for name in ("alice", "bob"):
            _, tokens[name] = server.author(name)
            folder = kit_bot(tmp_path / "kits" / name, stderr=False)
            manifest = folder / "manifest.toml"
            manifest.write_text(re.sub(r'name = "[^"]*"', f'name = "{name}bot"', manifest.read_text(), count=1))
            reply = upload(server, tokens[name], zipped(folder))
            assert reply.status_code == 202, reply.text
            assert admitted(server, tokens[name], reply.json()["id"]), server.status(tokens[name], reply.json()["id"])
        db = org / "results" / "arena.sqlite"
        assert wait_until(lambda: games_of(db, "alicebot") and games_of(db, "bobbot"), 120)
        yield org, process, server, tokens
    finally:
        stop(process)


def test_a_second_start_from_another_folder_is_refused_and_touches_nothing(
        season: tuple[Path, subprocess.Popen[str], Server, dict[str, str]]) -> None:
    org, first, server, tokens = season
    uploads = org / "results" / "uploads"
    before = tree(uploads)
    bad = org.parent / "bad"
    bad.mkdir()
    second = serve(bad, results="../org/results")
    _, err = second.communicate(timeout=PATIENCE * 3)
    assert second.returncode != 0, err
    assert "already served by another arena serve" in err
    assert "Traceback" not in err
    assert tree(uploads) >= before  # every upload's files are where they were
    db = org / "results" / "arena.sqlite"
    played = games_of(db, "alicebot"), games_of(db, "bobbot")
    assert wait_until(lambda: games_of(db, "alicebot") > played[0] and games_of(db, "bobbot") > played[1], 120)
    assert first.poll() is None


def test_a_restart_from_another_folder_keeps_every_bot_playing(
        season: tuple[Path, subprocess.Popen[str], Server, dict[str, str]]) -> None:
    org, first, server, tokens = season
    uploads = org / "results" / "uploads"
    before = tree(uploads)
    assert stop(first) in (0, 130)
    db = org / "results" / "arena.sqlite"
    played = games_of(db, "alicebot"), games_of(db, "bobbot")
    elsewhere = org.parent / "elsewhere"
    elsewhere.mkdir()
    again = serve(elsewhere, "--jobs", "1", results=str(org / "results"))
    try:
        address(again)
        assert tree(uploads) >= before
        assert wait_until(lambda: games_of(db, "alicebot") > played[0] and games_of(db, "bobbot") > played[1], 120)
    finally:
        stop(again)
    err = again.stderr.read()  # type: ignore[union-attr]
    assert "sits out" not in err and "cannot be opened" not in err, err


def test_a_season_of_the_previous_release_goes_on(tmp_path: Path) -> None:
    """The fixture was served by the release before this one (schema 7) in org/ as `arena serve bali-2017 --jobs 2
    --sandbox rlimit`; the same command in the same folder serves it on, and its uploads play."""
    org = tmp_path / "org"
    shutil.copytree(FIXTURE, org / "results")
    db = org / "results" / "arena.sqlite"
    with sqlite3.connect(db) as con:
        stored = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    played = games_of(db, "alicebot")
    process = serve(org, "--jobs", "2")
    try:
        address(process)
        assert wait_until(lambda: games_of(db, "alicebot") > played, 120)
    finally:
        stop(process)
    err = process.stderr.read()  # type: ignore[union-attr]
    assert "another configuration" not in err, err
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] > stored
    # The store of before is kept beside it, as the old release reads it, and the migration said so.
    kept = org / "results" / "arena.sqlite.schema7.bak"
    with sqlite3.connect(kept) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "7"
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == stored
    said = [line for line in err.splitlines() if "schema 7" in line]
    assert len(said) == 1 and str(kept.name) in said[0], err
    with Store(db) as store:
        assert {s.status.value for s in store.submissions()} == {"admitted"}


def test_a_season_started_again_with_other_settings_is_refused_naming_them_and_touches_nothing(
        tmp_path: Path) -> None:
    org = tmp_path / "org"
    shutil.copytree(FIXTURE, org / "results")
    before = {p: p.read_bytes() for p in (org / "results").rglob("*") if p.is_file()}
    process = serve(org, "--jobs", "2", "--seats", "3", "--timeout", "2")
    out, err = process.communicate(timeout=PATIENCE * 3)
    assert process.returncode == 2 and "serving on" not in out, err
    assert len(err.strip().splitlines()) == 1, err
    assert "seats (--seats) is 2 in the store, 3 now" in err and "time.timeout (--timeout) is 1.0 in the store" in err
    assert {p: p.read_bytes() for p in (org / "results").rglob("*") if p.is_file()} == before


def test_a_store_of_before_finds_its_uploads_from_any_working_folder(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The release before stored an upload's folder relative to the server's working folder (results/uploads/...):
    opened from another folder, each is found under the store's folder, and kept relative to it."""
    shutil.copytree(FIXTURE, tmp_path / "org" / "results")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    db = tmp_path / "org" / "results" / "arena.sqlite"
    with Store(db) as store:
        folders = [Path(s.folder) for s in store.submissions()]
    assert len(folders) == 2 and all(f.is_dir() and (f / "manifest.toml").is_file() for f in folders), folders
    with sqlite3.connect(db) as con:
        assert {row[0].split("/")[0] for row in con.execute("SELECT folder FROM submissions")} == {"uploads"}
    moved = tmp_path / "moved"
    (tmp_path / "org" / "results").rename(moved)
    with Store(moved / "arena.sqlite") as store:  # the results folder moved whole: its uploads move with it
        assert all(Path(s.folder).is_dir() and Path(s.folder).is_relative_to(moved) for s in store.submissions())
    assert not list(elsewhere.iterdir())
