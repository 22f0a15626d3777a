"""Worlds a bali-2017 seat's view allows: the deck reshuffled, the hidden offering cards dealt at random.

Most of bali-2017 is open. Every play card a seat takes, plays or returns is announced, and the start sets are
fixed by the options, so the events tell every hand exactly; with the rows, the displays and the box known too,
the deck's cards are known and only their order is hidden. What is hidden are offering cards: the ones in other
seats' displays beyond what this seat knows for certain (`offerings_known`), and the altar cards it has not seen.
A sampled world keeps everything the view shows, shuffles the deck, and deals the unseen offering cards (every card
of a type not accounted for by the supply, this seat's own, the known ones and the altar cards it knows) at random
into those places. The pending decision is rebuilt from the view's decision and the public events.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.games import get_game
from arena.games.bali2017.cards import (
    GAME_NAME,
    KIND_NAMES,
    NUM_PLAY_CARDS,
    OFFERING_NAMES,
    OFFERINGS_PER_TYPE,
    ORACLE_CARDS,
    TYPES,
    Kind,
)
from arena.games.bali2017.options import parse_options
from arena.games.bali2017.state import Pending, Phase, State, card_kinds

_KIND = {name: i for i, name in enumerate(KIND_NAMES)}
_TYPE = {name: i for i, name in enumerate(OFFERING_NAMES)}
_PHASE = Phase.by_wire()
_GAME = get_game(GAME_NAME)
_ORACLE = int(Kind.ORACLE)
_STONEMASON = int(Kind.STONEMASON)


class Determinizer:
    """Samples states of one bali-2017 position as a seat sees it (its view, its events, the game's options)."""

    def __init__(self, view: dict[str, Any], events: list[dict[str, Any]], options: dict[str, Any]) -> None:
        self.seat: int = view["seat"]
        self.num_players = n = view["num_players"]
        self.view = view
        parsed = parse_options(options)
        hands, box, self.others_know_me = _track(events, parsed, n, self.seat)
        hands[self.seat] = Counter(_KIND[k] for k in view["hand"])
        if [sum(h.values()) for h in hands] != view["hand_sizes"]:
            raise ValueError("the events do not account for every hand")
        self.template = self._play_cards(view, options, card_kinds(parsed), hands, box)
        self.template["pending"] = pending(view, events).to_dict()
        self._offering_slots(view)

    def _play_cards(self, view: dict[str, Any], options: dict[str, Any], kinds: tuple[int, ...],
                    hands: list[Counter[int]], box: Counter[int]) -> dict[str, Any]:
        """The state's fields with every play card placed, but for the order of the deck."""
        in_play = range(NUM_PLAY_CARDS if view["variants"]["oracle"] else ORACLE_CARDS[0])
        pools: dict[int, list[int]] = {}
        for card in in_play:
            pools.setdefault(kinds[card], []).append(card)

        def take(kind: int) -> int:
            if not pools.get(kind):
                raise ValueError(f"more {KIND_NAMES[kind]} cards are placed than exist")
            return pools[kind].pop()

        n = self.num_players
        displays = [[take(_KIND[k]) for k, count in view["displays"][x].items() for _ in range(count)]
                    for x in range(n)]
        rows = [[take(_KIND[k]) for k in row] for row in view["rows"]]
        hand_cards = [[take(k) for k, count in sorted(h.items()) for _ in range(count)] for h in hands]
        box_cards = [take(k) for k, count in sorted(box.items()) for _ in range(count)]
        self.deck = sorted(card for cards in pools.values() for card in cards)
        if len(self.deck) != view["deck"]:
            raise ValueError(f"the deck should hold {view['deck']} cards, {len(self.deck)} are left for it")
        return {
            "game": GAME_NAME, "num_players": n, "options": options, "rng": list(_RNG_STATE),
            "hands": hand_cards, "displays": displays, "rows": rows, "box": box_cards,
            "stones": list(view["stones"]), "points": list(view["points"]),
            "demon": -1 if view["demon"] is None else view["demon"], "active": view["active"], "turn": view["turn"],
            "end_reason": "", "log": [],
        }

    def _offering_slots(self, view: dict[str, Any]) -> None:
        """What is known of the offering cards, and the multiset of unseen types to deal."""
        me = self.seat
        known = [[view["offerings_known"][x][name] for name in OFFERING_NAMES] for x in range(self.num_players)]
        self.known = known
        mine = [view["offerings"][name] for name in OFFERING_NAMES]
        placed = Counter({t: view["supply"][OFFERING_NAMES[t]] + mine[t] for t in TYPES})
        for x in range(self.num_players):
            if x != me:
                placed.update({t: known[x][t] for t in TYPES})
        placed.update(_TYPE[name] for name in view["altar"] if name is not None)
        self.unseen = [t for t in TYPES for _ in range(max(0, OFFERINGS_PER_TYPE - placed[t]))]
        if sum(OFFERINGS_PER_TYPE - placed[t] for t in TYPES) != len(self.unseen):
            raise ValueError("more offering cards are seen than exist")
        hidden = sum(view["offering_counts"][x] - sum(known[x]) for x in range(self.num_players) if x != me)
        if hidden + view["altar"].count(None) != len(self.unseen):
            raise ValueError("the hidden offering cards do not match the unseen ones")

    def sample(self, rng: random.Random) -> State:
        """One world this seat's view allows, with a generator of its own drawn from rng."""
        view, me, n = self.view, self.seat, self.num_players
        deck = list(self.deck)
        rng.shuffle(deck)
        unseen = list(self.unseen)
        rng.shuffle(unseen)
        next_id = [t * OFFERINGS_PER_TYPE for t in TYPES]

        def card(t: int) -> int:
            next_id[t] += 1
            return next_id[t] - 1

        offerings = []
        for x in range(n):
            if x == me:
                types = [t for t in TYPES for _ in range(view["offerings"][OFFERING_NAMES[t]])]
            else:
                extra = view["offering_counts"][x] - sum(self.known[x])
                types = [t for t in TYPES for _ in range(self.known[x][t])] + [unseen.pop() for _ in range(extra)]
            offerings.append([card(t) for t in types])
        altar = [card(unseen.pop() if name is None else _TYPE[name]) for name in view["altar"]]
        supply = [[card(t) for _ in range(view["supply"][OFFERING_NAMES[t]])] for t in TYPES]
        mine_known = [name is not None for name in view["altar"]]
        up = list(mine_known)
        if up:
            up[-1] = bool(view["altar_top_face_up"])
        offer_known = [[[0] * len(TYPES) if x == v else list(self.others_know_me if x == me else self.known[x])
                        for x in range(n)] for v in range(n)]
        d = dict(self.template)
        d.update(deck=deck, supply=supply, offerings=offerings, altar=altar, altar_up=up,
                 altar_known=[mine_known if v == me else list(up) for v in range(n)], offer_known=offer_known)
        world = _GAME.state_from_dict(d)
        world.rng = random.Random(rng.getrandbits(64))
        return world


_RNG_STATE = list(random.Random(0).getstate())
_RNG_STATE[1] = list(_RNG_STATE[1])


def _track(events: list[dict[str, Any]], options: Any, n: int, me: int) -> tuple[list[Counter[int]], Counter[int],
                                                                                  list[int]]:
    """From the public events: every seat's hand by kind, the box's cards by kind, and what the other seats know
    for certain of this seat's offering display."""
    hands = [Counter(options.start_farmers[x]) for x in range(n)]
    box: Counter[int] = Counter()
    for x in range(n, len(options.start_farmers)):
        box[_STONEMASON] += 1
        box.update(options.start_farmers[x])
    known = [1] * len(TYPES)
    oracles_removed = 0
    for e in events:
        kind = e["type"]
        if kind == "take":
            hands[e["seat"]][_KIND[e["card"]]] += 1
        elif kind in ("play", "return"):
            hands[e["seat"]][_KIND[e["card"]]] -= 1
            if kind == "return":
                box[_KIND[e["card"]]] += 1
        elif kind == "new_row":
            oracles_removed += e["oracles"]
        elif e.get("seat") == me and kind in ("buy", "reward"):
            known[_TYPE[e["offering"]]] += 1
        elif e.get("seat") == me and kind == "offer" and not e.get("from_supply"):
            if e["face_up"]:
                t = _TYPE[e["offering"]]
                known[t] = max(0, known[t] - 1)
            else:
                known = [max(0, k - 1) for k in known]
    box[_ORACLE] += oracles_removed
    return [+h for h in hands], box, known


def pending(view: dict[str, Any], events: list[dict[str, Any]]) -> Pending:
    """The pending decision of the position, rebuilt from the view's decision and the public events."""
    decision, n, active = view["decision"], view["num_players"], view["active"]
    phase = _PHASE[decision["kind"]]
    seat = decision["seat"]
    p = Pending(phase=phase, seat=seat)
    clockwise = [(active + k) % n for k in range(n)]
    if phase == Phase.MORE_FARMERS:
        p.kind, p.count = _KIND[decision["card"]], decision["played"]
    elif phase == Phase.OFFER:
        p.queue = clockwise[clockwise.index(seat) + 1:]
    elif phase in (Phase.TAKE, Phase.ORACLE):
        p.row = _last_take_row(events)
        if phase == Phase.ORACLE:
            p.look = decision["looked"]
    elif phase in (Phase.SHRINE_REWARD, Phase.SUBSTITUTE):
        scoring = next(e for e in reversed(events) if e["type"] == "scoring")
        order = [x for x in clockwise if scoring["counts"][x]]
        p.kind = _KIND[scoring["card"]]
        p.bonus = -1 if scoring["bonus"] is None else scoring["bonus"]
        if phase == Phase.SUBSTITUTE and decision["bonus"]:
            p.is_bonus, p.bonus = True, -1
        else:
            p.queue = order[order.index(seat) + 1:]
    return p


def _last_take_row(events: list[dict[str, Any]]) -> int:
    for e in reversed(events):
        if e["type"] == "take":
            return e["row"]
        if e["type"] == "turn":
            return -1
    return -1
