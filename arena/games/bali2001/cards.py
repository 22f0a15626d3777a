"""Fixed facts of bali-2001: islands, the deck, masks, start cards, seat colours (rulings 1-5)."""

from __future__ import annotations

from enum import IntEnum
from itertools import combinations
from typing import Any

GAME_NAME = "bali-2001"
MIN_PLAYERS = 3
MAX_PLAYERS = 4
SEAT_COLOURS = ("green", "yellow", "red", "blue")


class Island(IntEnum):
    """The four islands, in their fixed order (ruling 2)."""

    KUKUSCH = 0
    PANSCHAR = 1
    TSCHAKKALAG = 2
    WONTONG = 3

    @property
    def label(self) -> str:
        return ISLAND_NAMES[self]


ISLAND_NAMES = ("Kukusch", "Panschar", "Tschakkalag", "Wontong")
ISLANDS = tuple(range(len(ISLAND_NAMES)))  # plain ints, as islands are stored in a state
ISLAND_BY_NAME = {name: Island(i) for i, name in enumerate(ISLAND_NAMES)}


class Kind(IntEnum):
    """The kinds of play card."""

    PRIEST = 0
    WARRIOR = 1
    PRINCE = 2
    SCHOLAR = 3
    ARTIST = 4
    DALANG = 5


KIND_NAMES = ("priest", "warrior", "prince", "scholar", "artist", "dalang")
KIND_COUNTS = {Kind.PRIEST: 30, Kind.WARRIOR: 30, Kind.PRINCE: 30, Kind.SCHOLAR: 30, Kind.ARTIST: 15}
DALANG_COPIES = 4

# The six island pairs a Dalang card can name (reconstruction, ruling 3).
DALANG_PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(range(len(ISLAND_NAMES)), 2))

# A card type is what makes two cards interchangeable in play: a court kind, or a Dalang card's island pair.
# Types 0-4 are the court kinds (same numbers as Kind); types 5-10 are the Dalang pairs in DALANG_PAIRS order.
NUM_CARD_TYPES = 5 + len(DALANG_PAIRS)
COURT_TYPES = tuple(range(5))
DALANG_TYPES = tuple(range(5, NUM_CARD_TYPES))


def _build_deck() -> tuple[tuple[int, ...], tuple[Kind, ...]]:
    types: list[int] = []
    for kind, count in KIND_COUNTS.items():
        types += [int(kind)] * count
    for pair_index in range(len(DALANG_PAIRS)):
        types += [5 + pair_index] * DALANG_COPIES
    return tuple(types), tuple(Kind(min(t, 5)) for t in types)


# Card ids are 0..158; CARD_TYPE[id] and CARD_KIND[id] say what each is.
CARD_TYPE, CARD_KIND = _build_deck()
DECK_SIZE = len(CARD_TYPE)
TYPE_KIND = tuple(Kind(min(t, 5)) for t in range(NUM_CARD_TYPES))
TYPE_ISLANDS: tuple[tuple[int, ...], ...] = tuple(
    () if t < 5 else DALANG_PAIRS[t - 5] for t in range(NUM_CARD_TYPES)
)


def _type_fields(t: int) -> dict[str, Any]:
    if t < 5:
        return {"card": KIND_NAMES[t]}
    return {"card": "dalang", "islands": [ISLAND_NAMES[i] for i in TYPE_ISLANDS[t]]}


# The plain-dict form of each card type, as it appears in options and events.
TYPE_FIELDS: tuple[dict[str, Any], ...] = tuple(_type_fields(t) for t in range(NUM_CARD_TYPES))


def card_dict(card: int) -> dict[str, Any]:
    """The plain-dict form of one card: its id and what it is."""
    t = CARD_TYPE[card]
    if t < 5:
        return {"id": card, "kind": KIND_NAMES[t]}
    return {"id": card, "kind": "dalang", "islands": [ISLAND_NAMES[i] for i in TYPE_ISLANDS[t]]}


SEAL_POINTS = 3
DEFAULT_MASKS = (1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4)
NUM_MASKS = len(DEFAULT_MASKS)

# Start cards 1-4 (reconstruction, ruling 5): (prince chip island, priest chip island, Dalang start island).
DEFAULT_START_CARDS: tuple[tuple[Island, Island, Island], ...] = (
    (Island.PANSCHAR, Island.KUKUSCH, Island.WONTONG),
    (Island.TSCHAKKALAG, Island.PANSCHAR, Island.KUKUSCH),
    (Island.WONTONG, Island.TSCHAKKALAG, Island.PANSCHAR),
    (Island.KUKUSCH, Island.WONTONG, Island.TSCHAKKALAG),
)
NUM_START_CARDS = len(DEFAULT_START_CARDS)

SETUP_PILE_SIZE = 3
ACTIVE_DRAW = 2
PASSIVE_DRAW = 1
FLEE_KEEP = 3
EXCHANGE_LIMIT = 3
SCORING_PICKUP = 4
DEFAULT_MAX_TURNS = 1000
