"""Browsing a store: `arena tournaments`, readable names, unknown names listed, rerate's table, show's stderr."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, arena, bots

FAULTY = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'faulty_bot.py'}"


@pytest.mark.slow
def test_names_are_readable_and_the_same_command_resumes_the_same_tournament(tmp_path: Path) -> None:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    first = arena("tournament", "bali-2017", *bots(3), "--jobs", "1", cwd=tmp_path)
    again = arena("tournament", "bali-2017", *bots(3), "--jobs", "1", cwd=tmp_path)
    other = arena("tournament", "bali-2017", *bots(3), "--jobs", "1", "--seed", "5", cwd=tmp_path)
    titled = arena("tournament", "bali-2017", *bots(3), "--jobs", "1", "--title", "Spring Cup", cwd=tmp_path)
    assert all(r.returncode == 0 for r in (first, again, other, titled)), (first.stderr, other.stderr)
    listing = arena("tournaments", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split()[:3] == ["name", "title", "game"]
    names = [line.split()[0] for line in lines[2:]]
    assert names == [f"bali-2017-round-robin-{today}", f"bali-2017-round-robin-{today}-2", "spring-cup"]
    assert all(line.rstrip().endswith("yes") and " 3 " in line for line in lines[2:])
    assert "Spring Cup" in lines[4]
    board = arena("leaderboard", "-t", "spring-cup", cwd=tmp_path)
    assert board.returncode == 0 and board.stdout.startswith("Spring Cup: spring-cup (bali-2017, round-robin")


@pytest.mark.slow
def test_a_name_that_matches_nothing_lists_the_tournaments_there(tmp_path: Path) -> None:
    assert arena("tournament", "bali-2017", *bots(3), "--jobs", "1", "--name", "cup", cwd=tmp_path).returncode == 0
    for command in (("leaderboard",), ("matches",), ("rerate",)):
        r = arena(*command, "-t", "nope", cwd=tmp_path)
        assert r.returncode == 2, (command, r.stderr)
        assert "no tournament 'nope'" in r.stderr and "the tournaments there: cup" in r.stderr
        assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_rerate_prints_a_table_ranked_like_the_leaderboard(tmp_path: Path) -> None:
    assert arena("tournament", "bali-2017", *bots(3), "--jobs", "1", "--name", "cup", cwd=tmp_path).returncode == 0
    r = arena("rerate", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "cup: 3 games rated, 3 bots"
    assert lines[1].split() == ["bot", "conservative", "mu", "sigma", "p_above_next"]
    rows = [line.split() for line in lines[3:6]]
    assert sorted(row[0] for row in rows) == ["r0", "r1", "r2"]
    conservative = [float(row[1]) for row in rows]
    assert conservative == sorted(conservative, reverse=True)
    assert "{" not in r.stdout


@pytest.mark.slow
def test_show_prints_each_faults_stderr_tail(tmp_path: Path) -> None:
    r = arena("tournament", "bali-2017", f"bad={FAULTY} die_mid_game", *bots(2), "--jobs", "1", "--name", "cup",
              "--timeout", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = arena("show", "1", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "faults:" in shown.stdout
    assert "| faulty_bot: dying mid-game on purpose" in shown.stdout


# --- the competition file -------------------------------------------------------------------------------------------
def _tournament_and_games(db: Path) -> tuple[str, list[tuple]]:
    """The stored tournament's settings and every game's seats, as the store holds them."""
    import sqlite3
    from contextlib import closing
    with closing(sqlite3.connect(db)) as con:
        config = con.execute("SELECT config FROM tournaments").fetchone()[0]
        games = con.execute("SELECT g.seq, g.seed, g.status, s.seat, s.name, s.score, s.rank FROM games g "
                            "JOIN seats s ON s.game_id = g.id ORDER BY g.seq, s.seat").fetchall()
    return config, games


def _competition(folder: Path, extra: str = "") -> Path:
    folder.mkdir()
    path = folder / "competition.toml"
    entrants = ", ".join(f'"{bot}"' for bot in bots(3))
    path.write_text(f'''name = "cup"
title = "Winter cup"
game = "bali-2017"
format = "round-robin"
bots = [{entrants}]
rounds = 2
seed = 7
jobs = 1
results = "out"
{extra}
[time]
timeout = 0.5
init_timeout = 20

[sandbox]
level = "rlimit"

[rating]
mu = 30

[options]
oracle = true
''', encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_file_gives_the_same_tournament_as_the_same_flags_and_flags_override_it(tmp_path: Path) -> None:
    path = _competition(tmp_path / "file")
    by_file = arena("tournament", "--config", str(path), cwd=tmp_path)
    assert by_file.returncode == 0, by_file.stderr
    assert by_file.stdout.startswith("Winter cup: cup (bali-2017, round-robin, sandbox rlimit)")
    flags = tmp_path / "flags"
    flags.mkdir()
    by_flags = arena("tournament", "bali-2017", *bots(3), "--name", "cup", "--title", "Winter cup", "--format",
                     "round-robin", "--rounds", "2", "--seed", "7", "--jobs", "1", "--timeout", "0.5",
                     "--init-timeout", "20", "--sandbox", "rlimit", "--mu", "30", "--option", "oracle=true",
                     "--results", "out", cwd=flags)
    assert by_flags.returncode == 0, by_flags.stderr
    assert _tournament_and_games(path.parent / "out" / "arena.sqlite") == \
        _tournament_and_games(flags / "out" / "arena.sqlite")
    again = arena("tournament", "--config", str(path), cwd=tmp_path)
    assert again.returncode == 0 and "Winter cup" in arena("tournaments", "--results", str(path.parent / "out"),
                                                            cwd=tmp_path).stdout
    overridden = arena("tournament", "--config", str(path), "--seed", "8", cwd=tmp_path)
    assert overridden.returncode == 2 and "seed (--seed) is 7 in the store, 8 now" in overridden.stderr
    renamed = arena("tournament", "--config", str(path), "--seed", "8", "--name", "cup-8", cwd=tmp_path)
    assert renamed.returncode == 0, renamed.stderr
    import json
    import sqlite3
    from contextlib import closing
    with closing(sqlite3.connect(path.parent / "out" / "arena.sqlite")) as con:
        seeds = dict(con.execute("SELECT name, config FROM tournaments").fetchall())
    assert json.loads(seeds["cup"])["seed"] == 7 and json.loads(seeds["cup-8"])["seed"] == 8


def test_an_unknown_key_or_a_bad_value_is_one_line_naming_the_file_and_the_key(tmp_path: Path) -> None:
    cases = {"a": ('colour = "red"\n', "'colour'"), "b": ('seats = "three"\n', "'seats'"),
             "c": ('[time]\ntimeout = -1\n', "'time.timeout'")}
    for folder, (text, key) in cases.items():
        path = tmp_path / folder / "c.toml"
        path.parent.mkdir()
        path.write_text(f'game = "bali-2017"\nbots = ["{bots(3)[0]}"]\n{text}', encoding="utf-8")
        r = arena("tournament", "--config", str(path), cwd=tmp_path)
        assert r.returncode == 2, (folder, r.stderr)
        errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and str(path) in errors[0] and key in errors[0], r.stderr
        assert "Traceback" not in r.stderr
        assert not (tmp_path / "results").exists() and not (path.parent / "results").exists()
