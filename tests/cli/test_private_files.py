"""What the arena writes is its user's alone: another local user reads neither the store (authors' hashes, secret
seeds), nor its journals, nor the game records and bots' logs, and an older store left readable is made private."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import arena

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root and setpriv to read as another user")

BOT = f"{sys.executable} -m sample_bots.random_bot"


def _readable_by_nobody(path: Path) -> bool:
    run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", str(path)],
                         capture_output=True)
    return run.returncode == 0


def test_another_user_reads_nothing_a_tournament_wrote(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # the folder above the results: open to everyone, as a home or /srv is
    run = arena("tournament", "bali-2017", f"a={BOT}", f"b={BOT}", "--seats", "2", "--rounds", "1", "--jobs", "1",
                cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    results = tmp_path / "results"
    written = [p for p in results.rglob("*") if p.is_file()]
    assert any(p.name == "arena.sqlite" for p in written) and any(p.suffix == ".json" for p in written)
    assert any(p.suffix == ".log" for p in written)
    for path in written:
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
        assert not _readable_by_nobody(path), path
    assert results.stat().st_mode & 0o077 == 0


def test_a_store_an_older_release_left_readable_is_made_private(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA journal_mode=WAL")
    db.chmod(0o644)
    run = arena("authors", "list", "--db", str(db), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert db.stat().st_mode & 0o077 == 0
