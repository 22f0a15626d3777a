"""Which of a bot's admitted versions plays, as its author chose it: the one admitted version of a bot is the one
the ladder seats, and choosing another admitted (or replaced) version swaps the two in one transaction."""

from __future__ import annotations

import time

from arena.storage.authors import Status
from arena.storage.connection import Connection, _guarded


class Versions(Connection):
    """The choice of a bot's playing version among those that were admitted once."""

    @_guarded
    def choose_version(self, sid: int, reason: str) -> bool:
        """Make submission `sid` (admitted once: admitted now, or retired since) its bot's admitted version, the one
        the ladder seats from its next wave; the bot's version admitted until now is retired with `reason`. False
        (nothing changed) if the bot has no admitted version now (it was retired by its author) or `sid` was never
        admitted."""
        now = time.time()
        with self._transaction():
            row = self.db.execute("SELECT bot, status FROM submissions WHERE id = ?", (sid,)).fetchone()
            if row is None or row[1] not in (Status.ADMITTED.value, Status.RETIRED.value):
                return False
            bot = row[0]
            if not self.db.execute("SELECT 1 FROM submissions WHERE bot = ? AND status = ?",
                                   (bot, Status.ADMITTED.value)).fetchone():
                return False
            self.db.execute("UPDATE submissions SET status = ?, reason = ?, updated = ? WHERE bot = ? AND status = ? "
                            "AND id != ?", (Status.RETIRED.value, reason, now, bot, Status.ADMITTED.value, sid))
            self.db.execute("UPDATE submissions SET status = ?, reason = '', updated = ? WHERE id = ? AND status != ?",
                            (Status.ADMITTED.value, now, sid, Status.ADMITTED.value))
        return True
