"""Ratings and statistics: TrueSkill, the sequential test and pairing; nothing of the arena but its errors."""
