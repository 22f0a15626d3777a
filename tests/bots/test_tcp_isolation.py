"""Bots reached over tcp, attacked and played through real `arena match` runs: under bubblewrap each keeps its own
network namespace, and a relay inside its sandbox gives it a tcp endpoint that exists only there
(arena/bots/SANDBOX.md)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.entrants import Entrant
from arena.bots.sandbox import Isolation, Sandbox
from arena.errors import FaultKind
from arena.storage import Store
from arena.tournament.formats import get_format
from arena.tournament.formats.base import Play, TournamentSpec
from tests.bots.test_sandbox import (
    BWRAP,
    ISOLATED,
    LEVELS,
    Arena,
    Listener,
    assert_unharmed,
    bot,
    match,
    new_marker,
    threat,
)
from tests.helpers import processes_with, wait_until
from tests.match.conftest import ROOT

TCP_THIEF = "tests/bot_programs/tcp_thief.py"


def warnings(arena: Arena) -> list[str]:
    return [line for line in arena.run.stderr.splitlines() if line.startswith("sandbox warning:")]


def stderr_of(results: Path, name: str) -> str:
    """Everything the bots named name wrote to stderr in the match."""
    return "".join(p.read_text() for p in sorted(results.glob(f"matches/*/logs/p*-{name}*-run*.stderr.log")))


@pytest.mark.parametrize("level", LEVELS)
def test_over_tcp_only_isolation_keeps_a_bot_from_the_others_and_off_the_network(level: str,
                                                                                tmp_path: Path) -> None:
    """Three attackers over --tcp: one looks for the others' endpoints in /proc (hijack), one for the arena's
    listening ports in /proc/net/tcp (tcp_thief), one connects to a port of the host (connect); a random bot is
    the victim."""
    listener = Listener()
    marker = new_marker()
    attackers = [threat(marker, "hijack"), bot(marker, TCP_THIEF), threat(marker, "connect", str(listener.port))]
    try:
        arena = match(tmp_path, level, attackers, "--tcp", games=1, marker=marker)
    finally:
        listener.server.close()
    assert arena.run.returncode == 0, arena.run.stderr
    found = stderr_of(tmp_path / "results", "tcp_thief")
    if level in ISOLATED:  # --sandbox bwrap --tcp was refused while tcp needed the machine's network
        assert "sandbox: bwrap (own user, PID, IPC, UTS, network namespaces" in arena.run.stderr
        assert warnings(arena) == []
        assert "tcp_thief: 0 ports" in found, found  # its namespace holds nothing but its own endpoint
        assert listener.accepted == 0
        assert_unharmed(arena, 0, 1, 2, 3)
    else:
        assert len(warnings(arena)) == 1  # documented: not prevented
        assert re.search(r"tcp_thief: [1-9][0-9]* ports", found), found  # the arena's ports, in view
        assert "threat_bot: connected to tcp://" in stderr_of(tmp_path / "results", "threat_bot")
        assert listener.accepted > 0
        assert FaultKind.ILLEGAL.value in arena.faults(3)
        assert not arena.left


@pytest.mark.skipif(not BWRAP, reason="the relay runs under bubblewrap, which auto chooses only where it works")
def test_over_tcp_bots_play_crash_and_leave_nothing_at_the_default_level(tmp_path: Path) -> None:
    """Faulty bots and a sample bot over --tcp at auto, TMPDIR outside /tmp: full games, the faults as over ipc (a
    crash with its last words, an oversized reply of 2 MiB that passed the relay, a bot that signals its parent,
    the relay, only ends itself), no process or directory left."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    marker = new_marker()
    faulty = [bot(marker, "tests/bot_programs/faulty_bot.py", mode) for mode in ("die_mid_game", "oversized")]
    arena = match(tmp_path, "auto", [*faulty, threat(marker, "signal_parent")], "--tcp",
                  env={"TMPDIR": str(temporary)}, games=2, marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    assert warnings(arena) == []
    assert len(arena.records) == 2
    crashes = [f for r in arena.records for f in r["faults"] if f["participant"] == 0]
    assert [f["kind"] for f in crashes] == [FaultKind.CRASH.value] * 2
    assert all("dying mid-game on purpose" in f["stderr"] for f in crashes)
    assert FaultKind.OVERSIZED.value in arena.faults(1)
    assert arena.faults(2) == [FaultKind.CRASH.value] * 2
    assert_unharmed(arena, 3)
    assert list(temporary.iterdir()) == []


def submission(folder: Path, marker: str) -> Path:
    """A submission folder whose manifest asks for tcp; its command says on stderr what endpoint it was given."""
    folder.mkdir(parents=True)
    script = f'echo "endpoint $ARENA_ENDPOINT $1" >&2; exec "$0" -X{marker} -m sample_bots.random_bot "$1"'
    command = ["sh", "-c", script, sys.executable]
    (folder / "manifest.toml").write_text(f"name = 'tcp-bot'\nversion = '1'\ntransport = \"tcp\"\n"
                                          f"command = {json.dumps(command)}\n")
    return folder


def test_a_submission_that_asks_for_tcp_plays_at_the_default_level(tmp_path: Path) -> None:
    """The folder's bot gets a tcp endpoint (argument and environment alike) and plays with no fault; at
    bubblewrap its network namespace stays its own (no warning)."""
    marker = new_marker()
    folder = submission(tmp_path / "tcp-bot", marker)
    rand = bot(marker, "sample_bots/random_bot.py")
    run = subprocess.run([sys.executable, "-m", "arena", "match", "bali-2001", str(folder), rand, rand, "--games",
                          "2", "--seed", "3", "--results", str(tmp_path / "results"), "-q", "--timeout", "5",
                          "--init-timeout", "20"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert ("sandbox warning:" in run.stderr) == (not BWRAP)
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "results").glob("matches/*/game-*.json"))]
    assert len(records) == 2 and all(r["faults"] == [] for r in records)
    said = "".join(p.read_text() for p in (tmp_path / "results").glob("matches/*/logs/*.stderr.log")).split()
    endpoints = said[said.index("endpoint") + 1:said.index("endpoint") + 3]
    assert endpoints[0] == endpoints[1] and endpoints[0].startswith("tcp://127.0.0.1:"), said
    assert wait_until(lambda: not processes_with(marker, -1), 5.0)


def test_a_store_from_when_tcp_shared_the_network_still_loads_and_shows(tmp_path: Path) -> None:
    """Tournaments stored when auto over tcp shared the network carry `shared_network` in their sandbox."""
    db = tmp_path / "arena.sqlite"
    entrants = tuple(Entrant(name, ("true",)) for name in "abc")
    spec = TournamentSpec(Play(game="bali-2001", sandbox=Sandbox(Isolation.BWRAP)), get_format("round-robin"),
                          entrants, seats=3)
    sandbox = {**spec.sandbox.to_dict(), "shared_network": True}
    with Store(db) as store:
        t = store.open_tournament("old", "bali-2001", "round-robin", {**spec.identity(), "sandbox": sandbox},
                                  list(entrants))
        store.finish_tournament(t.id)
    for command in (["tournaments"], ["leaderboard", "-t", "old"]):
        run = subprocess.run([sys.executable, "-m", "arena", *command, "--results", str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "sandbox bwrap" in run.stdout
    with sqlite3.connect(db) as con:
        assert json.loads(con.execute("SELECT config FROM tournaments").fetchone()[0])["sandbox"] == sandbox
