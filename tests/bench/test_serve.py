"""`arena bench --serve` as an organiser runs it: a real server under uploads and readers, its figures printed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.helpers import arena

pytestmark = pytest.mark.slow


def test_bench_serve_reports_each_page_s_latency_and_the_server_s_memory(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    r = arena("bench", "--game", "bali-2001", "--count", "1", "--serve", "2", "--serve-seconds", "600",
              "--serve-games", "3", "--serve-jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {line.split("  ")[0]: line.split() for line in r.stdout.splitlines() if "ms" not in line}
    for page in ("upload (POST /api/submissions)", "leaderboard (GET /)", "bot page (published)",
                 "author's game page (GET /me/games/ID)"):
        row = rows[page]
        requests, p50, p95, again = int(row[-5]), float(row[-4]), float(row[-3]), int(row[-1])
        assert again >= 0
        assert requests >= 1 and 0 < p50 <= p95
    assert "2 authors, " in r.stdout and "the server's memory" in r.stdout
    played = int(r.stdout.split(" games played")[0].rsplit("; ", 1)[1].replace(",", ""))
    assert played >= 3  # read until three more games were stored, not for the ten minutes
    looks = r.stdout.split("with its children MiB", 1)[1].splitlines()[2:]
    assert looks and all(float(line.split()[1]) > 0 for line in looks)
