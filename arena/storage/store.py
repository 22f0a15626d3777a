"""The store as one value: every part of it over one connection."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    pass
from arena.storage.accounts import Accounts
from arena.storage.challenge_table import Challenges
from arena.storage.connection import StoreError
from arena.storage.outbox import Webhooks
from arena.storage.playing_versions import Versions
from arena.storage.results import Results
from arena.storage.standings import Standings
from arena.storage.submissions import Submissions
from arena.storage.tables import GameTables
from arena.storage.tournaments import Tournaments


class Store(Tournaments, Results, Standings, Accounts, Submissions, GameTables, Versions, Challenges, Webhooks):
    """An open results store: results, accounts, the season of a hosted competition and its authors' webhooks, over
    one SQLite file; `readonly` opens it for browsing only (it may then be on a read-only disk)."""


def name_holders(path: Path) -> dict[str, str]:
    """The folder each submission's name was first stored with in the store at path ({} where there is no store,
    or it cannot be read: opening it for the tournament then says why)."""
    if not Path(path).is_file():
        return {}
    try:
        with Store(path, readonly=True) as store:
            return store.name_holders()
    except StoreError:
        return {}


