"""A living ladder: the same command with a changed submissions folder or more games continues it."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli.test_admission import submission
from tests.helpers import arena, bots


def _games(db: Path) -> list[tuple]:
    with closing(sqlite3.connect(db)) as con:
        return con.execute("SELECT g.id, g.seq, g.seed, g.status, g.replay, s.seat, s.bot_id, s.name, s.score, "
                           "s.rank FROM games g JOIN seats s ON s.game_id = g.id ORDER BY g.seq, s.seat").fetchall()


@pytest.mark.slow
def test_a_ladder_takes_a_new_submission_and_a_new_version_and_keeps_every_game(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("a", "b", "c"):
        submission(subs / name, name)
    args = ("tournament", "bali-2017", "--submissions", "subs", "--format", "ladder", "--seats", "3", "--wave", "1",
            "--jobs", "1", "--init-timeout", "20")
    first = arena(*args, "--games", "6", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    db = tmp_path / "results" / "arena.sqlite"
    before = _games(db)
    assert len({row[1] for row in before}) == 6
    submission(subs / "d", "d")
    (subs / "b" / "manifest.toml").write_text((subs / "b" / "manifest.toml").read_text().replace(
        "version = '1'", "version = '2'"), encoding="utf-8")
    second = arena(*args, "--games", "18", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    after = _games(db)
    assert after[:len(before)] == before  # every earlier game unchanged
    assert len({row[1] for row in after}) == 18
    listing = arena("tournaments", cwd=tmp_path).stdout.splitlines()
    assert len(listing) == 3 and " 18 " in listing[2] and listing[2].rstrip().endswith("yes")
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    ranked = {row["bot"]: row for row in board["ranking"]}
    assert sorted(ranked) == ["a", "b@2", "c", "d"]
    assert ranked["d"]["games"] > 0 and ranked["b@2"]["games"] > 0
    every = json.loads(arena("leaderboard", "--format", "json", "--all-versions", cwd=tmp_path).stdout)
    old = {row["bot"]: row for row in every["ranking"]}["b (retired)"]
    assert old["games"] == sum(1 for row in before if row[7] == "b")  # its games kept, none added
    new_seats = [row for row in after[len(before):]]
    assert all(row[7] != "b" for row in new_seats)  # the old version no longer plays
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT COUNT(*) FROM ratings WHERE name = 'b'").fetchone()[0] == 1
    rerated = arena("rerate", cwd=tmp_path)
    assert rerated.returncode == 0 and "b@2" in rerated.stdout
    assert json.loads(arena("leaderboard", "--format", "json", "--all-versions", cwd=tmp_path).stdout) == every


@pytest.mark.slow
def test_a_round_robin_whose_entrants_change_is_refused_with_what_to_do(tmp_path: Path) -> None:
    common = ("--name", "cup", "--seats", "3", "--jobs", "1")
    assert arena("tournament", "bali-2001", *bots(3), *common, cwd=tmp_path).returncode == 0
    r = arena("tournament", "bali-2001", *bots(4), *common, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "the entrants of round-robin 'cup'" in r.stderr and "r3 added" in r.stderr
    assert "start a new one with another --name" in r.stderr
