"""The registry of games: each game lives in its own package and exposes GAME."""

from __future__ import annotations

import importlib

from arena.games.base import Game, GameError, GameInvariantError, GameResult, State

__all__ = ["Game", "GameError", "GameInvariantError", "GameResult", "SAMPLE_LEVELS", "State", "available",
           "check_variants", "get_game", "package", "sample_modules"]

# name -> module that defines GAME; imported on first use so that one game's import cost is not everyone's.
_REGISTRY: dict[str, str] = {
    "bali-2001": "arena.games.bali2001",
    "bali-2017": "arena.games.bali2017",
}

# The sample bots each game is played with, weakest first, as modules of the sample_bots package that a bot command
# runs (`python -m MODULE`): command lines, never imports, so that the arena does not depend on its examples.
SAMPLE_LEVELS = ("random", "heuristic", "search")
_SAMPLES: dict[str, dict[str, str]] = {
    name: {"random": "sample_bots.random_bot", "heuristic": "sample_bots.heuristic_bot",
           "search": "sample_bots.search_bot"}
    for name in _REGISTRY
}


def sample_modules(name: str) -> dict[str, str]:
    """The sample bots of a game by level, weakest first: level -> module; GameError for an unknown game."""
    if name not in _SAMPLES:
        raise GameError(f"unknown game {name!r}; available: {', '.join(available())}")
    return dict(_SAMPLES[name])


def available() -> list[str]:
    """The names of all registered games."""
    return sorted(_REGISTRY)


def get_game(name: str) -> Game:
    """The game registered under name; GameError naming the choices if there is none."""
    try:
        module = _REGISTRY[name]
    except (KeyError, TypeError):
        raise GameError(f"unknown game {name!r}; available: {', '.join(available())}") from None
    return importlib.import_module(module).GAME


def package(name: str) -> str:
    """The name of a registered game's package (arena/games/<package>/), which names its files outside it too: its
    viewer module, engine and board scripts, and conformance adapter; GameError for an unknown game."""
    get_game(name)
    return _REGISTRY[name].rsplit(".", 1)[1]


def check_variants(game: Game, names: tuple[str, ...]) -> None:
    """GameError naming a variant the game does not have, and the ones it has."""
    for name in names:
        if name not in game.variants:
            has = f"the variants {' and '.join(game.variants)}" if game.variants else "no variants"
            raise GameError(f"{game.name} has no variant {name!r}; it has {has}")
