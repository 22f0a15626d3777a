"""Fixed facts of bali-2017: seats, farmer and offering types, the card ids, costs and rewards (README.md, rules §1-§4
and §9-§17)."""

from __future__ import annotations

from arena.games.base import WireEnum

GAME_NAME = "bali-2017"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
SEAT_COLOURS = ("red", "blue", "yellow", "green")


class Offering(WireEnum):
    """The four farmer and offering types, in their fixed order (rules §2)."""

    RICE = 0, "rice"
    PEANUT = 1, "peanut"
    BANANA = 2, "banana"
    PEPPER = 3, "pepper"


OFFERING_NAMES = Offering.wires()  # indexed by the plain ints that a state stores
OFFERING_BY_NAME: dict[str, Offering] = Offering.by_wire()
TYPES = tuple(range(len(Offering)))


class Kind(WireEnum):
    """The kinds of play card; a farmer's kind number is its offering type."""

    RICE_FARMER = 0, "rice_farmer"
    PEANUT_FARMER = 1, "peanut_farmer"
    BANANA_FARMER = 2, "banana_farmer"
    PEPPER_FARMER = 3, "pepper_farmer"
    STONEMASON = 4, "stonemason"
    PRIEST = 5, "priest"
    SHRINE = 6, "shrine"
    ORACLE = 7, "oracle"


KIND_NAMES = Kind.wires()
FARMERS = TYPES  # farmer kinds, one per offering type
NUM_KINDS = len(Kind)
# The order in which playable kinds are offered: the free single cards first, the costly shrine last.
PLAY_ORDER = (int(Kind.STONEMASON), int(Kind.PRIEST)) + FARMERS + (int(Kind.SHRINE),)

# Card ids never change. 0-15: the four start sets (seat k's set is 4k..4k+3: its stonemason, then its 3 farmers,
# whose types are an option); 16-65: the play deck (rules §3); 66-73: the oracle cards.
START_SET_SIZE = 4
NUM_START_CARDS = START_SET_SIZE * MAX_PLAYERS
DECK_COUNTS = ((Kind.PRIEST, 9), (Kind.SHRINE, 9), (Kind.STONEMASON, 12), (Kind.RICE_FARMER, 5),
               (Kind.PEANUT_FARMER, 5), (Kind.BANANA_FARMER, 5), (Kind.PEPPER_FARMER, 5))
DECK_KINDS: tuple[int, ...] = tuple(int(kind) for kind, count in DECK_COUNTS for _ in range(count))
DECK_SIZE = len(DECK_KINDS)
NUM_ORACLES = 8
FIRST_DECK_CARD = NUM_START_CARDS
FIRST_ORACLE = FIRST_DECK_CARD + DECK_SIZE
NUM_PLAY_CARDS = FIRST_ORACLE + NUM_ORACLES
DECK_CARDS = tuple(range(FIRST_DECK_CARD, FIRST_ORACLE))
ORACLE_CARDS = tuple(range(FIRST_ORACLE, NUM_PLAY_CARDS))

# Reconstruction (rules §3): seat k's start farmers are every type but type k.
DEFAULT_START_FARMERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in TYPES if t != seat) for seat in range(MAX_PLAYERS))
START_FARMERS_PER_SET = 3

# Offering cards: ids 0-99, 25 of each type in type order (rules §4).
OFFERINGS_PER_TYPE = 25
NUM_OFFERINGS = OFFERINGS_PER_TYPE * len(TYPES)
OFFERING_TYPE: tuple[int, ...] = tuple(card // OFFERINGS_PER_TYPE for card in range(NUM_OFFERINGS))

NUM_ROWS = 4
ROW_SIZE = 4
HAND_SIZE = 3
FIRST_STONES = 2  # seat k starts with FIRST_STONES + k stones (rules §9)

BUY_BASE_COST = 5  # minus own farmers of the type, never below 0 (rules §10)
SHRINE_COST = 7
MAX_FARMERS_PLAYED = 3
EXTRA_FARMER_COST = 1  # 1, 2, 3 farmers cost 0, 1, 2 stones (rules §11)
ORACLE_LOOK = 4
BONUS_MINIMUM = 2  # a sole majority needs at least this many cards (rules §15)

SHRINE_POINTS = 4  # final scoring (rules §17)
STONES_PER_POINT = 5
ALTAR_VALUES = (3, 2, 1, 0)  # by dense rank of the altar counts (rules §16)
GAME_END = "the deck ran out"  # the reason of every game's end
