"""The legend of a game's replay page: the short form the board draws each card and island with, and what every
abbreviation and mark on the board means, made from the game's own facts (its cards' enums and counts)."""

from __future__ import annotations

from typing import Any, Callable

from arena.games.bali2001 import cards as c2001
from arena.games.bali2017 import cards as c2017

UNKNOWN = "?"  # a card the view cannot see

# The short form of each kind of card on the board (one per member of the game's Kind enum, held to it by tests).
SHORT_2001 = {c2001.Kind.PRIEST: "pri", c2001.Kind.WARRIOR: "war", c2001.Kind.PRINCE: "prn",
              c2001.Kind.SCHOLAR: "sch", c2001.Kind.ARTIST: "art", c2001.Kind.DALANG: "D"}
SHORT_2017 = {c2017.Kind.RICE_FARMER: "rice", c2017.Kind.PEANUT_FARMER: "pea", c2017.Kind.BANANA_FARMER: "ban",
              c2017.Kind.PEPPER_FARMER: "pep", c2017.Kind.STONEMASON: "mason", c2017.Kind.PRIEST: "pri",
              c2017.Kind.SHRINE: "shrine", c2017.Kind.ORACLE: "oracle"}


def island_short(name: str) -> str:
    """An island's letter in a Dalang card's pair: its initial (the islands' initials differ)."""
    return name[0]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _seats(colours: tuple[str, ...]) -> list[list[str]]:
    return [["0 1 2 …", "a seat, in its colour: " + ", ".join(f"{s} {c}" for s, c in enumerate(colours))],
            [UNKNOWN, "a card this view cannot see"]]


def _legend_2001() -> dict[str, Any]:
    islands = {name: island_short(name) for name in c2001.ISLAND_NAMES}
    entries = [[SHORT_2001[kind], f"{kind.wire} card ({_plural(count, 'card')} in the deck)"]
               for kind, count in c2001.KIND_COUNTS.items()]
    pairs = len(c2001.DALANG_PAIRS)
    example = "".join(islands[c2001.ISLAND_NAMES[i]] for i in c2001.DALANG_PAIRS[0])
    first, second = (c2001.ISLAND_NAMES[i] for i in c2001.DALANG_PAIRS[0])
    entries.append([SHORT_2001[c2001.Kind.DALANG], f"Dalang card, with the letters of the two islands it names "
                    f"(D {example}: {first} and {second}; {c2001.DALANG_COPIES} of each of the {pairs} pairs)"])
    entries += [[short, f"the island {name}"] for name, short in islands.items()]
    entries += _seats(c2001.SEAT_COLOURS)
    return {"cards": {kind.wire: short for kind, short in SHORT_2001.items()}, "islands": islands,
            "entries": entries}


def _legend_2017() -> dict[str, Any]:
    in_deck = {int(kind): count for kind, count in c2017.DECK_COUNTS}
    entries = []
    for kind in c2017.Kind:
        where = [f"{in_deck[int(kind)]} in the deck"] if int(kind) in in_deck else []
        if kind == c2017.Kind.STONEMASON or int(kind) in c2017.FARMERS:
            where.append("in the start sets")
        if kind == c2017.Kind.ORACLE:
            where.append(f"{c2017.NUM_ORACLES} with the oracle variant")
        entries.append([SHORT_2017[kind], f"{kind.wire.replace('_', ' ')} card ({', '.join(where)})"])
    for name in c2017.OFFERING_NAMES:  # offerings are drawn by their names in full
        offering = f"on the altar: a {name} offering card"
        same = next((entry for entry in entries if entry[0] == name), None)
        if same is None:
            entries.append([name, offering])
        else:  # a farmer's short form that is also an offering's name: both meanings, where each is drawn
            same[1] += f"; {offering}"
    entries += [["×N", "N cards of that kind in a display"],
                ["dashed card", "an offering face down on the altar"]]
    entries += _seats(c2017.SEAT_COLOURS)
    return {"cards": {kind.wire: short for kind, short in SHORT_2017.items()}, "islands": {}, "entries": entries}


LEGENDS: dict[str, Callable[[], dict[str, Any]]] = {c2001.GAME_NAME: _legend_2001, c2017.GAME_NAME: _legend_2017}


def legend(game: str) -> dict[str, Any]:
    """A game's legend as plain data: cards (wire name -> short form), islands (name -> letter), and entries
    ([abbreviation or mark, meaning], in the order the page lists them)."""
    return LEGENDS[game]()
