"""Admission, not blockage: every submission checked before any game; those that fail are listed, not played."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, arena

FAULTY = ROOT / "tests" / "bot_programs" / "faulty_bot.py"


def submission(folder: Path, name: str, command: list[str] | None = None, version: str = "1",
               text: str | None = None) -> Path:
    """A submission folder with a manifest (a random bot unless another command is given)."""
    folder.mkdir(parents=True)
    command = command or [sys.executable, "-m", "sample_bots.random_bot"]
    (folder / "manifest.toml").write_text(
        text if text is not None else f"name = {name!r}\nversion = {version!r}\ncommand = {json.dumps(command)}\n",
        encoding="utf-8")
    return folder


@pytest.mark.slow
def test_broken_manifests_are_all_reported_in_one_run_and_the_others_play(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("a", "b", "c"):
        submission(subs / name, name)
    submission(subs / "broken1", "", text="name = 'x'\ncommand = [unclosed")
    submission(subs / "broken2", "", text="name = 'y'\nversion = '1'\ncommand = 'no-such-program-xyz'\n")
    submission(subs / "twin1", "twin")
    submission(subs / "twin2", "twin")
    strict = arena("tournament", "bali-2017", "--submissions", "subs", "--strict", "--jobs", "1", cwd=tmp_path)
    assert strict.returncode == 2 and "Traceback" not in strict.stderr
    for problem in ("subs/broken1: manifest.toml: not valid TOML", "subs/broken2: manifest.toml", "no-such-program-xyz",
                    "subs/twin2/manifest.toml: the name 'twin' belongs to subs/twin1"):
        assert problem in strict.stderr, (problem, strict.stderr)
    assert not (tmp_path / "results" / "arena.sqlite").exists()
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--name", "cup", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("not admitted: ") == 3
    board = arena("leaderboard", "--format", "json", cwd=tmp_path)
    data = json.loads(board.stdout)
    assert sorted(row["bot"] for row in data["ranking"]) == ["a", "b", "c", "twin"]  # twin1 holds its name
    assert len({row["games"] for row in data["ranking"]}) == 1
    refused = {Path(r["folder"]).name: r["reason"] for r in data["not_admitted"]}
    assert sorted(refused) == ["broken1", "broken2", "twin2"]
    assert "not valid TOML" in refused["broken1"] and "no-such-program-xyz" in refused["broken2"]
    assert "not admitted:" in arena("leaderboard", cwd=tmp_path).stdout


@pytest.mark.slow
def test_a_bot_that_dies_at_the_handshake_is_not_admitted_while_the_others_play(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("a", "b", "c"):
        submission(subs / name, name)
    dying = submission(subs / "dies", "dies", [sys.executable, "faulty_bot.py", "die_at_start"])
    shutil.copy(FAULTY, dying)  # a submission's command names only files of its folder
    # What a validate run inside the submissions folder leaves there: no entrant.
    (subs / "results" / "matches").mkdir(parents=True)
    (subs / "results" / "arena.sqlite").write_bytes(b"")
    args = ("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--name", "cup",
            "--init-timeout", "20")
    r = arena(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # The reason, with the end of its stderr and its log kept, the folder named as the competition has it.
    log = Path("results") / "admission" / "dies.stderr.log"
    assert ("not admitted: subs/dies: failed its first game against the sample bots (crash: the bot exited with "
            "status 3)\n") in r.stderr and f"\n  its log: {log}\n" in r.stderr, r.stderr
    assert "\n  its stderr ended: faulty_bot: dying at start" in r.stderr and (tmp_path / log).is_file()
    assert "subs/results" not in r.stderr and r.stderr.count("not admitted") == 1
    text = arena("leaderboard", "--format", "markdown", cwd=tmp_path).stdout
    assert "dies: subs/dies: failed its first game" in text and "dying at start" not in text
    site = arena("publish", "-o", "site", "--no-games", cwd=tmp_path)
    assert site.returncode == 0, site.stderr
    page = (tmp_path / "site" / "cup" / "index.html").read_text()
    assert "Not admitted" in page and "<strong>dies</strong>" in page
    assert str(tmp_path) not in page and "dying at start" not in page
    # Mended, it is checked again at the next run and admitted (a round-robin's entrants then change).
    (dying / "manifest.toml").write_text(f"name = 'dies'\nversion = '1'\ncommand = "
                                         f"{json.dumps([sys.executable, '-m', 'sample_bots.random_bot'])}\n")
    again = arena(*args, cwd=tmp_path)
    assert "not admitted" not in again.stderr


@pytest.mark.slow
def test_a_bot_that_times_out_or_answers_illegally_in_its_first_game_is_refused_with_the_fault(
        tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("a", "b"):
        submission(subs / name, name)
    for mode in ("sleep", "illegal"):
        folder = submission(subs / mode, mode, [sys.executable, "faulty_bot.py", mode])
        shutil.copy(FAULTY, folder)
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--seats", "2", "--rounds", "1",
              "--timeout", "0.3", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    refused = {line.split(": ", 2)[1]: line for line in r.stderr.splitlines() if line.startswith("not admitted: ")}
    assert sorted(refused) == ["subs/illegal", "subs/sleep"], r.stderr
    assert "(game 1, decision #" in refused["subs/sleep"] and ": timeout: " in refused["subs/sleep"]
    assert "limit (set by the competition: make the bot answer sooner)" in refused["subs/sleep"]
    assert "(game 1, decision #" in refused["subs/illegal"] and ": illegal" in refused["subs/illegal"]
    ranked = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)["ranking"]
    assert sorted(row["bot"] for row in ranked) == ["a", "b"]
