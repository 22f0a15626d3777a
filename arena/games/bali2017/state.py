"""The state of one bali-2017 game: plain data, the pending decision, and the public interface."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from arena.games.bali2017.cards import (
    DECK_KINDS,
    GAME_NAME,
    KIND_NAMES,
    NUM_KINDS,
    NUM_ORACLES,
    NUM_ROWS,
    OFFERING_NAMES,
    OFFERING_TYPE,
    START_SET_SIZE,
    TYPES,
    Kind,
)
from arena.games.bali2017.options import Options
from arena.games.base import ActionKind, DecisionKind, EngineState


class Phase(DecisionKind):
    """The decisions of bali-2017, one per step of a turn that a seat may have to choose in (rules §10-§17)."""

    BUY = 0, "buy"
    PLAY = 1, "play"
    MORE_FARMERS = 2, "more_farmers"
    RETURN = 3, "return_card"
    OFFER = 4, "offer"
    OFFER_DOWN = 5, "offer_face_down"
    OFFER_SUPPLY = 6, "offer_from_supply"
    TAKE = 7, "take"
    ORACLE = 8, "oracle_pick"
    SHRINE_REWARD = 9, "shrine_reward"
    SUBSTITUTE = 10, "substitute_reward"
    OVER = 11, "game_over"


class Act(ActionKind):
    """The choices of bali-2017: buying, playing, offering, taking, picking a reward (rules §10-§17)."""

    SKIP = 0, "skip"
    BUY = 1, "buy"
    PLAY = 2, "play"
    STOP = 3, "stop"
    RETURN = 4, "return"
    OFFER = 5, "offer"
    TAKE = 6, "take"
    PICK = 7, "pick"
    POINTS = 8, "points"
    STONES = 9, "stones"
    SUBSTITUTE = 10, "substitute"


# Which field names the kind of an action: a play card kind, or an offering type.
CARD_ACTS = frozenset((Act.PLAY, Act.RETURN, Act.TAKE))


class Action(NamedTuple):
    """One legal choice; unused fields are -1."""

    act: Act
    kind: int = -1  # a card kind (play, return, take) or an offering type (buy, offer, pick, substitute)
    row: int = -1
    depth: int = -1  # oracle pick: 0 is the altar's top card
    cost: int = -1
    amount: int = -1

    def to_dict(self) -> dict[str, Any]:
        """The action as a plain dict, as options() shows it."""
        return dict(_option_dict(self))

    def _build_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"action": self.act.wire}
        if self.row >= 0:
            d["row"] = self.row
        if self.depth >= 0:
            d["depth"] = self.depth
        if self.kind >= 0:
            if self.act in CARD_ACTS:
                d["card"] = KIND_NAMES[self.kind]
            else:
                d["offering"] = OFFERING_NAMES[self.kind]
        if self.cost >= 0:
            d["cost"] = self.cost
        if self.amount >= 0:
            d["amount"] = self.amount
        return d


@lru_cache(maxsize=None)
def _option_dict(action: Action) -> dict[str, Any]:
    """The plain form of an action, built once per distinct action (there are a few hundred); callers copy it."""
    return action._build_dict()


@dataclass
class Pending:
    """The decision being asked and the context of the step being resolved."""

    phase: Phase = Phase.BUY
    seat: int = 0
    queue: list[int] = field(default_factory=list)  # seats still to offer or to be rewarded, in order
    kind: int = -1  # the farmer type being played, or the kind of the scored card
    count: int = 0  # farmers played so far this turn
    row: int = -1  # the row the last card was taken from
    bonus: int = -1  # the seat with the sole majority of the scored kind (farmer: its extra card is still due)
    is_bonus: bool = False  # the substitute being chosen replaces the bonus card
    look: int = 0  # oracle: how many altar cards are being looked at

    def to_dict(self) -> dict[str, Any]:
        """The pending decision as plain data."""
        return {"phase": int(self.phase), "seat": self.seat, "queue": list(self.queue), "kind": self.kind,
                "count": self.count, "row": self.row, "bonus": self.bonus, "is_bonus": self.is_bonus,
                "look": self.look}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pending":
        """The inverse of to_dict."""
        return cls(Phase(d["phase"]), int(d["seat"]), [int(s) for s in d["queue"]], int(d["kind"]), int(d["count"]),
                   int(d["row"]), int(d["bonus"]), bool(d["is_bonus"]), int(d["look"]))


def card_kinds(options: Options) -> tuple[int, ...]:
    """The kind of every play card id under these options (start farmers are an option)."""
    start: list[int] = []
    for farmers in options.start_farmers:
        start += [int(Kind.STONEMASON)] + list(farmers)
    return tuple(start) + DECK_KINDS + (int(Kind.ORACLE),) * NUM_ORACLES


class State(EngineState):
    """A bali-2017 position. Build it with Bali2017Game.new_state or Bali2017Game.state_from_dict."""

    game_name = GAME_NAME
    over = Phase.OVER
    opts: Options

    def _lay_out(self, n: int) -> None:
        """Empty hands, displays, rows and altar; the card kinds that the options give."""
        self.kinds = card_kinds(self.opts)  # derived from the options, so not saved
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.displays: list[list[int]] = [[] for _ in range(n)]  # played cards, in play order
        self.display_counts: list[list[int]] = [[0] * NUM_KINDS for _ in range(n)]  # derived from displays
        self.rows: list[list[int]] = [[] for _ in range(NUM_ROWS)]  # top first; the bottom card is the last
        self.deck: list[int] = []  # the top card is the last
        self.box: list[int] = []  # play cards out of the game: unused start sets, returned cards, oracles
        self.supply: list[list[int]] = [[] for _ in TYPES]  # offering cards by type
        self.offerings: list[list[int]] = [[] for _ in range(n)]  # each seat's face-down offering display
        self.altar: list[int] = []  # bottom first; the top card is the last
        self.altar_up: list[bool] = []  # per altar position: lies face up
        self.altar_known: list[list[bool]] = [[] for _ in range(n)]  # [seat][position]: seat knows that card
        # [viewer][seat][type]: how many cards of the type viewer knows for certain lie in seat's offering display
        self.offer_known: list[list[list[int]]] = [[[0] * len(TYPES) for _ in range(n)] for _ in range(n)]
        self.stones: list[int] = [0] * n
        self.points: list[int] = [0] * n
        self.demon = -1  # the demon's row, -1 without the Demon variant
        self.active = 0
        self.turn = 0
        self.pending = Pending()
        self.end_reason = ""

    def _fields(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands], "displays": [list(d) for d in self.displays],
            "rows": [list(r) for r in self.rows], "deck": list(self.deck), "box": list(self.box),
            "supply": [list(s) for s in self.supply], "offerings": [list(o) for o in self.offerings],
            "altar": list(self.altar), "altar_up": list(self.altar_up),
            "altar_known": [list(k) for k in self.altar_known],
            "offer_known": [[list(k) for k in ks] for ks in self.offer_known],
            "stones": list(self.stones), "points": list(self.points), "demon": self.demon,
            "active": self.active, "turn": self.turn, "pending": self.pending.to_dict(),
            "end_reason": self.end_reason,
        }

    # --- helpers shared by rules and views ------------------------------------------------------------------------
    def count_kind(self, seat: int, kind: int) -> int:
        """How many cards of a kind lie in seat's display."""
        return self.display_counts[seat][kind]

    def add_to_display(self, seat: int, card: int) -> None:
        """Lay a card face up in seat's display."""
        self.displays[seat].append(card)
        self.display_counts[seat][self.kinds[card]] += 1

    def recount(self) -> None:
        """Rebuild the display counts from the displays (after a restore)."""
        self.display_counts = [[0] * NUM_KINDS for _ in range(self.num_players)]
        for seat, cards in enumerate(self.displays):
            for card in cards:
                self.display_counts[seat][self.kinds[card]] += 1

    def offering_counts(self, seat: int) -> list[int]:
        """How many offering cards of each type lie in seat's offering display."""
        counts = [0] * len(TYPES)
        for card in self.offerings[seat]:
            counts[OFFERING_TYPE[card]] += 1
        return counts

    def start_set(self, seat: int) -> range:
        """The card ids of the start set in seat's colour."""
        return range(seat * START_SET_SIZE, (seat + 1) * START_SET_SIZE)
