"""A served season's end: from its end on, uploads are closed, the ladder stops, and its top K play the finals
(`arena finals`'s format, at the season's confidence) into a tournament of their own, whose table the front page
shows with the confidence of each step.

The end is a moment in UTC: a date alone (the season's last day) ends at the next midnight UTC. The finals are
played once: a server started again after they are done only serves them; one stopped during them resumes them.
"""

from __future__ import annotations

import datetime
import logging
import threading
from pathlib import Path
from typing import Any, Callable, Protocol

from arena.errors import ConfigError
from arena.storage import Store, Tournament
from arena.storage.keys import bot_of
from arena.tournament.finals import finals_name, finals_spec
from arena.tournament.formats.base import Play
from arena.tournament.formats.finals import DEFAULT_MAX_GAMES
from arena.tournament.leaderboard import row_json, tournament_board
from arena.tournament.run import Runner


class SeasonSettings(Protocol):
    """What the ending reads of a season's settings (arena/competition/season.py, which imports this module)."""

    name: str
    results_dir: Path
    jobs: int
    play: Play
    ends: datetime.datetime | None
    finals_top: int
    finals_confidence: float
    finals_games: int


class Season(Protocol):
    """What the ending uses of a running season: its stop, store, cluster, a run held beside the ladder, and what it
    says is playing."""

    stopping: threading.Event
    playing: tuple[str, ...]

    def store(self) -> Store: ...

    def cluster(self) -> Any: ...

    def run_aside(self, runner: Runner) -> None: ...

    def on_wave(self) -> None: ...


log = logging.getLogger("arena.serve")
FINALS_TOP = 8  # the season's leading bots that play its finals, by default
FINALS_CONFIDENCE = 0.95  # the confidence each step of the final table is decided at, by default
FINALS_GAMES = DEFAULT_MAX_GAMES  # the finals' budget of games, by default
CLOSED = "the season has ended: uploads are closed"
DIGITS = 3  # the figures of a final table's rows, as the served board rounds its own


def end_moment(end: str | datetime.date | None) -> datetime.datetime | None:
    """When a season whose end is given as `end` ends, in UTC: a date (YYYY-MM-DD, its last day) at the next midnight
    UTC, a moment (YYYY-MM-DDTHH:MM[:SS], UTC unless it says otherwise) then; ConfigError for anything else."""
    if end is None or end == "":
        return None
    if isinstance(end, datetime.datetime):
        moment = end
    elif isinstance(end, datetime.date):
        moment = datetime.datetime.combine(end + datetime.timedelta(days=1), datetime.time())
    else:
        text = str(end).strip()
        try:
            if len(text) <= 10:
                day = datetime.date.fromisoformat(text)
                moment = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time())
            else:
                moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ConfigError(f"end: {text[:40]!r} is not a date (YYYY-MM-DD) or a moment (YYYY-MM-DDTHH:MM, "
                              "UTC)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc)


def check_finals(top: int, confidence: float, games: int, seats: int) -> None:
    """ConfigError naming the first finals setting a season could never play with."""
    if top < 2:
        raise ConfigError(f"finals_top: the finals need at least 2 bots, got {top}")
    if not 0 < confidence < 1:
        raise ConfigError(f"finals_confidence: between 0 and 1 (0.95, say), got {confidence}")
    if games < seats:
        raise ConfigError(f"finals_games: the finals play a deal in every seat rotation: give at least {seats} "
                          f"games, not {games}")


def over(settings: SeasonSettings, now: datetime.datetime | None = None) -> bool:
    """True once the season has ended (never for a season without an end)."""
    moment = now or datetime.datetime.now(datetime.timezone.utc)
    return settings.ends is not None and moment >= settings.ends


def seconds_left(settings: SeasonSettings, longest: float) -> float:
    """How long a wave may still start tables: `longest`, or less if the season ends sooner (0 once it has)."""
    if settings.ends is None:
        return longest
    left = (settings.ends - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    return max(0.0, min(longest, left))


def finals_tournament(settings: SeasonSettings) -> str:
    """The finals' tournament name in the store: the ladder's, then -finals."""
    return f"{settings.name}-finals"


class Ending:
    """The season's finals, played by the ladder's thread once the season has ended: once, then never again."""

    def __init__(self, settings: SeasonSettings) -> None:
        self.settings = settings
        self.done = False

    def due(self) -> bool:
        """True once the season has ended: the ladder plays no more waves."""
        return over(self.settings)

    def play(self, season: Season) -> None:
        """Play the finals (or resume them) on the season's workers, then rest: a stop cuts them off, and the next
        start resumes them."""
        if self.done:
            season.stopping.wait(1.0)
            return
        s = self.settings
        store = season.store()
        source = store.named_tournament(s.name)
        top = min(s.finals_top, _ranked(store, source)) if source is not None else 0
        if top < 2:
            log.info("the season has ended with %s bots ranked: no finals to play", top)
            self.done = True
            return
        try:
            name = finals_name(source, finals_tournament(s))
            spec = finals_spec(store, source, top, s.finals_confidence, s.finals_games, s.play.sandbox.resolved())
        except ConfigError as exc:  # said once: the same board would give the same answer at every look
            log.error("the season has ended, but its finals cannot be played: %s", exc)
            self.done = True
            return
        log.info("the season has ended: its top %d play the finals at confidence %g", top, s.finals_confidence)
        season.playing = tuple(e.name for e in spec.entrants)
        runner = Runner(spec, store, s.results_dir, jobs=s.jobs, name=name, player=season.cluster())
        season.run_aside(runner)
        if not season.stopping.is_set():  # the waves ended by themselves: every step decided, or the budget spent
            log.info("the finals are over: %s", _steps(tournament_board(store, runner.tournament)))
            self.done = True
            season.on_wave()


def _ranked(store: Store, source: Tournament) -> int:
    """How many bots the season's board ranks (those that have played, retired versions left out)."""
    return sum(1 for r in tournament_board(store, source, max_fault_rate=1.0).rows if r.games)


def _steps(board: Any) -> str:
    return ", ".join(f"{a.bot} {'>' if a.decided else '~'} {b.bot}" for a, b in zip(board.rows, board.rows[1:]))


class FinalTable:
    """The front page's final table, read from the store again only when a finals' game was stored since."""

    def __init__(self, settings: SeasonSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._kept: tuple[Any, dict[str, Any] | None] = (None, None)

    def table(self, opened: Callable[[], Store]) -> dict[str, Any] | None:
        """The finals as plain data (None before they begin): `rows` (rank, bot, games, decided, the board's other
        columns), `confidence`, `games`, `budget`, `done`. The store is asked for (`opened`) only once the season
        has ended: before, the front page costs no connection."""
        if not over(self.settings):
            return None
        store = opened()
        with self._lock:
            name = finals_tournament(self.settings)
            t = store.named_tournament(name)
            if t is None:  # not begun yet (or never: a server that does not play, a season of fewer than 2 bots)
                return None
            mark = (t.id, store.latest_game(t.id), store.recorded_count(t.id))
            if mark != self._kept[0]:
                self._kept = (mark, _table(store, t))
            return self._kept[1]


def _table(store: Store, t: Tournament) -> dict[str, Any]:
    board = tournament_board(store, t)
    rows = [{**row_json(r, DIGITS), "bot": bot_of(r.bot)} for r in board.rows]
    games, budget, seats = store.recorded_count(t.id), t.config.get("max_games"), int(t.config["seats"])
    done = all(r["decided"] for r in rows[:-1]) or (budget is not None and games + seats > budget)
    return {"rows": rows, "confidence": confidence_of(t.config, len(rows)), "games": games, "budget": budget,
            "done": done}


def confidence_of(config: dict[str, Any], finalists: int) -> float:
    """The confidence a stored finals was asked for: each test's alpha is 1 - C shared out over the K (K - 1)
    directions of the pairs (arena/ratings/order.py)."""
    return round(1 - float(config["sprt"]["alpha"]) * finalists * (finalists - 1), 6)
