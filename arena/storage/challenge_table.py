"""An author's challenges as the store keeps them: what was asked (their bot, the rivals, how many games, or until a
sequential test decides), where it is (queued, playing, done) and its outcome once done."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from arena.storage.authors import Author
from arena.storage.connection import Connection, _guarded

QUEUED, PLAYING, DONE = "queued", "playing", "done"


@dataclass(frozen=True)
class Challenge:
    """One challenge: `bot` (at `version`, else its playing version) against `rivals` (at `rival_version` for a test
    of two of one's own versions), `games` games (the cap of a test run `until_decided`)."""

    id: int
    author: str
    bot: str
    version: str | None
    rivals: tuple[str, ...]
    rival_version: str | None
    games: int
    until_decided: bool
    status: str
    created: float
    finished: float | None = None
    outcome: dict[str, Any] = field(default_factory=dict)  # what its games came to (challenges.py)


class Challenges(Connection):
    """Challenges asked for, played between the ladder's waves."""

    _CHALLENGE = ("SELECT c.id, a.name, c.bot, c.version, c.rivals, c.rival_version, c.games, c.until_decided, "
                  "c.status, c.created, c.finished, c.outcome FROM challenges c JOIN authors a ON a.id = c.author_id ")

    @_guarded
    def add_challenge(self, author: Author, bot: str, version: str | None, rivals: list[str],
                      rival_version: str | None, games: int, until_decided: bool) -> Challenge:
        """A new queued challenge of the author's."""
        cid = self.db.execute("INSERT INTO challenges (author_id, bot, version, rivals, rival_version, games, "
                              "until_decided, status, created) VALUES (?,?,?,?,?,?,?,?,?)",
                              (author.id, bot, version, json.dumps(rivals), rival_version, games, int(until_decided),
                               QUEUED, time.time())).lastrowid
        return self.challenge(cid)  # type: ignore[arg-type,return-value]

    @_guarded
    def challenge(self, cid: int) -> Challenge | None:
        """One challenge by id, or None."""
        row = self.db.execute(self._CHALLENGE + "WHERE c.id = ?", (cid,)).fetchone()
        return None if row is None else _challenge(row)

    @_guarded
    def unfinished_challenges(self) -> list[Challenge]:
        """The challenges not done yet, oldest first: the next to play."""
        rows = self.db.execute(self._CHALLENGE + "WHERE c.status != ? ORDER BY c.id", (DONE,))
        return [_challenge(row) for row in rows]

    @_guarded
    def challenges_of(self, bots: list[str]) -> list[Challenge]:
        """The challenges whose bot or a rival is one of `bots`, newest first."""
        rows = self.db.execute(self._CHALLENGE + "ORDER BY c.id DESC").fetchall()
        wanted = set(bots)
        return [c for c in map(_challenge, rows) if c.bot in wanted or wanted & set(c.rivals)]

    @_guarded
    def challenges_since(self, author: Author, since: float) -> int:
        """How many challenges the author asked for since a time."""
        return self.db.execute("SELECT COUNT(*) FROM challenges WHERE author_id = ? AND created >= ?",
                               (author.id, since)).fetchone()[0]

    @_guarded
    def set_challenge(self, cid: int, status: str, outcome: dict[str, Any]) -> None:
        """Move a challenge on, with what its games came to so far (finished once done)."""
        self.db.execute("UPDATE challenges SET status = ?, outcome = ?, finished = ? WHERE id = ?",
                        (status, json.dumps(outcome), time.time() if status == DONE else None, cid))


def _challenge(row: tuple[Any, ...]) -> Challenge:
    cid, author, bot, version, rivals, rival_version, games, until, status, created, finished, outcome = row
    return Challenge(cid, author, bot, version, tuple(json.loads(rivals)), rival_version, games, bool(until), status,
                     created, finished, json.loads(outcome))
