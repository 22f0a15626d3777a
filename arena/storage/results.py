"""The results: a tournament's games, each committed atomically with its seats and faults, read back as rows or as
rating input."""

from __future__ import annotations

import shlex
import time
from dataclasses import replace
from typing import Any, Iterator

from arena.errors import ConfigError
from arena.ratings.trueskill import GameOutcome
from arena.storage.connection import Connection, StoreError, _guarded
from arena.storage.records import GameStatus, StoredFault, StoredGame, StoredGameRow, StoredSeat, Tournament

OUTCOME_BLOCK = 2000  # games read at once when every stored game of a tournament is rated


class Results(Connection):
    """A tournament's games, each committed atomically with its seats and faults, and read back as rows or as
    rating input."""

    @_guarded
    def entrant_ids(self, tid: int) -> dict[str, int]:
        """Bot ids of a tournament's entrants, by name."""
        return dict(self.db.execute("SELECT name, bot_id FROM entrants WHERE tournament_id = ?", (tid,)))

    @_guarded
    def done_seqs(self, tid: int, first: int = 0, below: int | None = None) -> set[int]:
        """The schedule positions already recorded (finished or failed), those from `first` below `below` if given."""
        return {r[0] for r in self.db.execute("SELECT seq FROM games WHERE tournament_id = ? AND seq >= ? AND seq < ?",
                                              (tid, first, 2 ** 63 - 1 if below is None else below))}

    # --- what the published site shows, row by row -------------------------------------------------------------------
    @_guarded
    def game_rows(self, tid: int) -> list[tuple[int, int, str, str, float, str | None]]:
        """Every stored game of a tournament in schedule order: (id, seq, status, reason, finished, replay)."""
        return self.db.execute("SELECT id, seq, status, reason, finished, replay FROM games WHERE tournament_id = ? "
                               "ORDER BY seq", (tid,)).fetchall()

    @_guarded
    def seat_rows(self, tid: int) -> list[tuple[int, int, str, int | None, int | None, int, int]]:
        """Every seat of a tournament's games: (game id, seat, bot, score, rank, disqualified, faults)."""
        return self.db.execute(
            "SELECT s.game_id, s.seat, s.name, s.score, s.rank, s.disqualified, s.faults FROM seats s "
            "JOIN games m ON m.id = s.game_id WHERE m.tournament_id = ? ORDER BY s.game_id, s.seat", (tid,)).fetchall()

    @_guarded
    def fault_rows(self, tid: int) -> list[tuple[int, int, int, str, int | None, str, str, str]]:
        """Every fault of a tournament's games in schedule order: (game id, seq, seat, bot, decision, kind,
        detail, stderr tail)."""
        return self.db.execute(
            "SELECT m.id, m.seq, f.seat, s.name, f.decision, f.kind, f.detail, f.stderr_tail FROM faults f "
            "JOIN games m ON m.id = f.game_id JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat "
            "WHERE m.tournament_id = ? ORDER BY m.seq, f.id", (tid,)).fetchall()

    @_guarded
    def entrant_rows(self, tid: int) -> list[tuple[str, str, str]]:
        """Every entrant of a tournament by name: (name, version, author)."""
        return self.db.execute("SELECT e.name, b.version, b.author FROM entrants e JOIN bots b ON b.id = e.bot_id "
                               "WHERE e.tournament_id = ? ORDER BY e.name", (tid,)).fetchall()

    @_guarded
    def finished_count(self, tid: int | None = None) -> int:
        """How many finished games the store holds: of the tournament tid, or (None) of every tournament."""
        if tid is None:
            return self.db.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = 'done'",
                               (tid,)).fetchone()[0]

    @_guarded
    def first_gap(self, tid: int) -> int:
        """The first schedule position not recorded: every game below it is (finished or failed)."""
        return self.db.execute(
            "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM games WHERE tournament_id = ?1 AND seq = 0) THEN 0 ELSE "
            "(SELECT MIN(g.seq) + 1 FROM games g WHERE g.tournament_id = ?1 AND NOT EXISTS (SELECT 1 FROM games h "
            "WHERE h.tournament_id = ?1 AND h.seq = g.seq + 1)) END", (tid,)).fetchone()[0]

    @_guarded
    def recorded_count(self, tid: int) -> int:
        """How many schedule positions are recorded (finished or failed): done_seqs's size, without the set."""
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0]

    @_guarded
    def replays(self) -> set[str]:
        """The replay path of every stored game of every tournament, as stored (relative to the results folder)."""
        return {r[0] for r in self.db.execute("SELECT DISTINCT replay FROM games WHERE replay IS NOT NULL")}

    @_guarded
    def game_replays(self, tid: int) -> list[tuple[int, str]]:
        """(game number, replay file as stored) of every game of the tournament that has a replay, in schedule
        order."""
        return list(self.db.execute("SELECT seq + 1, replay FROM games WHERE tournament_id = ? AND replay IS NOT NULL "
                                    "AND replay != '' ORDER BY seq", (tid,)))

    @_guarded
    def record_games(self, tid: int, games: list[StoredGame]) -> list[int]:
        """Commit the games of one table, with their seats and faults, in a single transaction."""
        ids = self.entrant_ids(tid)
        with self._transaction():
            return [self._insert_game(tid, ids, game) for game in games]

    def _insert_game(self, tid: int, ids: dict[str, int], rec: StoredGame) -> int:
        cur = self.db.execute(
            "INSERT INTO games (tournament_id, seq, table_no, seed, status, reason, cut_short, replay, seconds,"
            " finished) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (tid, rec.seq, rec.table, rec.seed, rec.status, rec.reason, int(rec.cut_short), rec.replay,
             rec.seconds, time.time()))
        gid = cur.lastrowid
        for seat, name in enumerate(rec.bots):
            self.db.execute(
                "INSERT INTO seats VALUES (?,?,?,?,?,?,?,?)",
                (gid, seat, ids[name], name, rec.scores[seat] if rec.scores else None,
                 rec.ranks[seat] if rec.ranks else None, int(seat in rec.disqualified),
                 sum(1 for f in rec.faults if f.seat == seat)))
        self.db.executemany(
            "INSERT INTO faults (game_id, seat, decision, kind, detail, stderr_tail) VALUES (?,?,?,?,?,?)",
            [(gid, f.seat, f.decision, f.kind, f.detail, f.stderr_tail) for f in rec.faults])
        return gid

    @_guarded
    def outcomes(self, tid: int, first: int = 0, below: int | None = None) -> list[GameOutcome]:
        """The finished games of a tournament with first <= seq < below, as rating input, in schedule order."""
        rows = self.db.execute(
            "SELECT g.seq, s.seat, s.name, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.tournament_id = ? AND g.status = 'done' AND g.seq >= ? AND g.seq < ? ORDER BY g.seq, s.seat",
            (tid, first, (1 << 62) if below is None else below))
        games: dict[int, list[tuple[str, int]]] = {}
        for seq, _, name, rank in rows:
            games.setdefault(seq, []).append((name, rank))
        return [GameOutcome(seq, tuple(n for n, _ in s), tuple(r for _, r in s)) for seq, s in games.items()]

    def each_outcome(self, tid: int, block: int = OUTCOME_BLOCK) -> Iterator[GameOutcome]:
        """The finished games of a tournament as rating input, in schedule order, read `block` games at a time:
        never all held at once, however many are stored."""
        last = self._last_seq(tid)
        for first in range(0, -1 if last is None else last + 1, block):
            yield from self.outcomes(tid, first, first + block)

    @_guarded
    def _last_seq(self, tid: int) -> int | None:
        return self.db.execute("SELECT MAX(seq) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0]

    @_guarded
    def failed_count(self, tid: int) -> int:
        """How many games of a tournament are recorded as failed."""
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = 'failed'",
                               (tid,)).fetchone()[0]
    @_guarded
    def games(self, tid: int) -> list[StoredGameRow]:
        """Every recorded game of a tournament, in schedule order, with its seats."""
        rows = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                               "FROM games WHERE tournament_id = ? ORDER BY seq", (tid,)).fetchall()
        return [self._game_row(row) for row in rows]

    @_guarded
    def game(self, gid: int) -> StoredGameRow:
        """One recorded game by its id, with seats and faults; StoreError if there is none."""
        row = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                              "FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise StoreError(f"no game {gid} in {str(self.path)!r}")
        faults = tuple(StoredFault(seat, kind, detail, decision, tail) for seat, decision, kind, detail, tail in
                       self.db.execute("SELECT seat, decision, kind, detail, stderr_tail FROM faults WHERE game_id = ? "
                                       "ORDER BY id", (gid,)))
        tournament = self.db.execute("SELECT t.name FROM tournaments t JOIN games g ON g.tournament_id = t.id "
                                     "WHERE g.id = ?", (gid,)).fetchone()[0]
        return replace(self._game_row(row), faults=faults, tournament=tournament)

    @_guarded
    def game_numbered(self, t: Tournament, number: int) -> StoredGameRow:
        """Game `number` of a tournament (its place in the schedule, from 1), as game() gives it; ConfigError
        naming the tournament's games if there is none."""
        row = self.db.execute("SELECT id FROM games WHERE tournament_id = ? AND seq = ?", (t.id, number - 1)).fetchone()
        if row is None:
            count = self.db.execute("SELECT COUNT(*), MAX(seq) FROM games WHERE tournament_id = ?", (t.id,)).fetchone()
            held = f"its games are numbered 1 to {count[1] + 1}" if count[0] else "it has no game yet"
            raise ConfigError(f"no game {number} in {t.name!r} ({held}); arena matches -t {shlex.quote(t.name)} "
                              "lists them")
        return self.game(row[0])

    def _game_row(self, row: tuple[Any, ...]) -> StoredGameRow:
        gid, seq, table, seed, status, reason, cut_short, replay, seconds = row
        rows = self.db.execute("SELECT seat, name, score, rank, disqualified, faults FROM seats WHERE game_id = ? "
                               "ORDER BY seat", (gid,))
        seats = tuple(StoredSeat(seat, name, score, rank, bool(dq), faults) for seat, name, score, rank, dq, faults
                      in rows)
        return StoredGameRow(gid, seq, table, seed, GameStatus(status), reason, bool(cut_short), replay, seconds, seats)
