"""Every leaderboard shows each bot's 90% interval of ranks beside the chance it is above the next row: checked
against the exact distribution of ranks given the ratings the board shows."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

import pytest

from arena.ratings.ranks import SIGMA_CALIBRATION
from tests.helpers import arena
from tests.ratings.test_ranks import exact_interval, exact_rank_chances

HEURISTIC = f"{sys.executable} -m sample_bots.heuristic_bot"
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


@pytest.mark.slow
def test_every_leaderboard_shows_the_rank_interval_the_ratings_give(tmp_path: Path) -> None:
    entrants = [f"h{i}={HEURISTIC}" for i in range(2)] + [f"r{i}={RANDOM}" for i in range(2)]
    played = arena("tournament", "bali-2017", *entrants, "--seats", "2", "--rounds", "2", "--jobs", "1",
                   "--name", "cup", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)["ranking"]
    assert [r["rank"] for r in board] == [1, 2, 3, 4]
    # The board draws each skill with SIGMA_CALIBRATION times its sigma (arena/ratings/ranks.py says why).
    mu, sigma = [r["mu"] for r in board], [SIGMA_CALIBRATION * r["sigma"] for r in board]
    checked = 0
    for i, row in enumerate(board):
        assert isinstance(row["rank_low"], int) and isinstance(row["rank_high"], int)
        assert 1 <= row["rank_low"] <= row["rank"] <= row["rank_high"] <= 4
        exact = exact_interval(exact_rank_chances(mu, sigma, i))
        if exact is not None:  # widened to hold the board's own rank, as the board does
            assert (row["rank_low"], row["rank_high"]) == (min(exact[0], row["rank"]), max(exact[1], row["rank"]))
            checked += 1
        assert (row["p_above_next"] is None) == (i == 3)
    assert checked >= 2
    assert len({(r["rank_low"], r["rank_high"]) for r in board}) > 1  # the heuristic bots are told from the random

    rows = list(csv.DictReader(io.StringIO(arena("leaderboard", "--format", "csv", cwd=tmp_path).stdout)))
    assert [(int(r["rank_low"]), int(r["rank_high"])) for r in rows] == [(r["rank_low"], r["rank_high"])
                                                                          for r in board]
    table = arena("leaderboard", cwd=tmp_path).stdout.splitlines()
    assert table[2].split()[:4] == ["rank", "bot", "90%", "ranks"]
    assert [re.findall(r" (\d+-\d+) ", line)[0] for line in table[4:8]] == \
        [f"{r['rank_low']}-{r['rank_high']}" for r in board]

    assert arena("publish", "-o", "site", cwd=tmp_path).returncode == 0
    page = (tmp_path / "site" / "cup" / "index.html").read_text()
    shown = re.findall(r'<td class="ranks">([^<]*)</td>', page)
    assert shown == [f"{r['rank_low']}–{r['rank_high']}" for r in board]
