"""Every starter kit, made by `arena new`, built, and passing `arena validate` in both games."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import pytest

from arena.kits import Language
from tests.helpers import quick_run
from tests.kits.conftest import arena

# Few games keep the suite fast: one game at the smallest table of each game.
GAMES = {"bali-2001": ("--players", "3"), "bali-2017": ("--players", "2")}


# Languages vary fastest: parallel test workers then build different kits at once, not wait for the same one.
# The Python kit in the short game in the quick run; the compiled kits (seconds of building and starting each) and
# the long game's validation (over 1,000 decisions) are slow tests.
@pytest.mark.parametrize("language", quick_run(list(Language), {Language.PYTHON}, lambda lang: lang.value))
@pytest.mark.parametrize("game", quick_run(sorted(GAMES), {"bali-2017"}, str))
def test_kit_passes_validate(language: Language, game: str, kit: Callable[[Language], Path],
                             tmp_path: Path) -> None:
    folder = kit(language)
    start = time.monotonic()
    run = arena("validate", str(folder), "--game", game, "--games", "1", *GAMES[game], "--seed", "3",
                "--results", str(tmp_path / "results"), cwd=folder.parent)
    print(f"{language.value} {game}: validate {time.monotonic() - start:.1f} s")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"PASS: bot {folder.name}" in run.stdout and ": 1 games without a fault" in run.stdout
    # Built once for the session already: validate found the folder unchanged and did not build again.
    assert not list((tmp_path / "results").glob("matches/*/logs/*-build.log"))


# node's start-up makes the JavaScript kit's case a slow test.
@pytest.mark.parametrize("language", quick_run(list(Language), set(Language) - {Language.JAVASCRIPT},
                                               lambda lang: lang.value))
def test_a_new_kit_is_named_after_its_folder_with_a_strategy_function_that_reads_the_view(
        language: Language, tmp_path: Path) -> None:
    made = arena("new", "my-bot.2", "--lang", language.value, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    folder = tmp_path / "my-bot.2"
    assert f"created {folder.name}/ from the {language.value} kit" in made.stdout
    assert 'name = "my-bot.2"' in (folder / "manifest.toml").read_text()
    source = {Language.PYTHON: "bot.py", Language.JAVASCRIPT: "bot.js", Language.CPP: "bot.cpp",
              Language.JAVA: "Bot.java", Language.RUST: "src/main.rs"}[language]
    text = (folder / source).read_text()
    assert "strategy(" in text and '"hand"' in text.replace("view.hand", '"hand"')
    assert '"my-bot.2"' in text
    readme = (folder / "README.md").read_text()
    assert "arena validate my-bot.2 --game bali-2001" in readme
    if language == Language.JAVASCRIPT:  # installed with the network now: the arena's build has none
        assert (folder / "node_modules" / "zeromq" / "package.json").is_file()
    # node_modules/ holds the packages `arena new` installed, not the kit's templates.
    leftovers = [p for p in folder.rglob("*") if p.is_file() and "node_modules" not in p.parts and
                 "{{" in p.read_text(errors="replace")]
    assert leftovers == []
