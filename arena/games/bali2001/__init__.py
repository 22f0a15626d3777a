"""bali-2001: Uwe Rosenberg's Bali (Kosmos 2001). See README.md in this folder for the bot author's reference."""

from arena.games.bali2001.game import Bali2001Game

GAME = Bali2001Game()

__all__ = ["GAME", "Bali2001Game"]
