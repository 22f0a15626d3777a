"""Building bali-2017 positions for rule tests: named cards, edited states, choices by content."""

from __future__ import annotations

import random
from typing import Any

from arena.games.bali2017 import GAME
from arena.games.bali2017.cards import KIND_NAMES, NUM_OFFERINGS, OFFERING_NAMES, OFFERING_TYPE, TYPES
from arena.games.bali2017.options import parse_options
from arena.games.bali2017.state import Pending, Phase, State, card_kinds

RED, BLUE, YELLOW, GREEN = 0, 1, 2, 3
RICE, PEANUT, BANANA, PEPPER = OFFERING_NAMES
RICE_F, PEANUT_F, BANANA_F, PEPPER_F, STONEMASON, PRIEST, SHRINE, ORACLE = KIND_NAMES


class Cards:
    """Hands out play card ids of the wanted kinds, so that every card stays in exactly one place."""

    def __init__(self, options: dict[str, Any] | None) -> None:
        kinds = card_kinds(parse_options(options))
        if not parse_options(options).oracle:
            kinds = tuple(k for k in kinds if KIND_NAMES[k] != ORACLE)
        self.free: dict[str, list[int]] = {}
        for card, kind in enumerate(kinds):
            self.free.setdefault(KIND_NAMES[kind], []).append(card)

    def take(self, names: list[str]) -> list[int]:
        return [self.free[name].pop() for name in names]

    def filler(self, count: int) -> list[int]:
        """count cards, each of the kind with the most cards still free (oracles never)."""
        picked = []
        for _ in range(count):
            name = max((k for k in self.free if k != ORACLE), key=lambda k: len(self.free[k]))
            picked.append(self.free[name].pop())
        return picked

    def rest(self) -> list[int]:
        return sorted(c for cards in self.free.values() for c in cards)


class Offerings:
    """Hands out offering card ids of the wanted types; what is left is the supply."""

    def __init__(self) -> None:
        self.free: list[list[int]] = [[c for c in range(NUM_OFFERINGS) if OFFERING_TYPE[c] == t] for t in TYPES]

    def take(self, names: list[str]) -> list[int]:
        return [self.free[OFFERING_NAMES.index(name)].pop() for name in names]


def position(n: int = 3, *, active: int = 0, phase: Phase = Phase.BUY, hands: dict[int, list[str]] | None = None,
             displays: dict[int, list[str]] | None = None, offerings: dict[int, list[str]] | None = None,
             rows: list[list[str] | None] | None = None, deck: list[str] | None = None,
             deck_top: list[str] | None = None,
             stones: list[int] | None = None, points: list[int] | None = None,
             altar: list[tuple[str, bool, int]] | None = None, supply: dict[str, int] | None = None,
             demon: int | None = None, options: dict[str, Any] | None = None, turn: int = 1,
             seed: int = 0) -> State:
    """A position at the start of `phase` for `active`; unnamed play cards lie in the deck (or the box, if `deck`
    is given exactly). A seat without a given hand holds 3 cards, and a row given as None (or every row, if rows is
    not given) holds 4, of the kinds with the most cards left over, so that tests need not spend scarce kinds.

    Rows are given top first (the last card is the bottom, the one to take); deck and deck_top list the next cards
    to be drawn, first drawn first. Altar entries are (type, face up, placer) from the bottom. Every seat knows every
    other seat's offering display exactly unless the test edits offer_known.
    """
    d = GAME.new_state(n, seed, options).to_dict()
    cards, offers = Cards(options), Offerings()
    hands, rows = hands or {}, rows or [None] * 4
    d["hands"] = [cards.take(hands.get(seat, [])) for seat in range(n)]
    d["displays"] = [cards.take((displays or {}).get(seat, [])) for seat in range(n)]
    d["rows"] = [cards.take(row or []) for row in rows]
    top = cards.take(deck_top or []) + cards.take(deck or [])
    for seat in range(n):
        if seat not in hands:
            d["hands"][seat] = cards.filler(3)
    for r, row in enumerate(rows):
        if row is None:
            d["rows"][r] = cards.filler(4)
    if deck is not None:
        d["deck"], d["box"] = top[::-1], cards.rest()
    else:
        rest = cards.rest()
        random.Random(seed).shuffle(rest)
        d["deck"], d["box"] = rest + top[::-1], []
    d["offerings"] = [offers.take((offerings or {}).get(seat, [])) for seat in range(n)]
    spec = altar or []
    d["altar"] = offers.take([t for t, _, _ in spec])
    d["altar_up"] = [up for _, up, _ in spec]
    d["altar_known"] = [[up or placer == seat for _, up, placer in spec] for seat in range(n)]
    d["supply"] = [stack[:(supply or {}).get(OFFERING_NAMES[t], len(stack))] for t, stack in enumerate(offers.free)]
    leftover = [c for t, stack in enumerate(offers.free) for c in stack[len(d["supply"][t]):]]
    if leftover:  # offering cards the test wants out of the supply go to the bottom of the altar, face down
        d["altar"] = leftover + d["altar"]
        d["altar_up"] = [False] * len(leftover) + d["altar_up"]
        d["altar_known"] = [[False] * len(leftover) + known for known in d["altar_known"]]
    counts = [[sum(1 for c in d["offerings"][x] if OFFERING_TYPE[c] == t) for t in TYPES] for x in range(n)]
    d["offer_known"] = [[list(counts[x]) if x != v else [0] * 4 for x in range(n)] for v in range(n)]
    d["stones"] = list(stones) if stones is not None else [2 + seat for seat in range(n)]
    d["points"] = list(points) if points is not None else [0] * n
    d["demon"] = d["demon"] if demon is None else demon
    d["active"], d["turn"] = active, turn
    d["pending"] = Pending(phase=phase, seat=active).to_dict()
    d["log"] = []
    return GAME.state_from_dict(d)


def matching(state: State, **fields: Any) -> list[int]:
    """Indices of the options that hold every given field."""
    return [i for i, o in enumerate(state.options()) if all(o.get(k) == v for k, v in fields.items())]


def choose(state: State, **fields: Any) -> None:
    """Apply the one option that holds every given field."""
    found = matching(state, **fields)
    if len(found) != 1:
        raise LookupError(f"{len(found)} options match {fields}: {state.options()}")
    state.apply(found[0])


def events(state: State, since: int = 0, seat: int | None = None) -> list[dict[str, Any]]:
    """The log from index since, as seat (default: a spectator) sees it."""
    return state.events(seat, since)


def event_types(state: State, since: int = 0) -> list[str]:
    """The types of the spectator log from index since."""
    return [e["type"] for e in state.events(None, since)]
