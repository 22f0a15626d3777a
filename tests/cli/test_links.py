"""Printed links a person can use: `see it:` is an absolute file:// URL, quoted where it is part of a shell
command, so that it opens from any folder and survives a shell."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.helpers import arena
from tests.match.conftest import faulty


@pytest.mark.slow
def test_show_prints_a_quoted_url_that_a_shell_passes_whole(tmp_path: Path) -> None:
    done = arena("validate", str(faulty("die_mid_game")), "--game", "bali-2017", "--games", "1", "--players", "2",
                 cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    match_id = re.search(r"stored as games 1 to 1 of (\S+):", done.stdout).group(1)
    shown = arena("show", "1", "-t", match_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    line = re.search(r"see it: (.*), then open (.*)$", shown.stdout, re.M)
    assert line, shown.stdout
    made = subprocess.run(line.group(1), shell=True, cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    words = shlex.split(line.group(2))  # what a shell makes of it: one word, the & kept
    assert len(words) == 1 and words[0].startswith("file:///"), line.group(2)
    url = urlsplit(words[0])
    assert Path(unquote(url.path)).is_file() and re.fullmatch(r"step=\d+&seat=\d", url.fragment)
