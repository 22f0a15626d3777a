"""The published face of a results store: a static site of leaderboards, charts, bot pages and game replays."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.site.build import PublishReport, leaderboard_page, publish
    from arena.site.data import TournamentData, tournament_data

__all__ = ["PublishReport", "TournamentData", "leaderboard_page", "publish", "tournament_data"]
# Each name's module, imported when the name is first used: `arena leaderboard` reaches arena.site.boards through
# this package and should not pay for the site's builder and the replay viewer it only needs for --format html.
_HOMES = {"PublishReport": "arena.site.build", "leaderboard_page": "arena.site.build", "publish": "arena.site.build",
          "TournamentData": "arena.site.data", "tournament_data": "arena.site.data"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
