"""What a published competition shows, read from the results store as plain values."""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from arena.games import get_game
from arena.ratings.trueskill import GameOutcome, Rating, RatingConfig, Ratings
from arena.storage import Store, Tournament
from arena.storage.records import GameStatus
from arena.tournament.leaderboard import Leaderboard, tournament_board

RECENT_GAMES = 20  # games listed on a bot's page


@dataclass(frozen=True)
class Point:
    """A bot's rating after one of its games: the tournament's game number, mu and sigma."""

    game: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class GameRow:
    """One stored game as the lists show it."""

    id: int
    seq: int
    status: GameStatus
    reason: str
    finished: float
    seats: tuple[dict[str, Any], ...]
    replay: str | None
    faults: int


@dataclass(frozen=True)
class FaultRow:
    """One fault of a bot, with the game it happened in."""

    game_id: int
    seq: int
    seat: int
    decision: int | None
    kind: str
    detail: str
    stderr_tail: str


@dataclass(frozen=True)
class BotInfo:
    """An entrant as the store knows it."""

    name: str
    version: str
    author: str
    slug: str


@dataclass
class TournamentData:
    """Everything a tournament's pages show."""

    tournament: Tournament
    slug: str
    title: str
    board: Leaderboard
    bots: dict[str, BotInfo]
    games: list[GameRow]
    failed: int
    first: float | None
    last: float | None
    history: dict[str, list[Point]]
    head_to_head: dict[str, dict[str, tuple[int, int]]]  # a -> b -> (games a finished ahead of b, games together)
    faults: dict[str, list[FaultRow]] = field(default_factory=dict)
    final: bool = False  # the ratings are the season's end re-rating (arena rerate --final)

    @property
    def sandbox(self) -> str:
        """The isolation level the tournament's bots ran under, as stored with it."""
        sandbox = self.tournament.config.get("sandbox") or {}
        return str(sandbox.get("effective") or sandbox.get("level") or "unknown")

    @property
    def played(self) -> int:
        """How many games were played to the end (failed ones not counted)."""
        return sum(1 for g in self.games if g.status == GameStatus.DONE)


SLUG_SAFE = re.compile(r"[A-Za-z0-9_.-]")  # the characters a page's file name keeps as they are


def slug(text: str) -> str:
    """A file-name-safe form of a name, readable, stable and one-to-one (two names never share a page): letters,
    digits, '_', '.' and '-' stay as they are, every other byte (and a leading '.') becomes ~XX, its hex; '~'
    is in no name, so no escaped form can be another name's plain one."""
    escaped = "".join(c if SLUG_SAFE.match(c) else "".join(f"~{b:02x}" for b in c.encode()) for c in text)
    return "~2e" + escaped[1:] if escaped.startswith(".") else escaped or "~"


def rating_history(config: RatingConfig, outcomes: Iterable[GameOutcome],
                   cache: Path | None = None) -> tuple[Ratings, dict[str, list[Point]]]:
    """The ratings after all games, in schedule order, and each bot's rating after each game it played. With a
    cache file, the games rated by an earlier call are not rated again (rating is most of a publish's work)."""
    ordered = sorted(outcomes, key=lambda o: o.seq)
    key = _history_key(ordered)
    start, table, history = _cached_history(cache, config, key)
    ratings = _rate_on(config, ordered, start, table, history)
    if cache is not None and start < len(ordered):
        _save_history(cache, config, key, ratings, history)
    return ratings, history


def _history_key(ordered: list[GameOutcome]) -> list[list[Any]]:
    """What a rating history was made from: each game's number, seats and ranks, in schedule order."""
    return [[o.seq, list(o.bots), list(o.ranks)] for o in ordered]


def _rate_on(config: RatingConfig, ordered: list[GameOutcome], start: int, table: dict[str, Rating],
             history: dict[str, list[Point]]) -> Ratings:
    """The ratings after ordered[start:] is rated from `table`, the ratings after the first `start` games; each
    bot's rating after each of those games is added to history."""
    env = config.environment()
    ratings = Ratings(config, table)
    for number, outcome in enumerate(ordered[start:], start=start + 1):
        ratings = ratings.after(outcome, env)
        for bot in outcome.bots:
            r: Rating = ratings.get(bot)
            history.setdefault(bot, []).append(Point(number, r.mu, r.sigma))
    return ratings


class LiveHistory:
    """A tournament's rating history kept in memory for a server and brought up to date from the store when asked:
    only the games stored since the last look are rated (all again if a game came in out of schedule order, or the
    ratings were redone), so that a page asked for after every game costs one game's rating, not the season's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one look at a time: the history is extended in place
        self._mark: tuple[Any, ...] | None = None  # the store's state the history was made from
        self._config: RatingConfig | None = None
        self._key: list[list[Any]] = []
        self._table: dict[str, Rating] = {}
        self._history: dict[str, list[Point]] = {}

    def points(self, store: Store, t: Tournament, names: Iterable[str]) -> dict[str, tuple[Point, ...]]:
        """Each named entrant's rating after each of its games, as of every game stored now."""
        with self._lock:
            # A stored game always gets a larger id than those before it, and `arena rerate --final` changes the
            # dynamics factor: either changes the mark.
            mark = (t.id, store.latest_game(t.id), store.final_ratings(t.id))
            if mark != self._mark:
                try:
                    self._update(store, t, mark[2])
                except BaseException:  # a history extended in part would be extended again from its old end
                    self._mark, self._config, self._key, self._table, self._history = None, None, [], {}, {}
                    raise
                self._mark = mark
            return {name: tuple(self._history.get(name, ())) for name in names}

    def _update(self, store: Store, t: Tournament, final: bool) -> None:
        config = RatingConfig.stored(get_game(t.game), t.config)
        if final:  # as tournament_data rates a season's end re-rating
            config = replace(config, tau=0.0)
        ordered = sorted(store.outcomes(t.id), key=lambda o: o.seq)
        key = _history_key(ordered)
        if config != self._config or key[:len(self._key)] != self._key:
            self._config, self._key, self._table, self._history = config, [], {}, {}
        ratings = _rate_on(config, ordered, len(self._key), self._table, self._history)
        self._key, self._table = key, dict(ratings.table)


def _cached_history(cache: Path | None, config: RatingConfig,
                    key: list[list[Any]]) -> tuple[int, dict[str, Rating], dict[str, list[Point]]]:
    """How many of the games (key) the cache holds the ratings after, those ratings, and the history so far."""
    try:
        saved = json.loads(cache.read_text(encoding="utf-8")) if cache is not None else None
        rated = saved["outcomes"]
        if saved["config"] != config.to_dict() or not 0 < len(rated) <= len(key) or key[:len(rated)] != rated:
            return 0, {}, {}
        table = {bot: Rating(float(mu), float(sigma)) for bot, (mu, sigma) in saved["table"].items()}
        history = {bot: [Point(int(n), float(mu), float(sigma)) for n, mu, sigma in points]
                   for bot, points in saved["history"].items()}
        return len(rated), table, history
    except (OSError, ValueError, KeyError, TypeError):  # no cache, or not one this code wrote: rate from scratch
        return 0, {}, {}


def _save_history(cache: Path, config: RatingConfig, key: list[list[Any]], ratings: Ratings,
                  history: dict[str, list[Point]]) -> None:
    saved = {"config": config.to_dict(), "outcomes": key,
             "table": {bot: [r.mu, r.sigma] for bot, r in ratings.table.items()},
             "history": {bot: [[p.game, p.mu, p.sigma] for p in points] for bot, points in history.items()}}
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(cache.name + ".partial")
    partial.write_text(json.dumps(saved, separators=(",", ":")), encoding="utf-8")
    os.replace(partial, cache)


def head_to_head(outcomes: Iterable[GameOutcome]) -> dict[str, dict[str, tuple[int, int]]]:
    """For each ordered pair of bots: how often the first finished ahead of the second, out of their games together."""
    table: dict[str, dict[str, list[int]]] = {}
    for outcome in outcomes:
        for a, rank_a in zip(outcome.bots, outcome.ranks):
            for b, rank_b in zip(outcome.bots, outcome.ranks):
                if a == b:
                    continue
                cell = table.setdefault(a, {}).setdefault(b, [0, 0])
                cell[0] += rank_a < rank_b
                cell[1] += 1
    return {a: {b: (c[0], c[1]) for b, c in row.items()} for a, row in table.items()}


def _games(store: Store, tid: int) -> list[GameRow]:
    games = {r[0]: list(r) for r in store.game_rows(tid)}
    seats: dict[int, list[dict[str, Any]]] = {}
    for mid, seat, name, score, rank, dq, faults in store.seat_rows(tid):
        seats.setdefault(mid, []).append({"seat": seat, "bot": name, "score": score, "rank": rank,
                                          "disqualified": bool(dq), "faults": faults})
    return [GameRow(mid, seq, GameStatus(status), reason, finished, tuple(seats.get(mid, ())), replay,
                    sum(s["faults"] for s in seats.get(mid, ())))
            for mid, (_, seq, status, reason, finished, replay) in games.items()]


def _faults(store: Store, tid: int) -> dict[str, list[FaultRow]]:
    faults: dict[str, list[FaultRow]] = {}
    for mid, seq, seat, name, decision, kind, detail, tail in store.fault_rows(tid):
        faults.setdefault(name, []).append(FaultRow(mid, seq, seat, decision, kind, detail, tail))
    return faults


def _bots(store: Store, tid: int) -> dict[str, BotInfo]:
    return {name: BotInfo(name, version, author, slug(name)) for name, version, author in store.entrant_rows(tid)}


def tournament_title(t: Tournament) -> str:
    """The title a tournament's pages show: its own, or its name."""
    return str(t.config.get("title") or t.name)


def tournament_data(store: Store, t: Tournament, max_fault_rate: float | None = None,
                    cache_dir: Path | None = None) -> TournamentData:
    """Read one tournament's games, ratings (rebuilt in schedule order, continuing from cache_dir's if given),
    head-to-head counts and faults."""
    outcomes = store.outcomes(t.id)
    cache = None if cache_dir is None else cache_dir / f"{slug(t.name)}.json"
    config = RatingConfig.stored(get_game(t.game), t.config)
    final = store.final_ratings(t.id)
    # A season's end re-rating (arena rerate --final) is shown as the leaderboard shows it: every game rated again
    # with the dynamics factor off, in schedule order, so the board and the charts end on the stored ratings.
    ratings, history = rating_history(replace(config, tau=0.0) if final else config, outcomes, cache)
    title = tournament_title(t)
    board = tournament_board(store, t, max_fault_rate, ratings=ratings, title=title)
    games = _games(store, t.id)
    done = [g.finished for g in games]
    return TournamentData(t, slug(t.name), title, board, _bots(store, t.id), games,
                          sum(1 for g in games if g.status == GameStatus.FAILED), min(done, default=None),
                          max(done, default=None), history, head_to_head(outcomes), _faults(store, t.id), final)
