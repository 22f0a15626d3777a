"""Kits made with the real `arena new`, each built once per test session and shared by the test processes."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from arena.bots.submission import ensure_built
from arena.errors import BuildFailed
from arena.kits import Language, install_hint, missing

# CI sets this: there a kit that cannot be built is a failure, never a skip.
REQUIRED = os.environ.get("ARENA_REQUIRE_KITS") == "1"
# The arena's Python first on PATH, as in an activated environment: the Python kit and the sample bots run
# with `python3`.
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def need(language: Language) -> None:
    """Skip (fail, where kits are required) unless this machine can build and run the kit of language."""
    lacking = missing(language)
    if lacking:
        reason = f"the {language.value} kit cannot be built here: {install_hint(lacking)}"
        if REQUIRED:
            pytest.fail(f"{reason} (ARENA_REQUIRE_KITS=1)")
        pytest.skip(reason)


def arena(*args: str, cwd: Path, timeout: float = 300,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real `arena` command line, run in cwd, with env over the environment."""
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env={**ENV, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Language], Path]:
    """The folder of a kit created by `arena new` and built, once per session: the test processes share one
    folder per kit, and the first to get its lock creates and builds it."""
    base = tmp_path_factory.getbasetemp()
    # Under pytest-xdist every worker has its own base folder inside the session's: share that one.
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "kits"
    root.mkdir(exist_ok=True)

    def made(language: Language) -> Path:
        need(language)
        folder = root / f"{language.value}-bot"
        with (root / f"{language.value}.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / "manifest.toml").is_file():
                created = arena("new", folder.name, "--lang", language.value, cwd=root)
                assert created.returncode == 0, created.stdout + created.stderr
                start = time.monotonic()
                try:
                    ensure_built(str(folder), root / f"{language.value}-build.log")
                except BuildFailed as exc:
                    pytest.fail(f"the {language.value} kit does not build: {exc}\n{exc.output}")
                print(f"{language.value} kit: built in {time.monotonic() - start:.1f} s")
        return folder

    return made
