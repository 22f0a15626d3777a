"""Worlds a bali-2001 seat's view allows: every hidden card dealt at random from the cards the seat has not seen.

What a seat sees: its hand and the cards it knows in its own piles (by id), the discard pile (public), and every
count (hands, piles, draw pile). Every other card may lie anywhere the seat cannot see: in another seat's hand or
piles, in its own face-down pile cards, or in the draw pile. A sampled world keeps everything the view shows and
deals those cards at random into those places. The pending decision is rebuilt from the view's decision and the
public events (who is still to be asked, and whether a passive seat has ended the turn), since the rules go on
from it.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import get_game
from arena.games.bali2001.cards import DECK_SIZE, GAME_NAME, ISLAND_NAMES, KIND_NAMES, NUM_ISLANDS
from arena.games.bali2001.state import Act, Pending, Phase, State

_ISLAND = {name: i for i, name in enumerate(ISLAND_NAMES)}
_KIND = {name: i for i, name in enumerate(KIND_NAMES)}
_PHASE = Phase.by_wire()
_GAME = get_game(GAME_NAME)
# The pending decisions a passive seat is asked in turn, one after the other.
_QUEUED = (Phase.CHALLENGE, Phase.FLEE, Phase.SCHOLAR, Phase.ARTIST, Phase.REACT, Phase.END_OFFER,
           Phase.CONTEST_RESPOND, Phase.BLOCK)


class Determinizer:
    """Samples states of one bali-2001 position as a seat sees it (its view, its events, the game's options)."""

    def __init__(self, view: dict[str, Any], events: list[dict[str, Any]], options: dict[str, Any]) -> None:
        self.seat: int = view["seat"]
        self.num_players: int = view["num_players"]
        self.view = view
        hand = [card["id"] for card in view["hand"]]
        my_piles = [view["piles"][name] for name in ISLAND_NAMES]
        known_in_piles = [card["id"] for pile in my_piles for card in pile if card is not None]
        discard = [card["id"] for card in view["discard"]]
        seen = set(hand) | set(known_in_piles) | set(discard)
        self.unseen = sorted(set(range(DECK_SIZE)) - seen)
        slots = sum(view["hand_sizes"][x] + sum(view["pile_sizes"][x].values())
                    for x in range(self.num_players) if x != self.seat)
        slots += sum(card is None for pile in my_piles for card in pile) + view["draw_pile"]
        if slots != len(self.unseen):
            raise ValueError(f"the view hides {slots} cards but {len(self.unseen)} are unseen")
        self.template = self._template(view, options, hand, discard)
        self.template["pending"] = pending(view, events).to_dict()

    def _template(self, view: dict[str, Any], options: dict[str, Any], hand: list[int],
                  discard: list[int]) -> dict[str, Any]:
        n = self.num_players
        chips = [view["chips"][name] for name in ISLAND_NAMES]
        return {
            "game": GAME_NAME, "num_players": n, "options": options, "rng": list(_RNG_STATE),
            "hands": [hand if x == self.seat else [] for x in range(n)],
            "piles": [[[] for _ in range(NUM_ISLANDS)] for _ in range(n)],
            "known": [[[] for _ in range(NUM_ISLANDS)] for _ in range(n)],
            "draw_pile": [], "discard": discard,
            "prince": [_seat(c["prince"]) for c in chips], "priest": [_seat(c["priest"]) for c in chips],
            "seals": [_seat(view["seals"][name]) for name in ISLAND_NAMES],
            "masks_left": list(view["masks_left"]), "masks_won": [list(m) for m in view["masks"]],
            "start_cards": list(view["start_cards"]), "start_player": view["start_player"],
            "active": view["active"], "dalang": _ISLAND[view["dalang"]], "turn": view["turn"],
            "absent": [x in view["fled"] for x in range(n)],
            "ender": -1, "cut_short": False, "end_reason": "", "log": [],
        }

    def sample(self, rng: random.Random) -> State:
        """One world this seat's view allows, with a generator of its own drawn from rng."""
        cards = list(self.unseen)
        rng.shuffle(cards)
        d = dict(self.template)
        view, me = self.view, self.seat
        hands, piles, known = list(d["hands"]), d["piles"], d["known"]
        piles = [[[] for _ in range(NUM_ISLANDS)] for _ in range(self.num_players)]
        known = [[[] for _ in range(NUM_ISLANDS)] for _ in range(self.num_players)]
        for x in range(self.num_players):
            if x != me:
                hands[x] = [cards.pop() for _ in range(view["hand_sizes"][x])]
            for i, name in enumerate(ISLAND_NAMES):
                if x == me:
                    shown = view["piles"][name]
                    piles[x][i] = [cards.pop() if card is None else card["id"] for card in shown]
                    known[x][i] = [card is not None for card in shown]
                else:
                    piles[x][i] = [cards.pop() for _ in range(view["pile_sizes"][x][name])]
                    known[x][i] = [False] * len(piles[x][i])
        d.update(hands=hands, piles=piles, known=known, draw_pile=cards)
        world = _GAME.state_from_dict(d)
        world.rng = random.Random(rng.getrandbits(64))
        return world


_RNG_STATE = list(random.Random(0).getstate())
_RNG_STATE[1] = list(_RNG_STATE[1])


def _seat(value: int | None) -> int:
    return -1 if value is None else value


def pending(view: dict[str, Any], events: list[dict[str, Any]]) -> Pending:
    """The pending decision of the position, rebuilt from the view's decision and the public events."""
    decision, n, active = view["decision"], view["num_players"], view["active"]
    phase = _PHASE[decision["kind"]]
    seat = decision["seat"]
    p = Pending(phase=phase, seat=seat)
    if phase in _QUEUED:
        fled = set(view["fled"])
        order = [(active + k) % n for k in range(1, n)]
        after = order[order.index(seat) + 1:] if seat in order else []
        p.queue = [x for x in after if x not in fled]
        if phase in (Phase.CHALLENGE, Phase.FLEE):
            exempt = _last(events, "exempt")
            p.queue = [x for x in p.queue if exempt is None or x != exempt["exempt"]]
        p.turn_ended = _turn_ended(events, active)
    if phase in (Phase.CHALLENGE, Phase.FLEE, Phase.WARRIOR_EXEMPT):
        p.ctype = _KIND["warrior"]
    if phase == Phase.FLEE:
        p.remaining = decision["remaining"]
    elif phase in (Phase.SCHOLAR, Phase.ARTIST):
        p.ctype = _KIND[phase.wire]
        p.done = decision["done"]
        if phase == Phase.SCHOLAR and decision["mode"] is not None:
            p.mode = int(Act.by_wire()[decision["mode"]])
        if seat == active:
            p.queue = []
    elif phase in (Phase.REACT, Phase.END_OFFER):
        p.ctype = _KIND[decision["card"]]
    elif phase in (Phase.CONTEST_OPEN, Phase.CONTEST_RESPOND):
        p.ctype = _KIND[decision["chip"]]
        p.high, p.high_seat = decision["highest"], _seat(decision["leader"])
    elif phase == Phase.BLOCK:
        p.island = _ISLAND[decision["target"]]
        play = _last_play(events, active)
        p.ctype = _dalang_type(play["card"]["islands"]) if play else -1
    elif phase == Phase.ARRANGE:
        p.island, p.done = _ISLAND[decision["island"]], decision["placed"]
        order = [(active + k) % n for k in range(n)]
        p.queue = order[order.index(seat) + 1:]
    return p


def _last(events: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    for event in reversed(events):
        if event["type"] == kind:
            return event
        if event["type"] == "turn":
            return None
    return None


def _last_play(events: list[dict[str, Any]], active: int) -> dict[str, Any] | None:
    for event in reversed(events):
        if event["type"] == "play" and event["seat"] == active:
            return event
        if event["type"] == "turn":
            return None
    return None


def _turn_ended(events: list[dict[str, Any]], active: int) -> bool:
    """Whether a passive seat has ended the active turn during the card being resolved (since the active seat played
    it)."""
    for event in reversed(events):
        if event["type"] == "turn_ended_by":
            return True
        if event["type"] == "turn" or (event["type"] == "play" and event["seat"] == active):
            return False
    return False


def _dalang_type(islands: list[str]) -> int:
    from arena.games.bali2001.cards import DALANG_PAIRS, FIRST_DALANG_TYPE
    pair = tuple(sorted(_ISLAND[name] for name in islands))
    return FIRST_DALANG_TYPE + DALANG_PAIRS.index(pair)
