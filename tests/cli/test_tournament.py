"""`arena tournament` as a user runs it: real bots, a real SQLite file, killed and resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.helpers import (
    RANDOM,
    ROOT,
    arena,
    bots,
    parent_of,
    processes_in,
    processes_with,
    ratings,
    stored,
    stored_count,
    wait_until,
)


@pytest.mark.slow
def test_round_robin_stores_every_game_and_prints_the_leaderboard(tmp_path: Path) -> None:
    r = arena("tournament", "bali-2017", *bots(4), "--seats", "3", "--jobs", "1", "--timeout", "5",
              cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rank" in r.stdout and all(f"r{i}" in r.stdout for i in range(4))
    assert "12/12 games" in r.stderr  # plain progress lines when not on a terminal
    games = stored(tmp_path / "results" / "arena.sqlite")
    assert sorted(games) == list(range(12)) and all(len(g) == 3 for g in games.values())
    again = arena("tournament", "bali-2017", *bots(4), "--seats", "3", "--jobs", "1", "--timeout", "5",
                  cwd=tmp_path)
    assert again.returncode == 0 and stored(tmp_path / "results" / "arena.sqlite") == games  # nothing replayed


@pytest.mark.slow
def test_jobs_2_gives_the_same_ratings_as_jobs_1(tmp_path: Path) -> None:
    for jobs in ("1", "2"):
        r = arena("tournament", "bali-2017", *bots(4), "--seats", "3", "--jobs", jobs, "--results", jobs,
                  "--duplicate", "--seed", "0", cwd=tmp_path)  # a public seed: the two runs deal alike
        assert r.returncode == 0, r.stderr
    one, two = ratings(tmp_path / "1" / "arena.sqlite"), ratings(tmp_path / "2" / "arena.sqlite")
    assert one == two and len(one) == 4
    strip = {seq: tuple(row[1:] for row in g) for seq, g in stored(tmp_path / "1" / "arena.sqlite").items()}
    assert strip == {seq: tuple(row[1:] for row in g) for seq, g in stored(tmp_path / "2" / "arena.sqlite").items()}


@pytest.mark.slow
def test_sigkill_mid_tournament_then_the_same_command_resumes_losing_and_doubling_nothing(tmp_path: Path) -> None:
    # A public seed, so that a clean run deals what the killed one dealt (a resumed one reuses its stored secret).
    args = ["tournament", "bali-2017", *bots(5), "--seats", "3", "--jobs", "2", "--seed", "0"]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    db = run_dir / "results" / "arena.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=run_dir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    part_way = wait_until(lambda: stored_count(db) >= 6, 120)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = stored(db)
    assert part_way and 6 <= len(before) < 30, "the tournament should have been killed part-way"
    # Worker processes and bots die with the arena (they share its working directory, so they would show).
    assert wait_until(lambda: not processes_in(run_dir)), f"left behind: {processes_in(run_dir)}"
    resumed = arena(*args, cwd=run_dir)
    assert resumed.returncode == 0, resumed.stderr
    after = stored(db)
    assert sorted(after) == list(range(30))
    assert {seq: after[seq] for seq in before} == before  # finished games kept as they were
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 30
        assert con.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 90
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    assert arena(*args, cwd=clean_dir).returncode == 0
    assert ratings(db) == ratings(clean_dir / "results" / "arena.sqlite")


def _manifest(folder: Path, text: str) -> None:
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: _manifest(d / "subs" / "a", "name = 'a'\ncommand = [unclosed"), ["--submissions", "subs"],
     "not valid TOML"),
    (lambda d: _manifest(d / "subs" / "a", "name = 'a'\nversion = '1'"), ["--submissions", "subs"],
     "missing field 'command'"),
    (lambda d: _manifest(d / "subs" / "a", "name = 'a'\nversion = '1'\ncommand = 'no-such-program-xyz'"),
     ["--submissions", "subs"], "'no-such-program-xyz' is not found"),
    (lambda d: _manifest(d / "subs" / "a", "name = 'a b'\nversion = '1'\ncommand = 'true'"),
     ["--submissions", "subs"], "name 'a b' must be"),
    (lambda d: None, ["--submissions", "nowhere"], "does not exist"),
    (lambda d: None, [f"a={RANDOM}", f"a={RANDOM}", RANDOM], "duplicate bot name 'a'"),
    (lambda d: None, ["a=" + RANDOM, "b=" + RANDOM], "2 entrants cannot fill a table of 3 seats"),
    (lambda d: None, ["a=" + RANDOM, "b=" + RANDOM, "c=" + RANDOM, "--seats", "5"], "not 5"),
    (lambda d: None, ["a=python3 missing_bot.py", "b=" + RANDOM, "c=" + RANDOM], "'missing_bot.py' does not exist"),
    (lambda d: None, ["a=" + RANDOM, "b=" + RANDOM, "c=" + RANDOM, "--format", "ladder"], "--games or --time-limit"),
    (lambda d: None, ["a=" + RANDOM, "b=" + RANDOM, "c=" + RANDOM, "-o", "masks=[1]"], "masks"),
])
def test_bad_entrants_and_settings_exit_2_before_any_game(tmp_path: Path, setup, args: list[str],
                                                           message: str) -> None:
    setup(tmp_path)
    r = arena("tournament", "bali-2001", *args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "results" / "arena.sqlite").exists()


@pytest.mark.slow
def test_resuming_a_name_with_other_settings_is_refused(tmp_path: Path) -> None:
    assert arena("tournament", "bali-2001", *bots(3), "--name", "cup", "--jobs", "1", cwd=tmp_path).returncode == 0
    r = arena("tournament", "bali-2001", *bots(3), "--name", "cup", "--seed", "9", cwd=tmp_path)
    assert r.returncode == 2 and "already exists" in r.stderr


@pytest.mark.slow
def test_submission_folders_run_in_their_own_directory(tmp_path: Path) -> None:
    for name in ("alpha", "beta", "gamma"):
        folder = tmp_path / "subs" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text("from protocol import run_bot\nfrom sample_bots.random_bot import RandomBot\n"
                                       "run_bot(RandomBot())\n", encoding="utf-8")
        (folder / "manifest.toml").write_text(
            f"name = '{name}'\nversion = '2.0'\nauthor = 'Ann'\ncommand = ['{sys.executable}', 'bot.py']\n",
            encoding="utf-8")
    r = arena("tournament", "bali-2001", "--submissions", "subs", "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        assert sorted(con.execute("SELECT name, version, author FROM bots")) == [
            ("alpha", "2.0", "Ann"), ("beta", "2.0", "Ann"), ("gamma", "2.0", "Ann")]
        assert con.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
    # Every folder's script is bot.py: records, replays and game pages name each seat by its manifest's name.
    records = sorted((tmp_path / "results" / "matches").glob("*/game-*.json"))
    entrants = {tuple(s["entrant"] for s in json.loads(r.read_text())["seats"]) for r in records}
    assert {frozenset(names) for names in entrants} == {frozenset({"alpha", "beta", "gamma"})}
    replayed = arena("replay", str(records[-1]), cwd=tmp_path)
    assert replayed.returncode == 0 and "alpha (random)" in replayed.stdout and "bot (" not in replayed.stdout
    assert arena("publish", "-o", "site", cwd=tmp_path).returncode == 0
    page = next((tmp_path / "site").glob("*/games/1.html")).read_text(encoding="utf-8")
    assert '"alpha (random)"' in page and '"bot (random)"' not in page


@pytest.mark.slow
def test_round_robin_of_the_sample_bots_ranks_the_heuristic_bot_above_the_random_bots(tmp_path: Path) -> None:
    heuristic = f"heuristic={sys.executable} -m sample_bots.heuristic_bot"
    r = arena("tournament", "bali-2017", heuristic, *bots(3), "--seats", "3", "--rounds", "2", "--jobs", "2",
              "--format", "round-robin", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert board["ranking"][0]["bot"] == "heuristic"
    assert board["ranking"][0]["games"] == 18 and board["ranking"][0]["fault_rate"] == 0


@pytest.mark.slow
def test_gauntlet_fills_the_table_with_the_sample_bots(tmp_path: Path) -> None:
    r = arena("tournament", "bali-2017", f"mine={RANDOM}", "--format", "gauntlet", "--seats", "4", "--rounds", "1",
              "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert sorted(row["bot"] for row in board["ranking"]) == ["heuristic_bot", "mine", "random_bot", "random_bot-2"]
    assert all(row["games"] == 4 and row["fault_rate"] == 0 for row in board["ranking"])


@pytest.mark.slow
def test_a_lone_gauntlet_challenger_fills_the_largest_table_and_plays_enough_games_to_be_rated(
        tmp_path: Path) -> None:
    # The default schedule is 8 rounds of a table of 4; the time limit stops it after its first table, and the
    # same command resumes it (to play it all is a soak test's work).
    r = arena("tournament", "bali-2001", f"mine={RANDOM}", "--format", "gauntlet", "--jobs", "1", "--time-limit",
              "0.01", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "/32 games" in r.stderr and "not complete" in r.stderr
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert sorted(row["bot"] for row in board["ranking"]) == ["heuristic_bot", "mine", "random_bot", "random_bot-2"]
    assert all(row["games"] == 4 for row in board["ranking"])  # one table, in each seat rotation
    assert "play 32 games" in arena("tournament", "--help", cwd=tmp_path).stdout.replace("\n", " ").replace("  ", " ")


@pytest.mark.slow
def test_sigterm_stops_a_parallel_tournament_and_every_worker_and_bot_with_it(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    # A slow but correct bot: a table takes minutes, so only stopping the workers ends the tournament in time.
    slow = tmp_path / "slow_bot.py"
    slow.write_text("import time\nfrom protocol import run_bot\n"
                    "run_bot(lambda view, options, decision: time.sleep(0.05) or 0, name='slow')\n")
    bot = f"{sys.executable} {slow} {marker}"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "bali-2001", *(f"{n}={bot}" for n in "abcd"),
                             "--seats", "3", "--jobs", "2", "--results", str(tmp_path), "--sandbox", "rlimit"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        # rlimit: one process per bot, so the count below is exact (bwrap adds its own processes per bot).
        assert wait_until(lambda: len(processes_with(marker, proc.pid)) == 6), "two tables of bots did not start"
        workers = [pid for pid in processes_with("spawn_main", proc.pid) if parent_of(pid) == proc.pid]
        assert len(workers) == 2
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 130 and "run the same command to resume" in err
        assert wait_until(lambda: not processes_with(marker, proc.pid)), "bots outlived the tournament"
        assert wait_until(lambda: not any(Path(f"/proc/{pid}").exists() and parent_of(pid) is not None
                                           for pid in workers)), "worker processes outlived the tournament"
    finally:
        proc.kill()
        proc.wait()
        for pid in processes_with(marker, proc.pid):
            os.kill(pid, signal.SIGKILL)
    with sqlite3.connect(tmp_path / "arena.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games m WHERE (SELECT COUNT(*) FROM seats s "
                           "WHERE s.game_id = m.id) != 3").fetchone()[0] == 0


@pytest.mark.slow
def test_ladder_plays_its_games_in_waves_the_same_with_one_or_two_workers(tmp_path: Path) -> None:
    heuristic = f"heuristic={sys.executable} -m sample_bots.heuristic_bot"
    for jobs in ("1", "2"):
        r = arena("tournament", "bali-2017", heuristic, *bots(4), "--format", "ladder", "--seats", "3",
                  "--wave", "2", "--games", "12", "--jobs", jobs, "--results", jobs, "--seed", "0", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    one, two = stored(tmp_path / "1" / "arena.sqlite"), stored(tmp_path / "2" / "arena.sqlite")
    assert sorted(one) == list(range(12))
    assert {seq: tuple(row[1:] for row in g) for seq, g in one.items()} == \
        {seq: tuple(row[1:] for row in g) for seq, g in two.items()}
    assert ratings(tmp_path / "1" / "arena.sqlite") == ratings(tmp_path / "2" / "arena.sqlite")
    tables = {frozenset(row[2] for row in g) for g in one.values()}
    assert len(tables) > 1  # later waves are chosen from the ratings, not one table over and over
