"""bali-2001: Uwe Rosenberg's Bali (Kosmos 2001). See README.md in this folder for the bot author's reference."""

from arena.games.bali2001.game import BaliGame

GAME = BaliGame()

__all__ = ["GAME", "BaliGame"]
