"""Leaderboards: ranked by mu - 3 sigma, faulty bots withheld, every format parses."""

from __future__ import annotations

import csv
import io
import json

import pytest

from arena.ratings.leaderboard import FORMATS, build, render
from arena.ratings.trueskill import Rating, RatingConfig, Ratings

RATINGS = Ratings(RatingConfig(), {"steady": Rating(30, 1), "lucky": Rating(36, 5), "faulty": Rating(50, 1)})
STATS = {
    "steady": {"games": 40, "wins": 20, "mean_score": 12.5, "mean_rank": 1.6, "fault_rate": 0.0},
    "lucky": {"games": 10, "wins": 6, "mean_score": 14.0, "mean_rank": 1.4, "fault_rate": 0.1},
    "faulty": {"games": 40, "wins": 30, "mean_score": 20.0, "mean_rank": 1.2, "fault_rate": 0.5},
}


def test_ranked_by_conservative_estimate() -> None:
    board = build("t", RATINGS, STATS)
    assert [r.bot for r in board.rows] == ["faulty", "steady", "lucky"]
    assert [r.rank for r in board.rows] == [1, 2, 3]


def test_max_fault_rate_withholds_a_bot_from_the_ranking() -> None:
    board = build("t", RATINGS, STATS, max_fault_rate=0.2)
    assert [r.bot for r in board.rows] == ["steady", "lucky"]
    assert [r.bot for r in board.withheld] == ["faulty"]
    assert "withheld" in render(board, "table") and "faulty (50.0%)" in render(board, "markdown")


def test_csv_and_json_parse_back_to_the_same_ranking() -> None:
    board = build("t", RATINGS, STATS, max_fault_rate=0.2)
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert [(r["rank"], r["bot"]) for r in rows] == [("1", "steady"), ("2", "lucky")]
    assert float(rows[0]["conservative"]) == pytest.approx(27.0)
    data = json.loads(render(board, "json"))
    assert [r["bot"] for r in data["ranking"]] == ["steady", "lucky"]
    assert data["withheld"][0]["bot"] == "faulty" and data["max_fault_rate"] == 0.2


def test_every_format_renders() -> None:
    for fmt in FORMATS:
        assert render(build("t", RATINGS, STATS), fmt)
    with pytest.raises(ValueError, match="xml"):
        render(build("t", RATINGS, STATS), "xml")
