"""The state of one bali-2001 game: plain data, the pending decision, and the public interface."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

from arena.games.base import EngineState, GameResult, LogEntry
from arena.games.bali2001.cards import CARD_TYPE, ISLAND_NAMES, NUM_CARD_TYPES, SEAL_POINTS, TYPE_FIELDS
from arena.games.bali2001.options import Options


class Phase(IntEnum):
    """What kind of decision is pending."""

    TURN = 0
    WARRIOR_EXEMPT = 1
    CHALLENGE = 2
    FLEE = 3
    SCHOLAR = 4
    ARTIST = 5
    REACT = 6
    END_OFFER = 7
    CONTEST_OPEN = 8
    CONTEST_RESPOND = 9
    BLOCK = 10
    ARRANGE = 11
    OVER = 12


PHASE_KINDS = (
    "turn", "warrior_exempt", "warrior_challenge", "flee_place", "scholar", "artist", "react",
    "end_turn_offer", "contest_open", "contest_respond", "dalang_block", "arrange_pile", "game_over",
)


class Act(IntEnum):
    """The kinds of choice a seat can make."""

    END_TURN = 0
    PLAY = 1
    EXEMPT = 2
    FLEE = 3
    DEFEND = 4
    DEFEND_AND_END = 5
    PLACE = 6
    TAKE = 7
    STOP = 8
    DISCARD = 9
    PASS = 10
    DECLINE = 11
    PLAY_SECOND = 12
    SHOW = 13
    BLOCK = 14
    ARRANGE = 15


ACT_NAMES = (
    "end_turn", "play", "exempt", "flee", "defend", "defend_and_end_turn", "place", "take", "stop",
    "discard", "pass", "decline", "play_second", "show", "block", "arrange",
)


class Action(NamedTuple):
    """One legal choice; unused fields are -1."""

    act: Act
    ctype: int = -1
    island: int = -1
    seat: int = -1
    count: int = -1

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"action": ACT_NAMES[self.act]}
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
    mode: int = -1  # scholar: -1 undecided, PLACE or TAKE once the first card moved
    done: int = 0  # cards placed, taken, discarded or arranged so far by the deciding seat
    remaining: int = 0  # flee: cards still to place
    island: int = -1  # Dalang target, or the island a hand is arranged onto
    high: int = 0  # contest: highest count shown
    high_seat: int = -1
    turn_ended: bool = False  # a passive seat has ended the active turn during this card

    def to_dict(self) -> dict[str, Any]:
        return {"phase": int(self.phase), "seat": self.seat, "queue": list(self.queue), "ctype": self.ctype,
                "mode": self.mode, "done": self.done, "remaining": self.remaining, "island": self.island,
                "high": self.high, "high_seat": self.high_seat, "turn_ended": self.turn_ended}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pending":
        return cls(Phase(d["phase"]), int(d["seat"]), [int(s) for s in d["queue"]], int(d["ctype"]),
                   int(d["mode"]), int(d["done"]), int(d["remaining"]), int(d["island"]), int(d["high"]),
                   int(d["high_seat"]), bool(d["turn_ended"]))


class State(EngineState):
    """A bali-2001 position. Build it with BaliGame.new_state or BaliGame.state_from_dict."""

    def __init__(self, num_players: int, options: Options, rng: random.Random) -> None:
        n = num_players
        self.num_players = n
        self.opts = options
        self.rng = rng
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.piles: list[list[list[int]]] = [[[] for _ in range(4)] for _ in range(n)]  # bottom -> top
        self.known: list[list[list[bool]]] = [[[] for _ in range(4)] for _ in range(n)]  # owner knows the card
        self.draw_pile: list[int] = []  # top is the end
        self.discard: list[int] = []  # top is the end
        self.prince: list[int] = [-1] * 4  # per island: seat whose village holds the chip, -1 off the board
        self.priest: list[int] = [-1] * 4
        self.seals: list[int] = [-1] * 4  # per island: holder, -1 in the supply
        self.masks_left: list[int] = sorted(options.masks)
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
        self.log: list[LogEntry] = []

    # --- the game interface -------------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.pending.phase == Phase.OVER

    def options(self) -> list[dict[str, Any]]:
        """The legal choices as plain dicts; index 0 is the default."""
        return [a.to_dict() for a in self.legal_actions()]

    def decision(self) -> dict[str, Any]:
        """What is being decided, as a plain dict with at least 'kind' and 'seat'."""
        return _views.decision_dict(self)

    def _compute_legal(self) -> list[Action]:
        return _rules.legal_actions(self)

    def _apply_one(self, action: Action) -> None:
        _rules.apply_one(self, action)

    def _view(self, seat: int) -> dict[str, Any]:
        return _views.view_dict(self, seat)

    def _result(self) -> GameResult:
        return _rules.game_result(self)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data; BaliGame.state_from_dict restores it exactly."""
        return {
            "game": "bali-2001", "num_players": self.num_players, "options": self.opts.to_dict(),
            "rng": self._rng_dict(),
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
            "log": self._log_dicts(),
        }

    # --- helpers shared by rules and views ------------------------------------------------------------------------
    def type_counts(self, seat: int) -> list[int]:
        """How many cards of each card type seat holds."""
        counts = [0] * NUM_CARD_TYPES
        for card in self.hands[seat]:
            counts[CARD_TYPE[card]] += 1
        return counts

    def clockwise_from(self, seat: int) -> list[int]:
        """The other seats in clockwise order, starting with seat's left neighbour."""
        n = self.num_players
        return [(seat + i) % n for i in range(1, n)]

    def present_passives(self) -> list[int]:
        """Passive seats present on the active island, clockwise from the active seat."""
        return [s for s in self.clockwise_from(self.active) if not self.absent[s]]

    def score(self, seat: int) -> int:
        """Masks plus seal points of seat."""
        return sum(self.masks_won[seat]) + SEAL_POINTS * self.seals.count(seat)


# rules and views work on State; imported last so that either module may be imported first.
from arena.games.bali2001 import rules as _rules, views as _views  # noqa: E402
