"""The Python kit's worked example, as a bot author runs it: a season played, exported, learned from by the kit's
learn.py, and the kit's bot, playing what it learned, found better than the random sample bot by `arena compare`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kits.conftest import ENV, arena

pytestmark = pytest.mark.slow  # a real season of subprocess bots, and a real comparison

RANDOM = "python3 -m sample_bots.random_bot"
HEURISTIC = "python3 -m sample_bots.heuristic_bot"


def test_the_kits_bot_learns_from_the_winners_and_beats_the_random_bot(tmp_path: Path) -> None:
    season = arena("tournament", "bali-2017", f"h={HEURISTIC}", f"r1={RANDOM}", f"r2={RANDOM}", "--seats", "3",
                   "--rounds", "20", "--name", "season", "--seed", "7", "--sandbox", "none", cwd=tmp_path)
    assert season.returncode == 0, season.stderr
    exported = arena("export", "-t", "season", "--out", "data", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    made = arena("new", "learner", "--lang", "python", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert not (tmp_path / "learner" / "learned.json").exists()
    learned = subprocess.run([sys.executable, "learner/learn.py", "data"], cwd=tmp_path, env=ENV,
                             capture_output=True, text=True, timeout=300)
    assert learned.returncode == 0, learned.stderr
    model = json.loads((tmp_path / "learner" / "learned.json").read_text())
    assert model["winners"] == 60 and model["decisions"] > 500
    assert all(0 < score < 1 for score in model["scores"].values())
    assert any(key.startswith("take ") for key in model["scores"])
    compared = arena("compare", "--game", "bali-2017", "learner", RANDOM, "--opponents", RANDOM, "--seed", "7",
                     "--sandbox", "none", "--max-games", "600", "--json", cwd=tmp_path, timeout=1200)
    assert compared.returncode == 0, compared.stderr
    report = json.loads(compared.stdout)
    assert report["verdict"] == "better", report
