"""Which game page a viewer sees, as a library: a game of the served ladder by its number, its public replay page
(no seat's logs), and, for one who may see a bot's private pages, the bot's own log of the game and its replay
page with the bot's own stderr and times; the viewer (access.Viewer) decides whose logs a page holds."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from arena.competition.access import EVERYONE, Viewer
from arena.competition.season import SeasonSettings
from arena.errors import ArenaError
from arena.match.record import load_record
from arena.server.board import Board
from arena.site.build import ASSETS
from arena.storage import Store, StoredGameRow, replay_path
from arena.storage.keys import bot_of

GAME_PAGES = 64  # game pages kept made (a stored game never changes)
MAX_NUMBER = 2**62  # no game number beyond this is looked up (SQLite's integers end at 2**63)


class GamePages:
    """The served ladder's games, over a store connection per serving thread and the board's tournament."""

    def __init__(self, store: Callable[[], Store], settings: SeasonSettings, board: Board) -> None:
        self.store, self.settings, self.board = store, settings, board
        self._pages: OrderedDict[tuple[int, str | None, str | None], str] = OrderedDict()  # pages made
        self._lock = threading.Lock()

    def game(self, number: int) -> StoredGameRow | None:
        """Game `number` of the served ladder (its number everywhere: lists, pages, the published site), once it
        is stored with its replay; None for any other number."""
        t = self.board.tournament()
        if t is None or not 1 <= number <= MAX_NUMBER:
            return None
        try:
            game = self.store().game_numbered(t, number)
        except ArenaError:
            return None
        return game if game.replay else None

    def seen_for(self, number: int, bot: str) -> tuple[StoredGameRow, Viewer] | None:
        """Game `number` and its viewer for one who may see the bot's private pages (the bot's seats' logs);
        None (a 404) if there is no such game or the bot did not play it."""
        game = self.game(number)
        viewer = None if game is None else Viewer.of_bot(bot, (s.seat for s in game.seats if bot_of(s.bot) == bot))
        return None if game is None or viewer is None else (game, viewer)

    def game_log(self, number: int, bot: str) -> dict[str, Any] | None:
        """The bot's own per-decision log of a game (what it wrote to stderr, its times, its faults with their
        stderr tails), for one who may see the bot's private pages; None if the bot did not play it."""
        found = self.seen_for(number, bot)
        if found is None:
            return None
        game, viewer = found
        record = load_record(self._replay_path(game))
        decisions = [{"decision": n, "seat": d.seat, "time": d.time, "cpu": d.cpu,
                      "fault": d.fault.value if d.fault else None, "log": d.log, "log_dropped": d.log_dropped}
                     for n, d in enumerate(record.decisions) if d.seat in viewer.seats]
        faults = [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": f.detail,
                   "stderr": f.stderr} for f in record.faults if f.seat in viewer.seats]
        return {"game": number, "bot": bot, "seats": sorted(viewer.seats), "decisions": decisions, "faults": faults}

    def private_replay(self, number: int, bot: str) -> str | None:
        """The game's replay page with the bot's own stderr and times beside its decisions (the other seats' logs
        left out), for one who may see the bot's private pages; None if the bot did not play it."""
        found = self.seen_for(number, bot)
        return None if found is None else self._kept_page(*found)

    def public_replay(self, number: int) -> str | None:
        """The game's replay page as everyone may see it (no seat's logs), as soon as it is stored; None if there is
        no such game."""
        game = self.game(number)
        return None if game is None else self._kept_page(game, EVERYONE)

    def _kept_page(self, game: StoredGameRow, viewer: Viewer) -> str:
        """A game's page, made once and kept (the GAME_PAGES last asked for): a stored game never changes."""
        assets = self.settings.site / ASSETS  # the published site's scripts, once it has game pages
        key = (game.seq, viewer.bot, "/site/assets/" if (assets / "viewer.js").is_file() else None)
        with self._lock:
            page = self._pages.get(key)
        if page is None:
            page = self._game_page(game, viewer, key[2])
            with self._lock:
                self._pages[key] = page
                while len(self._pages) > GAME_PAGES:
                    self._pages.popitem(last=False)
        return page

    def _game_page(self, game: StoredGameRow, viewer: Viewer, linked: str | None) -> str:
        from arena.viewer import render_page, replay_data  # the viewer is only needed for a game page

        data = replay_data(load_record(self._replay_path(game)), None, check=False, bot_output=viewer.bot is not None)
        heading = f"game {game.seq + 1} of {game.tournament}"
        bot = viewer.bot
        back = ("/", self.settings.name) if bot is None else (f"/me/bots/{bot}", f"{bot}: your bot")
        return render_page(viewer.shown(data), back=back, linked=linked, heading=heading)

    def _replay_path(self, game: StoredGameRow) -> Path:
        return replay_path(game.replay or "", self.settings.results_dir) or self.settings.results_dir
