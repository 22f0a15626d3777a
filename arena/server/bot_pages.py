"""A bot of the served ladder, as a library: its public page (its rows of the board, versions, latest games,
rating chart, why it sits out, its rivals head to head), its games and faults for its author's page, and its
retirement by its owner or the organiser."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from arena.competition import access, names, queries
from arena.competition.season import SeasonSettings
from arena.server.board import Board
from arena.site.data import RECENT_GAMES, slug
from arena.storage import Store
from arena.storage.authors import Author
from arena.storage.keys import bot_of
from arena.tournament.rivals import head_to_head

log = logging.getLogger("arena.serve")

MAX_GAMES_LISTED = 200  # a bot's most recent games in a list
MAX_FAULTY_GAMES = 50  # of those, the games whose faults are listed


@dataclass(frozen=True)
class PublicBot:
    """A bot's public page as the store holds it now: its rows of the board (none once retired), its versions in
    the ladder, its latest games and its rating chart. Nothing a bot wrote but its name and version."""

    name: str
    rows: list[dict[str, Any]]
    versions: list[dict[str, Any]]  # {"name": its key on the board, "version", "retired"}, oldest first
    games: list[dict[str, Any]]  # as games_of gives them, newest first
    chart: str | None  # an SVG drawing, None before its first game
    paused: str | None = None  # why its current version sits out, if it does
    rivals: list[dict[str, Any]] = field(default_factory=list)  # head to head with each rival (rivals.head_to_head)


class BotPages:
    """The served ladder's bots, over a store connection per serving thread and the board."""

    def __init__(self, store: Callable[[], Store], settings: SeasonSettings, board: Board) -> None:
        self.store, self.settings, self.board = store, settings, board

    def public_bot(self, page: str) -> PublicBot | None:
        """The public page of the bot that `page` names (as bot_page makes it), read from the store now; None (a
        404) for a name that names no bot of the ladder, without a look at the store for one no bot may have."""
        t = self.board.tournament() if _names_a_bot(page) else None
        if t is None:
            return None
        store = self.store()
        versions = [{"name": key, "version": version, "retired": retired}
                    for key, version, retired in queries.versions_of(store, t, page)]
        if not versions:
            return None  # not in the ladder yet (or never): as if there were no such bot
        keys = [v["name"] for v in versions]
        return PublicBot(page, [r for r in self.board.leaderboard() if r["bot"] == page], versions,
                         self.games_of(page, RECENT_GAMES), self.board.charts.of(store, t, keys), self.paused(page),
                         head_to_head(store, t, keys, bot_of))

    def rivals(self, page: str) -> list[dict[str, Any]] | None:
        """The bot that `page` names head to head with each rival bot, its versions and theirs taken together; None
        (a 404) as for its public page."""
        t = self.board.tournament() if _names_a_bot(page) else None
        if t is None:
            return None
        store = self.store()
        keys = [key for key, *_ in queries.versions_of(store, t, page)]
        return head_to_head(store, t, keys, bot_of) if keys else None

    def games_of(self, bot: str, limit: int = MAX_GAMES_LISTED) -> list[dict[str, Any]]:
        """A bot's latest stored games (every version's, at most `limit`), newest first, as plain rows."""
        t = self.board.tournament()
        if t is None:
            return []
        rows = self.store().games_of(t.id, bot, limit)
        return [{"number": g.seq + 1, "url": f"/games/{g.seq + 1}", "status": g.status, "reason": g.reason,
                 "seats": [{"seat": s.seat, "bot": s.bot, "rank": s.rank, "score": s.score, "faults": s.faults}
                           for s in g.seats]} for g in rows]

    def faults_of(self, bot: str, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The bot's faults in these games (of games_of), newest first: game number, seat, decision and kind."""
        t, found = self.board.tournament(), []
        for game in games[:MAX_FAULTY_GAMES] if t is not None else ():
            seats = {s["seat"] for s in game["seats"] if bot_of(s["bot"]) == bot and s["faults"]}
            if seats:
                stored = self.store().game_numbered(t, game["number"])
                found += [{"game": game["number"], "seat": f.seat, "decision": f.decision, "kind": f.kind}
                          for f in stored.faults if f.seat in seats]
        return found

    def paused(self, bot: str) -> str | None:
        """Why the bot's current version sits out of the ladder (season.pause_reason), or None if it plays."""
        return queries.why_paused(self.settings, self.store(), bot)

    def may_see(self, author: Author | None, bot: str) -> bool:
        """True if author may see the bot's private pages and logs, and retire it (access.may_see_bot)."""
        return author is not None and access.may_see_bot(author, self.store().bot_owner(bot))

    def retire(self, author: Author, bot: str) -> bool:
        """Take the bot out of the ladder (for one who may see it: its games and pages stay; a new version brings it
        back); False (a 404) for a bot with no admitted version."""
        if not self.store().retire_bot(bot):
            return False
        log.info("%s retired %s", author.name, bot)
        return True


def _names_a_bot(page: str) -> bool:
    # Every bot of a served ladder is named by NAME_PATTERN (uploads, house folders and sample bots alike), and
    # such a name is its own slug: a page names one bot, and a bot has one page.
    return names.is_bot_name(page) and slug(page) == page
