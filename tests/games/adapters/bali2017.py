"""Conformance adapter for bali-2017."""

from __future__ import annotations

import copy
import random
from bisect import bisect_left
from itertools import chain
from typing import Any

from arena.games.bali2017.cards import (
    FIRST_DECK_CARD,
    HAND_SIZE,
    NUM_OFFERINGS,
    NUM_PLAY_CARDS,
    OFFERING_TYPE,
    ORACLE_CARDS,
)

VARIANTS: list[dict[str, Any] | None] = [None, {"oracle": True}, {"demon": True}, {"oracle": True, "demon": True}]


def configs() -> list[tuple[int, dict[str, Any] | None]]:
    return [(n, options) for options in VARIANTS for n in (2, 3, 4)]


_START_CARDS = list(range(FIRST_DECK_CARD))
_PLAY_CARDS = {False: list(range(FIRST_DECK_CARD, ORACLE_CARDS[0])), True: list(range(FIRST_DECK_CARD, NUM_PLAY_CARDS))}
_OFFERING_CARDS = list(range(NUM_OFFERINGS))


def inventory(state: Any) -> dict[str, list[int]]:
    cards = list(chain(chain.from_iterable(state.hands), chain.from_iterable(state.displays),
                       chain.from_iterable(state.rows), state.deck, state.box))
    cards.sort()
    split = bisect_left(cards, FIRST_DECK_CARD)
    offerings = list(chain(chain.from_iterable(state.supply), chain.from_iterable(state.offerings), state.altar))
    return {"start cards": cards[:split], "play cards": cards[split:], "offering cards": offerings}


def expected_inventory(state: Any) -> dict[str, list[int]]:
    return {"start cards": _START_CARDS, "play cards": _PLAY_CARDS[state.opts.oracle],
            "offering cards": _OFFERING_CARDS}


def totals(state: Any) -> dict[str, int]:
    """Shapes that must hold after every step (the knowledge invariants are checked in the rule tests)."""
    n, altar = state.num_players, len(state.altar)
    return {
        "altar faces missing": altar - len(state.altar_up),
        "altar knowledge missing": n * altar - sum(map(len, state.altar_known)),
        "hands over the limit": sum(len(h) > HAND_SIZE for h in state.hands),
    }


def _shuffle_slots(slots: list[tuple[list[int], int]], rng: random.Random) -> None:
    cards = [where[i] for where, i in slots]
    rng.shuffle(cards)
    for (where, i), card in zip(slots, cards):
        where[i] = card


def _hidden_offering_slots(d: dict[str, Any], seat: int) -> list[tuple[list[int], int]]:
    """Other displays' cards beyond what seat knows for certain, and the altar cards seat does not know."""
    slots: list[tuple[list[int], int]] = []
    for other, cards in enumerate(d["offerings"]):
        if other == seat:
            continue
        certain = list(d["offer_known"][seat][other])
        for i, card in enumerate(cards):
            if certain[OFFERING_TYPE[card]]:
                certain[OFFERING_TYPE[card]] -= 1
            else:
                slots.append((cards, i))
    altar, known = d["altar"], d["altar_known"][seat]
    return slots + [(altar, i) for i in range(len(altar)) if not known[i]]


def perturb_hidden(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Shuffle every card seat cannot see: other hands, the deck, others' unknown offerings, unknown altar cards."""
    d = copy.deepcopy(d)
    oracles = set(ORACLE_CARDS)
    play_slots = [(hand, i) for other, hand in enumerate(d["hands"]) if other != seat for i in range(len(hand))]
    play_slots += [(d["deck"], i) for i, card in enumerate(d["deck"]) if card not in oracles]
    _shuffle_slots(play_slots, rng)
    rng.shuffle(d["deck"])
    _shuffle_slots(_hidden_offering_slots(d, seat), rng)
    # The engine's RNG is spent at setup, but no seat may know its state either.
    d["rng"][1][0] ^= rng.getrandbits(32)
    return d
