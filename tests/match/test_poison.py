"""Poisoned replies through a real `arena match` and `arena validate`: a hostile bot process (a raw ROUTER socket)
sends replies made to crash or slow the decoder, at the handshake and at decisions. Each one is a `malformed`
fault with a short detail, the match finishes normally for everyone else, and no bot process is left."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import MAX_DETAIL, FaultKind, ProtocolError, bounded
from arena.match.record import GameRecord, Phase, load_record
from tests.helpers import quick_run

ROOT = Path(__file__).resolve().parents[2]
POISON_BOT = ROOT / "tests" / "bot_programs" / "poison_bot.py"
RANDOM_BOT = shlex.join([sys.executable, str(ROOT / "sample_bots" / "random_bot.py")])
# poison -> what its fault's detail says
SAYS = {
    "deep_type": "nested more than",
    "deep_version": "nested more than",
    "deep_id": "nested more than",
    "str_bin_keys": "field 'zzz': unknown field",
    "float_version": "field 'version': expected an integer, got a float",
    "version_2": "protocol version 2 is not supported; this side speaks version 1",
    "duplicate_key": "duplicate map key 'type'",
    "huge_string": "exceeds max_str_len",
    "million_maps": "exceeds max_array_len",
}
SHORT = 300  # characters: what "a short detail" means here, well under MAX_DETAIL


def poison_bot(state: Path, step: str, poisons: list[str]) -> str:
    return shlex.join([sys.executable, str(POISON_BOT), str(state), step, *poisons])


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """The arena's CLI as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def records(results: Path) -> list[GameRecord]:
    return [load_record(p) for p in sorted(results.glob("matches/*/game-*.json"))]


def assert_nothing_left(state: Path) -> None:
    """Every process of the poison bot is gone (the arena reaps its bots before it exits)."""
    pids = [int(p) for p in state.read_text().split()]
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def assert_poisoned(record: GameRecord, phase: Phase, poisons: list[str]) -> None:
    """The poison bot's faults are these poisons, malformed and short; every other seat played every decision."""
    seat = next(s.seat for s in record.seats if s.participant == 0)
    mine = [f for f in record.faults if f.seat == seat]
    assert [f.phase for f in mine] == [phase] * len(poisons)
    for fault, poison in zip(mine, poisons):
        assert fault.kind == FaultKind.MALFORMED and SAYS[poison] in fault.detail, (poison, fault.detail)
        assert len(fault.detail) <= SHORT
    assert (seat in record.disqualified) == (phase == Phase.HANDSHAKE or len(poisons) == 3)
    assert not [f for f in record.faults if f.seat != seat]
    others = [d for d in record.decisions if d.seat != seat]
    assert others and all(d.time is not None and d.fault is None for d in others)


def check_run(run: subprocess.CompletedProcess[str], code: int) -> None:
    assert run.returncode == code, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


# The poison bot writes its pids beside the test, which bubblewrap does not let a bot do; the decoder under test
# is the same at every level.
BOT_WRITES = ("--sandbox", "rlimit")


@pytest.mark.parametrize("step", quick_run(["ready", "decide"], {"decide"}))
def test_poisoned_replies_are_malformed_faults_in_a_match(step: str, tmp_path: Path) -> None:
    poisons = list(SAYS)
    state = tmp_path / "pids"
    games = len(poisons) if step == "ready" else 3  # one poison per process at ready; three a game at decide
    run = arena("match", "bali-2017", poison_bot(state, step, poisons), RANDOM_BOT, RANDOM_BOT, "--games",
                str(games), "--seed", "5", "--timeout", "2", "--results", str(tmp_path / "results"), "--quiet",
                *BOT_WRITES)
    check_run(run, 0)
    played = records(tmp_path / "results")
    assert len(played) == games
    for g, record in enumerate(played):
        if step == "ready":
            assert_poisoned(record, Phase.HANDSHAKE, poisons[g:g + 1])
        else:
            assert_poisoned(record, Phase.DECIDE, poisons[3 * g:3 * g + 3])
    assert_nothing_left(state)


def test_validate_lists_poisoned_replies_and_fails(tmp_path: Path) -> None:
    state = tmp_path / "pids"
    poisons = ["deep_id", "str_bin_keys", "million_maps"]
    run = arena("validate", poison_bot(state, "decide", poisons), "--game", "bali-2017", "--players", "2",
                "--games", "1", "--timeout", "2", "--results", str(tmp_path / "results"), *BOT_WRITES)
    check_run(run, 1)
    lines = [line for line in run.stdout.splitlines() if ": malformed: " in line]
    assert len(lines) == 3 and all(SAYS[p] in line for p, line in zip(poisons, lines)), run.stdout
    assert all(len(line) <= SHORT + 40 for line in lines)
    assert "FAIL" in run.stdout and "validation failed: 3 fault(s)" in run.stderr
    assert_nothing_left(state)


def test_no_fault_detail_is_longer_than_the_bound() -> None:
    fault = ProtocolError("x" * 1_000_000)
    assert len(fault.detail) == len(str(fault)) == MAX_DETAIL
    assert fault.detail.endswith("[1000000 characters in all]")
    assert bounded("short") == "short"
