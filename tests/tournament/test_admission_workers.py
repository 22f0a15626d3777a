"""An admission's steps run in a worker process (the served season's), as the ladder's tables are."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from arena.bots.entrants import Entrant
from arena.bots.sandbox import Isolation, Sandbox
from arena.errors import ConfigError
from arena.tournament import worker
from arena.tournament.admission import workers
from arena.tournament.admission.game import Fault
from arena.tournament.admission.workers import AdmissionWorker, LocalAdmitter, build_step
from protocol import TimeControl

MANIFEST = 'name = "slow"\nversion = "1"\ncommand = "python3 bot.py"\nbuild = "python3 build.py"\n'


@pytest.mark.slow
def test_a_build_longer_than_the_pools_stall_slack_is_not_taken_for_a_stuck_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The coordinator takes a worker that shows no progress for STALL_SLACK for stuck; a build asks no bot anything,
    # so the step must say how long it may take. A slack of 2 s stands in for the minute of a real server, once
    # the worker has started (its start, imports and all, may take longer than that on a busy machine).
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "manifest.toml").write_text(MANIFEST)
    (folder / "bot.py").write_text("")
    (folder / "build.py").write_text("import time\ntime.sleep(5)\nopen('built', 'w').close()\n")
    log = tmp_path / "slow-build.log"
    with AdmissionWorker() as admission:
        assert admission.run(_started, (), workers.BUILDING) is None
        monkeypatch.setattr(worker, "STALL_SLACK", 2.0)
        assert admission.run(build_step, (str(folder), log, Sandbox(Isolation.NONE)),
                             workers.BUILDING) is None
    assert (folder / "built").is_file()


def test_a_failed_build_is_told_with_its_reason(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "manifest.toml").write_text(MANIFEST.replace("slow", "broken"))
    (folder / "bot.py").write_text("")
    (folder / "build.py").write_text("raise SystemExit('no compiler here')\n")
    log = tmp_path / "broken-build.log"
    with AdmissionWorker() as admission:
        why = admission.run(build_step, (str(folder), log, Sandbox(Isolation.NONE)),
                            workers.BUILDING)
    assert why is not None and "failed with status 1" in why and str(log) in why
    assert "no compiler here" in log.read_text()


def _started(_: Any) -> str:
    """A step that does nothing: the worker has started once it is done."""
    return ""


def _killed(_: Any) -> str:
    """A step whose worker process dies under it, as one killed by the machine's out-of-memory killer would."""
    os.kill(os.getpid(), signal.SIGKILL)
    return ""


@pytest.mark.parametrize("doing", [workers.BUILDING, workers.FIRST_GAME])
def test_a_worker_that_dies_in_an_admission_step_is_told_as_that_step(doing: str) -> None:
    with AdmissionWorker() as admission:
        why = admission.run(_killed, (), doing)
    assert why == f"the worker process {doing} was killed by SIGKILL"
    assert "table" not in why


def test_a_first_game_that_cannot_be_set_up_is_a_refusal_in_this_process_as_in_a_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command line admits in this process (LocalAdmitter), the season in a worker (AdmissionWorker): an
    # ArenaError before the game starts is a Fault with its reason through both, never a bare string.
    def unplayable(*_: Any, **__: Any) -> None:
        raise ConfigError("the sample bots cannot be seated")

    monkeypatch.setattr(workers, "first_game", unplayable)
    entrant = Entrant("bad", ("python3", "bot.py"), str(tmp_path), "1")
    refused = LocalAdmitter().first_game(entrant, "bali-2017", None, TimeControl(), Sandbox(Isolation.NONE))
    assert refused == Fault("the sample bots cannot be seated")
