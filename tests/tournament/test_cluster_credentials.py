"""The doors of the arena's Dask clusters: a local cluster only this run's credentials reach, a tcp:// scheduler
refused unless the organiser names the risk, and a tls:// cluster made with `arena cluster certs` that plays."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.worker import descendants
from tests.helpers import ROOT, bots, dask_command, free_port, wait_until

pytest.importorskip("distributed")
pytest.importorskip("cryptography")

NOBODY = 65534
PATIENCE = 120  # seconds a step may take on a machine shared with others; waited in full only on failure
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
       "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}

# A local user's program: Dask loaded, then it becomes the uid of its first argument ("-": stays who it is) and tries
# every port it is given with a plain
# client, with a certificate of its own, and with any of the run's credentials it can read; if it reaches a
# worker it reads /etc/shadow there. It also asks each port for the HTTP pages a Dask node serves by default.
ATTACK = r"""
import glob, json, os, sys, threading, time, urllib.request
from distributed import Client
from distributed.security import Security
own = Security.temporary()
stolen = []
for key in glob.glob("/tmp/arena-cluster-*/tls/client-key.pem"):
    folder = key.rsplit("/", 1)[0]
    stolen.append(Security(require_encryption=True, tls_ca_file=folder + "/ca.pem",
                           tls_client_cert=folder + "/client.pem", tls_client_key=key))
if sys.argv[1] != "-":
    os.setgroups([]); os.setgid(int(sys.argv[1])); os.setuid(int(sys.argv[1]))
def shadow():
    return open("/etc/shadow").read()[:20]
try:
    shadow(); mine = True
except OSError:
    mine = False
reached, pages = [], []
def attempt(address, security):
    try:
        with Client(address, security=security, timeout=3) as c:
            reached.append([address, str(c.run(shadow))])
    except Exception:
        pass
for port in sys.argv[2:]:
    tries = [("tcp://", None), ("tls://", own)] + [("tls://", s) for s in stolen]
    for scheme, security in tries:
        # A client of a port that is no scheduler's (an HTTP server's) may wait for ever: it reached nothing.
        threading.Thread(target=attempt, args=(f"{scheme}127.0.0.1:{port}", security), daemon=True).start()
    for path in ("/health", "/metrics", "/json/identity.json", "/info/main/workers.html"):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=3) as answer:
                pages.append([port, path, answer.status])
        except Exception:
            pass
deadline = time.monotonic() + 30
for thread in threading.enumerate():
    if thread is not threading.main_thread() and thread.daemon:
        thread.join(max(0.0, deadline - time.monotonic()))
print(json.dumps({"shadow_readable_here": mine, "reached": reached, "pages": pages}), flush=True)
os._exit(0)
"""


def _listening(pid: int) -> list[int]:
    """The tcp ports the process and its descendants listen on."""
    import psutil

    ports = set()
    for each in [pid, *(p for p, _ in descendants(pid))]:
        try:
            ports |= {c.laddr.port for c in psutil.Process(each).net_connections(kind="inet")
                      if c.status == psutil.CONN_LISTEN}
        except psutil.Error:
            pass
    return sorted(ports)



@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="becoming another local user needs root")
def test_a_local_user_reaches_nothing_of_the_local_cluster_of_arena_serve(
        tmp_path: Path, started: list[subprocess.Popen[str]]) -> None:
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "1",
                                   "--results", str(tmp_path / "results"), "--cluster", "local"], cwd=ROOT, env=ENV,
                                  stdout=subprocess.PIPE, stderr=err, text=True)
    started.append(server)
    line = server.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), (line, log.read_text())
    pages = int(line.split()[-1].rsplit(":", 1)[1].strip("/"))
    assert wait_until(lambda: "playing on the Dask cluster" in log.read_text(), PATIENCE), log.read_text()
    # The scheduler, its nanny and the worker each listen (the worker is the last to start).
    assert wait_until(lambda: any(_listening(pid) for pid, _ in descendants(server.pid)), PATIENCE)
    ports = [port for port in _listening(server.pid) if port != pages]  # the server's own pages aside
    assert len(ports) >= 4, ports
    attack = subprocess.run([sys.executable, "-c", ATTACK, str(NOBODY), *map(str, ports)], cwd="/", env=ENV,
                            capture_output=True, text=True, timeout=600)
    assert attack.returncode == 0, attack.stderr
    found = json.loads(attack.stdout.splitlines()[-1])
    assert found["shadow_readable_here"] is False  # it is the local user it says it is
    assert found["reached"] == [], found
    assert found["pages"] == [], found  # no HTTP route of Dask's answers either
    folders = list(Path("/tmp").glob("arena-cluster-*"))
    assert folders and all(stat.S_IMODE(f.stat().st_mode) == 0o700 for f in folders)


@pytest.mark.parametrize("command", [["tournament", "bali-2001", *bots(3)], ["serve", "bali-2001", "--port", "0"]])
def test_a_tcp_cluster_is_refused_in_one_line_unless_the_organiser_names_the_risk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    for given in (address, f"127.0.0.1:{free_port()}"):
        r = CliRunner().invoke(main, [*command, "--cluster", given])
        assert r.exit_code == 2, r.output
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and "has no credentials" in lines[0] and "--insecure-cluster" in lines[0], r.output
        assert "Traceback" not in r.output
    assert not (tmp_path / "results" / "arena.sqlite").exists()
    # Named, the risk is taken: the scheduler is tried (and, nothing listening, not reached).
    from arena.tournament import cluster
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    r = CliRunner().invoke(main, [*command, "--cluster", address, "--insecure-cluster"])
    assert r.exit_code == 2 and f"cannot reach the Dask scheduler at {address}" in r.output, r.output


def test_a_tls_cluster_without_a_certificate_is_refused_and_a_certificates_folder_must_hold_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("DASK_")]:
        monkeypatch.delenv(var)
    address = f"tls://127.0.0.1:{free_port()}"
    r = CliRunner().invoke(main, ["tournament", "bali-2001", *bots(3), "--cluster", address])
    assert r.exit_code == 2 and "needs the client's certificate" in r.output, r.output
    (tmp_path / "empty").mkdir()
    r = CliRunner().invoke(main, ["tournament", "bali-2001", *bots(3), "--cluster", address, "--cluster-certs",
                                  "empty"])
    assert r.exit_code == 2 and "lacks ca.pem, client.pem, client-key.pem" in r.output, r.output


def test_the_credentials_of_a_killed_arena_are_swept_by_the_next_one() -> None:
    """A local cluster's private CA lives in a private folder marked as its arena's: an arena killed with it (SIGKILL
    runs no cleanup) leaves the folder, and the next arena's sweep removes it; a living arena's is kept."""
    hold = ("import os, sys; from arena.tournament.cluster_tls import private_credentials\n"
            "with private_credentials() as files:\n"
            "    print(files.cert('ca').parent.parent, flush=True)\n"
            "    sys.stdin.read() if sys.argv[1:] else os._exit(9)\n")
    killed = subprocess.run([sys.executable, "-c", hold], cwd=ROOT, capture_output=True, text=True, timeout=120)
    folder = Path(killed.stdout.strip())
    assert killed.returncode == 9 and folder.is_dir(), killed.stderr
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    living = subprocess.Popen([sys.executable, "-c", hold, "hold"], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert living.stdout is not None
        mine = Path(living.stdout.readline().strip())
        sweep = "from arena.bots import leftovers; print(*leftovers.sweep().private, sep='\\n')"
        swept = subprocess.run([sys.executable, "-c", sweep], cwd=ROOT, capture_output=True, text=True, timeout=120)
        # Gone, by this sweep or by another arena's (every tournament's start sweeps, and tests run side by side).
        assert swept.returncode == 0 and not folder.exists(), swept.stderr
        assert mine.is_dir() and str(mine) not in swept.stdout.split()  # a living arena's own, in use
    finally:
        living.communicate("", timeout=120)
    assert living.returncode == 0 and not mine.exists()


def test_arena_cluster_certs_makes_a_ca_and_private_keys_and_overwrites_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    r = CliRunner().invoke(main, ["cluster", "certs", str(folder), "--host", "10.0.0.1"])
    assert r.exit_code == 0, r.output
    assert "dask scheduler --host 10.0.0.1" in r.output and f"--cluster-certs {folder}" in r.output
    assert "require-encryption: true" in r.output and "routes: []" in r.output
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    names = {p.name for p in folder.iterdir()}
    assert names == {f"{role}{end}" for role in ("ca", "scheduler", "worker", "client") for end in (".pem", "-key.pem")}
    assert all(stat.S_IMODE((folder / n).stat().st_mode) == 0o600 for n in names if n.endswith("-key.pem"))
    from cryptography import x509
    ca = x509.load_pem_x509_certificate((folder / "ca.pem").read_bytes())
    worker = x509.load_pem_x509_certificate((folder / "worker.pem").read_bytes())
    worker.verify_directly_issued_by(ca)
    before = (folder / "ca-key.pem").read_bytes()
    again = CliRunner().invoke(main, ["cluster", "certs", str(folder)])
    assert again.exit_code == 2 and "holds cluster credentials already" in again.output
    assert (folder / "ca-key.pem").read_bytes() == before


@pytest.mark.slow
def test_a_tls_cluster_made_with_arena_cluster_certs_plays_a_tournament_and_nothing_else_reaches_it(
        tmp_path: Path, started: list[subprocess.Popen[str]]) -> None:
    made = subprocess.run([sys.executable, "-m", "arena", "cluster", "certs", "certs", "--host", "127.0.0.1"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    # The settings as printed, in the file DASK_CONFIG names, for the scheduler and the worker.
    printed = made.stdout.splitlines()
    first = printed.index("distributed:")
    settings = printed[first:printed.index("", first)]
    (tmp_path / "dask.yaml").write_text("\n".join(settings) + "\n", encoding="utf-8")
    commands = {line.split()[1]: line.split() for line in printed if line.startswith("dask ")}
    port = free_port()
    env = {**ENV, "DASK_CONFIG": str(tmp_path / "dask.yaml")}
    scheduler = [*dask_command(*commands["scheduler"][1:])]
    scheduler[scheduler.index("8786")] = str(port)
    started.append(subprocess.Popen(scheduler, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True, text=True))
    worker = [w.replace("WORKER_ADDRESS", "127.0.0.1").replace(":8786", f":{port}")
              for w in dask_command(*commands["worker"][1:])]
    started.append(subprocess.Popen(worker, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True, text=True))
    address = f"tls://127.0.0.1:{port}"

    def one_worker() -> bool:
        from distributed import Client
        from distributed.security import Security

        folder = tmp_path / "certs"
        security = Security(require_encryption=True, tls_ca_file=str(folder / "ca.pem"),
                            tls_client_cert=str(folder / "client.pem"), tls_client_key=str(folder / "client-key.pem"))
        try:
            with Client(address, security=security, timeout=5) as client:
                return len(client.scheduler_info()["workers"]) == 1
        except OSError:
            return False
    assert wait_until(one_worker, PATIENCE), "the cluster did not start"
    r = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", *bots(3), "--seats", "3",
                        "--games", "3", "--seed", "0", "--cluster", address, "--cluster-certs", "certs"],
                       cwd=tmp_path, env={k: v for k, v in ENV.items() if not k.startswith("DASK_CONFIG")},
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0] == 3
        assert con.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
    # Nothing without a certificate the CA signed: not a plain client, not one with a certificate of its own.
    attack = subprocess.run([sys.executable, "-c", ATTACK, "-",
                             *map(str, sorted({port, *_listening(started[0].pid), *_listening(started[1].pid)}))],
                            cwd="/", env=ENV, capture_output=True, text=True, timeout=600)
    assert attack.returncode == 0, attack.stderr
    found = json.loads(attack.stdout.splitlines()[-1])
    assert found["reached"] == [] and found["pages"] == [], found


def test_a_competition_file_gives_the_certificates_folder_from_its_own_folder_and_names_the_risk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "comp" / "certs").mkdir(parents=True)
    config = tmp_path / "comp" / "competition.toml"
    config.write_text(f'[serve]\ncluster = "tls://127.0.0.1:{free_port()}"\ncluster_certs = "certs"\n',
                      encoding="utf-8")
    r = CliRunner().invoke(main, ["serve", "bali-2001", "--config", str(config), "--port", "0"])
    assert r.exit_code == 2 and f"{tmp_path / 'comp' / 'certs'} lacks ca.pem" in r.output, r.output
    config.write_text(f'[serve]\ncluster = "tcp://127.0.0.1:{free_port()}"\n', encoding="utf-8")
    r = CliRunner().invoke(main, ["serve", "bali-2001", "--config", str(config), "--port", "0"])
    assert r.exit_code == 2 and "has no credentials" in r.output, r.output
