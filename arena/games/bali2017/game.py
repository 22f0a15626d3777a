"""The bali-2017 game object: wires states to the rules and views, makes new states and restores saved ones."""

from __future__ import annotations

from typing import Any

from arena.games.bali2017 import cards, rules, views
from arena.games.bali2017.cards import (
    GAME_NAME,
    HAND_SIZE,
    NUM_KINDS,
    NUM_OFFERINGS,
    NUM_PLAY_CARDS,
    NUM_ROWS,
    OFFERING_TYPE,
    ORACLE_CARDS,
    ORACLE_LOOK,
    TYPES,
    Kind,
)
from arena.games.bali2017.options import VARIANTS, parse_options
from arena.games.bali2017.state import Pending, Phase, State
from arena.games.base import EngineGame, GameError


class Bali2017Game(EngineGame, cards=cards, rules=rules, views=views, state=State, options=parse_options):
    """Klaus-Jürgen Wrede's Bali (White Goblin Games 2017) for 2 to 4 players, with the Oracle and Demon variants."""

    # Up to about 70 decisions per seat; the sample bots and kits use at most 0.2 s of it (README.md).
    game_clock = 20.0
    # Seat pairs that tie in random play: 1% (measured over 400 games per player count).
    draw_probability = 0.01
    variants = VARIANTS

    def _restore_fields(self, s: State, d: dict[str, Any]) -> None:
        s.hands = [_ints(h) for h in d["hands"]]
        s.displays = [_ints(x) for x in d["displays"]]
        s.recount()
        s.rows = [_ints(r) for r in d["rows"]]
        s.deck, s.box, s.altar = _ints(d["deck"]), _ints(d["box"]), _ints(d["altar"])
        s.supply = [_ints(x) for x in d["supply"]]
        s.offerings = [_ints(o) for o in d["offerings"]]
        s.altar_up = [bool(u) for u in d["altar_up"]]
        s.altar_known = [[bool(k) for k in ks] for ks in d["altar_known"]]
        s.offer_known = [[_ints(k) for k in ks] for ks in d["offer_known"]]
        s.stones, s.points = _ints(d["stones"]), _ints(d["points"])
        s.demon, s.active, s.turn = int(d["demon"]), int(d["active"]), int(d["turn"])
        s.pending = Pending.from_dict(d["pending"])
        s.end_reason = str(d["end_reason"])
        _check_consistent(s)


def _ints(values: Any) -> list[int]:
    return [int(v) for v in values]


def _fail(why: str) -> None:
    raise GameError(f"not a {GAME_NAME} state: {why}")


def _check_consistent(s: State) -> None:
    n = s.num_players
    play = [c for h in s.hands for c in h] + [c for x in s.displays for c in x] + [c for r in s.rows for c in r]
    expected = range(NUM_PLAY_CARDS if s.opts.oracle else ORACLE_CARDS[0])
    if sorted(play + s.deck + s.box) != list(expected):
        _fail("the play cards are not each in exactly one place")
    offerings = [c for x in s.supply for c in x] + [c for o in s.offerings for c in o] + s.altar
    if sorted(offerings) != list(range(NUM_OFFERINGS)):
        _fail("the offering cards are not each in exactly one place")
    if any(OFFERING_TYPE[c] != t for t, cards in enumerate(s.supply) for c in cards):
        _fail("a supply stack holds a card of another type")
    if len(s.supply) != len(TYPES) or len(s.rows) != NUM_ROWS:
        _fail("wrong number of supply stacks or rows")
    if any(len(x) != n for x in (s.hands, s.displays, s.offerings, s.stones, s.points, s.altar_known, s.offer_known)):
        _fail("per-seat data does not match the number of players")
    if any(len(h) > HAND_SIZE for h in s.hands) or any(s.kinds[c] == Kind.ORACLE for x in s.displays for c in x):
        _fail("a hand is too big or a display holds an oracle card")
    if len(s.altar_up) != len(s.altar) or any(len(k) != len(s.altar) for k in s.altar_known):
        _fail("altar faces or knowledge do not match the altar")
    if any(len(ks) != n or any(len(k) != len(TYPES) for k in ks) for ks in s.offer_known):
        _fail("offering knowledge has the wrong shape")
    if not (s.demon == -1 if not s.opts.demon else 0 <= s.demon < NUM_ROWS):
        _fail(f"demon row {s.demon} does not fit the options")
    if not 0 <= s.active < n or any(x < 0 for x in s.stones + s.points):
        _fail("active seat, stones or points out of range")
    _check_pending(s)


def _check_pending(s: State) -> None:
    p, n = s.pending, s.num_players
    seats_ok = all(0 <= x < n for x in p.queue) and -1 <= p.bonus < n
    seat_ok = p.seat == -1 if p.phase == Phase.OVER else 0 <= p.seat < n
    if not (seats_ok and seat_ok and -1 <= p.row < NUM_ROWS and -1 <= p.kind < NUM_KINDS):
        _fail("the pending decision names a seat, row or kind out of range")
    if not 0 <= p.look <= min(ORACLE_LOOK, len(s.altar)) or (p.phase == Phase.ORACLE) != (p.look > 0):
        _fail("the pending oracle look does not fit the altar")
