"""Shared test configuration."""

from __future__ import annotations

import compileall
import os
import signal
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

# A suite started in the background (`nohup`, `&` in a script) inherits SIGINT ignored, and every arena it starts
# would too: the tests of Ctrl-C need the arenas to get SIGINT as they do from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The files whose tests take longest run first: pytest-xdist hands tests out in collection order, so the long ones
# then overlap with each other and the short ones fill the end, and no worker is left with a long test at the end.
LONGEST_FIRST = (
    "tests/kits/test_kits.py", "tests/tournament/test_cluster.py", "tests/viewer/test_browser.py",
    "tests/cli/test_living_ladder.py", "tests/games/test_conformance.py", "tests/tournament/test_workers.py",
    "tests/cli/test_compare.py", "tests/sample_bots/test_heuristic.py", "tests/site/test_site_browser.py",
)


ROOT = Path(__file__).resolve().parent.parent
# The packages whose modules every arena and bot process the tests start imports.
COMPILED = ("arena", "protocol", "sample_bots", "tests")


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project's modules once, as an installed package is: where PYTHONDONTWRITEBYTECODE is set, each
    of the thousands of processes the tests start would otherwise compile every module it imports from source."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller has compiled them
        return
    for package in COMPILED:
        compileall.compile_dir(ROOT / package, quiet=1)


USER_UMASK = 0o022  # a user's shell's: what they make is readable by others, as bots dropped to a host uid need


@pytest.fixture(autouse=True)
def users_umask() -> None:
    """Each test makes its files as a user's shell would: an arena command run in this process (CliRunner) sets
    its own private umask, which must not carry over to the bot programs the next test writes."""
    os.umask(USER_UMASK)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Re-play every game the session stored with the viewer's JavaScript engines (tests/stored_games.py)."""
    from tests.stored_games import session_finish

    session_finish(session)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[Any]]]:
    """The processes a test starts (a cluster's, say), killed with whatever they started after it."""
    from tests.helpers import kill_trees
    procs: list[subprocess.Popen[Any]] = []
    try:
        yield procs
    finally:
        kill_trees(procs)
