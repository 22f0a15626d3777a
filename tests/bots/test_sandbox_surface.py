"""What a bot may write and read of the machine's own files, attacked through a real `arena match` and
`arena tournament`: under isolation only its sized /tmp and home take writes, and the runtime's files that not
everyone may read on the host stay unreadable (arena/bots/SANDBOX.md)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.bots.test_sandbox import ISOLATED, LEVELS, LIMIT_OPTIONS, bot, match, new_marker, told
from tests.helpers import processes_with, wait_until
from tests.match.conftest import ROOT

THREAT = ROOT / "tests" / "bot_programs" / "threat_bot.py"


@pytest.fixture
def var_tmp() -> object:
    """A folder of its own under /var/tmp (a directory bubblewrap would make on its root to bind a bot there)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_from_writing_beside_its_folder(level: str, tmp_path: Path,
                                                                    var_tmp: Path) -> None:
    marker = new_marker()
    shutil.copy(THREAT, var_tmp)
    planted = Path("/var/tmp") / f"arena-planted-{uuid.uuid4().hex}"
    try:
        arena = match(tmp_path, level, bot(marker, str(var_tmp / "threat_bot.py"), "write", str(planted)),
                      games=1, marker=marker)
        assert arena.run.returncode == 0, arena.run.stderr
        wrote = level not in ISOLATED
        assert ("illegal" in arena.faults(0)) == wrote, arena.run.stderr
        assert planted.exists() == wrote
    finally:
        planted.unlink(missing_ok=True)


def owner_only_files() -> list[str]:
    """The host's files under /etc that only their owner may read, that this process can read, and that hold
    something to steal."""
    found = []
    for root, _, files in os.walk("/etc"):
        for name in files:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode) and not info.st_mode & stat.S_IROTH and info.st_size and \
                        os.access(path, os.R_OK):
                    found.append(path)
            except OSError:
                continue
    return found


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_only_isolation_hides_the_runtimes_owner_only_files(level: str, tmp_path: Path) -> None:
    targets = owner_only_files()
    if not targets:
        pytest.skip("no file under /etc that only its owner may read and this user can: nothing to steal")
    marker = new_marker()
    folder = tmp_path / "entries" / "thief"
    folder.mkdir(parents=True)
    shutil.copy(THREAT, folder)
    (folder / "targets.txt").write_text("\n".join(targets))
    command = [sys.executable, f"-X{marker}", "threat_bot.py", "steal"]
    (folder / "manifest.toml").write_text(f"name = 'thief'\nversion = '1'\ncommand = {command!r}\n")
    run = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", "--submissions",
                          str(tmp_path / "entries"), f"random={bot(marker, 'sample_bots/random_bot.py')}",
                          f"random2={bot(marker, 'sample_bots/random_bot.py')}",
                          f"random3={bot(marker, 'sample_bots/random_bot.py')}", "--seats", "3", "--jobs", "1",
                          "--sandbox", level, "--results", str(tmp_path / "results"), *LIMIT_OPTIONS],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    read = level not in ISOLATED
    assert told(tmp_path / "results", run.stderr) == read, run.stderr
    assert wait_until(lambda: not processes_with(marker, -1), 5.0)
