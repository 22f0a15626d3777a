"""`arena bench --publish GAMES`: a store of real games built in-process, published cold and again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bench.publish import BENCH_BOTS, bench_store
from arena.match.record import load_record
from arena.match.replay import resimulate
from arena.site import publish
from arena.storage import Store


@pytest.mark.slow
def test_the_bench_store_is_a_real_ladder_whose_replays_reproduce(tmp_path: Path) -> None:
    results = tmp_path / "results"
    assert bench_store("bali-2017", 6, results) >= 6
    with Store(results / "arena.sqlite") as store:
        t = store.tournament()
        games = store.games(t.id)
        assert t.format == "ladder" and len(store.entrant_ids(t.id)) == BENCH_BOTS
        assert store.stored_ratings(t.id) and all(g.status == "done" for g in games)
        publish(store, results, tmp_path / "site")
    for game in games:
        record = load_record(results / game.replay)
        assert resimulate(record).reproduces
        assert list(record.ranks) == [s.rank for s in game.seats]
    more = bench_store("bali-2017", len(games) + 1, results)  # the same ladder, given more games
    with Store(results / "arena.sqlite") as store:
        assert len(store.tournaments()) == 1 and len(store.games(store.tournament().id)) == more > len(games)
        publish(store, results, tmp_path / "site")  # rates only the new games, from the ratings it kept
        assert publish(store, results, tmp_path / "fresh").problems == []
    pages = sorted(p.relative_to(tmp_path / "fresh") for p in (tmp_path / "fresh").glob("**/*.html"))
    assert len(pages) == 1 + 1 + 1 + BENCH_BOTS  # the index, the leaderboard, the game list, the bots
    for page in pages:  # the ladder's pages and every bot's, made incrementally or afresh, are the same
        assert (tmp_path / "site" / page).read_bytes() == (tmp_path / "fresh" / page).read_bytes(), page
    kept = json.loads(next((tmp_path / "site" / ".arena-ratings").glob("*.json")).read_text())
    assert len(kept["outcomes"]) == more  # the rating history the next publish continues from


@pytest.mark.slow
def test_arena_bench_publish_reports_each_publish() -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "bench", "--game", "bali-2017", "--count", "1",
                           "--publish", "8"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("bali-2017") and "publish" not in line
            and ("cold" in line or "again" in line)]
    assert [r.split("  ")[0] for r in rows] == ["bali-2017"] * 4
    assert ["with game pages" in rows[0], "--no-games" in rows[1], "nothing changed" in rows[2],
            "added" in rows[3]] == [True] * 4
    # Seconds and CPU seconds are figures, not checked: printed rounded, a quick publish may show 0.0.
    assert all(float(r.split()[-3]) >= 0 and float(r.split()[-1]) >= 0 for r in rows)
    assert "games played in-process and stored" in done.stdout
