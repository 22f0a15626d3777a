"""A bot given as a command line, outside the checkout, at the default sandbox level: it sees the folder its
script lives in (a helper module beside it, node_modules beside package.json), and is told when it cannot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from arena.kits import Language
from tests.helpers import ROOT
from tests.kits.conftest import arena

TWO_FILES = {
    "helper.py": "def choose(options):\n    return len(options) - 1\n",
    "my_bot.py": "from helper import choose\nfrom protocol import Bot, run_bot\n\n\nclass TwoFiles(Bot):\n"
                 "    name = 'two-files'\n    version = '1.0'\n\n"
                 "    def decide(self, view, options, decision):\n        return choose(options)\n\n\n"
                 "run_bot(TwoFiles())\n",
}


def two_file_bot(folder: Path) -> Path:
    """A Python bot in two files in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TWO_FILES.items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.slow
def test_a_two_file_python_bot_passes_validate_as_a_command_line(tmp_path: Path) -> None:
    bot = two_file_bot(tmp_path / "my-bot")
    run = arena("validate", "python3 my_bot.py", "--game", "bali-2017", "--players", "2", "--games", "2",
                cwd=bot)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS: bot my_bot (handshake: 'two-files'" in run.stdout and ": 2 games without a fault" in run.stdout
    # From the folder above, naming the script by its path: the same.
    run = arena("validate", "python3 my-bot/my_bot.py", "--game", "bali-2017", "--players", "2", "--games", "1",
                cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow
def test_a_javascript_bot_beside_its_node_modules_passes_validate_as_a_command_line(
        kit: Callable[[Language], Path], tmp_path: Path) -> None:
    folder = tmp_path / "js-bot"
    shutil.copytree(kit(Language.JAVASCRIPT), folder, symlinks=True)
    (folder / "manifest.toml").unlink()  # a plain folder: the bot is its command line
    for where, command in ((folder, "node bot.js"), (tmp_path, "node js-bot/bot.js")):
        run = arena("validate", command, "--game", "bali-2017", "--players", "2", "--games", "1",
                    "--results", str(tmp_path / "results"), cwd=where)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "PASS: bot bot (" in run.stdout and ": 1 games without a fault" in run.stdout, run.stdout


def test_a_script_in_the_results_folder_is_refused_before_any_game(tmp_path: Path) -> None:
    bot = two_file_bot(tmp_path / "my-bot")
    run = arena("validate", "python3 my_bot.py", "--game", "bali-2017", "--results", ".", cwd=bot)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{bot / 'my_bot.py'} lies in the results folder {bot}, which the sandbox hides" in run.stderr
    assert "give --results another folder" in run.stderr and "Traceback" not in run.stderr
    assert not (bot / "arena.sqlite").exists() and not (bot / "matches").exists()


def test_a_bot_missing_a_module_is_told_what_the_sandbox_shows_it(tmp_path: Path) -> None:
    bot = two_file_bot(tmp_path / "my-bot")
    (bot / "helper.py").unlink()
    run = arena("validate", "python3 my_bot.py", "--game", "bali-2017", "--players", "2", "--games", "1",
                cwd=bot)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "No module named 'helper'" in run.stdout
    assert "the sandbox shows a bot given as a command line only the folder its script lives in" in run.stdout


# At auto in the quick run, as every row of SANDBOX.md's threats; the levels below it are slow tests.
@pytest.mark.parametrize("level", [pytest.param("none", marks=pytest.mark.slow),
                                   pytest.param("rlimit", marks=pytest.mark.slow), "auto"])
def test_a_command_line_bot_shown_its_folder_reads_neither_the_results_nor_the_store_in_it(level: str,
                                                                                        tmp_path: Path) -> None:
    folder = tmp_path / "my-bot"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "bot_programs" / "threat_bot.py", folder)
    store, results = folder / "store.sqlite", folder / "results"
    entrants = [f"peek=python3 threat_bot.py peek {store}", f"write=python3 threat_bot.py write {results / 'x'}",
                "r=python3 -m sample_bots.random_bot"]
    run = arena("tournament", "bali-2017", *entrants, "--seats", "3", "--jobs", "1", "--db", str(store),
                "--results", str(results), "--sandbox", level, cwd=folder)
    assert run.returncode == 0, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in results.rglob("game-*.json")]
    caught = {f["bot"] for r in records for f in r["faults"] if f["kind"] == "illegal"}
    isolated = level == "auto"  # bubblewrap here; the lower levels do not keep files apart, as they say
    assert records and caught == (set() if isolated else {"peek", "write"}), run.stdout + run.stderr
    assert (results / "x").exists() != isolated


@pytest.mark.slow
def test_a_bot_run_by_a_virtual_environments_python_sees_that_environments_packages(tmp_path: Path) -> None:
    venv = tmp_path / "envs" / "bot-env"
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "helper.py").write_text(TWO_FILES["helper.py"])
    bot = tmp_path / "my-bot"
    bot.mkdir()
    (bot / "my_bot.py").write_text(TWO_FILES["my_bot.py"])
    # The SDK and its packages from the arena's installation; the helper only from the bot's environment.
    arena_site = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    env = {"PYTHONPATH": f"{ROOT}{os.pathsep}{arena_site}"}
    run = arena("validate", f"{venv}/bin/python my_bot.py", "--game", "bali-2017", "--players", "2", "--games",
                "1", cwd=bot, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ": 1 games without a fault" in run.stdout


@pytest.mark.parametrize("level", [pytest.param("none", marks=pytest.mark.slow),
                                   pytest.param("rlimit", marks=pytest.mark.slow), "auto"])
def test_two_command_line_bots_in_one_folder_do_not_read_each_others_scripts(level: str, tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "bot_programs" / "threat_bot.py", tmp_path)
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", tmp_path / "other_bot.py")
    (tmp_path / "targets.txt").write_text(str(tmp_path / "other_bot.py"))
    run = arena("match", "bali-2017", "python3 threat_bot.py steal", "python3 other_bot.py", "--games", "2", "-q",
                "--sandbox", level, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("game-*.json")]
    stole = {f["bot"] for r in records for f in r["faults"] if f["kind"] == "illegal"}
    assert len(records) == 2 and stole == (set() if level == "auto" else {"threat_bot"}), run.stdout + run.stderr
