"""Every starter kit, made by `arena new`, built, and passing `arena validate` in both games."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import pytest

from arena.kits import Language
from tests.kits.conftest import arena

# Few games keep the suite fast: one game at the smallest table of each game.
GAMES = {"bali-2001": ("--players", "3"), "bali-2017": ("--players", "2")}


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("language", list(Language), ids=[lang.value for lang in Language])
def test_kit_passes_validate(language: Language, game: str, kit: Callable[[Language], Path],
                             tmp_path: Path) -> None:
    folder = kit(language)
    start = time.monotonic()
    run = arena("validate", str(folder), "--game", game, "--games", "1", *GAMES[game], "--seed", "3",
                "--results", str(tmp_path / "results"), cwd=folder.parent)
    print(f"{language.value} {game}: validate {time.monotonic() - start:.1f} s")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"PASS: bot '{folder.name}' version '0.1': 1 games without a fault" in run.stdout
    # Built once for the session already: validate found the folder unchanged and did not build again.
    assert not list((tmp_path / "results").glob("matches/*/logs/*-build.log"))


@pytest.mark.parametrize("language", list(Language), ids=[lang.value for lang in Language])
def test_kit_reads_its_view_in_a_strategy_function(language: Language, kit: Callable[[Language], Path]) -> None:
    folder = kit(language)
    source = {Language.PYTHON: "bot.py", Language.JAVASCRIPT: "bot.js", Language.CPP: "bot.cpp",
              Language.JAVA: "Bot.java", Language.RUST: "src/main.rs"}[language]
    text = (folder / source).read_text()
    assert "strategy(" in text and '"hand"' in text.replace("view.hand", '"hand"')
    assert "{{" not in text and folder.name in text
    readme = (folder / "README.md").read_text()
    assert f"arena validate {folder.name} --game bali-2001" in readme
