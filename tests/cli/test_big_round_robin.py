"""A round-robin too large to play is refused before anything starts, with the ladder as the advice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import run


def test_a_round_robin_of_too_many_tables_is_refused_with_the_ladder_as_advice(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    bots = [f"r{i}=python3 -m sample_bots.random_bot" for i in range(60)]
    monkeypatch.chdir(tmp_path)
    r = run("tournament", "bali-2017", *bots, "--seats", "4", "--jobs", "1")
    assert r.exit_code == 2, r.output
    assert "487,635 tables, 1,950,540 games" in r.output and "--format ladder --games N" in r.output
    assert "Traceback" not in r.output and list(tmp_path.iterdir()) == []
