"""The tournaments: each one's name, configuration, secret seed and roster of entrants, found by its name and
locked for the run that plays it."""

from __future__ import annotations

import json
import shlex
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from arena.errors import ConfigError
from arena.match.seeds import seeding
from arena.numbering import free_name

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    from arena.bots.entrants import Entrant
from arena.storage.connection import Connection, StoreError, _guarded, _TournamentLock
from arena.storage.records import Summary, Tournament


class Tournaments(Connection):
    """Tournaments: created or resumed by name, their configurations compared, their secrets and rosters."""

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
        row = self.db.execute(f"{_TOURNAMENT} WHERE name = ?", (name,)).fetchone()
        return None if row is None else _tournament(row)

    @_guarded
    def tournament(self, name: str | None = None) -> Tournament:
        """The named tournament, or the latest one; StoreError if there is none."""
        if name:
            found = self.named_tournament(name)
        else:
            row = self.db.execute(f"{_TOURNAMENT} ORDER BY id DESC LIMIT 1").fetchone()
            found = None if row is None else _tournament(row)
        if found is None and name:
            known = [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY id")]
            raise ConfigError(f"no tournament {name!r} in {str(self.path)!r}; the tournaments there: "
                              f"{', '.join(known) or 'none'}")
        if found is None:
            raise StoreError(f"no tournament in {str(self.path)!r} yet")
        return found

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
        return None if row is None else _tournament(row)

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
        return [_tournament(row) for row in self.db.execute(f"{_TOURNAMENT} ORDER BY id")]

    @_guarded
    def finish_tournament(self, tid: int, complete: bool = True) -> None:
        """Mark a tournament as complete (once), or as not complete (a ladder given more games)."""
        if complete:
            self.db.execute("UPDATE tournaments SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), tid))
        else:
            self.db.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (tid,))


_TOURNAMENT = "SELECT id, name, game, format, config, finished FROM tournaments"  # the columns _tournament reads


def _tournament(row: Any) -> Tournament:
    """A tournaments row (_TOURNAMENT's columns, in that order) as a Tournament."""
    return Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])


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


