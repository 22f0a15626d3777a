"""Building bali-2001 positions for rule tests: named cards, edited states, choices by content."""

from __future__ import annotations

import random
from typing import Any

from arena.games.bali2001 import GAME
from arena.games.bali2001.cards import CARD_TYPE, DALANG_PAIRS, FIRST_DALANG_TYPE, ISLAND_BY_NAME, KIND_NAMES
from arena.games.bali2001.state import Pending, Phase, State

GREEN, YELLOW, RED, BLUE = 0, 1, 2, 3
K, P, T, W = "Kukusch", "Panschar", "Tschakkalag", "Wontong"
ISLE = {K: 0, P: 1, T: 2, W: 3}
PRIEST, WARRIOR, PRINCE, SCHOLAR, ARTIST = KIND_NAMES[:FIRST_DALANG_TYPE]


def dalang(a: str, b: str) -> tuple[str, str]:
    """A Dalang card naming islands a and b."""
    return (a, b)


def _ctype(spec: Any) -> int:
    if isinstance(spec, tuple):
        pair = tuple(sorted(ISLAND_BY_NAME[i] for i in spec))
        return FIRST_DALANG_TYPE + DALANG_PAIRS.index(pair)
    return KIND_NAMES.index(spec)


class Cards:
    """Hands out card ids of the wanted types, so that every card stays in exactly one place."""

    def __init__(self) -> None:
        self.free: dict[int, list[int]] = {}
        for card, t in enumerate(CARD_TYPE):
            self.free.setdefault(t, []).append(card)

    def take(self, specs: list[Any]) -> list[int]:
        return [self.free[_ctype(spec)].pop(0) for spec in specs]

    def rest(self) -> list[int]:
        return sorted(c for cards in self.free.values() for c in cards)


def position(n: int = 4, *, active: int = 0, dalang_on: str = W, hands: dict[int, list[Any]] | None = None,
             piles: dict[tuple[int, str], list[Any]] | None = None, draw_top: list[Any] | None = None,
             discard: list[Any] | None = None, prince: dict[str, int] | None = None,
             priest: dict[str, int] | None = None, seals: dict[str, int] | None = None,
             masks_left: list[int] | None = None, absent: list[int] = (), turn: int = 1,
             options: dict[str, Any] | None = None, empty_draw: bool = False, seed: int = 0) -> State:
    """A position at the start of `active`'s choices on island `dalang_on`; unnamed cards lie in the draw pile.

    Piles are given bottom first. draw_top lists the next cards to be drawn, first drawn first.
    """
    d = GAME.new_state(n, seed, options).to_dict()
    cards = Cards()
    d["hands"] = [cards.take((hands or {}).get(seat, [])) for seat in range(n)]
    d["piles"] = [[[] for _ in range(4)] for _ in range(n)]
    d["known"] = [[[] for _ in range(4)] for _ in range(n)]
    for (seat, island), specs in (piles or {}).items():
        d["piles"][seat][ISLE[island]] = cards.take(specs)
        d["known"][seat][ISLE[island]] = [False] * len(specs)
    d["discard"] = cards.take(discard or [])
    top = cards.take(draw_top or [])
    rest = cards.rest()
    random.Random(seed).shuffle(rest)
    if empty_draw:
        d["discard"] += rest
        rest = []
    d["draw_pile"] = rest + top[::-1]
    chips = {"prince": prince or {}, "priest": priest or {}}
    for chip, where in chips.items():
        d[chip] = [-1] * 4
        for island, seat in where.items():
            d[chip][ISLE[island]] = seat
    d["seals"] = [-1] * 4
    for island, seat in (seals or {}).items():
        d["seals"][ISLE[island]] = seat
    if masks_left is not None:
        d["masks_left"] = sorted(masks_left)
    d["dalang"] = ISLE[dalang_on]
    d["active"] = active
    d["absent"] = [seat in absent for seat in range(n)]
    d["turn"] = turn
    d["pending"] = Pending(phase=Phase.TURN, seat=active).to_dict()
    d["log"] = []
    return GAME.state_from_dict(d)


def matching(state: State, **fields: Any) -> list[int]:
    """Indices of the options that hold every given field."""
    want = {k: (list(v) if isinstance(v, tuple) else v) for k, v in fields.items()}
    return [i for i, o in enumerate(state.options()) if all(o.get(k) == v for k, v in want.items())]


def choose(state: State, **fields: Any) -> None:
    """Apply the one option that holds every given field."""
    found = matching(state, **fields)
    if len(found) != 1:
        raise LookupError(f"{len(found)} options match {fields}: {state.options()}")
    state.apply(found[0])


def hand_kinds(state: State, seat: int) -> list[str]:
    """The kinds in seat's hand, sorted."""
    return sorted(c["kind"] for c in state.view(seat)["hand"])


def event_types(state: State, since: int = 0) -> list[str]:
    """The types of the spectator log from index since."""
    return [e["type"] for e in state.events(None, since)]
