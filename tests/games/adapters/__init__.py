"""Per-game knowledge the conformance suite needs: where the cards are and what a seat may not know.

Every registered game must have an adapter here; the conformance suite fails for a game without one.
An adapter module offers:
  configs() -> list[(num_players, options)]          the configurations random playouts cover
  inventory(state) -> dict[str, list]                 every component id, by component set, over all places
  expected_inventory(state) -> dict[str, list]        the sorted full set of ids each set must hold
  totals(state) -> dict[str, int]                     other quantities that must be conserved
  perturb_hidden(state_dict, seat, rng) -> dict       a copy with everything seat may not know shuffled
"""

from __future__ import annotations

import importlib
from types import ModuleType

_ADAPTERS = {
    "bali-2001": "tests.games.adapters.bali2001",
    "bali-2017": "tests.games.adapters.bali2017",
}


def adapter_for(game_name: str) -> ModuleType:
    """The adapter module of a registered game."""
    if game_name not in _ADAPTERS:
        raise LookupError(f"no conformance adapter for {game_name!r}: add one to tests/games/adapters")
    return importlib.import_module(_ADAPTERS[game_name])
