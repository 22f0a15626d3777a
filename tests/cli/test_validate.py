"""`arena validate` as a user runs it: a good bot passes, a faulty one fails with every fault listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.arena.conftest import faulty, sample_bot
from tests.cli.conftest import FAST, run


def test_validate_passes_a_good_bot(tmp_path: Path) -> None:
    r = run("validate", str(sample_bot("plain_bot")), "--game", "bali-2017", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    assert r.output.count(": ok:") == 3
    assert "PASS: bot plain_bot (handshake: 'plain' version '1.0')" in r.output


@pytest.mark.parametrize("mode, kind", [("garbage", "malformed"), ("die_at_start", "crash")])
def test_validate_fails_a_faulty_bot_and_lists_every_fault(mode: str, kind: str, tmp_path: Path) -> None:
    r = run("validate", str(faulty(mode)), "--game", "bali-2001", "--games", "2", "--results", str(tmp_path),
            *FAST)
    assert r.exit_code == 1, r.output
    faults = [line for line in r.output.splitlines() if line.startswith("  fault: game ")]
    assert faults and all(f": {kind}: " in line for line in faults)
    assert "FAIL" in r.output and "validation failed" in r.output
    if mode == "die_at_start":
        assert "stderr| faulty_bot: dying at start on purpose" in r.output
