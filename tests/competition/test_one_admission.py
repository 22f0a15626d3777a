"""One admission for the command line and the served season: the same faulty bot (its build fails, its manifest is
bad, it crashes in its first game) is refused in the same words by `arena tournament --submissions` and by the
season's admissions (entered as the organiser's folders, or uploaded), with a real store and real processes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import Isolation, Sandbox
from arena.competition.season import Season, SeasonSettings, enter_folders
from arena.competition.uploads import UploadLimits, UploadRefused, receive
from arena.storage import Store
from arena.storage.authors import Status
from arena.tournament.formats.base import Play
from protocol import TimeControl
from tests.helpers import ROOT, arena
from tests.server.conftest import zipped

pytestmark = pytest.mark.slow  # real builds and first games, on both routes

FAULTY = ROOT / "tests" / "bot_programs" / "faulty_bot.py"
RANDOM = [sys.executable, "-m", "sample_bots.random_bot"]
ADMITTED_LATER = ("buildfails", "dies")  # refused by the pipeline, after the folder's manifest was taken
REFUSED_AT_ONCE = ("badversion", "climbs")  # refused for their manifests, before any build or game


def _folder(where: Path, name: str, manifest: str) -> Path:
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(manifest, encoding="utf-8")
    return folder


def _submissions(where: Path) -> Path:
    """The faulty bots (and two sound ones, so that a tournament has its entrants), each in a folder named after it."""
    for good in ("good", "good2"):
        _folder(where, good, f"name = '{good}'\nversion = '1'\ncommand = {json.dumps(RANDOM)}\n")
    failing = _folder(where, "buildfails", "name = 'buildfails'\nversion = '1'\ncommand = 'python3 bot.py'\n"
                                           "build = 'python3 build.py'\n")
    (failing / "build.py").write_text("import sys\nprint('no compiler here')\nsys.exit(1)\n", encoding="utf-8")
    dies = _folder(where, "dies", f"name = 'dies'\nversion = '1'\ncommand = "
                                  f"{json.dumps([sys.executable, 'faulty_bot.py', 'die_at_start'])}\n")
    shutil.copy(FAULTY, dies)
    _folder(where, "badversion", f"name = 'badversion'\nversion = ''\ncommand = {json.dumps(RANDOM)}\n")
    climbs = _folder(where, "climbs", "name = 'climbs'\nversion = '1'\ncommand = 'python3 ../bot.py'\n")
    (climbs / "bot.py").write_text("", encoding="utf-8")
    return where


def _cli_refusals(tmp_path: Path) -> dict[str, str]:
    """Each refused folder's refusal as `arena tournament --submissions` prints it, after its folder's name."""
    home = tmp_path / "cli"
    _submissions(home / "subs")
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--seats", "2", "--rounds", "1",
              "--sandbox", "none", "--init-timeout", "20", "--name", "cup", cwd=home, timeout=600)
    assert r.returncode == 0, r.stderr
    said = {}
    for line in r.stderr.splitlines():
        if line.startswith("not admitted: subs/"):
            folder, text = line.removeprefix("not admitted: subs/").split(": ", 1)
            said[folder] = text
    assert sorted(said) == sorted(ADMITTED_LATER + REFUSED_AT_ONCE), r.stderr
    return said


def _season_refusals(tmp_path: Path) -> tuple[dict[str, str], list[str]]:
    """Each folder's refusal as the season stores it (entered as the organiser's own), and the lines of those it
    would not enter."""
    subs = _submissions(tmp_path / "srv" / "subs")
    results = tmp_path / "srv" / "results"
    settings = SeasonSettings(play=Play(game="bali-2017", time=TimeControl(init=20.0),
                                        sandbox=Sandbox(Isolation.NONE)),
                              name="season", results_dir=results, db=results / "arena.sqlite", seats=2)
    queued, problems = enter_folders(settings, subs, set())
    assert queued == 4, problems
    season = Season(settings)
    try:
        with Store(settings.db) as store:
            for submission in store.submissions(status=Status.QUEUED):
                season.admissions.admit(store, submission)
            decided = {s.bot: s for s in store.submissions()}
    finally:
        season.stop()
    assert decided["good"].status == decided["good2"].status == Status.ADMITTED, decided
    assert all(decided[name].status == Status.REFUSED for name in ADMITTED_LATER), decided
    return {name: decided[name].reason for name in ADMITTED_LATER}, problems


def test_the_same_faulty_bot_is_refused_in_the_same_words_by_the_command_line_and_the_season(
        tmp_path: Path) -> None:
    cli = _cli_refusals(tmp_path)
    season, not_entered = _season_refusals(tmp_path)
    assert {name: cli[name] for name in ADMITTED_LATER} == season
    assert cli["buildfails"].startswith("the build failed: the build step 'python3 build.py' failed with status 1; "
                                        "its output: buildfails-build.log"), cli
    assert cli["dies"] == "failed its first game against the sample bots (crash: the bot exited with status 3)", cli
    # A bad manifest: the organiser's folder is not entered, in the command line's words; an upload of it is
    # refused in its author's, the same but for the folder's name in front.
    assert sorted(not_entered) == sorted(f"subs/{name}: {cli[name]}" for name in REFUSED_AT_ONCE)
    assert cli["badversion"] == "manifest.toml: field 'version' must be a non-empty string", cli
    assert cli["climbs"].startswith("manifest.toml: command: '../bot.py' climbs out of the folder with '..'"), cli
    for name in REFUSED_AT_ONCE:
        archive = tmp_path / f"{name}.zip"
        archive.write_bytes(zipped(tmp_path / "srv" / "subs" / name))
        with pytest.raises(UploadRefused) as refused:
            receive(archive, archive.name, tmp_path / "uploads", UploadLimits())
        assert str(refused.value) == cli[name]
