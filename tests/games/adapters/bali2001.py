"""Conformance adapter for bali-2001."""

from __future__ import annotations

import copy
import random
from typing import Any

from arena.games.bali2001.cards import DECK_SIZE


def configs() -> list[tuple[int, dict[str, Any] | None]]:
    return [(3, None), (4, None)]


def inventory(state: Any) -> dict[str, list[int]]:
    cards = [c for h in state.hands for c in h]
    cards += [c for piles in state.piles for pile in piles for c in pile]
    cards += state.draw_pile + state.discard
    return {"play cards": cards}


def expected_inventory(state: Any) -> dict[str, list[int]]:
    return {"play cards": list(range(DECK_SIZE))}


def totals(state: Any) -> dict[str, int]:
    n = state.num_players
    won = [m for ms in state.masks_won for m in ms]
    return {
        "masks": len(state.masks_left) + len(won),
        "mask value": sum(state.masks_left) + sum(won),
        "seals": 4,  # every island's seal is in the supply or held by exactly one seat
        "seals placed": sum(1 for s in state.seals if -1 <= s < n),
        "prince chips": sum(1 for c in state.prince if -1 <= c < n),
        "priest chips": sum(1 for c in state.priest if -1 <= c < n),
        "known flags": sum(len(p) for ps in state.piles for p in ps) - sum(len(k) for ks in state.known for k in ks),
    }


def perturb_hidden(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Shuffle every card seat cannot see (other hands, its unknown pile cards, others' piles, the draw pile)."""
    d = copy.deepcopy(d)
    slots: list[tuple[list[int], int]] = []
    for other, hand in enumerate(d["hands"]):
        if other != seat:
            slots += [(hand, i) for i in range(len(hand))]
    for owner, piles in enumerate(d["piles"]):
        for island, pile in enumerate(piles):
            known = d["known"][owner][island]
            slots += [(pile, i) for i in range(len(pile)) if owner != seat or not known[i]]
    slots += [(d["draw_pile"], i) for i in range(len(d["draw_pile"]))]
    cards = [where[i] for where, i in slots]
    rng.shuffle(cards)
    for (where, i), card in zip(slots, cards):
        where[i] = card
    # The engine's RNG decides future reshuffles, which no seat can know either.
    d["rng"][1][0] ^= rng.getrandbits(32)
    return d
