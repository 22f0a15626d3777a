"""A wave's tables start longest first, by the pace its bots have shown, so that no long table is left for last."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from arena.tournament.formats import Table
from arena.tournament.run import longest_first
from tests.helpers import RANDOM, ROOT, arena

PACER = ROOT / "tests" / "bot_programs" / "pacer_bot.py"


def _table(number: int, *bots: str) -> Table:
    return Table(table=number, first_seq=number, bots=bots, seed=number, duplicate=False)


@pytest.mark.parametrize("pace, tables, expected", [
    ({}, [("a", "b"), ("c", "d"), ("a", "c")], [0, 1, 2]),  # nothing timed yet: the order drawn
    ({"a": 1.0, "b": 1.0, "c": 5.0, "d": 1.0}, [("a", "b"), ("c", "d"), ("b", "d")], [1, 0, 2]),
    ({"a": 1.0, "b": 2.0}, [("a", "a"), ("a", "new")], [1, 0]),  # a newcomer is taken as the slowest
    ({"a": 3.0, "b": 3.0, "c": 1.0}, [("c", "c"), ("a", "b"), ("a", "c"), ("b", "c")], [1, 2, 3, 0]),  # ties kept
])
def test_the_likeliest_longest_tables_start_first(pace: dict[str, float], tables: list[tuple[str, ...]],
                                                  expected: list[int]) -> None:
    drawn = [_table(n, *bots) for n, bots in enumerate(tables)]
    assert [t.table for t in longest_first(drawn, pace)] == expected


@pytest.mark.slow  # 16 real games
def test_a_ladder_starts_the_tables_of_its_slow_bot_first_once_it_has_timed_it(tmp_path: Path) -> None:
    slow = f"slow={sys.executable} {PACER} sleep 0.05 6"  # 0.3 s a game more than the others
    r = arena("tournament", "bali-2017", slow, f"a={RANDOM}", f"b={RANDOM}", f"c={RANDOM}", "--format", "ladder",
              "--seats", "2", "--wave", "2", "--games", "16", "--jobs", "1", "--sandbox", "none", "--seed", "0",
              "--results", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "out" / "arena.sqlite") as db:
        rows = db.execute("SELECT g.seq, g.finished, MAX(s.name = 'slow') FROM games g JOIN seats s "
                          "ON s.game_id = g.id GROUP BY g.id ORDER BY g.seq").fetchall()
    assert len(rows) == 16
    # Each wave seats the four bots at two tables of one game, played one after the other; from the second on, the
    # slow bot's table comes first (drawn in either order, it would come last in half of the seven waves).
    for first in range(2, 16, 2):
        with_slow, without = sorted(rows[first:first + 2], key=lambda row: -row[2])
        assert with_slow[2] and not without[2]
        assert with_slow[1] < without[1], f"the wave from game {first}: the slow bot's table was played last"
