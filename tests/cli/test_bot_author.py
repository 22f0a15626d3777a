"""The README run as written: every command of its opening, "For bot authors", starter-kit and "Running a
competition" sections, exactly as printed (by a shell, with the README's own bot), in a fresh folder, through the
installed `arena`; each must exit 0 with no traceback."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from arena.kits import Language
from tests.helpers import ROOT
from tests.kits.conftest import need

README = (ROOT / "README.md").read_text(encoding="utf-8")
# `arena` and `python3` as a user's shell finds them: the ones installed with the arena (an activated environment).
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
INSTALL = "python3 -m pip install -e ."  # what the opening command starts with; this suite runs in that install


def section(text: str, title: str) -> str:
    """A README section, from its heading to the next one."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of a language."""
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def lines(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip()]


def as_printed(line: str, cwd: Path, timeout: float = 900) -> str:
    """Run one README line in a shell, as a user pastes it; its output, after checking it exited 0 without a
    traceback."""
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (line, done.stdout[-3000:], done.stderr[-3000:])
    assert "Traceback" not in done.stdout + done.stderr, (line, done.stderr[-3000:])
    return done.stdout


def readme_bot(folder: Path, name: str = "my_bot.py") -> Path:
    """The README's own bot (its Python block), written where a bot author keeps it."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # as an author's folder is: readable by the user a bot runs as (nobody, under root)
    (folder / name).write_text(blocks(section(README, "For bot authors"), "python")[0], encoding="utf-8")
    return folder / name


@pytest.mark.slow
def test_the_readme_opening_command_runs_as_written(tmp_path: Path) -> None:
    first, tests = lines(blocks(README.split("\n## ", 1)[0], "sh")[0])
    install, _, play = first.partition(" && ")
    assert install == INSTALL and play.startswith("arena tournament ")
    # The second line is this test suite's own command (and its installs): what it runs is what runs it.
    assert tests.endswith('python3 -m pytest -m "not soak"')
    out = as_printed(play, tmp_path)
    assert re.search(r"^ +1 +\S+", out, re.M) and "heuristic_bot" in out and "other" in out
    assert (tmp_path / "results" / "arena.sqlite").is_file()


@pytest.mark.slow
def test_the_readme_bot_author_commands_work_as_written(tmp_path: Path) -> None:
    authors = section(README, "For bot authors")
    readme_bot(tmp_path)
    commands = lines(blocks(authors, "sh")[0])
    assert [shlex.split(c, comments=True)[:2] for c in commands] == [
        ["arena", "validate"], ["arena", "match"], ["arena", "tournament"]]
    outputs = {shlex.split(c)[1]: as_printed(c, tmp_path) for c in commands}
    assert "PASS: bot my_bot (handshake: 'my-bot' version '1.0')" in outputs["validate"]
    table = outputs["match"].splitlines()
    assert table[0].split()[:2] == ["rank", "bot"] and any("my_bot (my-bot)" in row for row in table)
    # The gauntlet's table, as the README promises: the entrant name with the handshake name beside it.
    assert re.search(r"^ +\d +my_bot \(my-bot\) +", outputs["tournament"], re.M), outputs["tournament"]
    assert re.search(r"^ +\d +heuristic_bot \(heuristic\) +", outputs["tournament"], re.M)
    # What match prints to look further works when pasted, from the same folder.
    show = re.search(r"; (arena show .*)$", outputs["match"], re.M).group(1)
    replay = re.search(r"^replay: (arena replay .*)$", as_printed(show, tmp_path), re.M).group(1)
    assert "reproduces" in as_printed(replay, tmp_path)


@pytest.mark.slow
def test_the_readme_starter_kit_command_works_as_written(tmp_path: Path) -> None:
    command, = lines(blocks(section(README, "Starter kits: a bot in your language"), "sh")[0])
    language = re.search(r"--lang (\w+)", command).group(1)
    need(Language(language))  # a machine without the kit's toolchain skips (CI, which has them all, fails)
    out = as_printed(command, tmp_path, timeout=1800)  # a first Rust build takes minutes on a busy machine
    assert re.search(r"^PASS: bot mybot ", out, re.M), out


@pytest.mark.slow
def test_the_readme_competition_commands_work_as_written(tmp_path: Path) -> None:
    # The entries: the README's own bot in a folder with a manifest, and starter kits made as the README says.
    bot = readme_bot(tmp_path / "entries" / "my-bot", "bot.py")
    (bot.parent / "manifest.toml").write_text("name = 'my-bot'\nversion = '1.0'\ncommand = 'python3 bot.py'\n",
                                              encoding="utf-8")
    for name in ("alice", "bob", "carol"):
        as_printed(f"arena new entries/{name} --lang python", tmp_path)
    commands = lines(blocks(section(README, "Running a competition"), "sh")[0])
    assert [shlex.split(c)[:2] for c in commands] == [["arena", "tournament"], ["arena", "leaderboard"],
                                                      ["arena", "publish"]]
    tournament, board, site = (as_printed(c, tmp_path) for c in commands)
    for name in ("my-bot", "alice", "bob", "carol"):
        assert re.search(rf"^ +\d +{name}\b", board, re.M), board
    assert (tmp_path / "site" / "index.html").is_file()
