"""Helpers for the command-line tests: running `arena` in-process, the records a match wrote, short clocks."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from arena.cli import main
from tests.match.conftest import sample_bot, spawned  # noqa: F401 - spawned: the fixture, for the match tests

RANDOM_BOT = str(sample_bot("random_bot"))
FAST = ("--timeout", "0.5", "--init-timeout", "20")


def run(*args: str) -> Result:
    """`arena ARGS` in-process."""
    return CliRunner().invoke(main, list(args))


def records(results: Path) -> list[Path]:
    """The game records a match wrote under results, in order."""
    return sorted(results.glob("matches/*/game-*.json"))
