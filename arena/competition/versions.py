"""A bot's versions as its author steers them: every upload with its admission, games and rating in the ladder,
and the choice of the admitted version that plays (a rollback of a bad upload). Each version is rated apart under
its own key: a new version starts from the game's prior, a version chosen again goes on from its own rating."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.competition import access
from arena.errors import ArenaError
from arena.storage import Store
from arena.storage.authors import Author, Status, Submission
from arena.storage.keys import upload_version

PLAYABLE = (Status.ADMITTED, Status.RETIRED)  # admitted once: it passed its build and its first game


class VersionRefused(ArenaError):
    """A choice of version the competition does not take: one line for its author, `status` the HTTP code."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Version:
    """One upload of a bot as its author's page lists it: its submission and how it fared in the ladder."""

    submission: Submission
    games: int
    mu: float | None
    sigma: float | None

    @property
    def name(self) -> str:
        """The version as the ladder and /api/games name it: the manifest's, and the upload's number."""
        return upload_version(self.submission.version, self.submission.id)

    def to_dict(self) -> dict[str, Any]:
        """The plain form the API answers with."""
        s = self.submission
        plain: dict[str, Any] = {"version": self.name, "manifest_version": s.version, "upload": s.id,
                                 "status": s.status.value, "uploaded": s.created, "games": self.games,
                                 "mu": self.mu, "sigma": self.sigma}
        if s.reason and s.status in (Status.REFUSED, Status.RETIRED):
            plain["reason"] = s.reason
        return plain


def versions_of(store: Store, ladder: str, bot: str) -> list[Version]:
    """Every upload of the bot, oldest first, with its games and rating in the ladder named `ladder` (none yet:
    0 games, no rating)."""
    t = store.named_tournament(ladder)
    keys, games, ratings = {}, {}, {}
    if t is not None:
        keys = {version: key for key, name, version, _ in store.roster(t.id) if name == bot}
        games = store.games_played(t.id, list(keys.values()))
        ratings = store.stored_ratings(t.id)
    found = []
    for s in store.submissions():
        if s.bot != bot:
            continue
        key = keys.get(upload_version(s.version, s.id))
        mu, sigma = ratings.get(key, (None, None)) if key is not None else (None, None)
        found.append(Version(s, games.get(key, 0) if key is not None else 0, mu, sigma))
    return found


def listing(store: Store, ladder: str, viewer: Author | None, bot: str) -> dict[str, Any] | None:
    """The bot's versions as GET /api/bots/NAME answers: {"bot", "active", "versions"}; None (a 404) for anyone
    but its author and the organiser, or a bot with no upload."""
    if not access.may_see_bot(viewer, store.bot_owner(bot)):
        return None
    found = versions_of(store, ladder, bot)
    if not found:
        return None
    active = next((v.name for v in found if v.submission.status == Status.ADMITTED), None)
    return {"bot": bot, "active": active, "versions": [v.to_dict() for v in found]}


def choose(store: Store, viewer: Author | None, bot: str, version: str) -> Submission | None:
    """Make the bot's admitted version `version` (as listing names it, NAME#UPLOAD, or the manifest's version: its
    latest upload) the one that plays from the ladder's next wave; None (a 404) for anyone but its author and the
    organiser, or a version the bot never had. VersionRefused for a version that was never admitted, or a bot its
    author retired."""
    if not access.may_see_bot(viewer, store.bot_owner(bot)):
        return None
    uploads = [s for s in store.submissions() if s.bot == bot]
    exact = [s for s in uploads if upload_version(s.version, s.id) == version]
    named = exact or [s for s in uploads if s.version == version]
    if not named:
        return None
    admitted_once = [s for s in named if s.status in PLAYABLE]
    if not admitted_once:
        chosen = named[-1]
        raise VersionRefused(f"version {version} of {bot} is {chosen.status.value}, not admitted: only an admitted "
                             "version can play")
    chosen = admitted_once[-1]
    if chosen.status == Status.ADMITTED:
        return chosen
    reason = f"replaced by version {chosen.version} (upload {chosen.id}), chosen by its author"
    if not store.choose_version(chosen.id, reason):
        raise VersionRefused(f"{bot} is retired: upload a new version to bring it back to the ladder")
    return store.submission(chosen.id)
