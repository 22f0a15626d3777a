"""What a new user meets early: options and messages that say what is wrong and how to write it right, a second
copy of a bot named as `match` names it, and the competition file's settings kept by the leaderboard."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import run
from tests.helpers import RANDOM, arena
from tests.match.conftest import faulty


@pytest.mark.parametrize("game, variant, has", [
    ("bali-2017", "nosuch", "it has the variants oracle and demon"),
    ("bali-2001", "oracle", "it has no variants"),
])
def test_an_unknown_variant_is_called_a_variant_with_the_games_variants(game: str, variant: str, has: str) -> None:
    done = run("play", game, "--players", "3", "--variant", variant)
    assert done.exit_code == 2
    assert f"Invalid value for '--variant': {game} has no variant {variant!r}; {has}" in done.output
    assert "unknown option" not in done.output


@pytest.mark.parametrize("game, option", [("bali-2017", "start_farmers"), ("bali-2001", "masks"),
                                          ("bali-2001", "start_cards")])
def test_a_list_option_written_wrong_says_how_to_write_it_and_the_example_works(game: str, option: str) -> None:
    done = run("play", game, "--players", "3", "--option", f"{option}=abc")
    assert done.exit_code == 2 and "Traceback" not in done.output
    example = re.search(r"written as JSON, for example the default: (\S+); got 'abc'", done.output)
    assert example, done.output
    # The example, pasted as the user would (quoted for the shell), is accepted.
    pasted = shlex.split(f"--option {shlex.quote(f'{option}={example.group(1)}')}")
    assert run("play", game, "--players", "3", *pasted).exit_code == 0


@pytest.mark.slow
def test_a_tournament_names_a_second_copy_of_a_command_as_match_does(tmp_path: Path) -> None:
    done = arena("tournament", "bali-2017", RANDOM, RANDOM, "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert sorted(r["bot"] for r in board["ranking"]) == ["random_bot", "random_bot-2"]
    # Names given are the user's: two alike are still refused, naming the name.
    twice = arena("tournament", "bali-2017", f"a={RANDOM}", f"a={RANDOM}", cwd=tmp_path)
    assert twice.returncode == 2 and "duplicate bot name 'a'" in twice.stderr


@pytest.mark.slow
def test_the_leaderboard_keeps_the_competition_files_max_fault_rate(tmp_path: Path) -> None:
    bots = [f"bad={faulty('illegal')}", f"a={RANDOM}", f"b={RANDOM}"]
    (tmp_path / "competition.toml").write_text(
        f"game = 'bali-2017'\nseats = 3\nmax_fault_rate = 0.25\njobs = 1\nbots = {json.dumps(bots)}\n"
        "[time]\ntimeout = 0.5\n", encoding="utf-8")
    done = arena("tournament", "--config", "competition.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "withheld for a fault rate above 25.0%: bad" in done.stdout
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert board["max_fault_rate"] == 0.25 and [r["bot"] for r in board["withheld"]] == ["bad"]
    assert "bad" not in [r["bot"] for r in board["ranking"]]
    assert "withheld for a fault rate above 25.0%: bad" in arena("leaderboard", cwd=tmp_path).stdout
    # The command line still wins, and the same file resumes the same tournament whatever is shown.
    everyone = json.loads(arena("leaderboard", "--format", "json", "--max-fault-rate", "1", cwd=tmp_path).stdout)
    assert "bad" in [r["bot"] for r in everyone["ranking"]]
    again = arena("tournament", "--config", "competition.toml", "--max-fault-rate", "0.5", cwd=tmp_path)
    assert again.returncode == 0 and "0 games" not in again.stderr, again.stderr
    listed = arena("tournaments", cwd=tmp_path).stdout
    assert len([line for line in listed.splitlines() if "bali-2017" in line]) == 1


def _kit(folder: Path, build: str) -> Path:
    """A submission folder whose build takes a while (the README's bot, with a manifest)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text("from protocol import run_bot\nrun_bot(lambda view, options, decision: 0, "
                                   "name='kit', version='1')\n", encoding="utf-8")
    command = json.dumps([sys.executable, "bot.py"])
    manifest = f"name = 'kit'\nversion = '1'\ncommand = {command}\nbuild = {json.dumps(build)}\n"
    (folder / "manifest.toml").write_text(manifest, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_a_build_says_that_it_runs_and_how_long_it_took(tmp_path: Path) -> None:
    kit = _kit(tmp_path / "kit", "sleep 1.2")
    done = arena("validate", "kit", "--game", "bali-2017", "--games", "1", "--players", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    started, ended = done.stderr.splitlines()[:2]
    assert kit.is_dir() and started == "building kit (sleep 1.2) ..." and re.fullmatch(
        r"building kit \(sleep 1\.2\): built in 0:00:0[1-9]", ended), done.stderr
    again = arena("validate", "kit", "--game", "bali-2017", "--games", "1", "--players", "2", cwd=tmp_path)
    assert "building" not in again.stderr  # built already: nothing runs, nothing said
    _kit(kit, "sh -c 'echo compiling; echo error: no such type >&2; exit 3'")
    failed = arena("validate", "kit", "--game", "bali-2017", "--games", "1", "--players", "2", cwd=tmp_path)
    assert failed.returncode == 1 and re.search(r": failed after 0:00:0\d$", failed.stderr, re.M), failed.stderr
    assert "stderr| error: no such type" in failed.stdout  # the build's last lines, with its fault


@pytest.mark.slow
def test_on_a_terminal_the_build_line_counts_the_seconds(tmp_path: Path) -> None:
    _kit(tmp_path / "kit", "sleep 2.5")
    parent, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "arena", "validate", "kit", "--game", "bali-2017", "--games",
                                "1", "--players", "2"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=child)
    os.close(child)
    shown = b""
    while True:
        try:
            chunk = os.read(parent, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=120) == 0
    os.close(parent)
    text = shown.decode()
    assert "\r\x1b[2Kbuilding " in text and re.search(r"\(sleep 2\.5\): 0:00:0[1-9] so far", text), text
    assert re.search(r"\(sleep 2\.5\): built in 0:00:0[2-9]\r?\n", text), text
