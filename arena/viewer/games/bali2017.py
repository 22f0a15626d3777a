"""bali-2017 in the viewer: the referee's table, the scoring broken down and the legend (the board is drawn by
static/boards/bali2017.js, the game re-played by static/engines/bali2017.js)."""

from __future__ import annotations

from typing import Any

from arena.games import State
from arena.games.bali2017 import cards, state, views
from arena.viewer.games.base import GameTable
from arena.viewer.games.legend import seat_entries

# The short form of each kind of card on the board (one per member of the game's Kind enum, held to it by tests).
SHORT = {cards.Kind.RICE_FARMER: "rice", cards.Kind.PEANUT_FARMER: "pea", cards.Kind.BANANA_FARMER: "ban",
         cards.Kind.PEPPER_FARMER: "pep", cards.Kind.STONEMASON: "mason", cards.Kind.PRIEST: "pri",
         cards.Kind.SHRINE: "shrine", cards.Kind.ORACLE: "oracle"}


def _referee(s: State, privates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"hands": [p["hand"] for p in privates],
            "offerings_known": [p["offerings"] for p in privates],  # exact: each seat knows its own display
            **s.referee_view()}


def _scoring(view: dict[str, Any], game_over: dict[str, Any] | None) -> dict[str, Any]:
    values = (game_over or {}).get("values", {name: 0 for name in cards.OFFERING_NAMES})
    rows = []
    for seat, display in enumerate(view["displays"]):
        offered = view["offerings_known"][seat] if "hands" in view or seat != view["seat"] else view["offerings"]
        row = {"points": view["points"][seat], "shrines": cards.SHRINE_POINTS * display["shrine"],
               "stones": view["stones"][seat] // cards.STONES_PER_POINT,
               "offerings": sum(count * values[name] for name, count in offered.items())}
        row["total"] = sum(row.values())
        rows.append(row)
    return {"columns": ["points", "shrines", "stones", "offerings", "total"], "values": values, "rows": rows}


def _legend() -> dict[str, Any]:
    in_deck = {int(kind): count for kind, count in cards.DECK_COUNTS}
    entries = []
    for kind in cards.Kind:
        where = [f"{in_deck[int(kind)]} in the deck"] if int(kind) in in_deck else []
        if kind == cards.Kind.STONEMASON or int(kind) in cards.FARMERS:
            where.append("in the start sets")
        if kind == cards.Kind.ORACLE:
            where.append(f"{cards.NUM_ORACLES} with the oracle variant")
        entries.append([SHORT[kind], f"{kind.wire.replace('_', ' ')} card ({', '.join(where)})"])
    for name in cards.OFFERING_NAMES:  # offerings are drawn by their names in full
        offering = f"on the altar: a {name} offering card"
        same = next((entry for entry in entries if entry[0] == name), None)
        if same is None:
            entries.append([name, offering])
        else:  # a farmer's short form that is also an offering's name: both meanings, where each is drawn
            same[1] += f"; {offering}"
    entries += [["×N", "N cards of that kind in a display"],
                ["dashed card", "an offering face down on the altar"]]
    entries += seat_entries(cards.SEAT_COLOURS)
    return {"cards": {kind.wire: short for kind, short in SHORT.items()}, "islands": {}, "entries": entries}


TABLE = GameTable(_referee, _scoring, cards.SEAT_COLOURS, _legend, "bali2017", (cards, state, views))
