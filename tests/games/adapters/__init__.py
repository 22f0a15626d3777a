"""Per-game knowledge the conformance suite needs: where the cards are and what a seat may not know.

Every registered game must have an adapter here, named as its package (tests/games/adapters/<game>.py); the
conformance suite fails for a game without one.
An adapter module offers:
  configs() -> list[(num_players, options)]          the configurations random playouts cover
  inventory(state) -> dict[str, list]                 every component id, by component set, over all places
  expected_inventory(state) -> dict[str, list]        the sorted full set of ids each set must hold
  totals(state) -> dict[str, int]                     other quantities that must be conserved
  perturb_hidden(state_dict, seat, rng) -> dict       a copy with everything seat may not know shuffled
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from arena.games import package


def adapter_for(game_name: str) -> ModuleType:
    """The adapter module of a registered game."""
    name = package(game_name)
    if not (Path(__file__).parent / f"{name}.py").is_file():
        raise LookupError(f"no conformance adapter for {game_name!r}: add tests/games/adapters/{name}.py")
    return importlib.import_module(f"tests.games.adapters.{name}")
