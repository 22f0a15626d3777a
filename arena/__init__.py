"""bali-arena: a tournament runner for bots that play Bali."""

__version__ = "0.1.0"
