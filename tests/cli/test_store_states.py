"""Every store a user can reach (after validate, match, a tournament, a compare, any mix) read by every command that
reads a store: each one works, with no traceback."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import RANDOM, arena

SHORT = ("--games", "2")
# How a user reaches each state: the commands run, in order, in a fresh folder.
RUNS = {
    "validate": [("validate", RANDOM, "--game", "bali-2017", *SHORT)],
    "match": [("match", "bali-2017", RANDOM, RANDOM, *SHORT)],
    "tournament": [("tournament", "bali-2017", RANDOM, f"other={RANDOM}", "--seats", "2", "--jobs", "1")],
    "compare": [("compare", RANDOM, f"base={RANDOM}", "--game", "bali-2017", *SHORT, "--jobs", "1")],
}
STATES = [*RUNS, "mix"]
# Every reading command; {first} is the store's first entry (a match's id where validate or match made it).
COMMANDS = [
    ("leaderboard",), ("leaderboard", "-t", "{first}"), ("leaderboard", "--format", "json"),
    ("leaderboard", "--format", "markdown"), ("leaderboard", "--format", "html", "-o", "{out}/board.html"),
    ("publish", "-o", "{out}/site"), ("publish", "-o", "{out}/site", "-t", "{first}", "--no-games"),
    ("matches",), ("matches", "--faults"), ("matches", "-t", "{first}"), ("show", "1"),
    ("show", "1", "--html", "{out}/game.html"), ("tournaments",), ("rerate",), ("rerate", "--all"),
]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One folder per state, built once for the module."""
    made = {}
    for state in STATES:
        folder = tmp_path_factory.mktemp(state)
        for args in (RUNS[state] if state in RUNS else [run for runs in RUNS.values() for run in runs]):
            done = arena(*args, cwd=folder)
            assert done.returncode == 0, (state, args, done.stderr)
        made[state] = folder
    return made


def _first(folder: Path) -> str:
    with sqlite3.connect(folder / "results" / "arena.sqlite") as con:
        return con.execute("SELECT name FROM tournaments ORDER BY id LIMIT 1").fetchone()[0]


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("state", STATES)
def test_every_reading_command_works_on_every_store_state(stores: dict[str, Path], state: str,
                                                          command: tuple[str, ...], tmp_path: Path) -> None:
    folder = stores[state]
    args = [a.format(first=_first(folder), out=tmp_path) for a in command]
    done = arena(*args, cwd=folder)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
    assert done.stdout.strip() or done.stderr.strip()
    if command[0] == "publish":
        assert (tmp_path / "site" / "index.html").is_file()


@pytest.mark.slow
def test_the_id_validate_prints_gives_a_leaderboard_and_a_site(tmp_path: Path) -> None:
    done = arena("validate", RANDOM, "--game", "bali-2017", *SHORT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = done.stdout.split("arena matches -t ")[1].split(";")[0]
    board = arena("leaderboard", "-t", entry, cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    assert "random_bot " in board.stdout and f"{entry} (bali-2017, match, sandbox " in board.stdout
    site = arena("publish", "-o", "site", cwd=tmp_path)
    assert site.returncode == 0 and "Traceback" not in site.stderr, site.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    shutil.rmtree(tmp_path / "site")
