"""The small things a bot author and an organiser tripped over, each through the command line: versions shown as
written, validate's --variant, the leaderboard's unranked and not-admitted bots, and a Ctrl-C during `arena new`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import RANDOM, arena, wait_until


def test_match_shows_a_version_as_the_bot_gave_it(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # an author's folder, readable by the user a bot runs as (nobody, for an arena run as root)
    bot = tmp_path / "v_bot.py"
    bot.write_text("from protocol import run_bot\nrun_bot(lambda view, options, decision: 0, name='v', "
                   "version='1.10')\n")
    done = arena("match", "bali-2017", f"{sys.executable} v_bot.py", RANDOM, "--games", "1", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[1]: line.split()[3] for line in done.stdout.splitlines() if line.strip()[:1].isdigit()}
    assert rows == {"v_bot": "1.10", "random_bot": "1.0"}, done.stdout


@pytest.mark.slow
def test_validate_takes_a_variant(tmp_path: Path) -> None:
    done = arena("validate", RANDOM, "--game", "bali-2017", "--players", "2", "--games", "1", "--variant", "oracle",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(next(tmp_path.glob("results/matches/*/game-0001.json")).read_text())
    assert record["options"]["oracle"] is True
    wrong = arena("validate", RANDOM, "--game", "bali-2017", "--variant", "nosuch", cwd=tmp_path)
    assert wrong.returncode == 2 and "bali-2017 has no variant 'nosuch'" in wrong.stderr


def test_the_option_help_gives_an_example_of_each_game(tmp_path: Path) -> None:
    shown = arena("match", "--help", cwd=tmp_path).stdout
    shown = " ".join(shown.split())
    assert "max_turns=50 in bali-2001" in shown and "oracle=true in bali-2017" in shown


@pytest.mark.slow
def test_the_leaderboard_lists_refusals_as_markdown_and_leaves_withheld_bots_unranked(tmp_path: Path) -> None:
    entries = tmp_path / "entries"
    for name, command in (("good", RANDOM), ("dies", f"{sys.executable} -c \"raise SystemExit('no')\"")):
        (entries / name).mkdir(parents=True)
        (entries / name / "manifest.toml").write_text(
            f"name = {name!r}\nversion = '1'\ncommand = {json.dumps(command)}\n")
    faulty = f"faulty={sys.executable} {Path(__file__).parents[1] / 'bot_programs' / 'faulty_bot.py'} illegal"
    run = arena("tournament", "bali-2017", "--submissions", "entries", f"r={RANDOM}", faulty, "--seats", "3",
                "--jobs", "1", "--max-fault-rate", "0.5", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    markdown = arena("leaderboard", "--format", "markdown", cwd=tmp_path).stdout
    assert "not admitted:\n- dies: entries/dies: failed its first game" in markdown, markdown
    data = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert [r["bot"] for r in data["withheld"]] == ["faulty"] and data["withheld"][0]["rank"] is None
    assert sorted(r["rank"] for r in data["ranking"]) == [1, 2]


FAKE_NPM = """#!/bin/sh
mkdir -p node_modules/half
touch node_modules/half/installed
exec sleep 60
"""


def test_a_ctrl_c_while_new_fetches_packages_says_what_is_left_to_do(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "npm").write_text(FAKE_NPM)
    (tools / "npm").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    if subprocess.run(["sh", "-c", "command -v node"], env=env, capture_output=True).returncode != 0:
        pytest.skip("node is not installed")
    new = subprocess.Popen([sys.executable, "-m", "arena", "new", "js-bot", "--lang", "javascript"], cwd=tmp_path,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_until(lambda: (tmp_path / "js-bot" / "node_modules" / "half" / "installed").exists())
    new.send_signal(signal.SIGINT)
    out, err = new.communicate(timeout=60)
    assert new.returncode == 130, out + err
    assert "interrupted while fetching the packages: js-bot/ is made without them; run `npm ci --no-audit " \
           "--no-fund` in js-bot with the network" in err
    assert "run the same command" not in err and "Traceback" not in err
    assert (tmp_path / "js-bot" / "manifest.toml").is_file() and not (tmp_path / "js-bot" / "node_modules").exists()
