"""The served season's admission steps, run in a worker process as the ladder's tables are."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from arena.bots.sandbox import Isolation, Sandbox
from arena.competition import season
from arena.tournament import worker

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
    with season.AdmissionWorker() as admission:
        assert admission.run(_started, (), season.BUILDING) is None
        monkeypatch.setattr(worker, "STALL_SLACK", 2.0)
        assert admission.run(season._build_step, (str(folder), log, Sandbox(Isolation.NONE)),
                             season.BUILDING) is None
    assert (folder / "built").is_file()


def test_a_failed_build_is_told_with_its_reason(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "manifest.toml").write_text(MANIFEST.replace("slow", "broken"))
    (folder / "bot.py").write_text("")
    (folder / "build.py").write_text("raise SystemExit('no compiler here')\n")
    log = tmp_path / "broken-build.log"
    with season.AdmissionWorker() as admission:
        why = admission.run(season._build_step, (str(folder), log, Sandbox(Isolation.NONE)),
                            season.BUILDING)
    assert why is not None and "failed with status 1" in why and str(log) in why
    assert "no compiler here" in log.read_text()


def _started(_: Any) -> str:
    """A step that does nothing: the worker has started once it is done."""
    return ""


def _killed(_: Any) -> str:
    """A step whose worker process dies under it, as one killed by the machine's out-of-memory killer would."""
    os.kill(os.getpid(), signal.SIGKILL)
    return ""


@pytest.mark.parametrize("doing", [season.BUILDING, season.FIRST_GAME])
def test_a_worker_that_dies_in_an_admission_step_is_told_as_that_step(doing: str) -> None:
    with season.AdmissionWorker() as admission:
        why = admission.run(_killed, (), doing)
    assert why == f"the worker process {doing} was killed by SIGKILL"
    assert "table" not in why


@pytest.mark.parametrize("said, shown", [
    ("/srv/uploads/upload-ab/bot.py", "./bot.py"),
    ("in /srv/uploads/upload-ab, exit 1", "in ., exit 1"),
    ("see /srv/uploads/upload-ab-build.log", "see upload-ab-build.log"),
    ('File "/srv/uploads/upload-ab/lib/x.py", line 3', 'File "./lib/x.py", line 3'),
])
def test_a_refusal_names_the_upload_s_files_from_its_folder_and_no_path_above_it(said: str, shown: str) -> None:
    assert season.shown_to_author(said, Path("/srv/uploads/upload-ab")) == shown


def test_an_upload_s_folder_named_from_the_working_directory_leaves_no_part_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A server started with a relative --results: the folder's name is also the tail of its absolute name.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "uploads" / "upload-ab").mkdir(parents=True)
    said = (f"$ make   (in {tmp_path}/results/uploads/upload-ab)\n"
            f'File "{tmp_path}/results/uploads/upload-ab/bot.py", line 3\n'
            f"its output: {tmp_path}/results/uploads/upload-ab-build.log; results/uploads/upload-ab/x")
    assert season.shown_to_author(said, Path("results/uploads/upload-ab")) == (
        '$ make   (in .)\nFile "./bot.py", line 3\nits output: upload-ab-build.log; ./x')
