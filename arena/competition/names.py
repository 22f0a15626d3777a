"""Whose a bot name is, in one place: a name is its first uploader's for good (a refused upload takes none), and
the sample bots' names, which play in every competition, are no one's to take."""

from __future__ import annotations

from arena.games import get_game
from arena.tournament.run import sample_opponents

SAMPLE_BOT = "a sample bot"  # the owner a reserved name is said to have


def reserved_names(game: str) -> set[str]:
    """The names the sample bots of a game play under, at its largest table: no author's bot may take them."""
    return {e.name for e in sample_opponents(game, get_game(game).max_players, set())}


def taken_by(name: str, owner: str | None, author: str, reserved: set[str]) -> str | None:
    """Who else holds the bot name (its owner, or SAMPLE_BOT for a reserved one), or None where `author` may
    upload under it: it is theirs already, or no one's."""
    if name in reserved:
        return SAMPLE_BOT
    return owner if owner is not None and owner != author else None
