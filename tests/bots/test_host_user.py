"""The host user of a bot and a build under bubblewrap run as root: a uid of its own (the organiser's range, else
the default one), never root and never one another process holds, seen from the host, through real matches and a
real tournament."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from arena.bots.sandbox.hostuser import DEFAULT_UIDS, LEASES, NOBODY, NOGROUP
from tests.helpers import arena

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="only an arena run as root drops its bots to other host users"),
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"bubblewrap: {bwrap_problem()}"),
]

ROOT = Path(__file__).resolve().parents[2]
THREAT = f"{sys.executable} {ROOT / 'tests/bot_programs/threat_bot.py'} host_uid"
RANGE = (3_100_000, 3_100_009)  # uids of no account of a test machine


def host_uids(results: Path) -> list[int]:
    """The host uids the threat bots of a match said they were, from their logs."""
    logs = (results / "matches").rglob("*.stderr.log")
    return [int(u) for log in logs for u in re.findall(r"host uid (-?\d+)", log.read_text())]


@pytest.mark.parametrize("uids", [None, RANGE])
def test_a_bot_is_never_root_to_the_host(uids: tuple[int, int] | None, tmp_path: Path) -> None:
    chosen = ["--bot-uids", f"{uids[0]}-{uids[1]}"] if uids else []
    r = arena("match", "bali-2017", THREAT, THREAT, "--games", "1", "--sandbox", "bwrap", *chosen, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    seen = host_uids(tmp_path / "results")
    assert len(seen) == 2 and 0 not in seen and NOBODY not in seen
    first, last = uids or (DEFAULT_UIDS.first, DEFAULT_UIDS.last)
    assert len(set(seen)) == 2 and all(first <= u <= last for u in seen)  # a uid each


def test_a_build_runs_as_a_host_uid_of_its_own_and_leaves_nothing_of_it(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("alpha", "beta"):
        folder = subs / name
        folder.mkdir(parents=True)
        build = ["sh", "-c", "id -u > built-by && touch made && chmod 600 made"]
        (folder / "manifest.toml").write_text(
            f"name = {name!r}\nversion = '1'\ncommand = {json.dumps([sys.executable, '-m', 'sample_bots.random_bot'])}"
            f"\nbuild = {json.dumps(build)}\n")
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--seats", "2", "--rounds", "1", "--jobs", "1",
              "--sandbox", "bwrap", "--bot-uids", f"{RANGE[0]}-{RANGE[1]}", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("alpha", "beta"):
        built_by = int((subs / name / "built-by").read_text())
        assert RANGE[0] <= built_by <= RANGE[1]
        # Once built, the folder is its owner's again, readable by the bots' group alone besides.
        made = (subs / name / "made").stat()
        assert (made.st_uid, made.st_gid) == (os.geteuid(), NOGROUP) and made.st_mode & 0o777 == 0o640


def test_a_range_holding_an_account_is_refused(tmp_path: Path) -> None:
    r = arena("match", "bali-2017", THREAT, THREAT, "--sandbox", "bwrap", "--bot-uids", "0-10", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "above 0" in r.stderr or "accounts of this machine" in r.stderr


def test_a_command_lines_bot_in_a_folder_only_root_reads_is_told_why_it_cannot_start(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / "bot.py").write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    r = arena("match", "bali-2017", f"{sys.executable} mine/bot.py", THREAT, "--games", "1", "--sandbox", "bwrap",
              cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    records = " ".join(p.read_text() for p in (tmp_path / "results" / "matches").rglob("game-*.json"))
    assert "never as root" in records and "chmod -R o+rX FOLDER" in records  # the fault says why, and what to do


def test_a_uid_another_arena_holds_is_never_leased_and_a_range_all_held_starts_no_bot(tmp_path: Path) -> None:
    import fcntl

    LEASES.mkdir(parents=True, exist_ok=True)
    held = []
    try:
        for uid in range(RANGE[0], RANGE[0] + 9):  # as another arena's running bots hold them
            fd = os.open(LEASES / str(uid), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            held.append(fd)
        r = arena("match", "bali-2017", THREAT, THREAT, "--games", "1", "--sandbox", "bwrap", "--bot-uids",
                  f"{RANGE[0]}-{RANGE[1]}", cwd=tmp_path)
    finally:
        for fd in held:
            os.close(fd)
    assert r.returncode == 0, r.stderr
    seen = host_uids(tmp_path / "results")
    assert seen == [RANGE[1]]  # the one uid free, for one bot; never nobody, never a uid held
    records = " ".join(p.read_text() for p in (tmp_path / "results" / "matches").rglob("game-*.json"))
    assert "every host uid of 3100000-3100009 is in use" in records
