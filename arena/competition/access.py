"""Who may see what of a hosted competition: the one access policy. Everyone sees the board, the public bot pages
and the games' public replays; a bot's private pages, its logs, its private replays and its submissions are its
author's and the organiser's alone, and retiring it is theirs too. Every route and page asks here, and a request
that may not see a thing is told it does not exist (404), so that whether it does does not leak."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from arena.storage.authors import Author, Submission


def may_see_bot(viewer: Author | None, owner: str | None) -> bool:
    """True if viewer may see a bot's private pages, logs and replays, and retire it: the author who owns it, or
    the organiser; never someone signed out, nor anyone for a bot no one owns."""
    return viewer is not None and (viewer.organiser or (owner is not None and owner == viewer.name))


def may_see_submission(viewer: Author, submission: Submission) -> bool:
    """True if viewer may see an upload: its author, or the organiser."""
    return viewer.organiser or submission.author == viewer.name


def whose_submissions(viewer: Author) -> str | None:
    """Whose uploads viewer's list holds: their own (their name), or everyone's for the organiser (None)."""
    return None if viewer.organiser else viewer.name


def bots_listed(viewer: Author, owned: list[str], every: Iterable[str]) -> list[str]:
    """The bots viewer's own page lists: those they own, or every bot uploaded for the organiser."""
    return sorted(set(every)) if viewer.organiser else owned


def private_view(data: dict[str, Any], seats: set[int]) -> dict[str, Any]:
    """A game's replay data as a bot's author sees it: the logs of the bot's own seats only, and the details and
    stderr of its own faults only (another seat's fault shows its kind, not what it wrote)."""
    logs = {k: v for k, v in data["logs"].items() if data["decisions"][int(k)][0] in seats}
    faults = [f if f["seat"] in seats else {k: v for k, v in f.items() if k not in ("detail", "stderr")}
              for f in data["faults"]]
    return {**data, "logs": logs, "faults": faults}


@dataclass(frozen=True)
class Viewer:
    """Whose logs a game's page holds: everyone's page holds no seat's (no bot); a bot's page, for its author or
    the organiser, the logs of the bot's own seats (private_view)."""

    bot: str | None = None
    seats: frozenset[int] = frozenset()

    @classmethod
    def of_bot(cls, bot: str, seats: Iterable[int]) -> Viewer | None:
        """The viewer of a game for one who may see the bot's private pages: its seats' logs; None (a 404) if the
        bot had no seat in the game."""
        mine = frozenset(seats)
        return cls(bot, mine) if mine else None

    def shown(self, data: dict[str, Any]) -> dict[str, Any]:
        """A game's replay data as this viewer is shown it."""
        return data if self.bot is None else private_view(data, set(self.seats))


EVERYONE = Viewer()  # a game's public page: no seat's logs
