"""The README's commands for bot authors, run as written through the installed `arena`, on the README's own bot."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

# Fewer games than the README's commands play, appended after them (the last value of an option wins).
FEWER_GAMES = {"validate": ["--games", "2"], "match": ["--games", "2"], "tournament": ["--rounds", "1"]}


def section(text: str, title: str) -> str:
    """A README section, from its heading to the next one."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of a language."""
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


@pytest.mark.slow
def test_the_readme_bot_author_commands_work_as_written(tmp_path: Path) -> None:
    authors = section((ROOT / "README.md").read_text(encoding="utf-8"), "For bot authors")
    (tmp_path / "my_bot.py").write_text(blocks(authors, "python")[0], encoding="utf-8")
    commands = [shlex.split(line, comments=True) for line in blocks(authors, "sh")[0].splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["arena", "validate"], ["arena", "match"], ["arena", "tournament"]]
    # `arena` and `python3` as a user's shell finds them: the ones installed with the arena.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    outputs = {}
    for argv in commands:
        done = subprocess.run([*argv, *FEWER_GAMES[argv[1]]], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        outputs[argv[1]] = done.stdout
    assert "PASS: bot my_bot (handshake: 'my-bot' version '1.0')" in outputs["validate"]
    table = outputs["match"].splitlines()
    assert table[0].split()[:2] == ["rank", "bot"] and any("my_bot (my-bot)" in row for row in table)
    assert re.search(r"^ +\d +my_bot +", outputs["tournament"], re.M)
    assert re.search(r"^ +\d +heuristic_bot +", outputs["tournament"], re.M)
    # What match prints to look further works when pasted, from the same folder.
    show = re.search(r"; (arena show .*)$", outputs["match"], re.M).group(1)
    shown = subprocess.run(shlex.split(show), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    replay = re.search(r"^replay: (arena replay .*)$", shown.stdout, re.M).group(1)
    replayed = subprocess.run(shlex.split(replay), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0 and "reproduces" in replayed.stdout, replayed.stderr
