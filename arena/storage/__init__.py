"""Storage: every SQL statement of the arena, behind typed interfaces. The store is one SQLite file; its parts are
the results (tournaments.py, results.py: their games, standings.py: their ratings), the accounts of a hosted
competition (accounts.py) and its season (submissions.py: bot names, uploads; challenge_table.py, outbox.py,
playing_versions.py), over one connection (connection.py: opening, schema, transactions, locks,
backup) whose tables and migrations are schema.py's. Another database (Postgres) would be another package with
the same interfaces."""

from arena.storage.connection import DEFAULT_DB_NAME, SERVER_LOCK, StoreBusy, StoreError
from arena.storage.records import StoredFault, StoredGame, StoredGameRow, StoredSeat, Summary, Tournament, replay_path
from arena.storage.schema import MIGRATIONS, SCHEMA_VERSION
from arena.storage.store import Store, name_holders
from arena.storage.tables import PagedGame, PagedSeat

__all__ = ["DEFAULT_DB_NAME", "MIGRATIONS", "PagedGame", "PagedSeat", "SCHEMA_VERSION",
           "SERVER_LOCK", "Store", "StoreBusy", "StoreError",
           "StoredFault", "StoredGame", "StoredGameRow", "StoredSeat", "Summary", "Tournament", "name_holders",
           "replay_path"]
