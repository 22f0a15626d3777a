"""The tournament benchmark measures real tournaments."""

from __future__ import annotations

import pytest

from arena.bench.tournament import bench_tournament


@pytest.mark.slow
def test_tournament_bench_plays_every_game_of_the_round_robin() -> None:
    r = bench_tournament("bali-2017", seats=4, rounds=1, jobs=1, fresh=False)
    assert r.games == 5 * 4  # five entrants: five tables of four, each in four seat rotations
    assert r.seconds > 0 and r.games_per_minute == 60 * r.games / r.seconds
