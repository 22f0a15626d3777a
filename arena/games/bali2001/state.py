"""The state of one bali-2001 game: plain data, the pending decision, and the public interface."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.games.bali2001.cards import (
    CARD_TYPE,
    GAME_NAME,
    ISLAND_NAMES,
    NUM_CARD_TYPES,
    NUM_ISLANDS,
    SEAL_POINTS,
    TYPE_FIELDS,
)
from arena.games.bali2001.options import Options
from arena.games.base import ActionKind, DecisionKind, EngineState


class Phase(DecisionKind):
    """The decisions of bali-2001, one per step of a turn that a seat may have to choose in (rules §10-§21)."""

    TURN = 0, "turn"
    WARRIOR_EXEMPT = 1, "warrior_exempt"
    CHALLENGE = 2, "warrior_challenge"
    FLEE = 3, "flee_place"
    SCHOLAR = 4, "scholar"
    ARTIST = 5, "artist"
    REACT = 6, "react"
    END_OFFER = 7, "end_turn_offer"
    CONTEST_OPEN = 8, "contest_open"
    CONTEST_RESPOND = 9, "contest_respond"
    BLOCK = 10, "dalang_block"
    ARRANGE = 11, "arrange_pile"
    OVER = 12, "game_over"


class Act(ActionKind):
    """The choices of bali-2001: ending the turn, playing, placing, taking, answering a card (rules §10-§21)."""

    END_TURN = 0, "end_turn"
    PLAY = 1, "play"
    EXEMPT = 2, "exempt"
    FLEE = 3, "flee"
    DEFEND = 4, "defend"
    DEFEND_AND_END = 5, "defend_and_end_turn"
    PLACE = 6, "place"
    TAKE = 7, "take"
    STOP = 8, "stop"
    DISCARD = 9, "discard"
    PASS = 10, "pass"
    DECLINE = 11, "decline"
    PLAY_SECOND = 12, "play_second"
    SHOW = 13, "show"
    BLOCK = 14, "block"
    ARRANGE = 15, "arrange"


class Action(NamedTuple):
    """One legal choice; unused fields are -1."""

    act: Act
    ctype: int = -1
    island: int = -1
    seat: int = -1
    count: int = -1

    def to_dict(self) -> dict[str, Any]:
        """The action as a plain dict, as options() shows it."""
        d: dict[str, Any] = {"action": self.act.wire}
        if self.ctype >= 0:
            d.update(TYPE_FIELDS[self.ctype])
            if "islands" in d:
                d["islands"] = list(d["islands"])
        if self.island >= 0:
            d["target" if self.act == Act.PLAY else "pile"] = ISLAND_NAMES[self.island]
        if self.seat >= 0:
            d["seat"] = self.seat
        if self.count >= 0:
            d["count"] = self.count
        return d


@dataclass
class Pending:
    """The decision being asked and the context of the card being resolved."""

    phase: Phase = Phase.TURN
    seat: int = 0
    queue: list[int] = field(default_factory=list)  # seats still to be asked, in order
    ctype: int = -1  # the card type being resolved (a court kind, or the type of the played Dalang card)
    mode: int = -1  # scholar: -1 undecided, Act.PLACE or Act.TAKE once the first card moved
    done: int = 0  # cards placed, taken, discarded or arranged so far by the deciding seat
    remaining: int = 0  # flee: cards still to place
    island: int = -1  # Dalang target, or the island a hand is arranged onto
    high: int = 0  # contest: highest count shown
    high_seat: int = -1
    turn_ended: bool = False  # a passive seat has ended the active turn during this card

    def to_dict(self) -> dict[str, Any]:
        """The pending decision as plain data."""
        return {"phase": int(self.phase), "seat": self.seat, "queue": list(self.queue), "ctype": self.ctype,
                "mode": self.mode, "done": self.done, "remaining": self.remaining, "island": self.island,
                "high": self.high, "high_seat": self.high_seat, "turn_ended": self.turn_ended}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pending":
        """The inverse of to_dict."""
        return cls(Phase(d["phase"]), int(d["seat"]), [int(s) for s in d["queue"]], int(d["ctype"]),
                   int(d["mode"]), int(d["done"]), int(d["remaining"]), int(d["island"]), int(d["high"]),
                   int(d["high_seat"]), bool(d["turn_ended"]))


class State(EngineState):
    """A position of bali-2001, made by Bali2001Game.new_state or restored by Bali2001Game.state_from_dict."""

    game_name = GAME_NAME
    over = Phase.OVER
    opts: Options

    def _lay_out(self, n: int) -> None:
        """Empty hands, piles and chips, the masks in the supply."""
        self.hands: list[list[int]] = [[] for _ in range(n)]
        # per seat and island, bottom -> top
        self.piles: list[list[list[int]]] = [[[] for _ in range(NUM_ISLANDS)] for _ in range(n)]
        # per seat, island and pile position: the owner knows the card
        self.known: list[list[list[bool]]] = [[[] for _ in range(NUM_ISLANDS)] for _ in range(n)]
        self.draw_pile: list[int] = []  # top is the end
        self.discard: list[int] = []  # top is the end
        self.prince: list[int] = [-1] * NUM_ISLANDS  # per island: seat whose village holds the chip, -1 off the board
        self.priest: list[int] = [-1] * NUM_ISLANDS
        self.seals: list[int] = [-1] * NUM_ISLANDS  # per island: holder, -1 in the supply
        self.masks_left: list[int] = sorted(self.opts.masks)
        self.masks_won: list[list[int]] = [[] for _ in range(n)]
        self.start_cards: list[int] = [-1] * n  # the start card number (1-4) each seat holds
        self.start_player = 0
        self.active = 0
        self.dalang = 0
        self.absent: list[bool] = [False] * n
        self.turn = 0
        self.pending = Pending()
        self.ender = -1  # active seat of the final scoring
        self.cut_short = False
        self.end_reason = ""

    def _fields(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "piles": [[list(p) for p in ps] for ps in self.piles],
            "known": [[list(k) for k in ks] for ks in self.known],
            "draw_pile": list(self.draw_pile), "discard": list(self.discard),
            "prince": list(self.prince), "priest": list(self.priest), "seals": list(self.seals),
            "masks_left": list(self.masks_left), "masks_won": [list(m) for m in self.masks_won],
            "start_cards": list(self.start_cards), "start_player": self.start_player, "active": self.active,
            "dalang": self.dalang, "absent": list(self.absent), "turn": self.turn,
            "pending": self.pending.to_dict(), "ender": self.ender, "cut_short": self.cut_short,
            "end_reason": self.end_reason,
        }

    # --- helpers shared by rules and views ------------------------------------------------------------------------
    def type_counts(self, seat: int) -> list[int]:
        """How many cards of each card type seat holds."""
        counts = [0] * NUM_CARD_TYPES
        for card in self.hands[seat]:
            counts[CARD_TYPE[card]] += 1
        return counts

    def present_passives(self) -> list[int]:
        """Passive seats present on the active island, clockwise from the active seat."""
        return [s for s in self.clockwise_from(self.active)[1:] if not self.absent[s]]

    def score(self, seat: int) -> int:
        """Masks plus seal points of seat (rules §22)."""
        return sum(self.masks_won[seat]) + SEAL_POINTS * self.seals.count(seat)
