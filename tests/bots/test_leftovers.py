"""Leftovers of killed arenas: what is marked, whose owner is gone, and what a sweep removes (and keeps)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from arena.bots import leftovers
from arena.bots.leftovers import MARK, Owner


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own, where the arena makes (and sweeps) its private directories."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def marked_by(folder: Path, owner: Owner) -> Path:
    folder.mkdir(parents=True)
    (folder / MARK).write_text(json.dumps(asdict(owner)), encoding="utf-8")
    return folder


def dead_owner() -> Owner:
    """A process that has ended (reaped)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return replace(Owner.current(), pid=int(proc.stdout))


def test_a_private_directory_is_marked_as_this_processs_and_kept_while_it_lives(temp: Path) -> None:
    folder = leftovers.private_dir()
    assert folder.parent == temp and folder.name.startswith("arena-") and oct(folder.stat().st_mode)[-3:] == "700"
    assert leftovers.owner(folder) == Owner.current() and not Owner.current().gone()
    assert leftovers.sweep() == leftovers.Swept() and folder.exists()


def test_a_reused_pid_is_not_taken_for_the_live_owner(temp: Path) -> None:
    me = Owner.current()
    reused = marked_by(temp / "arena-reused", replace(me, start=me.start - 1))  # our pid, another process's start
    rebooted = marked_by(temp / "arena-rebooted", replace(me, boot="another boot"))
    ended = marked_by(temp / "arena-ended", dead_owner())
    assert set(leftovers.sweep().private) == {reused, rebooted, ended}
    assert not reused.exists() and not rebooted.exists() and not ended.exists()


def test_a_sweep_keeps_what_it_cannot_know_to_be_abandoned(temp: Path) -> None:
    unmarked = temp / "arena-unmarked"
    unmarked.mkdir()
    garbled = temp / "arena-garbled"
    garbled.mkdir()
    (garbled / MARK).write_text("{not json", encoding="utf-8")
    elsewhere = marked_by(temp / "arena-elsewhere", replace(dead_owner(), host="another-machine"))
    not_ours = marked_by(temp / "other-prefix", dead_owner())
    assert leftovers.sweep() == leftovers.Swept()
    assert all(f.exists() for f in (unmarked, garbled, elsewhere, not_ours))


def test_a_zombie_owner_is_gone(temp: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # ended, not yet reaped
        with open(f"/proc/{child.pid}/stat", "rb") as handle:
            start = int(handle.read().rsplit(b")", 1)[1].split()[19])
        assert replace(Owner.current(), pid=child.pid, start=start).gone()
    finally:
        child.wait()


def test_only_abandoned_table_folders_the_store_does_not_hold_are_removed(temp: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    gone = dead_owner()
    uncommitted = marked_by(results / "matches" / "m1", gone)
    committed = marked_by(results / "matches" / "m2", gone)  # stored, then killed before it was unmarked
    playing = marked_by(results / "matches" / "m3", Owner.current())
    a_match = results / "matches" / "m4"  # `arena match` folders are never marked
    a_match.mkdir()
    swept = leftovers.sweep(results, {"matches/m2/game-0001.json"})
    assert swept.tables == (uncommitted,)
    assert not uncommitted.exists() and committed.exists() and playing.exists() and a_match.exists()


def test_a_bots_unwritable_folders_do_not_stop_the_removal(temp: Path) -> None:
    folder = marked_by(temp / "arena-locked", dead_owner())
    inner = folder / "p0-1" / "home" / "sealed"
    inner.mkdir(parents=True)
    (inner / "file").write_text("x", encoding="utf-8")
    inner.chmod(0)
    (folder / "p0-1" / "home").chmod(0o500)
    leftovers.sweep()
    assert not folder.exists()
