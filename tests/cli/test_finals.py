"""`arena finals`: the top K of a tournament played until each adjacent pair is decided at the confidence asked for
or the budget is spent, into a tournament of its own in the same store."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.helpers import arena

HEURISTIC = f"{sys.executable} -m sample_bots.heuristic_bot"
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


@pytest.mark.slow
def test_finals_decide_the_better_bot_and_leave_two_copies_sharing_a_rank(tmp_path: Path) -> None:
    played = arena("tournament", "bali-2017", f"h={HEURISTIC}", f"r0={RANDOM}", f"r1={RANDOM}", "--seats", "2",
                   "--jobs", "1", "--name", "cup", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    done = arena("finals", "-t", "cup", "--top", "3", "--confidence", "0.9", "--max-games", "120", "--jobs", "2",
                 cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "finals: h > " in done.stdout  # the table printed says which steps are decided
    board = json.loads(arena("leaderboard", "-t", "cup-finals", "--format", "json", cwd=tmp_path).stdout)
    rows = board["ranking"]
    assert [r["bot"] for r in rows][0] == "h" and sorted(r["bot"] for r in rows) == ["h", "r0", "r1"]
    assert [r["rank"] for r in rows] == [1, 2, 2]  # the two copies of the random bot not told apart
    assert [r["decided"] for r in rows] == [True, False, False]
    assert all(r["rank_low"] <= r["rank"] <= r["rank_high"] for r in rows)
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        stored = con.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                             "WHERE t.name = 'cup-finals'").fetchone()[0]
        per_bot = dict(con.execute("SELECT s.name, COUNT(*) FROM seats s JOIN games g ON g.id = s.game_id JOIN "
                                   "tournaments t ON t.id = g.tournament_id WHERE t.name = 'cup-finals' "
                                   "GROUP BY s.name"))
    assert stored == 120  # the budget spent on the pair it could not decide
    assert {r["bot"]: r["games"] for r in rows} == per_bot
    # The undecided pair had the games once the heuristic's step was decided: it played fewer than either copy.
    assert per_bot["h"] < per_bot["r0"] and per_bot["h"] < per_bot["r1"]
    # The same command again resumes the finals: nothing left to play.
    again = arena("finals", "-t", "cup", "--top", "3", "--confidence", "0.9", "--max-games", "120", "--jobs", "2",
                  cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        # The round robin of three at two seats, and the finals.
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6 + 120


@pytest.mark.slow
def test_bad_finals_input_exits_2_with_one_line_and_stores_nothing(tmp_path: Path) -> None:
    played = arena("tournament", "bali-2017", f"r0={RANDOM}", f"r1={RANDOM}", "--seats", "2", "--jobs", "1",
                   "--name", "cup", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    for args, said in ((("--top", "1", "--confidence", "0.9"), "--top must be at least 2"),
                       (("--top", "2", "--confidence", "1.5"), "--confidence"),
                       (("--top", "2", "--confidence", "0"), "--confidence"),
                       (("--top", "3", "--confidence", "0.9"), "fewer than --top 3"),
                       (("--top", "2", "--confidence", "0.9", "--max-games", "1"), "at least 2 games"),
                       (("--top", "2", "--confidence", "0.9", "--name", "cup"), "cup")):
        bad = arena("finals", "-t", "cup", *args, cwd=tmp_path)
        assert bad.returncode == 2, (args, bad.stdout, bad.stderr)
        assert said in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    missing = arena("finals", "-t", "nope", "--top", "2", "--confidence", "0.9", cwd=tmp_path)
    assert missing.returncode == 2 and "no tournament 'nope'" in missing.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        assert [n for (n,) in con.execute("SELECT name FROM tournaments")] == ["cup"]


MIXED = f"{sys.executable} -m sample_bots.mixed_bot"  # the heuristic's move with probability P, else a random one


def _finals_board(cwd: Path, name: str) -> list[dict]:
    shown = arena("leaderboard", "-t", name, "--format", "json", cwd=cwd)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["ranking"]


def _games(cwd: Path, name: str) -> int:
    with sqlite3.connect(cwd / "results" / "arena.sqlite") as con:
        return con.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                           "WHERE t.name = ?", (name,)).fetchone()[0]


def _sandbox_level(cwd: Path, name: str) -> str:
    with sqlite3.connect(cwd / "results" / "arena.sqlite") as con:
        config = con.execute("SELECT config FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
    return json.loads(config)["sandbox"]["level"]


@pytest.mark.slow
def test_finals_of_a_graded_field_of_real_games_keep_the_true_order_and_stop_early_when_it_is_well_spread(
        tmp_path: Path) -> None:
    # The mixed sample bot plays the heuristic's move with probability P: a larger P is a stronger bot, and two
    # bots of the same P are the same bot. Seeded by a round robin too short to order them (the finals reorder);
    # public-seeded, so are the finals, and the mixed bots draw from the game's seed: the same games every run.
    levels = {"p100": 1.0, "p050": 0.5, "p000": 0.0}
    spread = arena("tournament", "bali-2017", *(f"{n}={MIXED} {p}" for n, p in levels.items()), "--seats", "2",
                   "--jobs", "2", "--sandbox", "rlimit", "--seed", "1", "--name", "spread", cwd=tmp_path)
    assert spread.returncode == 0, spread.stderr
    budget = 600
    done = arena("finals", "-t", "spread", "--top", "3", "--confidence", "0.9", "--max-games", str(budget),
                 "--jobs", "2", "--sandbox", "none", cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "sandbox: none" in done.stderr  # the option given, not the tournament's rlimit
    rows = _finals_board(tmp_path, "spread-finals")
    # Well spread, every step is decided in the true order, long before the budget is spent.
    assert [r["bot"] for r in rows] == ["p100", "p050", "p000"]
    assert [r["rank"] for r in rows] == [1, 2, 3] and [r["decided"] for r in rows] == [True, True, False]
    played = _games(tmp_path, "spread-finals")
    assert played < budget / 2, played
    assert _sandbox_level(tmp_path, "spread") == "rlimit" and _sandbox_level(tmp_path, "spread-finals") == "none"

    # The same field with a second copy of the weakest bot: the steps decided are in the true order, and the two
    # copies share a rank once the budget is spent on them.
    twins = arena("tournament", "bali-2017", *(f"{n}={MIXED} {p}" for n, p in {**levels, "q000": 0.0}.items()),
                  "--seats", "2", "--jobs", "2", "--sandbox", "rlimit", "--seed", "1", "--name", "twins", cwd=tmp_path)
    assert twins.returncode == 0, twins.stderr
    done = arena("finals", "-t", "twins", "--top", "4", "--confidence", "0.9", "--max-games", "240", "--jobs", "2",
                 cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "sandbox: rlimit" in done.stderr  # no sandbox option: the tournament's own
    assert _sandbox_level(tmp_path, "twins-finals") == "rlimit"
    rows = _finals_board(tmp_path, "twins-finals")
    order = [r["bot"] for r in rows]
    strength = {**levels, "q000": 0.0}
    for above, below in zip(rows, rows[1:]):
        if above["decided"]:
            assert strength[above["bot"]] > strength[below["bot"]], rows
    assert order[:2] == ["p100", "p050"] and sorted(order[2:]) == ["p000", "q000"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 3] and [r["decided"] for r in rows] == [True, True, False, False]
    assert _games(tmp_path, "twins-finals") == 240
