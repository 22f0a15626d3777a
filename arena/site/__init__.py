"""The published face of a results store: a static site of leaderboards, charts, bot pages and game replays."""

from arena.site.build import PublishReport, leaderboard_page, publish
from arena.site.data import TournamentData, tournament_data

__all__ = ["PublishReport", "TournamentData", "leaderboard_page", "publish", "tournament_data"]
