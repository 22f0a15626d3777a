"""`arena bench` as a user runs it: engine figures for every player count, protocol figures on request."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from arena.tournament.formats.ladder import EXPOSURE
from tests.cli.conftest import run
from tests.helpers import arena


def test_bench_reports_every_player_count() -> None:
    r = run("bench", "--game", "bali-2001", "--count", "2")
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if line.startswith("bali-2001")]
    assert [row.split()[1] for row in rows] == ["3", "4"]


def test_bench_protocol_reports_round_trips_and_games_per_second() -> None:
    r = run("bench", "--game", "bali-2017", "--count", "2", "--protocol", "--round-trips", "20",
            "--match-games", "1")
    assert r.exit_code == 0, r.output
    header = next(line for line in r.output.splitlines() if "b/a" in line)
    assert "(a) raw µs" in header and "(b) arena µs" in header and "fresh processes" in header
    assert "socket-bound" in header and "share" in header and "meter's share of (b)" in header
    assert "SDK's share of (b)" in header
    row = [line for line in r.output.splitlines() if line.startswith("bali-2017")][-1].split()  # after the engine rows
    assert len(row) == 13 and float(row[7]) > 0  # b/a
    assert row[5].endswith("%") and float(row[5].rstrip("%")) < 100  # the meter's share: (b) on and off in one run
    assert row[6].endswith("%") and float(row[6].rstrip("%")) < 100  # the SDK's: (b) and the bare bot's in one run
    in_process, socket_bound, subprocess_bots = (float(row[i].replace(",", "")) for i in (8, 9, 10))
    assert 0 < socket_bound < in_process  # the round trips cost something
    assert abs(float(row[11].rstrip("%")) - 100 * subprocess_bots / socket_bound) <= 2  # the share, of rounded figures


@pytest.mark.slow
def test_bench_sandbox_reports_start_up_and_round_trip_per_level() -> None:
    r = run("bench", "--game", "bali-2017", "--count", "2", "--sandbox", "--starts", "1", "--round-trips", "50")
    assert r.exit_code == 0, r.output
    rows = {line.split()[1]: line.split() for line in r.output.splitlines()
            if line.startswith("bali-2017") and len(line.split()) >= 5 and not line.split()[1].isdigit()}
    assert {"none", "rlimit", "auto"} <= set(rows)
    assert float(rows["none"][-1]) == 1.0 and all(float(row[-3]) > 0 for row in rows.values())  # start-up ms
    # What the seccomp filter (and, as root under bubblewrap, the bots' own uids) cost: each limited level without.
    assert "rlimit, without the filter " in r.output
    if bwrap_problem() is None:
        assert ("bwrap, without the filter, as nobody" if os.geteuid() == 0 else "bwrap, without the filter") \
            in r.output


@pytest.mark.slow
def test_bench_ranking_json_has_a_row_per_field_and_rule(tmp_path: Path) -> None:
    r = arena("bench", "--ranking", "--json", "--quick", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]  # stdout is the one JSON object; progress goes to stderr
    assert {(row["bots"], row["seats"], row["spread"]) for row in rows} == {
        (bots, seats, spread) for bots in (50, 200) for seats in (2, 4) for spread in (1.0, 2.0)}
    assert {row["strategy"] for row in rows} == {"arena", "random", "rotations", "previous"} and len(rows) == 32
    for row in rows:
        assert set(row["games_to_tau"]) == {"0.8", "0.9", "0.95"}
        assert all(v is None or (isinstance(v, int) and 0 < v <= row["games"]) for v in row["games_to_tau"].values())
        assert row["games_to_top10"] is None or 0 < row["games_to_top10"] <= row["games"]
        assert row["busiest"] >= row["even_share"] > 0
    arena_rows = [row for row in rows if row["strategy"] == "arena"]
    assert all(row["busiest"] <= EXPOSURE * row["even_share"] + 1 + row["seats"] for row in arena_rows)


def test_bench_json_goes_with_ranking() -> None:
    r = run("bench", "--json")
    assert r.exit_code == 2 and "--json and --quick go with --ranking" in r.output


@pytest.mark.slow
def test_bench_season_real_plays_real_games_and_samples_the_arenas_memory(tmp_path: Path) -> None:
    r = arena("bench", "--season-real", "12", "--entrants", "6", "--jobs", "1", "--sample-every", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["seconds", "games", "stored", "arena", "MiB", "workers", "MiB"]
    samples = [line.split() for line in lines[2:-1]]
    assert samples and all(float(s[2]) > 0 for s in samples)  # the arena was alive at every sample
    assert [int(s[1].replace(",", "")) for s in samples] == sorted(int(s[1].replace(",", "")) for s in samples)
    assert lines[-1].startswith("6 entrants: 12 of 12 games stored in ")


@pytest.mark.slow
def test_bench_season_real_kills_a_worker_and_still_stores_every_game(tmp_path: Path) -> None:
    r = arena("bench", "--season-real", "96", "--entrants", "40", "--jobs", "2", "--sample-every", "1",
              "--kill-worker-at", "8", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    *table, stored, killed = r.stdout.splitlines()
    assert stored.startswith("40 entrants: 96 of 96 games stored in ")  # its table played again on a new worker
    peak = float(re.search(r"the arena's peak ([\d.]+) MiB$", stored).group(1))
    assert peak >= max([float(line.split()[2]) for line in table[2:]], default=1.0) > 0  # start and end included
    pid, at = re.fullmatch(r"worker (\d+) killed \(SIGKILL\) at (\d+) games stored", killed).groups()
    assert int(pid) > 0 and 8 <= int(at) < 96


@pytest.mark.parametrize("args", [("--season-real", "20", "--kill-worker-at", "20"),
                                  ("--season-real", "20", "--kill-worker-at", "0"),
                                  ("--kill-worker-at", "5"),
                                  ("--season-real", "20", "--kill-worker-at", "5", "--cluster")])
def test_bench_kill_worker_at_is_a_usage_error_unless_below_a_season_reals_games(args: tuple[str, ...]) -> None:
    r = run("bench", *args)
    assert r.exit_code == 2 and "--kill-worker-at" in r.output and "Traceback" not in r.output


@pytest.mark.slow
def test_bench_season_times_rerate_and_the_leaderboard_on_a_filled_store(tmp_path: Path) -> None:
    r = arena("bench", "--season", "64", "--entrants", "8", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    header, _, row = r.stdout.splitlines()[:3]
    assert "CPU ms a wave" in header and "leaderboard s" in header and "its start-up s" in header
    cells = row.split()
    assert cells[:2] == ["8", "64"] and all(float(c) >= 0 for c in cells[2:])


@pytest.mark.slow
def test_bench_known_field_ranks_real_games_of_bots_of_known_order(tmp_path: Path) -> None:
    r = arena("bench", "--known-field", "48", "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["games", "rated", "Kendall", "tau", "final", "(tau", "0)"]
    taus = [float(line.split()[2]) for line in lines[2:12]]
    assert len(taus) == 10 and taus[-1] > 0.5  # the board has the diluted heuristics mostly in their order
    board = [line.split()[1] for line in lines[13:-1] if line.split() and line.split()[0].isdigit()]
    assert sorted(board) == [f"p{p:03d}" for p in range(0, 101, 10)] and board.index("p100") < board.index("p000")
    assert lines[-1] == "48 games stored in " + lines[-1].split(" in ")[1]


@pytest.mark.slow
def test_bench_serve_season_times_the_waves_of_a_seeded_season(tmp_path: Path) -> None:
    r = arena("bench", "--serve-season", "40", cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.split() and line.split()[0] == "40")
    cells = row.split()
    assert float(cells[2]) > 0 and float(cells[3]) > 0  # the first wave's CPU, a later wave's
    assert sum(int(g) for g in cells[5:9]) > 0  # the later waves stored games


@pytest.mark.slow
@pytest.mark.parametrize("think", [(), ("--think", "5")], ids=["at-once", "thinking"])
def test_bench_season_cluster_counts_the_ladder_s_games_on_one_then_two_workers(tmp_path: Path,
                                                                                think: tuple[str, ...]) -> None:
    pytest.importorskip("distributed")
    # Admissions, then the wave under way ends before the window opens: minutes beside busy processes.
    r = arena("bench", "--season-cluster", "4", "--entrants", "4", *think, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    assert ("sleep 5 ms before each answer" in r.stderr) == bool(think), r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if re.match(r"\s*[12]\s", line)]
    assert [row[0] for row in rows] == ["1", "2"] and all(row[1] == "4" for row in rows), r.stdout
    assert all(int(row[2]) >= 1 and float(row[4]) > 0 for row in rows), r.stdout
    assert "board p95 ms" in r.stdout and all(float(row[5]) > 0 for row in rows), r.stdout  # the board was read


@pytest.mark.slow
def test_bench_export_reports_the_rate_and_peak_memory_at_each_store_size() -> None:
    r = run("bench", "--game", "bali-2017", "--count", "1", "--export", "30", "--export", "15")
    assert r.exit_code == 0, r.output
    assert "decisions/s" in r.output and "peak MiB" in r.output
    rows = [line.split() for line in r.output.splitlines() if line.startswith("bali-2017") and "cold" in line]
    assert [row[1] for row in rows] == ["15", "30"]  # smallest store first, the same ladder grown
    for row in rows:
        decisions, seconds, rate, peak = (float(row[i].replace(",", "")) for i in (3, 4, 5, 7))
        # The seconds are printed to a tenth: the rate is the decisions over seconds within that rounding.
        assert decisions > 15 * 30 and seconds > 0
        assert decisions / (seconds + 0.05) - 1 <= rate <= decisions / max(seconds - 0.05, 1e-9) + 1
        assert 20 < peak < 2000
    again = [line.split() for line in r.output.splitlines() if "nothing new" in line]
    assert [row[5] for row in again] == ["0", "0"]  # nothing written


@pytest.mark.slow
def test_bench_claims_measures_the_intervals_and_the_finals_wrong_order_rate(tmp_path: Path) -> None:
    r = arena("bench", "--claims", "--quick", "--json", "--jobs", "2", cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {(row["bots"], row["seats"], row["games_a_bot"]) for row in data["intervals"]} >= {(20, 4, 5), (50, 2, 60)}
    assert all(0 <= row["coverage"] <= 1 and row["mean_width"] >= 1 for row in data["intervals"])
    finals = {(row["field"], row["confidence"]): row for row in data["finals"]}
    spread = finals[("well spread", 0.9)]
    # A field 100 Elo apart a step is settled, in the true order, before the budget.
    assert spread["decided_steps"] == 1 and spread["wrong_order_rate"] == 0 and spread["budget_spent"] == 0
    assert finals[("all equal", 0.95)]["allowed"] == pytest.approx(0.05)
    # The real games: a short ladder of the 11 mixed bots, and one finals of the graded field (public seeds: the
    # same games every run), whose decided steps are all in the true order within its budget.
    real = data["real"]
    assert [row["games_a_bot"] for row in real["intervals"]] == [5]
    assert all(0 <= row["coverage"] <= 1 and row["mean_width"] >= 1 for row in real["intervals"])
    [run] = real["finals"]
    assert run["wrong_order"] is False and 0 < run["games"] <= 200 and run["steps_decided"] >= 1
    assert run["rerun_games"] is None or run["rerun_games"] == run["rerun_deals_a_pair"] * 2 * 6
    table = arena("bench", "--claims", "--quick", "--real", "--jobs", "2", cwd=tmp_path, timeout=900).stdout
    assert "90% intervals holding the true rank" in table and "a decided step in the wrong order" in table
    assert "runs with a step in the wrong order" not in table  # --real: the simulated fields left out
