"""A bot that stalls a step of the game costs its table-mates nothing, wherever it sits: `arena match` as a user
runs it, at the default sandbox level."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, arena

INIT = "10"  # seconds: long enough for a healthy bot to start on a busy machine; the staller uses all of it


@pytest.mark.slow
@pytest.mark.parametrize("step, phase", [("hello", "handshake"), ("new_game", "new_game"), ("decide", "decide"),
                                         ("game_over", "game_over")])
def test_a_bot_stalling_a_step_faults_alone_at_every_seat(step: str, phase: str, tmp_path: Path) -> None:
    staller = f"{sys.executable} tests/bot_programs/stall_bot.py {step}"
    innocent = f"{sys.executable} -m sample_bots.random_bot"
    r = arena("match", "bali-2001", staller, innocent, innocent, "--games", "3", "--fresh-processes", "--seed", "4",
              "--timeout", "0.5", "--init-timeout", INIT, "--results", str(tmp_path), "-q", cwd=ROOT)
    assert r.returncode == 0, r.stderr
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("matches/*/game-*.json"))]
    assert len(records) == 3
    seats = set()
    for record in records:
        staller_seat = next(s["seat"] for s in record["seats"] if s["participant"] == 0)
        seats.add(staller_seat)
        faults = record["faults"]
        assert [f for f in faults if f["participant"] != 0] == [], faults  # the table-mates: not one fault
        assert any(f["participant"] == 0 and f["phase"] == phase for f in faults), faults  # the staller's own
    assert seats == {0, 1, 2}  # it stalled from every seat, so before and after each table-mate
    summary = json.loads(next(tmp_path.glob("matches/*/match.json")).read_text())
    faults = {s["participant"]: s["faults"] for s in summary["standings"]}
    assert faults[1] == faults[2] == 0 and faults[0] >= 3
