"""The store's tables, and the migrations that bring a store of an older schema to this one: one transaction each."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Callable

from arena.storage.authors import (
    Status,
)

SCHEMA_VERSION = 13

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL, version TEXT NOT NULL, author TEXT NOT NULL, command TEXT NOT NULL, cwd TEXT,
    UNIQUE (name, version, command, cwd));
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE, game TEXT NOT NULL, format TEXT NOT NULL, config TEXT NOT NULL,
    created REAL NOT NULL, finished REAL);
CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), bot_id INTEGER NOT NULL REFERENCES bots(id),
    name TEXT NOT NULL, retired REAL, PRIMARY KEY (tournament_id, name));
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    seq INTEGER NOT NULL, table_no INTEGER NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')), reason TEXT NOT NULL,
    cut_short INTEGER NOT NULL, replay TEXT, seconds REAL NOT NULL, finished REAL NOT NULL,
    UNIQUE (tournament_id, seq));
CREATE TABLE seats (
    game_id INTEGER NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id), name TEXT NOT NULL,
    score INTEGER, rank INTEGER, disqualified INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat));
CREATE TABLE faults (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    decision INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL, stderr_tail TEXT NOT NULL);
CREATE TABLE ratings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), name TEXT NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (tournament_id, name));
CREATE TABLE refusals (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), folder TEXT NOT NULL, name TEXT NOT NULL,
    reason TEXT NOT NULL, checked REAL NOT NULL, PRIMARY KEY (tournament_id, folder));
CREATE TABLE secrets (tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id), secret TEXT NOT NULL);
"""


def _submissions_table(name: str) -> str:
    """The statement that creates the table of submissions under `name`, its statuses those of Status."""
    statuses = ", ".join(f"'{status.value}'" for status in Status)
    return (f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
            "bot TEXT NOT NULL, version TEXT NOT NULL, folder TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN "
            f"({statuses})), reason TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL, build_log TEXT NOT "
            "NULL DEFAULT '')")


# A hosted competition's authors (their token and sign-in link only as salted scrypt hashes), the bot names each
# owns, and every uploaded version of a bot with where it is on its way into the ladder.
_ACCOUNTS = (
    "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, organiser INTEGER NOT NULL, "
    "token_salt BLOB, token_hash BLOB, link_salt BLOB, link_hash BLOB, link_expires REAL, created REAL NOT NULL, "
    "revoked REAL)",
    "CREATE TABLE owners (bot TEXT PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id))",
    _submissions_table("submissions"),
    "CREATE INDEX submissions_by_author ON submissions (author_id, created)",
)
# A submission's statuses grew one (retired): SQLite changes a CHECK only by copying the table into a new one.
_RETIRING = (
    _submissions_table("submissions_new"),
    "INSERT INTO submissions_new SELECT * FROM submissions",
    "DROP TABLE submissions",
    "ALTER TABLE submissions_new RENAME TO submissions",
    "CREATE INDEX submissions_by_author ON submissions (author_id, created)",
)
# Uploads refused before they were queued (they count toward the daily limit), and invite codes for self sign-up
# (only as salted scrypt hashes, each good for `uses` sign-ups until it expires).
_SERVING = (
    "CREATE TABLE refused_uploads (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
    "reason TEXT NOT NULL, created REAL NOT NULL)",
    "CREATE INDEX refused_uploads_by_author ON refused_uploads (author_id, created)",
    "CREATE TABLE invites (id INTEGER PRIMARY KEY, salt BLOB, hash BLOB, uses INTEGER NOT NULL, used INTEGER NOT "
    "NULL DEFAULT 0, expires REAL NOT NULL, created REAL NOT NULL, revoked REAL)",
)
_SESSIONS = (
    # IF NOT EXISTS: a store that an older arena only marked older (its schema number) may hold the table already.
    "CREATE TABLE IF NOT EXISTS sessions (hash BLOB PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
    "created REAL NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sessions_by_author ON sessions (author_id)",
    "DELETE FROM meta WHERE key = 'session_key'",
)
# The build time each admission has used, across stops of the server: a restart does not give a build a fresh limit.
# IF NOT EXISTS: a store an older arena only marked older may hold the table already.
_BUILD_TIME = ("CREATE TABLE IF NOT EXISTS build_times (submission_id INTEGER PRIMARY KEY REFERENCES "
               "submissions(id), seconds REAL NOT NULL)",)

# An author's challenges: games of their bot against chosen rivals (or one version of it against another, until a
# sequential test decides), played between ladder waves into a tournament of their own, unranked.
_CHALLENGES = (
    "CREATE TABLE IF NOT EXISTS challenges (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES "
    "authors(id), bot TEXT NOT NULL, version TEXT, rivals TEXT NOT NULL, rival_version TEXT, games INTEGER NOT NULL, "
    "until_decided INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('queued', 'playing', 'done')), "
    "outcome TEXT NOT NULL DEFAULT '{}', created REAL NOT NULL, finished REAL)",
    "CREATE INDEX IF NOT EXISTS challenges_by_author ON challenges (author_id, created)",
)

# Authors' webhooks (a secret derived from each one's salt and a key kept outside the store, never the secret), the
# deliveries on their way (an outbox: any process queues, the server sends), each attempt, and the ranks last told.
# IF NOT EXISTS: a store an older arena only marked older may hold the tables already.
_WEBHOOKS = (
    "CREATE TABLE IF NOT EXISTS webhooks (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
    "url TEXT NOT NULL, events TEXT NOT NULL, salt BLOB NOT NULL, created REAL NOT NULL, ended REAL)",
    "CREATE INDEX IF NOT EXISTS webhooks_by_author ON webhooks (author_id)",
    "CREATE TABLE IF NOT EXISTS webhook_deliveries (id INTEGER PRIMARY KEY, hook_id INTEGER NOT NULL REFERENCES "
    "webhooks(id), event TEXT NOT NULL, bot TEXT NOT NULL, once TEXT, body BLOB NOT NULL, state TEXT NOT NULL "
    "CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')), attempts INTEGER NOT NULL DEFAULT 0, due REAL "
    "NOT NULL, created REAL NOT NULL, UNIQUE (hook_id, once))",
    "CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, due)",
    "CREATE TABLE IF NOT EXISTS webhook_attempts (id INTEGER PRIMARY KEY, delivery_id INTEGER NOT NULL REFERENCES "
    "webhook_deliveries(id), at REAL NOT NULL, status INTEGER, error TEXT NOT NULL, seconds REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS webhook_attempts_by_delivery ON webhook_attempts (delivery_id)",
    "CREATE TABLE IF NOT EXISTS bot_ranks (bot TEXT PRIMARY KEY, rank INTEGER NOT NULL)",
)

# A session keeps what it was made from (it ends when that secret is replaced) and when it was last used.
_SESSION_COLUMNS = (("source", "TEXT NOT NULL DEFAULT 'sign-in link'"), ("seen", "REAL"))

# MIGRATIONS[v] takes a store of schema v to v + 1; they run in one transaction, so a failure changes nothing.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 0.1.0 called its table of single games `matches`, while a match is a series of games everywhere else.
    1: ("ALTER TABLE matches RENAME TO games",
        "ALTER TABLE seats RENAME COLUMN match_id TO game_id",
        "ALTER TABLE faults RENAME COLUMN match_id TO game_id"),
    # Submissions that fail their check are kept out of a tournament, and listed with the reason.
    # A ladder's entrants come and go (a new version retires the old one, whose games stay).
    2: ("CREATE TABLE refusals (tournament_id INTEGER NOT NULL REFERENCES tournaments(id), folder TEXT NOT NULL, "
        "name TEXT NOT NULL, reason TEXT NOT NULL, checked REAL NOT NULL, PRIMARY KEY (tournament_id, folder))",
        "ALTER TABLE entrants ADD COLUMN retired REAL"),
    # A run's secret seed is kept here and nowhere else; the tournaments stored before were seeded by a public
    # number (0 unless one was given), and `secrets_from` tells them from the public-seeded ones started since.
    3: ("CREATE TABLE secrets (tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id), secret TEXT NOT NULL)",
        "INSERT INTO meta VALUES ('secrets_from', (SELECT COALESCE(MAX(id), 0) + 1 FROM tournaments))"),
    # `arena serve` hosts a competition: its authors and their uploaded submissions.
    4: _ACCOUNTS,
    # Refused uploads count toward an author's daily limit; invite codes let competitors sign themselves up.
    5: _SERVING,
    # An author may retire a bot: its admitted versions leave the ladder, their games stay.
    6: _RETIRING,
    # Sessions are kept server-side (ended by signing out), as hashes: no key to sign cookies with is kept.
    7: _SESSIONS,
    8: _BUILD_TIME,
    # Each upload's folder is kept relative to the store's own folder (see stored_folder), and a bot's versions
    # replaced by a newer one are retired: done by _store_relative below.
    9: (),
    # Sessions end with the secret they were made from, and their author sees when each was made and last used:
    # done by session_sources below.
    10: (),
    11: _CHALLENGES,
    # Authors register webhooks for their bots' events.
    12: _WEBHOOKS,
}


def stored_folder(folder: str | Path, home: Path) -> str:
    """A submission's folder as the store keeps it: relative to the store's folder (home) where it lies under it,
    so that it is found from the store whatever folder the arena is started in; else absolute."""
    path = Path(os.path.abspath(folder))
    for base in (home, home.resolve()):
        if path.is_relative_to(base):
            return str(path.relative_to(base))
    resolved = path.resolve()
    return str(resolved.relative_to(home.resolve())) if resolved.is_relative_to(home.resolve()) else str(path)


def folder_from_store(folder: str, home: Path) -> str:
    """A submission's folder as the store keeps it, as a path to open: relative ones lie under home."""
    return folder if os.path.isabs(folder) else str(home / folder)


def _store_relative(db: sqlite3.Connection, home: Path) -> None:
    """Schema 9 to 10. The releases before kept an upload's folder relative to the folder the server was started
    in; each is found again (under the store's folder by its own name, which is unique, else from the working
    folder as those releases looked for it) and kept relative to the store's folder. A version admitted before a
    newer one of the same bot was admitted is retired, as a newer admission now does."""
    for sid, folder in db.execute("SELECT id, folder FROM submissions").fetchall():
        path = Path(folder)
        tails = [Path(*path.parts[k:]) for k in range(len(path.parts))] or [path]
        found = path if path.is_absolute() else next((home / t for t in tails if (home / t).exists()),
                                                     Path.cwd() / path)
        if found.exists():
            db.execute("UPDATE submissions SET folder = ? WHERE id = ?", (stored_folder(found, home), sid))
    db.execute(RETIRE_REPLACED + "AND s.status = ?", (Status.RETIRED.value, Status.ADMITTED.value,
                                                        Status.ADMITTED.value))


# The admitted versions of a bot older than its latest admitted one become retired, with the reason.
RETIRE_REPLACED = (
    "UPDATE submissions AS s SET status = ?, reason = 'replaced by version ' || n.version || ' (upload ' || n.id || "
    "')' FROM (SELECT bot, MAX(id) AS id FROM submissions WHERE status = ? GROUP BY bot) AS latest JOIN submissions "
    "n ON n.id = latest.id WHERE s.bot = latest.bot AND s.id < latest.id ")

# Steps of a migration that are not SQL alone: DATA_MIGRATIONS[v] runs after MIGRATIONS[v], given the store's folder.
def session_sources(db: sqlite3.Connection, home: Path | None = None) -> None:
    """Schema 10 to 11, and a new store: the sessions' columns of what made each and when it was last used, added
    where missing (a store an older arena only marked older may hold them already); the sessions opened before are
    ended, since what they were made from is not known."""
    have = {row[1] for row in db.execute("PRAGMA table_info(sessions)")}
    for column, kind in _SESSION_COLUMNS:
        if column not in have:
            db.execute(f"ALTER TABLE sessions ADD COLUMN {column} {kind}")
    db.execute("DELETE FROM sessions")


DATA_MIGRATIONS: dict[int, Callable[[sqlite3.Connection, Path], None]] = {9: _store_relative, 10: session_sources}


