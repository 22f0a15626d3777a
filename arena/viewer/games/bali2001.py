"""bali-2001 in the viewer: the referee's table, the scoring broken down and the legend (the board is drawn by
static/boards/bali2001.js, the game re-played by static/engines/bali2001.js)."""

from __future__ import annotations

from typing import Any

from arena.games import State
from arena.games.bali2001 import cards, state, views
from arena.viewer.games.base import GameTable
from arena.viewer.games.legend import island_short, plural, seat_entries

# The short form of each kind of card on the board (one per member of the game's Kind enum, held to it by tests).
SHORT = {cards.Kind.PRIEST: "pri", cards.Kind.WARRIOR: "war", cards.Kind.PRINCE: "prn",
         cards.Kind.SCHOLAR: "sch", cards.Kind.ARTIST: "art", cards.Kind.DALANG: "D"}


def _referee(s: State, privates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"hands": [p["hand"] for p in privates], **s.referee_view()}


def _scoring(view: dict[str, Any], game_over: dict[str, Any] | None) -> dict[str, Any]:
    seals = view["seals"]
    rows = [{"masks": sum(masks), "seals": cards.SEAL_POINTS * sum(1 for s in seals.values() if s == seat),
             "total": view["scores"][seat]} for seat, masks in enumerate(view["masks"])]
    return {"columns": ["masks", "seals", "total"], "rows": rows}


def _legend() -> dict[str, Any]:
    islands = {name: island_short(name) for name in cards.ISLAND_NAMES}
    entries = [[SHORT[kind], f"{kind.wire} card ({plural(count, 'card')} in the deck)"]
               for kind, count in cards.KIND_COUNTS.items()]
    pairs = len(cards.DALANG_PAIRS)
    example = "".join(islands[cards.ISLAND_NAMES[i]] for i in cards.DALANG_PAIRS[0])
    first, second = (cards.ISLAND_NAMES[i] for i in cards.DALANG_PAIRS[0])
    entries.append([SHORT[cards.Kind.DALANG], f"Dalang card, with the letters of the two islands it names "
                    f"(D {example}: {first} and {second}; {cards.DALANG_COPIES} of each of the {pairs} pairs)"])
    entries += [[short, f"the island {name}"] for name, short in islands.items()]
    entries += seat_entries(cards.SEAT_COLOURS)
    return {"cards": {kind.wire: short for kind, short in SHORT.items()}, "islands": islands, "entries": entries}


TABLE = GameTable(_referee, _scoring, cards.SEAT_COLOURS, _legend, "bali2001", (cards, state, views))
