"""What a tournament's games add up to: its stored ratings, each entrant's statistics and its rivals, and the
submissions a run refused."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from arena.ratings.trueskill import Ratings

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    from arena.bots.entrants import Refusal
from arena.storage.connection import Connection, _final_key, _guarded


class Standings(Connection):
    """A tournament's ratings (a cache `arena rerate` rebuilds), statistics, rivals, and refusals."""

    @_guarded
    def record_refusals(self, tid: int, refused: list[Refusal]) -> None:
        """The submissions not admitted by this run's check (each run checks them again, so this replaces the
        last run's list)."""
        with self._transaction():
            self.db.execute("DELETE FROM refusals WHERE tournament_id = ?", (tid,))
            self.db.executemany("INSERT OR REPLACE INTO refusals VALUES (?,?,?,?,?)",
                                [(tid, r.folder, r.name, r.reason, time.time()) for r in refused])

    @_guarded
    def name_holders(self) -> dict[str, str]:
        """The folder each submission's name was first stored with (name -> folder)."""
        holders: dict[str, str] = {}
        for name, cwd in self.db.execute("SELECT name, cwd FROM bots WHERE cwd IS NOT NULL ORDER BY id"):
            holders.setdefault(name, cwd)
        return holders

    @_guarded
    def refusals(self, tid: int) -> list[Refusal]:
        """The submissions the last run did not admit: folder, name and reason."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'refusals'").fetchone():
            return []  # an older store read as it is
        rows = self.db.execute("SELECT folder, name, reason FROM refusals WHERE tournament_id = ? ORDER BY folder",
                               (tid,)).fetchall()
        if not rows:
            return []
        from arena.bots.entrants import Refusal  # only when there are any: a leaderboard need not load the bots' side
        return [Refusal(f, n, r) for f, n, r in rows]

    @_guarded
    def save_ratings(self, tid: int, ratings: Ratings, final: bool = False) -> None:
        """Replace the stored ratings of a tournament (a cache: `arena rerate` rebuilds it); `final`: they are the
        season's end re-rating, with the dynamics factor off, until the next run or rerate replaces them."""
        with self._transaction():
            self.db.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            self.db.executemany("INSERT INTO ratings VALUES (?,?,?,?)",
                                [(tid, name, r.mu, r.sigma) for name, r in ratings.table.items()])
            self.db.execute("DELETE FROM meta WHERE key = ?", (_final_key(tid),))
            if final:
                self.db.execute("INSERT INTO meta VALUES (?, '1')", (_final_key(tid),))

    @_guarded
    def final_ratings(self, tid: int) -> bool:
        """Whether the stored ratings of a tournament are a final re-rating (`arena rerate --final`)."""
        return self.db.execute("SELECT 1 FROM meta WHERE key = ?", (_final_key(tid),)).fetchone() is not None

    @_guarded
    def stored_ratings(self, tid: int) -> dict[str, tuple[float, float]]:
        """The stored ratings of a tournament by bot name: (mu, sigma)."""
        rows = self.db.execute("SELECT name, mu, sigma FROM ratings WHERE tournament_id = ?", (tid,))
        return {name: (mu, sigma) for name, mu, sigma in rows}

    @_guarded
    def games_played(self, tid: int, keys: list[str]) -> dict[str, int]:
        """How many finished games of a tournament each of these entrants (by key) played; those that played none
        are left out. A bot page's count: bot_stats works out every entrant's figures."""
        marks = ",".join("?" * len(keys))
        rows = self.db.execute("SELECT s.name, COUNT(*) FROM games g JOIN seats s ON s.game_id = g.id "
                               f"WHERE g.tournament_id = ? AND g.status = 'done' AND s.name IN ({marks}) "
                               "GROUP BY s.name", (tid, *keys))
        return dict(rows)

    @_guarded
    def bot_stats(self, tid: int) -> dict[str, dict[str, float]]:
        """Per entrant: games, wins, mean score, mean rank and the share of games with a fault."""
        # The seats summed by name first, then joined to the entrants: joining every seat to its entrant first
        # made SQLite copy them all and index the copy (three times the time at 100,000 games).
        rows = self.db.execute(
            "SELECT e.name, COALESCE(a.games, 0), COALESCE(a.wins, 0), a.score, a.rank, COALESCE(a.faulty, 0) "
            "FROM entrants e LEFT JOIN (SELECT s.name AS name, COUNT(*) AS games, SUM(s.rank = 1) AS wins, "
            "AVG(s.score) AS score, AVG(s.rank) AS rank, SUM(s.faults > 0) AS faulty FROM games g "
            "JOIN seats s ON s.game_id = g.id WHERE g.tournament_id = ? AND g.status = 'done' GROUP BY s.name) a "
            "ON a.name = e.name WHERE e.tournament_id = ? ORDER BY e.name", (tid, tid))
        return {name: {"games": games, "wins": wins, "mean_score": score, "mean_rank": rank,
                       "fault_rate": (faulty / games) if games else 0.0}
                for name, games, wins, score, rank, faulty in rows}

    @_guarded
    def rival_rows(self, tid: int, names: list[str]) -> list[tuple[str, str, int, int, int, int, int, float, int,
                                                                    float, int]]:
        """Each of these entrants against each rival it met, by the seat it sat in, over the finished games: (name,
        rival, seat, games, ahead, behind, level, its scores summed, how many it has, the rival's summed, how many)."""
        marks = ",".join("?" * len(names))
        rows = self.db.execute(
            "SELECT me.name, o.name, me.seat, COUNT(*), SUM(me.rank < o.rank), SUM(me.rank > o.rank), "
            "SUM(me.rank = o.rank), TOTAL(me.score), COUNT(me.score), TOTAL(o.score), COUNT(o.score) "
            "FROM games g JOIN seats me ON me.game_id = g.id JOIN seats o ON o.game_id = g.id AND o.seat != me.seat "
            f"WHERE g.tournament_id = ? AND g.status = 'done' AND me.name IN ({marks}) "
            "GROUP BY me.name, o.name, me.seat ORDER BY me.name, o.name, me.seat", (tid, *names))
        return [tuple(row) for row in rows]
