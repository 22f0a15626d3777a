"""Fixed facts of bali-2001: islands, the deck, masks, start cards, seat colours (README.md, rules §1-§5)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.games.base import WireEnum

GAME_NAME = "bali-2001"
MIN_PLAYERS = 3
MAX_PLAYERS = 4
SEAT_COLOURS = ("green", "yellow", "red", "blue")


class Island(WireEnum):
    """The four islands, in their fixed order (rules §2)."""

    KUKUSCH = 0, "Kukusch"
    PANSCHAR = 1, "Panschar"
    TSCHAKKALAG = 2, "Tschakkalag"
    WONTONG = 3, "Wontong"


NUM_ISLANDS = len(Island)
ISLAND_NAMES = Island.wires()  # indexed by the plain ints that a state stores
ISLANDS = tuple(range(NUM_ISLANDS))
ISLAND_BY_NAME: dict[str, Island] = Island.by_wire()


class Kind(WireEnum):
    """The kinds of play card (rules §3); the court kinds come first."""

    PRIEST = 0, "priest"
    WARRIOR = 1, "warrior"
    PRINCE = 2, "prince"
    SCHOLAR = 3, "scholar"
    ARTIST = 4, "artist"
    DALANG = 5, "dalang"


KIND_NAMES = Kind.wires()
# The court kinds a turn may play, in the order the options offer them (rules §10).
COURT_PLAYS = (int(Kind.PRIEST), int(Kind.WARRIOR), int(Kind.PRINCE), int(Kind.SCHOLAR), int(Kind.ARTIST))
KIND_COUNTS = {Kind.PRIEST: 30, Kind.WARRIOR: 30, Kind.PRINCE: 30, Kind.SCHOLAR: 30, Kind.ARTIST: 15}
DALANG_COPIES = 4

# The six island pairs a Dalang card can name (a reconstruction, rules §3).
DALANG_PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(ISLANDS, 2))

# A card type is what makes two cards interchangeable in play: a court kind, or a Dalang card's island pair.
# The court kinds are types 0 to FIRST_DALANG_TYPE - 1 (same numbers as Kind); then the Dalang pairs follow in
# DALANG_PAIRS order.
FIRST_DALANG_TYPE = int(Kind.DALANG)
NUM_CARD_TYPES = FIRST_DALANG_TYPE + len(DALANG_PAIRS)
DALANG_TYPES = tuple(range(FIRST_DALANG_TYPE, NUM_CARD_TYPES))


def type_kind(t: int) -> Kind:
    """The kind of card of a card type."""
    return Kind(min(t, FIRST_DALANG_TYPE))


def _build_deck() -> tuple[tuple[int, ...], tuple[Kind, ...]]:
    types: list[int] = []
    for kind, count in KIND_COUNTS.items():
        types += [int(kind)] * count
    for t in DALANG_TYPES:
        types += [t] * DALANG_COPIES
    return tuple(types), tuple(type_kind(t) for t in types)


# Card ids are 0..158; CARD_TYPE[id] and CARD_KIND[id] say what each is.
CARD_TYPE, CARD_KIND = _build_deck()
DECK_SIZE = len(CARD_TYPE)
TYPE_ISLANDS: tuple[tuple[int, ...], ...] = tuple(
    () if t < FIRST_DALANG_TYPE else DALANG_PAIRS[t - FIRST_DALANG_TYPE] for t in range(NUM_CARD_TYPES)
)


def _type_fields(t: int) -> dict[str, Any]:
    if t < FIRST_DALANG_TYPE:
        return {"card": KIND_NAMES[t]}
    return {"card": Kind.DALANG.wire, "islands": [ISLAND_NAMES[i] for i in TYPE_ISLANDS[t]]}


# The plain-dict form of each card type, as it appears in options (callers copy it).
TYPE_FIELDS: tuple[dict[str, Any], ...] = tuple(_type_fields(t) for t in range(NUM_CARD_TYPES))


def card_dict(card: int) -> dict[str, Any]:
    """The plain-dict form of one card: its id and what it is."""
    t = CARD_TYPE[card]
    if t < FIRST_DALANG_TYPE:
        return {"id": card, "kind": KIND_NAMES[t]}
    return {"id": card, "kind": Kind.DALANG.wire, "islands": [ISLAND_NAMES[i] for i in TYPE_ISLANDS[t]]}


SEAL_POINTS = 3
DEFAULT_MASKS = (1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4)
NUM_MASKS = len(DEFAULT_MASKS)

# Start cards 1-4 (a reconstruction, rules §5): (prince chip island, priest chip island, Dalang start island).
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
