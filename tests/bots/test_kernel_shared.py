"""What the kernel shares across namespaces, attacked through real matches and a real tournament: the keyrings (a
uid's user and persistent keyrings, the session keyring a process inherits) and the per-user limits (inotify
instances). The threat bot is tests/bot_programs/kernel_bot.py; each says on stderr what it got."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from tests.helpers import arena, sandbox_levels

ROOT = Path(__file__).resolve().parents[2]
KERNEL_BOT = ROOT / "tests" / "bot_programs" / "kernel_bot.py"
LEVELS = sandbox_levels()
SEALED = {"auto", "rlimit", "bwrap"}  # the levels whose bots run under the seccomp filter
# Starts the arena in a session keyring of its own that holds a key of root's (as a service's or a login's does).
IN_SESSION = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
assert libc.syscall(ctypes.c_long(250), ctypes.c_long(1), b"arena-test-session") >= 0, os.strerror(ctypes.get_errno())
secret = b"root secret"
assert libc.syscall(ctypes.c_long(248), b"user", b"arena-secret", secret, ctypes.c_size_t(len(secret)),
                    ctypes.c_long(-3)) >= 0, os.strerror(ctypes.get_errno())
os.execv(sys.executable, [sys.executable, "-m", "arena", *sys.argv[1:]])
"""

pytestmark = pytest.mark.skipif(os.uname().machine != "x86_64",
                                reason="the threat bot calls keyctl by its x86-64 number")


def said(folder: Path) -> list[str]:
    """What the kernel bots (and builds) said, from every log under folder."""
    return [line for log in folder.rglob("*.log") for line in re.findall(r"kernel_bot: (.*)", log.read_text())]


def kernel_bot(*args: str) -> str:
    return " ".join([sys.executable, str(KERNEL_BOT), *args])


def submission(subs: Path, name: str) -> None:
    """A submission folder whose bot plants and loots keys, and whose build plants keys too."""
    folder = subs / name
    folder.mkdir(parents=True)
    shutil.copy(KERNEL_BOT, folder / "kernel_bot.py")
    command = [sys.executable, "kernel_bot.py", "keys", name]
    # What the build says is kept in its folder (a build's own log is not kept once it succeeds).
    build = ["sh", "-c", f"{sys.executable} kernel_bot.py plant {name}-build 2> planted.log"]
    (folder / "manifest.toml").write_text(f"name = {name!r}\nversion = '1'\ncommand = {json.dumps(command)}\n"
                                          f"build = {json.dumps(build)}\n")


@pytest.mark.parametrize("level", LEVELS)
def test_bots_and_builds_of_different_authors_share_no_key(level: str, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    submission(subs, "alice")
    submission(subs, "bob")
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--seats", "2", "--rounds", "1", "--jobs", "1",
              "--sandbox", level, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = said(tmp_path)
    planted = [line for line in lines if "keyring" in line]
    # Each bot and each build tried its user, session and persistent keyrings.
    for name in ("alice", "bob", "alice-build", "bob-build"):
        assert sum(line.startswith(f"{name} ") for line in planted) >= 3, (name, lines)
    read = [line for line in lines if " read arena-test:" in line]
    if level in SEALED:
        assert not read, read
        assert all("Operation not permitted" in line for line in planted), planted
    else:
        # Not prevented: the attack is real (SANDBOX.md says so for none).
        assert any(line.startswith("bob read arena-test:alice") for line in read), lines


@pytest.mark.parametrize("level", LEVELS)
def test_the_arenas_session_keyring_is_out_of_the_bots_reach(level: str, tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-c", IN_SESSION, "match", "bali-2017", kernel_bot("keys", "alice"),
                        kernel_bot("keys", "bob"), "--games", "1", "--sandbox", level], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = said(tmp_path / "results")
    assert sum("keyring" in line for line in lines) == 6, lines  # both bots started and tried
    stolen = [line for line in lines if "read arena-secret" in line]
    # Listed in /proc/keys to a process that holds the arena's session keyring, even where keyctl is denied; to a
    # bot of the arena's own user also by the key's user permission, whatever keyring it holds.
    seen = [line for line in lines if "saw arena-secret" in line]
    own_uid = os.geteuid() == 0 and (level == "bwrap" or level == "auto" and bwrap_problem() is None)
    if level in SEALED:
        assert not stolen, stolen
        assert not (own_uid and seen), seen
    else:
        assert any(line.endswith("read arena-secret: root secret") for line in stolen), lines
        assert seen, lines


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_opens_no_performance_counter(level: str, tmp_path: Path) -> None:
    r = arena("match", "bali-2017", kernel_bot("perf"), kernel_bot("perf"), "--games", "1", "--sandbox", level,
              cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = said(tmp_path / "results")
    assert len(lines) == 2, lines
    if level in SEALED:
        assert lines == ["could not open a performance counter: Operation not permitted"] * 2
    else:
        assert lines == ["opened a performance counter"] * 2  # the attack is real where nothing denies it


@pytest.mark.skipif(os.geteuid() != 0, reason="only an arena run as root gives each bot a host uid of its own")
@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bubblewrap: {bwrap_problem()}")
@pytest.mark.parametrize("level", ["auto", pytest.param("bwrap", marks=pytest.mark.soak)])
def test_a_bot_that_takes_every_inotify_instance_takes_only_its_own(level: str, tmp_path: Path) -> None:
    # Not run at none and rlimit: there every bot is the arena's user (root here), and the hog would take the
    # instances of every root process on the machine for the length of a game.
    r = arena("match", "bali-2017", kernel_bot("inotify_hog"), kernel_bot("inotify_try"), kernel_bot("inotify_try"),
              "--games", "1", "--sandbox", level, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = said(tmp_path / "results")
    held = [int(n) for line in lines for n in re.findall(r"holding (\d+) inotify", line)]
    limit = int(Path("/proc/sys/fs/inotify/max_user_instances").read_text())
    assert held == [limit], lines  # the hog took all its uid may have
    tries = [line for line in lines if "an inotify instance" in line]
    assert tries and all(line == "opened an inotify instance" for line in tries), lines


@pytest.mark.skipif(os.geteuid() != 0, reason="only an arena run as root gives each bot a host uid of its own")
@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bubblewrap: {bwrap_problem()}")
def test_a_key_left_in_a_uids_keyrings_is_out_of_reach_of_the_next_bot_to_lease_it(tmp_path: Path) -> None:
    # A process of the range's first uid (an earlier leaseholder, or a host process of that uid) leaves keys behind.
    first = 3_200_000
    planted = subprocess.run(["setpriv", f"--reuid={first}", "--regid=65534", "--clear-groups", sys.executable,
                              str(KERNEL_BOT), "plant", "earlier"], capture_output=True, text=True, timeout=60)
    assert planted.stderr.count("added a key") == 3, planted.stderr
    r = arena("match", "bali-2017", kernel_bot("keys", "alice"), kernel_bot("keys", "bob"), "--games", "1",
              "--sandbox", "bwrap", "--bot-uids", f"{first}-{first + 9}", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = said(tmp_path / "results")
    assert sum("keyring" in line for line in lines) == 6, lines
    assert not [line for line in lines if " read " in line], lines
