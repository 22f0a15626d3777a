"""The sample bots run from any folder at the default sandbox level, installed in editable mode or not; a sample bot
that faults in most of its games makes validate and a gauntlet fail instead of passing the bot under test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

SAMPLES = ("random_bot", "heuristic_bot", "search_bot", "plain_bot", "default_bot")
# The arena's Python first on PATH, as in an activated environment: the bots run with `python3`.
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m arena ARGS` in cwd with env over the environment."""
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PATH": PATH, **(env or {})})


def copied_install(site: Path) -> dict[str, str]:
    """The arena's packages copied into site, as a normal (not editable) installation lays them out; the
    environment that imports them from there."""
    for package in ("arena", "protocol", "sample_bots"):
        shutil.copytree(ROOT / package, site / package, ignore=shutil.ignore_patterns("__pycache__"))
    return {"PYTHONPATH": str(site)}


@pytest.mark.slow
@pytest.mark.parametrize("install", ["editable", "copied"])
def test_every_sample_bot_runs_from_a_folder_outside_the_checkout(install: str, tmp_path: Path) -> None:
    env = copied_install(tmp_path / "site") if install == "copied" else {}
    where = tmp_path / "elsewhere"
    where.mkdir()
    found = subprocess.run([sys.executable, "-c", "import arena; print(arena.__file__)"], cwd=where,
                           capture_output=True, text=True, env={**os.environ, **env})
    assert found.stdout.startswith(str(tmp_path / "site" if env else ROOT)), found.stdout + found.stderr
    tables = (SAMPLES[:4], (SAMPLES[4], SAMPLES[0]))
    for n, table in enumerate(tables):
        results = tmp_path / f"results-{n}"
        run = arena("match", "bali-2017", *(f"python3 -m sample_bots.{s}" for s in table), "--games", "1",
                    "--results", str(results), cwd=where, env=env)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "sandbox: bwrap" in run.stderr
        records = [json.loads(p.read_text()) for p in results.rglob("game-*.json")]
        assert len(records) == 1 and records[0]["faults"] == [], run.stdout + run.stderr
        assert all(any(d["seat"] == seat for d in records[0]["decisions"]) for seat in range(len(table)))


def crashing(tmp_path: Path, module: str) -> dict[str, str]:
    """An environment in which the sample bot `module` dies at start (a sitecustomize that exits)."""
    folder = tmp_path / "crash"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        f"import sys\nif 'sample_bots.{module}' in sys.orig_argv:\n    sys.exit('{module} cannot start here')\n")
    return {"PYTHONPATH": str(folder)}


def test_validate_fails_when_a_sample_bot_faults_in_most_games(tmp_path: Path) -> None:
    # Under rlimit the bots see the machine's files, the sitecustomize included.
    run = arena("validate", "python3 -m sample_bots.random_bot", "--game", "bali-2017", "--players", "2",
                "--games", "2", "--samples", "heuristic", "--sandbox", "rlimit", cwd=tmp_path,
                env=crashing(tmp_path, "heuristic_bot"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "the sample bot heuristic_bot faulted in 2 of its 2 games: results against it say nothing" in run.stdout
    assert "PASS" not in run.stdout and "no verdict: a sample bot faulted in most of its games" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_a_gauntlet_fails_when_a_sample_bot_faults_in_most_games(tmp_path: Path) -> None:
    run = arena("tournament", "bali-2017", "me=python3 -m sample_bots.random_bot", "--format", "gauntlet",
                "--seats", "2", "--rounds", "1", "--sandbox", "rlimit", cwd=tmp_path,
                env=crashing(tmp_path, "heuristic_bot"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "the sample bot heuristic_bot faulted in 2 of its 2 games" in run.stderr
    assert "a sample bot faulted in most of its games" in run.stderr and "Traceback" not in run.stderr
