"""The results store: one SQLite file in WAL mode; every finished game is committed atomically."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from arena.entrants import Entrant
from arena.errors import ArenaError, ConfigError
from arena.ratings import GameOutcome, Ratings

DEFAULT_DB_NAME = "arena.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL, version TEXT NOT NULL, author TEXT NOT NULL, command TEXT NOT NULL, cwd TEXT,
    UNIQUE (name, version, command, cwd));
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE, game TEXT NOT NULL, format TEXT NOT NULL, config TEXT NOT NULL,
    created REAL NOT NULL, finished REAL);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), bot_id INTEGER NOT NULL REFERENCES bots(id),
    name TEXT NOT NULL, PRIMARY KEY (tournament_id, name));
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    seq INTEGER NOT NULL, table_no INTEGER NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')), reason TEXT NOT NULL,
    cut_short INTEGER NOT NULL, replay TEXT, seconds REAL NOT NULL, finished REAL NOT NULL,
    UNIQUE (tournament_id, seq));
CREATE TABLE IF NOT EXISTS seats (
    match_id INTEGER NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id), name TEXT NOT NULL,
    score INTEGER, rank INTEGER, disqualified INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat));
CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
    decision INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL, stderr_tail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ratings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), name TEXT NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (tournament_id, name));
"""


class StoreError(ArenaError):
    """The results store cannot be opened or read."""


@dataclass(frozen=True)
class StoredFault:
    """One fault of one seat in one game."""

    seat: int
    kind: str
    detail: str
    decision: int | None = None
    stderr_tail: str = ""


@dataclass(frozen=True)
class StoredGame:
    """A finished (or failed) scheduled game, as the store keeps it."""

    seq: int
    table: int
    seed: int
    bots: tuple[str, ...]
    status: str  # "done" or "failed"
    reason: str
    scores: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None
    disqualified: tuple[int, ...] = ()  # seats
    faults: tuple[StoredFault, ...] = ()
    cut_short: bool = False
    replay: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Tournament:
    """A tournament row: its id, name and the configuration it was started with."""

    id: int
    name: str
    game: str
    format: str
    config: dict[str, Any] = field(hash=False)
    finished: float | None = None


class Store:
    """An open results database."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(_SCHEMA)
            self._check_version()
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StoreError(f"cannot open results store {str(self.path)!r}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"results store {str(self.path)!r} has schema {row[0]}, this arena reads {SCHEMA_VERSION}")

    def _transaction(self) -> "_Transaction":
        return _Transaction(self.db)

    # --- tournaments ------------------------------------------------------------------------------------------------
    def open_tournament(self, name: str, game: str, fmt: str, config: dict[str, Any],
                        entrants: list[Entrant]) -> Tournament:
        """The tournament of that name: created, or resumed if its configuration is the same."""
        row = self.db.execute("SELECT id, config, finished FROM tournaments WHERE name = ?", (name,)).fetchone()
        text = json.dumps(config, sort_keys=True)
        if row is not None:
            if row[1] != text:
                raise ConfigError(f"tournament {name!r} already exists in {str(self.path)!r} with another "
                                  "configuration; choose another --name or the same settings")
            return Tournament(row[0], name, game, fmt, config, row[2])
        with self._transaction():
            cur = self.db.execute("INSERT INTO tournaments (name, game, format, config, created) VALUES (?,?,?,?,?)",
                                  (name, game, fmt, text, time.time()))
            tid = cur.lastrowid
            for entrant in entrants:
                self.db.execute("INSERT INTO entrants VALUES (?,?,?)", (tid, self._bot_id(entrant), entrant.name))
        return Tournament(tid, name, game, fmt, config)

    def _bot_id(self, e: Entrant) -> int:
        key = (e.name, e.version, json.dumps(list(e.command)), e.cwd)
        self.db.execute("INSERT OR IGNORE INTO bots (name, version, author, command, cwd) VALUES (?,?,?,?,?)",
                        (e.name, e.version, e.author, key[2], e.cwd))
        return self.db.execute("SELECT id FROM bots WHERE name = ? AND version = ? AND command = ? AND cwd IS ?",
                               key).fetchone()[0]

    def tournament(self, name: str | None = None) -> Tournament:
        """The named tournament, or the latest one; StoreError if there is none."""
        query = "SELECT id, name, game, format, config, finished FROM tournaments "
        row = (self.db.execute(query + "WHERE name = ?", (name,)).fetchone() if name
               else self.db.execute(query + "ORDER BY id DESC LIMIT 1").fetchone())
        if row is None:
            raise StoreError(f"no tournament {name!r} in {str(self.path)!r}" if name
                             else f"no tournament in {str(self.path)!r} yet")
        return Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    def tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        rows = self.db.execute("SELECT id, name, game, format, config, finished FROM tournaments ORDER BY id")
        return [Tournament(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def finish_tournament(self, tid: int) -> None:
        """Mark a tournament as complete."""
        self.db.execute("UPDATE tournaments SET finished = ? WHERE id = ?", (time.time(), tid))

    def entrant_ids(self, tid: int) -> dict[str, int]:
        """Bot ids of a tournament's entrants, by name."""
        return dict(self.db.execute("SELECT name, bot_id FROM entrants WHERE tournament_id = ?", (tid,)))

    # --- games ------------------------------------------------------------------------------------------------------
    def done_seqs(self, tid: int) -> set[int]:
        """The schedule positions already recorded (finished or failed)."""
        return {r[0] for r in self.db.execute("SELECT seq FROM matches WHERE tournament_id = ?", (tid,))}

    def record_games(self, tid: int, games: list[StoredGame]) -> list[int]:
        """Commit the games of one table, with their seats and faults, in a single transaction."""
        ids = self.entrant_ids(tid)
        with self._transaction():
            return [self._insert_game(tid, ids, game) for game in games]

    def _insert_game(self, tid: int, ids: dict[str, int], rec: StoredGame) -> int:
        cur = self.db.execute(
            "INSERT INTO matches (tournament_id, seq, table_no, seed, status, reason, cut_short, replay, seconds,"
            " finished) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (tid, rec.seq, rec.table, rec.seed, rec.status, rec.reason, int(rec.cut_short), rec.replay,
             rec.seconds, time.time()))
        mid = cur.lastrowid
        for seat, name in enumerate(rec.bots):
            self.db.execute(
                "INSERT INTO seats VALUES (?,?,?,?,?,?,?,?)",
                (mid, seat, ids[name], name, rec.scores[seat] if rec.scores else None,
                 rec.ranks[seat] if rec.ranks else None, int(seat in rec.disqualified),
                 sum(1 for f in rec.faults if f.seat == seat)))
        self.db.executemany(
            "INSERT INTO faults (match_id, seat, decision, kind, detail, stderr_tail) VALUES (?,?,?,?,?,?)",
            [(mid, f.seat, f.decision, f.kind, f.detail, f.stderr_tail) for f in rec.faults])
        return mid

    def outcomes(self, tid: int, first: int = 0, below: int | None = None) -> list[GameOutcome]:
        """The finished games of a tournament with first <= seq < below, as rating input, in schedule order."""
        rows = self.db.execute(
            "SELECT m.seq, s.seat, s.name, s.rank FROM matches m JOIN seats s ON s.match_id = m.id "
            "WHERE m.tournament_id = ? AND m.status = 'done' AND m.seq >= ? AND m.seq < ? ORDER BY m.seq, s.seat",
            (tid, first, (1 << 62) if below is None else below))
        games: dict[int, list[tuple[str, int]]] = {}
        for seq, _, name, rank in rows:
            games.setdefault(seq, []).append((name, rank))
        return [GameOutcome(seq, tuple(n for n, _ in s), tuple(r for _, r in s)) for seq, s in games.items()]

    def failed_count(self, tid: int) -> int:
        """How many games of a tournament are recorded as failed."""
        return self.db.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ? AND status = 'failed'",
                               (tid,)).fetchone()[0]

    def save_ratings(self, tid: int, ratings: Ratings) -> None:
        """Replace the stored ratings of a tournament (a cache: `arena rerate` rebuilds it)."""
        with self._transaction():
            self.db.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            self.db.executemany("INSERT INTO ratings VALUES (?,?,?,?)",
                                [(tid, name, r.mu, r.sigma) for name, r in ratings.table.items()])

    def stored_ratings(self, tid: int) -> dict[str, tuple[float, float]]:
        """The stored ratings of a tournament by bot name: (mu, sigma)."""
        rows = self.db.execute("SELECT name, mu, sigma FROM ratings WHERE tournament_id = ?", (tid,))
        return {name: (mu, sigma) for name, mu, sigma in rows}

    def bot_stats(self, tid: int) -> dict[str, dict[str, float]]:
        """Per entrant: games, wins, mean score, mean rank and the share of games with a fault."""
        rows = self.db.execute(
            "SELECT e.name, COUNT(s.match_id), COALESCE(SUM(s.rank = 1), 0), AVG(s.score), AVG(s.rank), "
            "COALESCE(SUM(s.faults > 0), 0) FROM entrants e "
            "LEFT JOIN (SELECT s.* FROM seats s JOIN matches m ON m.id = s.match_id "
            "           WHERE m.tournament_id = ? AND m.status = 'done') s ON s.name = e.name "
            "WHERE e.tournament_id = ? GROUP BY e.name", (tid, tid))
        return {name: {"games": games, "wins": wins, "mean_score": score, "mean_rank": rank,
                       "fault_rate": (faulty / games) if games else 0.0}
                for name, games, wins, score, rank, faulty in rows}

    def matches(self, tid: int) -> Iterator[dict[str, Any]]:
        """Every recorded game of a tournament, in schedule order, with its seats."""
        rows = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                               "FROM matches WHERE tournament_id = ? ORDER BY seq", (tid,)).fetchall()
        for row in rows:
            yield self._match_dict(row)

    def match(self, mid: int) -> dict[str, Any]:
        """One recorded game by its id, with seats and faults; StoreError if there is none."""
        row = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                              "FROM matches WHERE id = ?", (mid,)).fetchone()
        if row is None:
            raise StoreError(f"no match {mid} in {str(self.path)!r}")
        d = self._match_dict(row)
        d["faults"] = [dict(zip(("seat", "decision", "kind", "detail", "stderr_tail"), f)) for f in self.db.execute(
            "SELECT seat, decision, kind, detail, stderr_tail FROM faults WHERE match_id = ? ORDER BY id", (mid,))]
        d["tournament"] = self.db.execute("SELECT t.name FROM tournaments t JOIN matches m ON m.tournament_id = t.id "
                                          "WHERE m.id = ?", (mid,)).fetchone()[0]
        return d

    def _match_dict(self, row: tuple[Any, ...]) -> dict[str, Any]:
        keys = ("id", "seq", "table", "seed", "status", "reason", "cut_short", "replay", "seconds")
        d = dict(zip(keys, row))
        d["cut_short"] = bool(d["cut_short"])
        d["seats"] = [dict(zip(("seat", "bot", "score", "rank", "disqualified", "faults"), s)) for s in self.db.execute(
            "SELECT seat, name, score, rank, disqualified, faults FROM seats WHERE match_id = ? ORDER BY seat",
            (d["id"],))]
        return d


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error, so a game is stored whole or not at all."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: type | None, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
