"""What a bot and a build can read and write, attacked through a real `arena tournament` or `arena match`: at the
default level every attack fails; at the levels that do not keep files apart (none, rlimit) arena/bots/SANDBOX.md says
it is not prevented, and the tests check that too."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from arena.bots.sandbox.hostuser import DEFAULT_UIDS
from tests.bots.test_sandbox import LIMIT_OPTIONS, Listener, bot, match, new_marker, threat
from tests.helpers import ROOT, processes_with, sandbox_levels, wait_until

BWRAP = bwrap_problem() is None
LEVELS = sandbox_levels()
ISOLATED = {"bwrap"} | ({"auto"} if BWRAP else set())
THREAT_BOT = ROOT / "tests" / "bot_programs" / "threat_bot.py"
SECRET_ENV = "ARENA_TEST_SECRET"


def submission(folder: Path, name: str, command: list[str], build: list[str] | None = None) -> Path:
    """A submission folder holding a copy of the threat bot and a manifest."""
    folder.mkdir(parents=True)
    shutil.copy(THREAT_BOT, folder / "threat_bot.py")
    manifest = {"name": name, "version": "1", "command": command, **({"build": build} if build else {})}
    (folder / "manifest.toml").write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in manifest.items()))
    return folder


def tournament(tmp_path: Path, level: str, *args: str, env: dict[str, str] | None = None,
               marker: str = "") -> subprocess.CompletedProcess[str]:
    """`arena tournament bali-2017` of the submissions in tmp_path/subs and a random bot, at level."""
    run = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", "--submissions",
                          str(tmp_path / "subs"), f"random={bot(marker or new_marker(), 'sample_bots/random_bot.py')}",
                          "--seats", "3", "--jobs", "1", "--sandbox", level, "--results", str(tmp_path / "results"),
                          *LIMIT_OPTIONS, *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, **(env or {})})
    if marker:
        assert wait_until(lambda: not processes_with(marker, -1), 5.0)
    return run


def faults(db: Path, kind: str) -> int:
    with sqlite3.connect(db) as store:
        return store.execute("SELECT COUNT(*) FROM faults WHERE kind = ?", (kind,)).fetchone()[0]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_a_bot_reads_no_other_submission_no_store_no_competition_file_no_home_and_no_checkout(
        level: str, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    victim = submission(subs / "victim", "victim", [sys.executable, "-m", "sample_bots.random_bot"])
    (victim / "secret.txt").write_text("the victim's code")
    # Four entrants at tables of three: the thief also plays tables where the victim does not sit.
    submission(subs / "other", "other", [sys.executable, "-m", "sample_bots.random_bot"])
    competition = tmp_path / "competition.toml"
    competition.write_text('seed = 7\nsubmissions = "subs"\n')
    db = tmp_path / "elsewhere" / "store.sqlite"
    db.parent.mkdir()
    targets = [victim / "secret.txt", competition, db, ROOT / "README.md"]
    targets += [home for home in (Path.home() / ".bashrc", Path.home() / ".profile") if home.is_file()][:1]
    thief = submission(subs / "thief", "thief", [sys.executable, "threat_bot.py", "steal"])
    (thief / "targets.txt").write_text("\n".join(map(str, targets)))
    run = tournament(tmp_path, level, "--config", str(competition), "--db", str(db))
    assert run.returncode == 0, run.stderr
    # What it read, it tells by answering illegally: in its first game (and so it is not admitted) or later.
    told = faults(db, "illegal") > 0 or ("not admitted: subs/thief" in run.stderr and ": illegal:" in run.stderr)
    assert told == (level not in ISOLATED), run.stderr
    assert ("not admitted" in run.stderr) == told, run.stderr


@pytest.mark.parametrize("command, why", [
    (["python3", "../victim/threat_bot.py", "steal"], "climbs out of the folder with '..'"),
    (["python3", "{victim}/threat_bot.py", "steal"], "is an absolute path outside the folder"),
    (["python3", "link.py", "steal"], "is a symbolic link that leaves the folder"),
], ids=["dotdot", "absolute", "symlink"])
@pytest.mark.slow
def test_a_manifest_that_runs_code_outside_its_folder_is_refused_at_admission(command: list[str], why: str,
                                                                               tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    victim = submission(subs / "victim", "victim", [sys.executable, "-m", "sample_bots.random_bot"])
    submission(subs / "other", "other", [sys.executable, "-m", "sample_bots.random_bot"])
    thief = submission(subs / "thief", "thief", [word.format(victim=victim) for word in command])
    (thief / "link.py").symlink_to(victim / "threat_bot.py")
    run = tournament(tmp_path, "auto")
    assert run.returncode == 0, run.stderr
    refused = [line for line in run.stderr.splitlines() if line.startswith("not admitted:")]
    assert len(refused) == 1 and "subs/thief: manifest.toml: command:" in refused[0] and why in refused[0], run.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as store:
        played = {name for (name,) in store.execute("SELECT DISTINCT name FROM seats")}
    assert played == {"victim", "other", "random"}


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_that_fills_its_disk_is_stopped_with_a_disk_fault(level: str, tmp_path: Path) -> None:
    if level == "none":
        pytest.skip("none gives no private home: the bot would write into the user's own")
    marker = new_marker()
    arena = match(tmp_path, level, threat(marker, "disk_flood"), "--disk-limit", "32", "--timeout", "10", games=1,
                  marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    assert ("disk" in arena.faults(0)) == (level in ISOLATED), (arena.faults(0), arena.run.stderr)
    assert not arena.left


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_a_build_writes_only_its_own_folder_sees_none_of_the_arenas_environment_and_has_no_network(
        level: str, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    victim = submission(subs / "victim", "victim", [sys.executable, "-m", "sample_bots.random_bot"])
    before = (victim / "threat_bot.py").read_text()
    listener = Listener()
    script = (f"echo pwned >> {victim}/threat_bot.py; env > env.txt; id -u > uid.txt; python3 -c 'import socket; "
              f"socket.create_connection((\"127.0.0.1\", {listener.port}), 2)' > net.txt 2>&1; exit 0")
    builder = submission(subs / "builder", "builder", [sys.executable, "-m", "sample_bots.random_bot"],
                         build=["sh", "-c", script])
    try:
        run = tournament(tmp_path, level, env={SECRET_ENV: "hunter2"})
    finally:
        listener.server.close()
    assert run.returncode == 0, run.stderr
    isolated, scrubbed = level in ISOLATED, level != "none"
    assert ((victim / "threat_bot.py").read_text() == before) == isolated
    assert ("hunter2" in (builder / "env.txt").read_text()) != scrubbed
    assert (listener.accepted == 0) == isolated
    if isolated:
        uid = int((builder / "uid.txt").read_text())
        # nobody inside its user namespace; as root, a host uid of its own from the default range
        assert DEFAULT_UIDS.first <= uid <= DEFAULT_UIDS.last if os.geteuid() == 0 else uid == 65534


@pytest.mark.skipif(not BWRAP, reason=f"bubblewrap: {bwrap_problem()}")
@pytest.mark.slow
def test_build_network_opens_the_network_to_builds(tmp_path: Path) -> None:
    listener = Listener()
    script = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {listener.port}), 2)'"
    submission(tmp_path / "subs" / "builder", "builder", [sys.executable, "-m", "sample_bots.random_bot"],
               build=["sh", "-c", script])
    submission(tmp_path / "subs" / "other", "other", [sys.executable, "-m", "sample_bots.random_bot"])
    try:
        run = tournament(tmp_path, "auto", "--build-network")
    finally:
        listener.server.close()
    assert run.returncode == 0, run.stderr
    assert "not admitted" not in run.stderr and listener.accepted > 0


@pytest.mark.slow
def test_submissions_run_below_isolation_only_at_a_level_named_explicitly(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("prlimit", "taskset", "setpriv", "sh", "unshare"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    for name in ("a", "b"):
        submission(tmp_path / "subs" / name, name, [sys.executable, "-m", "sample_bots.random_bot"])
    env = {"PATH": str(bin_dir)}
    refused = tournament(tmp_path, "auto", env=env)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "bubblewrap is not installed" in refused.stderr and "--sandbox rlimit" in refused.stderr
    assert not (tmp_path / "results" / "arena.sqlite").exists()
    named = tournament(tmp_path, "rlimit", env=env)
    assert named.returncode == 0, named.stderr
    assert "sandbox warning:" in named.stderr
