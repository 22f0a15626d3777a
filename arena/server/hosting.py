"""What `arena serve` answers, as a library, one part per question: who is asking (identity.py), what was uploaded
(uploaded.py), what the board shows (board.py), a bot's pages (bot_pages.py) and which game page a viewer sees
(game_pages.py). `Hosting` holds the settings and one of each part over a store connection per serving thread; the
web layer (web/) only turns requests into their calls and their results into responses."""

from __future__ import annotations

import threading
from typing import Callable

from arena.competition import names
from arena.competition.season import SeasonSettings
from arena.competition.uploads import UploadLimits
from arena.kits import Language, archive
from arena.server.board import Board, Charts
from arena.server.bot_pages import BotPages
from arena.server.events import STREAM_SECONDS
from arena.server.game_pages import GamePages
from arena.server.identity import Identities
from arena.server.limits import BODY_SECONDS
from arena.server.uploaded import Submissions
from arena.site.markdown import rules_html
from arena.storage import Store
from arena.tournament.competition_file import About


class Hosting:
    """A served competition: its settings, upload limits, a store connection per serving thread, and its parts."""

    def __init__(self, settings: SeasonSettings, limits: UploadLimits = UploadLimits(),
                 body_seconds: float = BODY_SECONDS, stream_seconds: float = STREAM_SECONDS,
                 about: About = About()) -> None:
        self.settings, self.about, self.limits = settings, about, limits
        self.body_seconds, self.stream_seconds = body_seconds, stream_seconds
        self._local = threading.local()
        self.playing: Callable[[], tuple[str, ...]] = tuple  # the bots of the wave under way (set by the server)
        self.reserved = names.reserved_names(settings.play.game)
        self.identities = Identities(self.store)
        self.submissions = Submissions(self.store, settings, limits, self.reserved)
        self.board = Board(self.store, settings.name, Charts())
        self.bots = BotPages(self.store, settings, self.board)
        self.games = GamePages(self.store, settings, self.board)

    def store(self) -> Store:
        """This thread's connection to the store (each thread keeps its own: SQLite connections are not shared)."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = Store(self.settings.db)
        return store

    def rules(self) -> str:
        """The game's bot-author reference, its numbered rules, as HTML."""
        return rules_html(self.settings.play.game)

    def kit(self, language: str, name: str) -> bytes | None:
        """The starter kit of language as a zip with its bot named `name`, None if there is no kit of that language;
        ConfigError for a name that is not a valid bot name."""
        kind = next((k for k in Language if k.value == language), None)
        return None if kind is None else archive(kind, name)

    def close(self) -> None:
        """End the board's thread (board.Board.close)."""
        self.board.close()


__all__ = ["Hosting"]
