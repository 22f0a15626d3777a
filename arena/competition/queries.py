"""The hosted competition's questions of its store, beside the season: the served ladder's tournament (looked up
until it exists, then held), why a bot's current version sits out, a bot's versions in the ladder, and the bots
and uploads an author's own page lists."""

from __future__ import annotations

from arena.competition import access
from arena.competition.season import SeasonSettings, pause_reason
from arena.errors import ConfigError
from arena.storage import Store, Tournament
from arena.storage.authors import Author, Submission
from arena.storage.keys import bot_of


class LadderTournament:
    """The served ladder's tournament: looked up by its name until its first wave has made it, then held (a
    tournament's id and name never change, and what a server reads of it is fixed when it is made)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._found: Tournament | None = None

    def __call__(self, store: Store) -> Tournament | None:
        """The tournament, or None before the ladder's first wave."""
        found = self._found
        if found is None and self.name:
            try:
                found = self._found = store.tournament(self.name)
            except ConfigError:  # not made yet
                return None
        return found


def why_paused(settings: SeasonSettings, store: Store, bot: str) -> str | None:
    """Why the bot's current version sits out of the ladder (season.pause_reason), or None if it plays or has none."""
    current = [s for s in store.current_versions() if s.bot == bot]
    return pause_reason(settings, current[0], store) if current else None


def versions_of(store: Store, t: Tournament, bot: str) -> list[tuple[str, str, bool]]:
    """The bot's versions in the ladder, oldest first: (its key on the board, its version, whether retired)."""
    return [(key, version, retired) for key, _, version, retired in store.roster(t.id) if bot_of(key) == bot]


def visible_submission(store: Store, viewer: Author, sid: int) -> Submission | None:
    """Upload `sid` if viewer may see it (access.may_see_submission), else None (as if there were none)."""
    found = store.submission(sid)
    return found if found is not None and access.may_see_submission(viewer, found) else None


def bots_listed(store: Store, viewer: Author) -> list[str]:
    """The bots an author's own page lists (access.bots_listed)."""
    return access.bots_listed(viewer, store.owned_bots(viewer), (s.bot for s in store.submissions()))


def submissions_of(store: Store, viewer: Author) -> list[Submission]:
    """The uploads an author's own page lists, newest first: their own (the organiser's: everyone's)."""
    return store.submissions(access.whose_submissions(viewer))[::-1]
