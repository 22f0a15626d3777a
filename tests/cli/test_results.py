"""`arena leaderboard`, `arena matches`, `arena show` and `arena rerate` on a store a real tournament wrote."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.helpers import arena, bots, ratings


@pytest.mark.slow
def test_csv_and_json_leaderboards_parse_and_agree_with_the_store(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert arena("tournament", "bali-2017", *bots(3), "--jobs", "1", cwd=tmp_path).returncode == 0
    runner = CliRunner()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    os.symlink(tmp_path / "results", "results")
    as_csv = runner.invoke(main, ["leaderboard", "--format", "csv"])
    as_json = runner.invoke(main, ["leaderboard", "--format", "json"])
    page = runner.invoke(main, ["leaderboard", "--format", "html", "-o", "board.html"])
    assert page.exit_code == 0 and Path("board.html").read_text().startswith("<!DOCTYPE html>")
    assert as_csv.exit_code == 0 and as_json.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(as_csv.output)))
    data = json.loads(as_json.output)
    store = ratings(tmp_path / "results" / "arena.sqlite")
    assert [r["bot"] for r in rows] == [r["bot"] for r in data["ranking"]]
    for row in data["ranking"]:
        mu, sigma = store[row["bot"]]
        assert row["mu"] == pytest.approx(mu) and row["sigma"] == pytest.approx(sigma)
        assert row["conservative"] == pytest.approx(mu - 3 * sigma)
        assert row["games"] == 3
    conservative = [float(r["conservative"]) for r in rows]
    assert conservative == sorted(conservative, reverse=True)


@pytest.mark.slow
def test_show_reports_a_missing_or_corrupt_replay_clearly(tmp_path: Path) -> None:
    assert arena("tournament", "bali-2017", *bots(3), "--jobs", "1", cwd=tmp_path).returncode == 0
    ok = arena("show", "1", cwd=tmp_path)
    assert ok.returncode == 0 and "--- turn 1" in ok.stdout
    listing = arena("matches", cwd=tmp_path)
    assert listing.returncode == 0 and "3 games" in listing.stdout
    replay = next((tmp_path / "results" / "matches").glob("*/game-0001.json"))
    replay.write_text("{not json", encoding="utf-8")
    corrupt = arena("show", "1", cwd=tmp_path)
    assert corrupt.returncode == 1 and "cannot show the replay" in corrupt.stderr
    assert "Traceback" not in corrupt.stderr
    replay.unlink()
    missing = arena("show", "1", cwd=tmp_path)
    assert missing.returncode == 1 and "cannot show the replay" in missing.stderr
    assert "Traceback" not in missing.stderr
    nothing = arena("show", "999", cwd=tmp_path)
    # A number the tournament has no game for is a usage error, as an unknown tournament is: it says what there is.
    assert nothing.returncode == 2 and "no game 999" in nothing.stderr and "numbered 1 to 3" in nothing.stderr


def test_rerate_rebuilds_the_stored_ratings(tmp_path: Path) -> None:
    assert arena("tournament", "bali-2017", *bots(3), "--jobs", "1", cwd=tmp_path).returncode == 0
    db = tmp_path / "results" / "arena.sqlite"
    before = ratings(db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE ratings SET mu = 0")
    r = arena("rerate", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ratings(db) == before
