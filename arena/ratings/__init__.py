"""Ratings and statistics: TrueSkill, leaderboards, the sequential test and pairing."""
