"""One competition file, one tournament: without a `name`, the file names the same tournament whatever its
entrants became, and a round-robin whose entrants changed is refused with the way forward."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.helpers import RANDOM, arena

COMPETITION = """title = "Turn4 Bali Cup"
game = "bali-2017"
format = "{fmt}"
seats = 2
submissions = "entries"
jobs = 1
"""


def entry(entries: Path, name: str, version: str = "1") -> None:
    """A submission folder that runs the random bot."""
    folder = entries / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(f"name = {name!r}\nversion = {version!r}\ncommand = {RANDOM!r}\n")


def tournaments(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        return [row[0] for row in con.execute("SELECT name FROM tournaments ORDER BY id")]


@pytest.mark.slow
def test_a_round_robin_whose_entrants_changed_is_refused_with_the_way_forward(tmp_path: Path) -> None:
    (tmp_path / "competition.toml").write_text(COMPETITION.format(fmt="round-robin"))
    for name in ("a", "b"):
        entry(tmp_path / "entries", name)
    first = arena("tournament", "--config", "competition.toml", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    entry(tmp_path / "entries", "c")
    entry(tmp_path / "entries", "b", version="2")
    again = arena("tournament", "--config", "competition.toml", cwd=tmp_path)
    assert again.returncode == 2, again.stdout + again.stderr
    assert "the entrants of round-robin 'turn4-bali-cup'" in again.stderr
    assert "c added, b version 1 now 2" in again.stderr
    assert "another --name (or name in the competition file), or run a ladder" in again.stderr
    assert "Traceback" not in again.stderr
    assert tournaments(tmp_path / "results" / "arena.sqlite") == ["turn4-bali-cup"]


@pytest.mark.slow
def test_a_ladder_of_a_competition_file_without_a_name_stays_one_tournament(tmp_path: Path) -> None:
    (tmp_path / "competition.toml").write_text(COMPETITION.format(fmt="ladder").replace('title = "Turn4 Bali Cup"\n',
                                                                                       "") + "games = 2\n")
    for name in ("a", "b"):
        entry(tmp_path / "entries", name)
    first = arena("tournament", "--config", "competition.toml", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    entry(tmp_path / "entries", "c")
    again = arena("tournament", "--config", "competition.toml", "--games", "4", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert tournaments(tmp_path / "results" / "arena.sqlite") == ["competition"]
