"""bali-2017: Klaus-Jürgen Wrede's Bali (White Goblin Games 2017). See README.md in this folder for the bot author's
reference."""

from arena.games.bali2017.game import Bali2017Game

GAME = Bali2017Game()

__all__ = ["GAME", "Bali2017Game"]
