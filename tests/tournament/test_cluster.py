"""`arena tournament --cluster` through a real Dask scheduler and workers on localhost, one of them killed."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from arena.bots.submission import folder_digest
from arena.cli import main
from arena.storage import StoredGame
from arena.tournament import cluster
from arena.tournament.formats import Table
from arena.tournament.run import TableResult
from tests.helpers import arena, bots, dask_command, free_port, processes_in, ratings, stored, stored_count, wait_until

pytest.importorskip("distributed")


def workers_seen(address: str) -> int:
    from distributed import Client
    with Client(address, timeout=10) as client:
        return len(client.scheduler_info()["workers"])


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen], list[Path]]]:
    """A scheduler and two one-thread workers on 127.0.0.1, each worker in its own directory; all killed after."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started: list[subprocess.Popen] = []
    dirs = [tmp_path / f"worker{i}" for i in range(2)]
    try:
        started.append(subprocess.Popen(dask_command("scheduler", "--host", "127.0.0.1", "--port", str(port),
                                              "--no-dashboard"), cwd=tmp_path, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
        for directory in dirs:
            directory.mkdir()
            started.append(subprocess.Popen(dask_command("worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                                  "--no-nanny", "--no-dashboard"), cwd=directory,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
        assert wait_until(lambda: _reachable(port) and workers_seen(address) == 2, 30), "the cluster did not start"
        yield address, started[1:], dirs
    finally:
        for proc in started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for directory in dirs:  # bots left by a killed worker (they run in its directory)
            for pid in processes_in(directory):
                os.kill(pid, signal.SIGKILL)


def _reachable(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_doubles_nothing_and_ratings_equal_a_local_run(
        tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen], list[Path]]) -> None:
    address, workers, dirs = dask_cluster
    # A public seed: the local run must deal what the cluster dealt (each run draws its own secret otherwise).
    args = ["tournament", "bali-2017", *bots(5), "--seats", "3", "--duplicate", "--seed", "0"]
    total = 30
    run_dir = tmp_path / "cluster"
    run_dir.mkdir()
    db = run_dir / "results" / "arena.sqlite"
    # A plain tcp:// scheduler of the test's own, on the loopback of a machine whose users the test trusts.
    proc = subprocess.Popen([sys.executable, "-m", "arena", *args, "--cluster", address, "--insecure-cluster"],
                            cwd=run_dir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # The first worker is playing a table (its bots run in its directory) and the tournament is part-way.
        playing = wait_until(lambda: len(processes_in(dirs[0])) > 1 and 3 <= stored_count(db) < total - 6, 60)
        at_kill = stored_count(db)
        os.killpg(workers[0].pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert playing and at_kill < total, "the worker should have been killed while it played a table"
    assert proc.returncode == 0, err
    assert workers[0].wait(timeout=10) == -signal.SIGKILL
    local = arena(*args, "--jobs", "1", "--results", "local", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    local_db = tmp_path / "local" / "arena.sqlite"
    on_cluster = stored(db)
    assert sorted(on_cluster) == list(range(total))
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == total
        assert con.execute("SELECT COUNT(*) FROM games WHERE status != 'done'").fetchone()[0] == 0
        replays = dict(con.execute("SELECT seq, replay FROM games"))
    strip = {seq: tuple(row[1:] for row in g) for seq, g in on_cluster.items()}
    assert strip == {seq: tuple(row[1:] for row in g) for seq, g in stored(local_db).items()}
    assert ratings(db) == ratings(local_db) and len(ratings(db)) == 5
    with sqlite3.connect(local_db) as con:
        local_replays = dict(con.execute("SELECT seq, replay FROM games"))
    for seq, replay in replays.items():  # written by the coordinator from the bytes the workers returned
        mine = json.loads((run_dir / "results" / replay).read_text())
        theirs = json.loads((tmp_path / "local" / local_replays[seq]).read_text())
        assert (mine["seed"], mine["result"], mine["ranks"]) == (theirs["seed"], theirs["result"], theirs["ranks"])
    assert "rank" in out


@pytest.mark.slow
def test_the_local_clusters_workers_run_without_dasks_profiler_and_so_does_a_worker_that_replaces_a_dead_one() -> None:
    def profiled(dask_worker: object) -> bool:
        return "profile" in dask_worker.periodic_callbacks  # type: ignore[attr-defined]

    client, local, credentials = cluster._connect(cluster.LOCAL, 1)
    try:
        assert list(client.run(profiled).values()) == [False]
        first = list(client.scheduler_info()["workers"])
        for pid in client.run(os.getpid).values():
            os.kill(pid, signal.SIGKILL)  # the worker dies; its nanny starts another
        assert wait_until(lambda: set(client.scheduler_info()["workers"]) - set(first), 60), "no worker came back"
        assert list(client.run(profiled).values()) == [False]
    finally:
        client.close()
        cluster._close(local, credentials)


@pytest.mark.slow
def test_submission_folders_travel_through_the_cluster_once_to_a_worker_s_cache(tmp_path: Path) -> None:
    for name in ("alpha", "beta", "gamma"):
        folder = tmp_path / "subs" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text("import os, sys\nfrom protocol import run_bot\n"
                                       "from sample_bots.random_bot import RandomBot\n"
                                       "print('cwd', os.getcwd(), file=sys.stderr, flush=True)\n"
                                       "run_bot(RandomBot())\n", encoding="utf-8")
        (folder / "manifest.toml").write_text(f"name = '{name}'\nversion = '1'\n"
                                              f"command = ['{sys.executable}', 'bot.py']\n", encoding="utf-8")
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--cluster", "local", "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    logs = [p.read_text() for p in (tmp_path / "results" / "matches").glob("*/logs/*stderr*")]
    cwds = [line.split(" ", 1)[1] for text in logs for line in text.splitlines() if line.startswith("cwd ")]
    # Each bot ran in its folder's copy in the worker's cache, named by the folder's digest.
    digests = {name: folder_digest(tmp_path / "subs" / name) for name in ("alpha", "beta", "gamma")}
    assert len(cwds) == 3 and {Path(c).name for c in cwds} == set(digests.values())
    assert all(Path(c).parent.name == cluster.CACHE_DIR and str(tmp_path / "subs") not in c for c in cwds)
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0] == 3
        assert con.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0


def test_an_unreachable_scheduler_is_a_usage_error_before_any_game(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    monkeypatch.chdir(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    r = CliRunner().invoke(main, ["tournament", "bali-2001", *bots(3), "--cluster", address, "--insecure-cluster"])
    assert r.exit_code == 2 and f"cannot reach the Dask scheduler at {address}" in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert not (tmp_path / "results" / "arena.sqlite").exists()


def test_without_dask_installed_cluster_says_how_to_install_it(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["tournament", "bali-2001", *bots(3), "--cluster", "local"])
    assert r.exit_code == 2 and "pip install 'bali-arena[cluster]'" in r.output
    assert not (tmp_path / "results" / "arena.sqlite").exists()


def test_landing_renames_a_match_directory_that_exists_and_refuses_paths_outside(tmp_path: Path) -> None:
    table = Table(0, 0, ("a", "b", "c"), 7, False)
    game = StoredGame(0, 0, 7, ("a", "b", "c"), "done", "end", replay="matches/m1/game-0001.json")
    played = cluster.PlayedTable(TableResult(table, (game,)), (("matches/m1/game-0001.json", b"{}"),))
    (tmp_path / "matches" / "m1").mkdir(parents=True)
    landed = cluster.land(played, tmp_path)
    assert landed.games[0].replay == "matches/m1-c1/game-0001.json"
    assert (tmp_path / "matches" / "m1-c1" / "game-0001.json").read_bytes() == b"{}"
    evil = cluster.PlayedTable(TableResult(table, (game,)), (("matches/../../x", b"!"),))
    with pytest.raises(cluster.ArenaError, match="outside the results directory"):
        cluster.land(evil, tmp_path)
    assert not (tmp_path.parent / "x").exists()


def test_a_worker_that_cannot_give_the_sandbox_refuses_the_table(tmp_path: Path) -> None:
    from arena.bots.sandbox import Limits, Sandbox
    from arena.tournament.run import TableJob
    from protocol import TimeControl
    job = TableJob("bali-2001", None, Table(0, 0, ("a", "b", "c"), 7, False), ((("true",), None),) * 3,
                   TimeControl(), False, tmp_path, Sandbox(limits=Limits(memory=0)))
    with pytest.raises(cluster.ConfigError, match="every limit must be positive"):
        cluster.play_shipped(cluster.ShippedTable(job, ()))


def test_a_table_no_worker_can_play_stops_the_tournament_with_the_reason(tmp_path: Path) -> None:
    from arena.bots.sandbox import Limits, Sandbox
    from arena.tournament.run import TableJob
    from protocol import TimeControl
    job = TableJob("bali-2001", None, Table(0, 0, ("a", "b", "c"), 7, False), ((("true",), None),) * 3,
                   TimeControl(), False, tmp_path, Sandbox(limits=Limits(memory=0)))
    with cluster.ClusterPlayer(cluster.LOCAL, 1, tmp_path) as player:
        with pytest.raises(cluster.ArenaError, match=r"table 0 could not be played .* every limit must be positive"):
            list(player.results([job], lambda: False))


def _take(parcel: cluster.Parcel) -> str:
    """On a worker: the parcel's cached copy, fetched if need be (then let go of)."""
    path = cluster.CACHE.take(parcel)
    cluster.CACHE.give_back(parcel.digest)
    return str(path)


@pytest.mark.slow
def test_a_folder_reaches_a_worker_once_and_leaves_its_cache_when_its_version_is_retired(tmp_path: Path) -> None:
    folders = []
    for name in ("old", "new"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(f"# {name}\n", encoding="utf-8")
        folders.append(str(folder))
    with cluster.ClusterPlayer(cluster.LOCAL, 1, tmp_path / "results", built_dir=tmp_path / "built") as player:
        parcels = [player.parcel(folder) for folder in folders]
        assert player.parcel(folders[0]) is parcels[0]  # packed and sent once
        first = [player._client.submit(_take, p, pure=False).result() for p in parcels]
        again = player._client.submit(_take, parcels[0], pure=False).result()
        assert again == first[0] and (Path(again) / "bot.py").read_text() == "# old\n"
        assert [Path(f).name for f in first] == [p.digest for p in parcels]
        assert sorted(*player._client.run(cluster.cached_folders).values()) == sorted(p.digest for p in parcels)
        player.retire({folders[1]})  # the old version is retired
        assert list(player._client.run(cluster.cached_folders).values()) == [[parcels[1].digest]]
        assert cluster.HELD + parcels[0].digest not in player._client.list_datasets()


def test_a_worker_s_cache_keeps_within_its_size_removing_the_least_recently_used_but_never_one_in_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "CACHE_BYTES", 2500)
    cache = cluster._Cache()
    for age, name in enumerate(("oldest", "older", "newest")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "data").write_bytes(b"x" * 1000)
        os.utime(folder, (1000 + age, 1000 + age))
    cache.using["oldest"] = 1  # a table of this worker plays from it
    cache._trim(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["newest", "oldest"]
