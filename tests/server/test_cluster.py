"""`arena serve --cluster` through a real Dask scheduler and two workers that cannot see the competition's folder:
uploads admitted and refused on the workers, every bot under a worker, a worker killed mid-season."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT, dask_command, free_port, kill_trees, parent_of, wait_until
from tests.server.conftest import ENV, Server, kit_bot, stop, upload, zipped

pytest.importorskip("distributed")
pytestmark = pytest.mark.slow  # real Dask schedulers and workers, and arena serve on them
hidden_from_workers = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                         reason="the workers hide the competition's folder in a mount namespace (root)")
# Seconds a step (an admission, games) may take on a machine shared with others; waited in full only on failure.
BUSY = 120
# No statistical profiler in the workers (docs/cluster.md), as the documentation says to start them.
WORKER_ENV = {**ENV, "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


def _workers_seen(address: str) -> int:
    from distributed import Client
    try:
        with Client(address, timeout=5) as client:
            return len(client.scheduler_info()["workers"])
    except OSError:
        return 0


@dataclass
class Cluster:
    """A scheduler and two one-thread workers; the workers see an empty folder where the competition's is."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]


@pytest.fixture
def competition(tmp_path: Path) -> Path:
    """The competition's folder (results, uploads, store), which no worker sees."""
    folder = tmp_path / "competition"
    folder.mkdir()
    return folder


def _start(tmp_path: Path, competition: Path, port: int, started: list[subprocess.Popen[bytes]]) -> Cluster:
    """A scheduler on port and two workers (whose folders are made on first use), added to `started`."""
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(dask_command("scheduler", "--host", "127.0.0.1", "--port", str(port),
                                              "--no-dashboard"), cwd=tmp_path, env=WORKER_ENV,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started.append(scheduler)
    workers = []
    for n in range(2):
        home = tmp_path / f"worker{n}"
        home.mkdir(exist_ok=True)
        # Its own mount namespace, the competition's folder an empty tmpfs in it; then exec: the worker's pid is
        # this process's.
        hide = f"mount -t tmpfs none {competition} && exec \"$@\""
        workers.append(subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh",
                                         *dask_command("worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                                "--no-nanny", "--no-dashboard", "--local-directory", str(home))],
                                        cwd=home, env=WORKER_ENV, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
        started.append(workers[-1])
    assert wait_until(lambda: _workers_seen(address) == 2, 60), "the cluster did not start"
    return Cluster(address, scheduler, workers)



@pytest.fixture
def cluster(tmp_path: Path, competition: Path, started: list[subprocess.Popen[bytes]]) -> Cluster:
    """A scheduler and two workers that cannot see the competition's folder."""
    return _start(tmp_path, competition, free_port(), started)


def _serve(competition: Path, address: str, *args: str) -> tuple[Server, Path]:
    """`arena serve --cluster address` over the competition's folder: the server and its log."""
    results = competition / "results"
    log = competition.parent / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "2",
                                    "--results", str(results), "--cluster", address, "--insecure-cluster", *args],
                                   cwd=ROOT, env=ENV,
                                   stdout=subprocess.PIPE, stderr=err, text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), (line, log.read_text())
    return Server(line.split()[-1], results, process), log


def _said(log: Path) -> str:
    """The end of the server's log without its access lines: what it said of the season."""
    lines = [line for line in log.read_text().splitlines() if '"GET ' not in line and '"POST ' not in line]
    return "\n".join(lines[-40:])


def _ancestors(pid: int) -> list[int]:
    chain = []
    while (parent := parent_of(pid)) not in (None, 0, 1):
        chain.append(parent)
        pid = parent
    return chain


def _bots() -> list[int]:
    """Pids of the bot processes running on this machine (an upload's `python3 bot.py`, a sample bot)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"bot.py" in argv or any(a.startswith(b"sample_bots.") for a in argv):
            found.append(int(pid))
    return found


def _games(results: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(results / "arena.sqlite") as db:
        return list(db.execute("SELECT seq, status FROM games g JOIN tournaments t ON g.tournament_id = t.id "
                               "WHERE t.name = 'bali-2001-ladder' ORDER BY seq"))


def _played(results: Path, bot: str) -> int:
    """Ladder games the bot has finished."""
    with sqlite3.connect(results / "arena.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM seats s JOIN games g ON s.game_id = g.id WHERE s.name = ? AND "
                          "g.status = 'done'", (bot,)).fetchone()[0]


@hidden_from_workers
def test_uploads_are_admitted_and_refused_on_workers_that_cannot_see_the_competition_and_no_bot_runs_here(
        tmp_path: Path, competition: Path, cluster: Cluster) -> None:
    server, log = _serve(competition, cluster.address)
    try:
        _, alice = server.author("alice")
        _, carol = server.author("carol")
        good = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot")))
        crasher = kit_bot(tmp_path / "crashbot")
        (crasher / "bot.py").write_text("import sys\nprint('crashing on purpose', file=sys.stderr)\nsys.exit(3)\n")
        bad = upload(server, carol, zipped(crasher))
        assert good.status_code == bad.status_code == 202, (good.text, bad.text)
        gid, bid = good.json()["id"], bad.json()["id"]
        done = ("admitted", "refused")
        assert wait_until(lambda: server.status(alice, gid)["status"] in done and
                          server.status(carol, bid)["status"] in done, BUSY), _said(log)
        assert server.status(alice, gid)["status"] == "admitted", server.status(alice, gid)
        refused = server.status(carol, bid)
        assert refused["status"] == "refused" and "failed its first game" in refused["reason"], refused
        assert str(tmp_path) not in refused["reason"] and "dask-scratch" not in refused["reason"]
        # The game that refused it, played on a worker, kept here for its author's replay.
        assert refused["replay"].startswith(f"/me/submissions/{bid}/game"), refused
        with server.client(carol) as c:
            replay = c.get(refused["replay"].split("#")[0])
            assert replay.status_code == 200 and "crashing on purpose" in replay.text
        # Bots run while the ladder plays: each under a worker, none under the server.
        workers = {w.pid for w in cluster.workers}
        seen: set[int] = set()

        def bots_under_workers() -> bool:
            for pid in _bots():
                chain = _ancestors(pid)
                assert server.process.pid not in chain, f"bot {pid} runs under the server"
                if workers & set(chain):
                    seen.add(pid)
            return len(seen) >= 3
        assert wait_until(bots_under_workers, BUSY), "no bot seen under a worker"
        with server.client() as c:
            assert wait_until(lambda: any(r["name"] == "alicebot" and r["games"] >= 1
                                          for r in c.get("/api/leaderboard").json()), BUSY)
        # The built folder was kept by the server for the workers; nothing was built or run here.
        assert list((server.results / "built").glob("*.tar.gz"))
    finally:
        status = stop(server.process)
    assert status == 130, _said(log)
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    assert "playing on the Dask cluster at" in text
    seqs = [seq for seq, _ in _games(server.results)]
    assert len(seqs) == len(set(seqs))


@hidden_from_workers
def test_a_worker_killed_mid_season_loses_and_doubles_no_game(competition: Path, cluster: Cluster) -> None:
    server, log = _serve(competition, cluster.address, "--seats", "3")
    try:
        assert wait_until(lambda: len(_games(server.results)) >= 4, BUSY), _said(log)
        victim = cluster.workers[0]
        assert wait_until(lambda: any(victim.pid in _ancestors(pid) for pid in _bots()), 30), "worker 0 idle"
        at_kill = len(_games(server.results))
        os.kill(victim.pid, signal.SIGKILL)
        assert victim.wait(10) == -signal.SIGKILL
        # The season goes on with the other worker.
        assert wait_until(lambda: len(_games(server.results)) >= at_kill + 6, BUSY), _said(log)
    finally:
        status = stop(server.process)
    assert status == 130
    games = _games(server.results)
    seqs = [seq for seq, _ in games]
    assert len(seqs) == len(set(seqs)), "a game stored twice"
    assert all(status == "done" for _, status in games), games
    # Every game of the waves played is stored (the store keeps only finished games: none was lost); a table cut
    # by the stop may leave a gap only at the end.
    assert seqs == list(range(len(seqs))) or max(seqs) - len(seqs) < 6, seqs
    assert "Traceback" not in log.read_text()


def test_an_unreachable_scheduler_is_a_usage_error_before_serving(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    r = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--results",
                        str(tmp_path / "results"), "--cluster", address, "--insecure-cluster"], cwd=ROOT, env=ENV,
                       capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert f"cannot reach the Dask scheduler at {address}" in r.stderr and "Traceback" not in r.stderr
    assert "serving on" not in r.stdout


def test_the_cluster_is_a_setting_of_the_competition_file(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    config = tmp_path / "competition.toml"
    config.write_text(f'[serve]\ncluster = "{address}"\ninsecure_cluster = true\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--config", str(config), "--port", "0",
                        "--results", str(tmp_path / "results")], cwd=ROOT, env=ENV, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and f"cannot reach the Dask scheduler at {address}" in r.stderr, r.stderr


@hidden_from_workers
def test_a_lost_scheduler_is_logged_the_pages_still_served_and_the_season_resumes_when_it_returns(
        tmp_path: Path, competition: Path, cluster: Cluster, started: list[subprocess.Popen[bytes]]) -> None:
    server, log = _serve(competition, cluster.address)
    try:
        _, alice = server.author("alice")
        sid = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot"))).json()["id"]
        assert wait_until(lambda: server.status(alice, sid)["status"] == "admitted", BUSY), _said(log)
        assert wait_until(lambda: _played(server.results, "alicebot") >= 1, BUSY), _said(log)
        kill_trees(started)  # the scheduler and its workers gone (the workers end without it anyway)
        started.clear()
        assert wait_until(lambda: "was lost" in log.read_text() or "cannot reach" in log.read_text(), BUSY), \
            _said(log)
        with server.client() as c:
            assert c.get("/").status_code == 200 and c.get("/api/leaderboard").status_code == 200
        before = _played(server.results, "alicebot")
        _start(tmp_path, competition, int(cluster.address.rsplit(":", 1)[1]), started)  # as systemd would
        # The new scheduler holds nothing of before: the upload's built folder is sent again.
        assert wait_until(lambda: _played(server.results, "alicebot") >= before + 2, BUSY), _said(log)
    finally:
        status = stop(server.process)
    assert status == 130
    text = log.read_text()
    assert "Traceback" not in text, _said(log)
    assert text.count("was lost") == 1 and ("is reached again" in text or text.count("playing on the Dask") == 2)


@hidden_from_workers
def test_a_worker_lost_mid_build_leaves_the_admission_to_another_worker(tmp_path: Path, competition: Path,
                                                                        cluster: Cluster) -> None:
    server, log = _serve(competition, cluster.address)
    try:
        _, alice = server.author("alice")
        bot = kit_bot(tmp_path / "slowbuild")
        manifest = bot / "manifest.toml"
        manifest.write_text("\n".join(line for line in manifest.read_text().splitlines()
                                      if not line.startswith("build")) + '\nbuild = ["sleep", "6"]\n')
        sid = upload(server, alice, zipped(bot)).json()["id"]

        def building_on() -> subprocess.Popen[bytes] | None:
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if argv[:2] == [b"sleep", b"6"]:
                    chain = _ancestors(int(pid))
                    return next((w for w in cluster.workers if w.pid in chain), None)
            return None
        assert wait_until(building_on, BUSY), _said(log)
        worker = building_on()
        assert worker is not None and server.process.pid not in _ancestors(worker.pid)
        os.kill(worker.pid, signal.SIGKILL)
        assert wait_until(lambda: server.status(alice, sid)["status"] in ("admitted", "refused"), BUSY)
        assert server.status(alice, sid)["status"] == "admitted", server.status(alice, sid)
    finally:
        status = stop(server.process)
    assert status == 130
    assert "Traceback" not in log.read_text(), _said(log)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificate with openssl")
def test_a_tls_cluster_with_dask_s_own_tls_settings_plays_the_ladder(tmp_path: Path) -> None:
    # One self-signed certificate, the CA of all: the scheduler, the worker and the server hold it.
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-subj", "/CN=127.0.0.1", "-days", "1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    tls = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
           "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(cert),
           **{f"DASK_DISTRIBUTED__COMM__TLS__{who}__{what.upper()}": str(path)
              for who in ("SCHEDULER", "WORKER", "CLIENT") for what, path in (("cert", cert), ("key", key))}}
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    procs = [subprocess.Popen(dask_command("scheduler", "--host", "127.0.0.1", "--port", str(port), "--protocol", "tls",
                                    "--no-dashboard"), cwd=tmp_path, env={**WORKER_ENV, **tls},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        procs.append(subprocess.Popen(dask_command("worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                                   "--no-nanny", "--no-dashboard"), cwd=tmp_path,
                                      env={**WORKER_ENV, **tls}, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
        results = tmp_path / "results"
        log = tmp_path / "serve.log"
        # Without the settings, the server cannot reach the scheduler: a usage error, before anything is served.
        plain = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--results",
                                str(results), "--cluster", address], cwd=ROOT, env=ENV, capture_output=True,
                               text=True, timeout=60)
        assert plain.returncode == 2 and "needs the client's certificate" in plain.stderr, plain.stderr
        with open(log, "w") as err:
            server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0",
                                       "--results", str(results), "--cluster", address], cwd=ROOT,
                                      env={**ENV, **tls}, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert server.stdout is not None and server.stdout.readline().startswith("serving on"), _said(log)
            assert wait_until(lambda: (results / "arena.sqlite").exists() and len(_games(results)) >= 2, BUSY), \
                _said(log)
        finally:
            assert stop(server) == 130
        assert "Traceback" not in log.read_text(), _said(log)
    finally:
        kill_trees(procs)
