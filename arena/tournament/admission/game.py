"""A submission's first game against the sample bots before it is admitted: any fault of its own in that game (a
failed build, start or handshake, a crash, a timeout, an illegal or malformed answer) is told with the end of its
stderr and its kept log."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from arena.bots.entrants import Entrant
from arena.bots.process import BotCommand
from arena.bots.sandbox import Sandbox
from arena.bots.submission import BuildWatch
from arena.errors import ArenaError
from arena.games import get_game
from arena.match.play import MatchConfig, file_safe, run_match
from arena.match.record import FaultRecord, Phase, record_file
from arena.tournament.opponents import sample_opponents
from protocol import TimeControl

ADMISSION_LINES, ADMISSION_LINE = 3, 200  # the last lines of a refused bot's stderr shown, and their length


@dataclass(frozen=True)
class Fault:
    """Why a step of an admission failed, the end of what the bot wrote to stderr (shown to the organiser only,
    never stored or published) and where its log was kept ('' if nowhere)."""

    reason: str
    said: str = ""
    log: str = ""


def first_game(entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
               sandbox: Sandbox, watch: BuildWatch | None = None, logs: Path | None = None,
               record_to: Path | None = None) -> Fault | None:
    """Why the entrant failed its first game against the sample bots, or None if it played it through; the logs
    of a failed one are kept in `logs`, and the game's record (its replay, with every seat's stderr) at
    `record_to`."""
    rules = get_game(game)
    opponents = sample_opponents(game, rules.min_players - 1, {entrant.name})
    bots = tuple(BotCommand(e.command, e.cwd) for e in (entrant, *opponents))
    with tempfile.TemporaryDirectory(prefix="arena-admission-") as work:
        config = MatchConfig(game=rules, bots=bots, games=1, options=options, time=clock, sandbox=sandbox,
                             results_dir=Path(work), build_watch=watch)
        try:
            record = run_match(config).records[0]
        except (ArenaError, OSError, zmq.ZMQError) as exc:
            return Fault(f"its first game against the sample bots could not be played: {exc}")
        # Any fault of its own keeps it out: a bot that times out or answers illegally against the sample bots
        # would only be paused after games that cost its opponents their clocks.
        fault = next((f for f in record.faults if f.participant == 0), None)
        if fault is None:
            return None
        kept = _keep_logs(Path(work), logs, entrant.name)
        if record_to is not None:
            _keep_record(Path(work), record_to)
    lines = [line.strip()[:ADMISSION_LINE] for line in fault.stderr.strip().splitlines() if line.strip()]
    return Fault(f"failed its first game against the sample bots ({_fault_line(fault)})",
                 " | ".join(lines[-ADMISSION_LINES:]), str(kept) if kept else "")


def _fault_line(fault: FaultRecord) -> str:
    """The fault as an author reads it: its kind and detail, and for a decision its place and timing."""
    return fault.message() if fault.phase == Phase.DECIDE else f"{fault.kind.value}: {fault.detail}"


def _keep_record(work: Path, to: Path) -> None:
    """Copy the admission game's record to `to` (where it is written whole or not at all)."""
    found = sorted(work.glob(f"matches/*/{record_file(0)}"))
    partial = to.with_name(to.name + ".partial")
    try:
        if found:
            shutil.copyfile(found[0], partial)
            partial.replace(to)
    except OSError:  # the refusal stands without its replay
        partial.unlink(missing_ok=True)


def _keep_logs(work: Path, logs: Path | None, name: str) -> Path | None:
    """Copy the refused entrant's stderr log of the admission game into logs; its new path, or None where there is
    none or it cannot be kept."""
    if logs is None:
        return None
    try:
        logs.mkdir(parents=True, exist_ok=True)
        for log in sorted(work.glob("matches/*/logs/p0-*.stderr.log")):
            target = logs / f"{file_safe(name)}.stderr.log"
            shutil.copyfile(log, target)
            return target
    except OSError:
        return None
    return None
