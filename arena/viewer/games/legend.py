"""What every game's legend shares: the mark of an unseen card, the islands' letters and the seats' colours."""

from __future__ import annotations

UNKNOWN = "?"  # a card the view cannot see


def island_short(name: str) -> str:
    """An island's letter in a Dalang card's pair: its initial (the islands' initials differ)."""
    return name[0]


def plural(count: int, word: str) -> str:
    """'1 card', '2 cards'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def seat_entries(colours: tuple[str, ...]) -> list[list[str]]:
    """The legend's entries for the seats in their colours and for an unseen card."""
    return [["0 1 2 …", "a seat, in its colour: " + ", ".join(f"{s} {c}" for s, c in enumerate(colours))],
            [UNKNOWN, "a card this view cannot see"]]
