"""The results: tournaments, their entrants and games (each committed atomically), ratings and refusals."""

from __future__ import annotations

import json
import shlex
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from arena.errors import ConfigError
from arena.match.seeds import seeding
from arena.numbering import free_name
from arena.ratings.trueskill import GameOutcome, Ratings

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    from arena.bots.entrants import Entrant, Refusal
from arena.storage.connection import Connection, StoreError, _final_key, _guarded, _TournamentLock
from arena.storage.records import GameStatus, StoredFault, StoredGame, StoredGameRow, StoredSeat, Summary, Tournament

OUTCOME_BLOCK = 2000  # games read at once when every stored game of a tournament is rated


class Results(Connection):
    """Tournaments, their entrants and games, ratings and refusals."""

    # --- tournaments ------------------------------------------------------------------------------------------------
    @contextmanager
    def naming(self) -> Iterator[None]:
        """Held (for a moment) while a run finds or names its tournament and opens it: two runs of the same command
        started at once then agree on one tournament, and the second finds it locked by the first."""
        lock = self._naming_lock()
        try:
            yield
        finally:
            lock.release()

    @_guarded
    def _naming_lock(self) -> "_TournamentLock":
        return _TournamentLock.wait_for(self.path.with_name(f"{self.path.name}.lock"))

    @_guarded
    def open_tournament(self, name: str, game: str, fmt: str, config: dict[str, Any],
                        entrants: list[Entrant], living: tuple[str, ...] = ()) -> Tournament:
        """The tournament of that name, created or resumed if its configuration is the same (but for the `living`
        keys, which may change from run to run), and locked for this process until the store is closed; StoreBusy
        if another arena plays it."""
        if self.readonly:
            raise StoreError(f"the results store {shlex.quote(str(self.path))} was opened read-only")
        if name not in self._locks:  # a long-lived caller (a season) opens its tournament at every run
            self._locks[name] = _TournamentLock.acquire(self.path, name)
        row = self.db.execute("SELECT id, config, finished FROM tournaments WHERE name = ?", (name,)).fetchone()
        text = json.dumps(config, sort_keys=True)
        if row is not None:
            stored = json.loads(row[1])
            if _comparable(stored, living) != _comparable(config, living):
                raise ConfigError(_changed(name, self.path, fmt, stored, config, living))
            if row[1] != text:  # only the title or a living key changed
                self.db.execute("UPDATE tournaments SET config = ? WHERE id = ?", (text, row[0]))
            return Tournament(row[0], name, game, fmt, config, row[2])
        with self._transaction():
            cur = self.db.execute("INSERT INTO tournaments (name, game, format, config, created) VALUES (?,?,?,?,?)",
                                  (name, game, fmt, text, time.time()))
            tid = cur.lastrowid
            for entrant in entrants:
                self.db.execute("INSERT INTO entrants (tournament_id, bot_id, name) VALUES (?,?,?)",
                                (tid, self._bot_id(entrant), entrant.name))
        return Tournament(tid, name, game, fmt, config)

    def _bot_id(self, e: Entrant) -> int:
        key = (e.name, e.version, json.dumps(list(e.command)), e.cwd)
        self.db.execute("INSERT OR IGNORE INTO bots (name, version, author, command, cwd) VALUES (?,?,?,?,?)",
                        (e.name, e.version, e.author, key[2], e.cwd))
        return self.db.execute("SELECT id FROM bots WHERE name = ? AND version = ? AND command = ? AND cwd IS ?",
                               key).fetchone()[0]

    @_guarded
    def resume_problem(self, name: str, fmt: str, config: dict[str, Any], living: tuple[str, ...] = ()) -> str | None:
        """Why the named tournament could not go on with this configuration (as open_tournament would refuse it),
        or None where it could, or does not exist yet; nothing is written or locked."""
        row = self.db.execute("SELECT config FROM tournaments WHERE name = ?", (name,)).fetchone()
        if row is None or _comparable(json.loads(row[0]), living) == _comparable(config, living):
            return None
        return _changed(name, self.path, fmt, json.loads(row[0]), config, living)

    @_guarded
    def named_tournament(self, name: str) -> Tournament | None:
        """The named tournament, or None if the store has none of that name (looked up by its name, not by a scan)."""
        row = self.db.execute("SELECT id, name, game, format, config, finished FROM tournaments WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    def tournament(self, name: str | None = None) -> Tournament:
        """The named tournament, or the latest one; StoreError if there is none."""
        query = "SELECT id, name, game, format, config, finished FROM tournaments "
        row = (self.db.execute(query + "WHERE name = ?", (name,)).fetchone() if name
               else self.db.execute(query + "ORDER BY id DESC LIMIT 1").fetchone())
        if row is None and name:
            known = [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY id")]
            raise ConfigError(f"no tournament {name!r} in {str(self.path)!r}; the tournaments there: "
                              f"{', '.join(known) or 'none'}")
        if row is None:
            raise StoreError(f"no tournament in {str(self.path)!r} yet")
        return Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    @_guarded
    def find_tournament(self, game: str, fmt: str, config: dict[str, Any], living: tuple[str, ...] = ()) -> str | None:
        """The name of the latest tournament started with this configuration (its title included, the `living`
        keys aside), or None."""
        rows = self.db.execute("SELECT name, config FROM tournaments WHERE game = ? AND format = ? ORDER BY id DESC",
                               (game, fmt))
        wanted = _comparable(config, living, title=True)
        return next((name for name, text in rows if _comparable(json.loads(text), living, title=True) == wanted),
                    None)

    @_guarded
    def secret(self, tid: int, fresh: str | None = None) -> str | None:
        """The secret seed kept with a tournament (None: it has none); one without it yet keeps `fresh`, if given.
        No command prints it: it would tell every deal."""
        if fresh is not None:
            self.db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)", (tid, fresh))
        row = self.db.execute("SELECT secret FROM secrets WHERE tournament_id = ?", (tid,)).fetchone()
        return None if row is None else str(row[0])

    @_guarded
    def older_tournament(self, name: str) -> Tournament | None:
        """The named tournament if an arena before secret seeds started it, else None."""
        row = self.db.execute("SELECT t.id, t.name, t.game, t.format, t.config, t.finished FROM tournaments t "
                              "JOIN meta m ON m.key = 'secrets_from' WHERE t.name = ? AND t.id < CAST(m.value AS "
                              "INTEGER)", (name,)).fetchone()
        return None if row is None else Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    @_guarded
    def roster(self, tid: int) -> list[tuple[str, str, str, bool]]:
        """A tournament's entrants, oldest first: key (its name in the tournament), bot name, version, retired."""
        rows = self.db.execute("SELECT e.name, b.name, b.version, e.retired IS NOT NULL FROM entrants e "
                               "JOIN bots b ON b.id = e.bot_id WHERE e.tournament_id = ? ORDER BY e.rowid", (tid,))
        return [(key, name, version, bool(retired)) for key, name, version, retired in rows]

    @_guarded
    def update_roster(self, tid: int, joined: dict[str, Entrant], retired: list[str], back: list[str]) -> None:
        """New entrants by key, keys retired (their games and ratings kept), keys back from retirement."""
        with self._transaction():
            for key, entrant in joined.items():
                self.db.execute("INSERT INTO entrants (tournament_id, bot_id, name) VALUES (?,?,?)",
                                (tid, self._bot_id(entrant), key))
            self.db.executemany("UPDATE entrants SET retired = ? WHERE tournament_id = ? AND name = ?",
                                [(time.time(), tid, key) for key in retired])
            self.db.executemany("UPDATE entrants SET retired = NULL WHERE tournament_id = ? AND name = ?",
                                [(tid, key) for key in back])

    @_guarded
    def retired(self, tid: int) -> set[str]:
        """The keys of a tournament's retired entrants."""
        return {r[0] for r in self.db.execute("SELECT name FROM entrants WHERE tournament_id = ? AND retired "
                                              "IS NOT NULL", (tid,))}

    @_guarded
    def unused_name(self, base: str) -> str:
        """base, or base-2, base-3...: the first that names no tournament yet."""
        taken = {r[0] for r in self.db.execute("SELECT name FROM tournaments WHERE name = ? OR name LIKE ?",
                                               (base, base.replace("%", "_") + "-%"))}
        return free_name(base, taken)

    @_guarded
    def summaries(self) -> list[Summary]:
        """Every tournament, oldest first, at a glance."""
        rows = self.db.execute(
            "SELECT t.name, t.config, t.game, t.format, t.finished, "
            "(SELECT COUNT(*) FROM entrants e WHERE e.tournament_id = t.id), "
            "COUNT(g.id), MIN(g.finished), MAX(g.finished) "
            "FROM tournaments t LEFT JOIN games g ON g.tournament_id = t.id GROUP BY t.id ORDER BY t.id")
        return [Summary(name, settings.get("title") or "", game, fmt, finished is not None, *rest, seeding(settings))
                for name, config, game, fmt, finished, *rest in rows for settings in [json.loads(config)]]

    @_guarded
    def tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        rows = self.db.execute("SELECT id, name, game, format, config, finished FROM tournaments ORDER BY id")
        return [Tournament(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    @_guarded
    def finish_tournament(self, tid: int, complete: bool = True) -> None:
        """Mark a tournament as complete (once), or as not complete (a ladder given more games)."""
        if complete:
            self.db.execute("UPDATE tournaments SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), tid))
        else:
            self.db.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (tid,))

    @_guarded
    def entrant_ids(self, tid: int) -> dict[str, int]:
        """Bot ids of a tournament's entrants, by name."""
        return dict(self.db.execute("SELECT name, bot_id FROM entrants WHERE tournament_id = ?", (tid,)))

    # --- games ------------------------------------------------------------------------------------------------------
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


SHOWN = ("max_fault_rate",)  # settings of how a tournament is shown, not of what it plays: they may change


def _comparable(config: dict[str, Any], living: tuple[str, ...] = (), title: bool = False) -> dict[str, Any]:
    """A tournament's configuration as compared on resume: its title and SHOWN settings are shown, not played, and
    the living keys (a ladder's entrants and number of games) may change."""
    return {k: v for k, v in config.items() if k not in living and k not in SHOWN and (title or k != "title")}


def _changed(name: str, path: Path, fmt: str, stored: dict[str, Any], config: dict[str, Any],
             living: tuple[str, ...] = ()) -> str:
    """Why a tournament cannot resume with this configuration, and what to do."""
    if _comparable(stored, ("entrants",)) == _comparable(config, ("entrants",)):
        before = {e["name"]: e for e in stored.get("entrants", [])}
        after = {e["name"]: e for e in config.get("entrants", [])}
        both = sorted(before.keys() & after.keys())
        change = ", ".join([*(f"{n} added" for n in sorted(after.keys() - before.keys())),
                            *(f"{n} removed" for n in sorted(before.keys() - after.keys())),
                            *(f"{n} version {before[n].get('version')} now {after[n].get('version')}" for n in both
                              if before[n].get("version") != after[n].get("version"))]) or "their commands"
        return (f"the entrants of {fmt} {name!r} in {str(path)!r} changed ({change}); a {fmt}'s schedule is fixed "
                "by its entrants: start a new one with another --name (or name in the competition file), or run "
                "a ladder, which entrants may join and leave")
    before, now = _flat(_comparable(stored, ("entrants", *living))), _flat(_comparable(config, ("entrants", *living)))
    differ = [key for key in sorted(before.keys() | now.keys()) if before.get(key) != now.get(key)]
    said = "; ".join(f"{_setting(key)} is {_shown(before.get(key))} in the store, {_shown(now.get(key))} now"
                     for key in differ[:3])
    return (f"tournament {name!r} already exists in {str(path)!r} with other settings ({said}): give the stored "
            "settings to go on with it, or another --name (name in a competition file) to start a new one")


# The option of each setting a changed configuration names (dotted for nested settings), as the commands spell them.
OPTIONS = {"seats": "--seats", "options": "--option", "game": "the game", "seed": "--seed", "rounds": "--rounds",
           "wave": "--wave", "fresh_processes": "--fresh-processes", "duplicate": "--duplicate",
           "time.timeout": "--timeout", "time.init": "--init-timeout", "time.bank": "--time-bank",
           "time.increment": "--increment", "time.game_clock": "--game-clock", "sandbox.level": "--sandbox",
           "sandbox.limits.memory": "--memory-limit", "sandbox.limits.cpu": "--cpu-limit",
           "sandbox.limits.processes": "--max-processes", "sandbox.limits.file_size": "--max-file-size",
           "sandbox.limits.open_files": "--max-open-files", "sandbox.limits.disk": "--disk-limit",
           "rating.mu": "--mu", "rating.sigma": "--sigma", "rating.beta": "--beta", "rating.tau": "--tau",
           "rating.draw_probability": "--draw-probability"}


def _flat(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A configuration's settings by dotted name, nested ones spread out."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        if isinstance(value, dict) and value and key != "options":
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _setting(key: str) -> str:
    option = OPTIONS.get(key)
    return f"{key} ({option})" if option else key


def _shown(value: Any) -> str:
    return "unset" if value is None else json.dumps(value)[:60]


