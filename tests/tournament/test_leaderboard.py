"""Leaderboards: ranked by mu - 3 sigma, faulty bots withheld, every format parses."""

from __future__ import annotations

import csv
import io
import json

import pytest

from arena.ratings.trueskill import Rating, RatingConfig, Ratings
from arena.tournament.leaderboard import TEXT_FORMATS, rank

RATINGS = Ratings(RatingConfig(), {"steady": Rating(30, 1), "lucky": Rating(36, 5), "faulty": Rating(50, 1)})
STATS = {
    "steady": {"games": 40, "wins": 20, "mean_score": 12.5, "mean_rank": 1.6, "fault_rate": 0.0},
    "lucky": {"games": 10, "wins": 6, "mean_score": 14.0, "mean_rank": 1.4, "fault_rate": 0.1},
    "faulty": {"games": 40, "wins": 30, "mean_score": 20.0, "mean_rank": 1.2, "fault_rate": 0.5},
}


def test_ranked_by_conservative_estimate() -> None:
    board = rank("t", RATINGS, STATS)
    assert [r.bot for r in board.rows] == ["faulty", "steady", "lucky"]
    assert [r.rank for r in board.rows] == [1, 2, 3]


def test_max_fault_rate_withholds_a_bot_from_the_ranking() -> None:
    board = rank("t", RATINGS, STATS, max_fault_rate=0.2)
    assert [r.bot for r in board.rows] == ["steady", "lucky"]
    assert [r.bot for r in board.withheld] == ["faulty"]
    assert "withheld" in TEXT_FORMATS["table"].render(board)
    assert "faulty (50.0%)" in TEXT_FORMATS["markdown"].render(board)


def test_csv_and_json_parse_back_to_the_same_ranking() -> None:
    board = rank("t", RATINGS, STATS, max_fault_rate=0.2)
    rows = list(csv.DictReader(io.StringIO(TEXT_FORMATS["csv"].render(board))))
    assert [(r["rank"], r["bot"]) for r in rows] == [("1", "steady"), ("2", "lucky")]
    assert float(rows[0]["conservative"]) == pytest.approx(27.0)
    data = json.loads(TEXT_FORMATS["json"].render(board))
    assert [r["bot"] for r in data["ranking"]] == ["steady", "lucky"]
    assert data["withheld"][0]["bot"] == "faulty" and data["max_fault_rate"] == 0.2


def test_every_format_renders() -> None:
    for fmt in TEXT_FORMATS.values():
        assert fmt.render(rank("t", RATINGS, STATS))
