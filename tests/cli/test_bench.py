"""`arena bench` as a user runs it: engine figures for every player count, protocol figures on request."""

from __future__ import annotations

from tests.cli.conftest import run


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
    assert "socket-bound" in header and "share" in header
    row = [line for line in r.output.splitlines() if line.startswith("bali-2017")][-1].split()  # after the engine rows
    assert len(row) == 11 and float(row[5]) > 0  # b/a
    in_process, socket_bound, subprocess_bots = (float(row[i].replace(",", "")) for i in (6, 7, 8))
    assert 0 < socket_bound < in_process  # the round trips cost something
    assert abs(float(row[9].rstrip("%")) - 100 * subprocess_bots / socket_bound) <= 2  # the share, of rounded figures


def test_bench_sandbox_reports_start_up_and_round_trip_per_level() -> None:
    r = run("bench", "--game", "bali-2017", "--count", "2", "--sandbox", "--starts", "1", "--round-trips", "50")
    assert r.exit_code == 0, r.output
    rows = {line.split()[1]: line.split() for line in r.output.splitlines()
            if line.startswith("bali-2017") and len(line.split()) >= 5 and not line.split()[1].isdigit()}
    assert {"none", "rlimit", "auto"} <= set(rows)
    assert float(rows["none"][-1]) == 1.0 and all(float(row[-3]) > 0 for row in rows.values())  # start-up ms
