"""A ladder that lives: opened once on a store and a tournament, it keeps its ratings, its field, its workers,
each bot's pace and fault streak, and its counts from one play to the next, so that a wave costs the same at the
100,000th game stored as at the 1,000th. `arena tournament --format ladder` plays one; a served season plays one
for months."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from arena.bots import leftovers
from arena.bots.entrants import Entrant, Refusal
from arena.bots.process import BotCommand
from arena.match.play import check_folders
from arena.ratings.trueskill import GameOutcome, Ratings
from arena.storage import Store, StoredGame
from arena.storage.keys import new_key
from arena.storage.records import GameStatus
from arena.tournament.formats.base import TournamentSpec, check_spec
from arena.tournament.formats.ladder import LadderState
from arena.tournament.run import Progress, TablePlayer, TableResult, Tables, open_tournament, unstored


class Ladder:
    """A living ladder tournament in a store: `enter` sets its field (the roster written only when it changes),
    `play` plays its waves, `stop` (from any thread) ends a play once its tables under way are stored, `close`
    stops its workers. The store's connection is the caller's, used from the thread that plays."""

    def __init__(self, store: Store, spec: TournamentSpec, results_dir: Path, *, name: str | None = None,
                 jobs: int = 1, player: TablePlayer | None = None, refused: tuple[Refusal, ...] = (),
                 time_limit: float | None = None, on_progress: Callable[[Progress], None] | None = None) -> None:
        """Open (or resume) the ladder's tournament with the spec's entrants, its history read once; ConfigError,
        before anything is stored, if the spec cannot be played or would never end (`time_limit`: the first
        play's, if any)."""
        check_spec(spec, time_limit)
        self.store, self.results_dir, self.on_progress = store, results_dir, on_progress
        self.tournament, self.spec = open_tournament(store, spec, name, refused)
        tid = self.tournament.id
        # The roster, read once: (bot name, version) -> [its key in the tournament, retired].
        self._roster = {(bot, version): [key, retired] for key, bot, version, retired in store.roster(tid)}
        self._field: tuple[Entrant, ...] | None = None  # the entrants as last entered, before their keys
        self._streaks: dict[str, int] = {}  # a key's games in a row with a fault of its own, once asked for
        self.state = LadderState()
        self.state.resume(self.spec, self._outcomes, store.first_gap(tid))
        self.recorded = store.recorded_count(tid)  # counted once, then as games are stored
        self._failed = store.failed_count(tid) if on_progress else 0
        self.tables = Tables(self.spec, results_dir, store.path, jobs, player)
        leftovers.sweep(results_dir, store.replays())  # what killed arenas left behind: once, at the opening
        self.played = 0  # games stored by the latest play
        self._stopped = False
        self._deadline: float | None = None
        self._begun = False
        self.enter(spec.entrants)

    def enter(self, entrants: Sequence[Entrant]) -> None:
        """The ladder's field from now on: a new bot joins (a new version of a known one as NAME@VERSION), a bot
        no longer entered retires, a returning one comes back. The same field again reads and writes nothing."""
        given = tuple(entrants)
        if given == self._field:
            return
        before = set(self._field or ())  # the folders of bots new to this ladder checked, each once
        check_folders(tuple(BotCommand(e.command, e.cwd) for e in given if e not in before), self.results_dir,
                      self.spec.sandbox)
        keys = {key for key, _ in self._roster.values()}
        joined: dict[str, Entrant] = {}
        back: list[str] = []
        current: list[Entrant] = []
        for entrant in given:
            found = self._roster.get((entrant.name, entrant.version))
            if found is None:
                key = new_key(entrant.name, entrant.version, keys)
                keys.add(key)
                joined[key] = entrant
                self._roster[(entrant.name, entrant.version)] = [key, False]
            else:
                key = found[0]
                if found[1]:
                    back.append(key)
                    found[1] = False
            current.append(replace(entrant, name=key))
        playing = {e.name for e in current}
        gone = []
        for entry in self._roster.values():
            if not entry[1] and entry[0] not in playing:
                gone.append(entry[0])
                entry[1] = True
        if joined or gone or back:
            self.store.update_roster(self.tournament.id, joined, gone, back)
        self.spec = replace(self.spec, entrants=tuple(current))
        self.tables.spec = self.spec
        self._field = given

    def use(self, player: TablePlayer | None) -> None:
        """Play the next tables on this player (None: the ladder's own worker processes)."""
        self.tables.player = player

    def play(self, games: int | None = None, seconds: float | None = None, wave: int | None = None) -> Ratings:
        """Play waves of `wave` tables (else the spec's) until `games` more are stored (None: until the spec's
        number of games), `seconds` have passed since the first table started, or `stop`; the ratings after every
        stored game are saved as each table comes in, and returned."""
        self.played, self._begun = 0, False
        self._deadline = None if seconds is None else time.monotonic() + seconds
        if wave is not None and wave != self.spec.wave:
            self.spec = replace(self.spec, wave=wave)
        spec = self.spec if games is None else replace(self.spec, max_games=self.recorded + games)
        self._started = time.monotonic()
        tid = self.tournament.id
        waves = self.state.waves(spec, self._outcomes)
        while not self._out_of_time():
            tables = next(waves, None)
            if tables is None:
                break
            for result in self.tables.results(unstored(self.store, tid, tables), self._no_new_table):
                self._stored(result, spec)
        ratings = self.state.final(spec, self._outcomes)
        self.store.save_ratings(tid, ratings)
        self.store.finish_tournament(tid, self.complete(spec))  # a ladder given more games is open again
        return ratings

    def complete(self, spec: TournamentSpec | None = None) -> bool:
        """True once the ladder's number of games is stored (never, for one without)."""
        total = (spec or self.spec).max_games
        return total is not None and self.recorded >= total

    def stop(self) -> None:
        """Start no new table, now or in any later play (from another thread): the tables under way finish."""
        self._stopped = True

    def end_play(self) -> None:
        """End the play under way once its tables under way are stored (from another thread); the next goes on."""
        self._deadline = time.monotonic()

    def retired(self) -> set[str]:
        """The keys of the versions the ladder no longer seats (off the board), as its roster holds them."""
        return {key for key, gone in self._roster.values() if gone}

    def fault_streak(self, bot: str, version: str, most: int) -> int:
        """How many of the entrant's latest games in a row had a fault of its own (read from the store the first
        time it is asked, at most `most`, then counted as its games are stored); 0 for one never entered."""
        found = self._roster.get((bot, version))
        if found is None:
            return 0
        key = found[0]
        if key not in self._streaks:
            self._streaks[key] = self.store.faulty_streak(self.tournament.id, key, most)
        return self._streaks[key]

    def close(self) -> None:
        """Stop the ladder's workers (and their bots); a later play starts new ones."""
        self.tables.close()

    def _stored(self, result: TableResult, spec: TournamentSpec) -> None:
        """A table's games stored, counted, and rated: the board shows the ratings as the games come in (never a
        bot's prior beside games it has played)."""
        tid = self.tournament.id
        self.store.record_games(tid, list(result.games))
        leftovers.release_replays(self.results_dir, (game.replay for game in result.games))
        self.recorded += len(result.games)
        self.played += len(result.games)
        self.tables.timed(result.games)
        for game in result.games:
            self._count_faults(game)
        ratings = self.state.final(spec, self._outcomes)
        self.store.save_ratings(tid, ratings)
        if self.on_progress is not None:
            self._failed += sum(game.status == GameStatus.FAILED for game in result.games)
            self.on_progress(Progress(self.recorded, spec.max_games, self.played, self._started, ratings,
                                      self._failed))

    def _count_faults(self, game: StoredGame) -> None:
        """Each seat's streak moved by a finished game: one more with a fault of its own, else back to 0 (a failed
        game, the arena's fault, moves none)."""
        if game.status != GameStatus.DONE:
            return
        faulty = {f.seat for f in game.faults} | set(game.disqualified)
        for seat, key in enumerate(game.bots):
            if key in self._streaks:  # else read from the store when first asked, this game included
                self._streaks[key] = self._streaks[key] + 1 if seat in faulty else 0

    def _outcomes(self, first: int, below: int) -> list[GameOutcome]:
        return self.store.outcomes(self.tournament.id, first, below)

    def _out_of_time(self) -> bool:
        # Never before the play's first table (but once stopped): each run of a time-limited command then moves
        # the ladder on, however late its first table could start on a busy machine.
        return self._stopped or (self._begun and self._deadline is not None and time.monotonic() >= self._deadline)

    def _no_new_table(self) -> bool:
        """Asked before each table starts: True once out of time; else the table starts, and the play has begun."""
        if self._out_of_time():
            return True
        self._begun = True
        return False

