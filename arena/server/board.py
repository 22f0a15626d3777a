"""What the board shows, as a library: the served ladder's tournament (held once its first wave has made it), the
ranking worked out again in a thread of its own whenever the store has changed, as rows and as JSON, and the front
page's chart of the leading bots; rating charts drawn once for the same points."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from arena.competition.queries import LadderTournament
from arena.errors import ArenaError
from arena.site.data import LiveHistory, Point, slug
from arena.storage import Store, Tournament
from arena.storage.keys import bot_of
from arena.tournament.leaderboard import ranked_rows, row_json, tournament_board

log = logging.getLogger("arena.serve")

BOARD_DIGITS = 4  # decimals of a served board's figures
BOARD_CHART_BOTS = 8  # the leading bots the front page's chart draws
CLOSE_WAIT = 30.0  # seconds a stop waits for the leaderboard's thread to end
CHART_EVERY = 10.0  # seconds at least between two drawings of the front page's chart
BOARD_LOOK = 1.0  # seconds between two looks for a change of the ranking
CHARTS = 64  # bots' rating charts kept drawn, each under the data it was drawn from
BOT_PAGES = "/bots/"  # where a bot's public page is served: BOT_PAGES + slug(its name)
Ranking = tuple[tuple[int, int, int], list[dict[str, Any]]]  # a ranking, and the store's state it was made from


class Charts:
    """Rating charts of the ladder's entrants, from the rating history a server keeps up to date, each drawn once
    for the same points (the CHARTS last drawn are kept)."""

    def __init__(self) -> None:
        self.history = LiveHistory()
        self._drawn: OrderedDict[str, str] = OrderedDict()  # a chart's data's digest -> its drawing
        self._lock = threading.Lock()

    def of(self, store: Store, t: Tournament, entrants: list[str]) -> str | None:
        """The chart of these entrants' ratings after each of their games (a line each); None before any game."""
        return self.draw(self.history.points(store, t, entrants))

    def draw(self, points: dict[str, tuple[Point, ...]]) -> str | None:
        """The rating chart of these entrants' points (a line each), drawn once for the same points: a game of the
        bot's, or the ratings redone, changes its points and so draws it again."""
        drawn = {name: line for name, line in points.items() if line}
        if not drawn:
            return None
        key = hashlib.sha256(repr(sorted(drawn.items())).encode()).hexdigest()
        with self._lock:
            chart = self._drawn.get(key)
        if chart is None:
            from arena.site import plots  # matplotlib takes a second to import: only once a chart is asked for

            chart = plots.history_chart(drawn, list(drawn))
            with self._lock:
                self._drawn[key] = chart
                while len(self._drawn) > CHARTS:
                    self._drawn.popitem(last=False)
        return chart


class Board:
    """The served ladder's ranking, over a store connection per serving thread: a request only reads the last one
    worked out."""

    def __init__(self, store: Callable[[], Store], name: str, charts: Charts) -> None:
        self.store, self.charts = store, charts
        self._tournament = LadderTournament(name)
        self._board: Ranking | None = None  # the last ranking, and when
        self._board_lock = threading.Lock()
        self._board_json: tuple[list[dict[str, Any]], bytes] | None = None
        self._board_chart: str | None = None
        self._refresher: threading.Thread | None = None  # the leaderboard's thread, once the board was first asked for
        self._closing = threading.Event()

    def tournament(self) -> Tournament | None:
        """The served ladder's tournament, once its first wave has started."""
        return self._tournament(self.store())

    def leaderboard(self) -> list[dict[str, Any]]:
        """The current ranking as plain rows (name, bot, rank, score, mu, sigma, games, faults), best first; retired
        versions left out. Worked out again in a thread of its own whenever the store has changed, so that a
        request only reads the last one (worked out here only for the first request)."""
        board = self._board
        if board is None:
            with self._board_lock:
                board = self._board
                if board is None:
                    board = self._board = self._look_at_board(None)
                    if not self._closing.is_set():
                        self._refresher = threading.Thread(target=self._keep_board, name="leaderboard",
                                                           daemon=True)
                        self._refresher.start()
        return board[1]

    def board_json(self) -> bytes:
        """The leaderboard as JSON, made once per change of the ranking."""
        rows = self.leaderboard()
        cached = self._board_json
        if cached is None or cached[0] is not rows:
            cached = self._board_json = (rows, json.dumps(rows).encode())
        return cached[1]

    def board_chart(self) -> str | None:
        """The front page's chart: the leading bots' mu after each of their games, drawn by the leaderboard's
        thread whenever the ranking changes (None before its first drawing, or before any game)."""
        return self._board_chart

    def close(self) -> None:
        """End the leaderboard's thread, waiting for a chart it is drawing: a thread cut off inside matplotlib's
        C++ as the interpreter ends aborts the process."""
        self._closing.set()
        refresher = self._refresher
        if refresher is not None:
            refresher.join(CLOSE_WAIT)

    def _keep_board(self) -> None:
        drawn: Ranking | None = None
        drawn_at = -CHART_EVERY
        while not self._closing.is_set():
            try:
                # Drawn again as the ranking changes, but not after every game of a busy season: a drawing costs
                # this process a tenth of a second or more.
                if self._board is not drawn and time.monotonic() - drawn_at >= CHART_EVERY:
                    drawn, drawn_at = self._board, time.monotonic()
                    self._board_chart = self._draw_board_chart(drawn[1] if drawn else [])
                if self._closing.wait(BOARD_LOOK):
                    return
                self._board = self._look_at_board(self._board)
            except ArenaError:  # the store busy a moment too long: the next look tries again
                continue
            except Exception as error:  # noqa: BLE001 - a refresher that died would leave the board as it was for good
                log.warning("the leaderboard was not worked out again (the next look tries again): %s", error)

    def _look_at_board(self, board: Ranking | None) -> Ranking:
        """The ranking: the one given if nothing was stored since, else worked out again."""
        store = self.store()
        t = self.tournament()
        if t is None:
            return ((0, 0, 0), [])
        mark = (t.id, store.latest_game(t.id), len(store.stored_ratings(t.id)))
        if board is not None and board[0] == mark:
            return board
        return mark, _ranking(store, t)

    def _draw_board_chart(self, rows: list[dict[str, Any]]) -> str | None:
        t = self.tournament()
        if t is None or not rows:
            return None
        return self.charts.of(self.store(), t, [r["name"] for r in rows[:BOARD_CHART_BOTS]])


def _ranking(store: Store, t: Tournament) -> list[dict[str, Any]]:
    board = tournament_board(store, t, max_fault_rate=1.0)  # a server withholds nobody: it pauses faulty bots
    # A bot shows once it has played, ranked among those shown. A served board names each row by its entrant key
    # ("name") and its bot ("bot"), since a bot's versions each have a row; "score" is what it sorts by.
    shown = ranked_rows(r for r in board.rows if r.games)
    return [{**row_json(r, BOARD_DIGITS), "name": r.bot, "bot": bot_of(r.bot),
             "score": round(r.conservative, BOARD_DIGITS), "page": bot_page(bot_of(r.bot))} for r in shown]


def bot_page(bot: str) -> str:
    """The address of a bot's public page, one per bot name (every version's)."""
    return BOT_PAGES + slug(bot)
