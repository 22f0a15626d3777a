"""Helpers for the match runner's tests: sample bot commands, a spy on started processes, short clocks."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots.process import BotCommand, BotProcess
from arena.games import get_game
from arena.match.play import BotPool, MatchConfig, MatchResult, run_match
from protocol import TimeControl

ROOT = Path(__file__).resolve().parents[2]
# Short enough that faulty bots cost little, long enough that a healthy bot on a busy machine is never late.
FAST = TimeControl(timeout=0.5, init=20.0)


def sample_bot(name: str, *args: str) -> BotCommand:
    """The command of a bot in sample_bots/."""
    return BotCommand((sys.executable, str(ROOT / "sample_bots" / f"{name}.py"), *args))


RANDOM = sample_bot("random_bot")
HEURISTIC = sample_bot("heuristic_bot")
PLAIN = sample_bot("plain_bot")
RANDOM_MODULE = BotCommand((sys.executable, "-m", "sample_bots.random_bot"), cwd=str(ROOT))


def double(name: str, *args: str) -> BotCommand:
    """The command of a test double in tests/bot_programs/."""
    return BotCommand((sys.executable, str(ROOT / "tests" / "bot_programs" / f"{name}.py"), *args))


def faulty(mode: str) -> BotCommand:
    """A faulty bot of the given mode."""
    return double("faulty_bot", mode)


def play(results: Path, game: str, bots: list[BotCommand], **settings: Any) -> MatchResult:
    """Run a match with short clocks, its files under results."""
    settings.setdefault("time", FAST)
    return run_match(MatchConfig(get_game(game), tuple(bots), results_dir=results, **settings))


class Spawned:
    """What the match under test started: bot process ids (= process group ids) and ipc directories."""

    def __init__(self) -> None:
        self.pids: list[int] = []
        self.commands: list[BotCommand] = []  # the command of each process started, in the order of pids
        self.ipc_dirs: list[Path] = []

    def starts(self, command: BotCommand) -> int:
        """How many processes of that command were started."""
        return self.commands.count(command)

    def assert_all_gone(self) -> None:
        """No process of any bot's process group is left, and no ipc directory."""
        assert self.pids, "no bot was started"
        for pgid in self.pids:
            with pytest.raises(ProcessLookupError):
                os.killpg(pgid, 0)
        for folder in self.ipc_dirs:
            assert not folder.exists()


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> Spawned:
    """Records every bot process and ipc directory the test's matches create."""
    seen = Spawned()
    start, pool = BotProcess.__init__, BotPool.__init__

    def spy_start(self: BotProcess, *args: Any, **kwargs: Any) -> None:
        start(self, *args, **kwargs)
        seen.pids.append(self.pid)
        seen.commands.append(args[0] if args else kwargs["command"])

    def spy_pool(self: BotPool, *args: Any, **kwargs: Any) -> None:
        pool(self, *args, **kwargs)
        if self.ipc_dir is not None:
            seen.ipc_dirs.append(self.ipc_dir)

    monkeypatch.setattr(BotProcess, "__init__", spy_start)
    monkeypatch.setattr(BotPool, "__init__", spy_pool)
    return seen
