"""The viewer's side of every registered game: one module per game, named as the game's package
(arena/viewer/games/<package>.py, holding TABLE), found from the game registry without a registry of its own."""

from __future__ import annotations

import importlib

from arena.games import available, package
from arena.viewer.games.base import REFEREE, GameTable

__all__ = ["GAMES", "REFEREE", "GameTable", "viewer_module"]


def viewer_module(game: str) -> str:
    """The module that holds a registered game's viewer side: arena.viewer.games.<the game's package>."""
    return f"arena.viewer.games.{package(game)}"


# How the viewer draws each registered game.
GAMES: dict[str, GameTable] = {name: importlib.import_module(viewer_module(name)).TABLE for name in available()}
