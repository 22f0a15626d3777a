"""The bali-2001 game object: wires states to the rules and views, makes new states and restores saved ones."""

from __future__ import annotations

from typing import Any

from arena.games.bali2001 import cards, rules, views
from arena.games.bali2001.cards import DECK_SIZE, GAME_NAME, NUM_ISLANDS
from arena.games.bali2001.options import parse_options
from arena.games.bali2001.state import Pending, State
from arena.games.base import EngineGame, GameError


class Bali2001Game(EngineGame, cards=cards, rules=rules, views=views, state=State, options=parse_options):
    """Uwe Rosenberg's Bali (Kosmos 2001) for 3 or 4 players."""

    # Up to about 530 decisions per seat; the sample bots and kits use at most 2 s of it (README.md).
    game_clock = 60.0
    # Seat pairs that tie in random play: 3% (measured over 400 games per player count).
    draw_probability = 0.03

    def _restore_fields(self, s: State, d: dict[str, Any]) -> None:
        s.hands = [[int(c) for c in h] for h in d["hands"]]
        s.piles = [[[int(c) for c in p] for p in ps] for ps in d["piles"]]
        s.known = [[[bool(k) for k in ks] for ks in kss] for kss in d["known"]]
        s.draw_pile = [int(c) for c in d["draw_pile"]]
        s.discard = [int(c) for c in d["discard"]]
        s.prince, s.priest, s.seals = (list(map(int, d[k])) for k in ("prince", "priest", "seals"))
        s.masks_left = [int(m) for m in d["masks_left"]]
        s.masks_won = [[int(m) for m in ms] for ms in d["masks_won"]]
        s.start_cards = [int(c) for c in d["start_cards"]]
        s.start_player, s.active, s.dalang, s.turn = (int(d[k]) for k in ("start_player", "active", "dalang",
                                                                          "turn"))
        s.absent = [bool(a) for a in d["absent"]]
        s.pending = Pending.from_dict(d["pending"])
        s.ender, s.cut_short, s.end_reason = int(d["ender"]), bool(d["cut_short"]), str(d["end_reason"])
        _check_consistent(s)


def _check_consistent(s: State) -> None:
    places = [c for h in s.hands for c in h] + [c for ps in s.piles for p in ps for c in p] + s.draw_pile + s.discard
    if sorted(places) != list(range(DECK_SIZE)):
        raise GameError(f"not a {GAME_NAME} state: the play cards are not each in exactly one place")
    if len(s.hands) != s.num_players or any(len(ps) != NUM_ISLANDS for ps in s.piles):
        raise GameError(f"not a {GAME_NAME} state: wrong number of hands or piles")
    if any(len(p) != len(k) for ps, ks in zip(s.piles, s.known) for p, k in zip(ps, ks)):
        raise GameError(f"not a {GAME_NAME} state: pile knowledge does not match the piles")
