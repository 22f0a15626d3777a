"""A tournament's finished games read in pages by their place in the store, for the export and `/api/games`."""

from __future__ import annotations

from dataclasses import dataclass

from arena.storage.connection import Connection, _guarded


@dataclass(frozen=True)
class PagedSeat:
    """One seat of a finished game: its entrant and that entrant's version, score, rank, disqualification and faults."""

    seat: int
    bot: str
    version: str
    score: int | None
    rank: int | None
    disqualified: bool
    faults: int


@dataclass(frozen=True)
class PagedGame:
    """A finished game read in a page: `cursor` is its place in the store (games finish out of schedule order, so a
    reader that pages by it sees each game once, a late one included), `number` its number everywhere else."""

    cursor: int
    number: int
    seed: int
    reason: str
    cut_short: bool
    replay: str | None
    seats: tuple[PagedSeat, ...]


class GameTables(Connection):
    """Finished games a page at a time, after a cursor."""

    @_guarded
    def games_after(self, tid: int, after: int, limit: int) -> list[PagedGame]:
        """At most `limit` finished games of tournament tid stored after the cursor `after` (0: from the first),
        in the order they were stored, with their seats."""
        rows = self.db.execute(
            "SELECT id, seq, seed, reason, cut_short, replay FROM games WHERE tournament_id = ? AND id > ? "
            "AND status = 'done' ORDER BY id LIMIT ?", (tid, after, limit)).fetchall()
        if not rows:
            return []
        seats: dict[int, list[PagedSeat]] = {}
        for gid, seat, name, version, score, rank, dq, faults in self.db.execute(
                "SELECT s.game_id, s.seat, s.name, b.version, s.score, s.rank, s.disqualified, s.faults FROM seats s "
                "JOIN bots b ON b.id = s.bot_id JOIN games g ON g.id = s.game_id WHERE g.tournament_id = ? "
                "AND s.game_id > ? AND s.game_id <= ? AND g.status = 'done' ORDER BY s.game_id, s.seat",
                (tid, after, rows[-1][0])):
            seats.setdefault(gid, []).append(PagedSeat(seat, name, version, score, rank, bool(dq), faults))
        return [PagedGame(gid, seq + 1, seed, reason, bool(cut), replay, tuple(seats.get(gid, ())))
                for gid, seq, seed, reason, cut, replay in rows]

    @_guarded
    def last_cursor(self, tid: int) -> int:
        """The cursor of the tournament's last finished game (0 before any)."""
        return self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games WHERE tournament_id = ? AND status = 'done'",
                               (tid,)).fetchone()[0]

    @_guarded
    def count_between(self, tid: int, after: int, last: int) -> int:
        """How many finished games of tournament tid have a cursor above `after` and up to `last`."""
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ? AND id > ? AND id <= ? "
                               "AND status = 'done'", (tid, after, last)).fetchone()[0]
