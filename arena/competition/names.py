"""Whose a bot name is, in one place: a name is its first uploader's for good (a refused upload takes none), and
the sample bots' names, which play in every competition, are no one's to take."""

from __future__ import annotations

from arena.bots.entrants import NAME_PATTERN
from arena.competition.uploads import UploadRefused
from arena.games import get_game
from arena.storage import Store
from arena.storage.authors import Author
from arena.tournament.run import sample_opponents

SAMPLE_BOT = "a sample bot"  # the owner a reserved name is said to have


def reserved_names(game: str) -> set[str]:
    """The names the sample bots of a game play under, at its largest table: no author's bot may take them."""
    return {e.name for e in sample_opponents(game, get_game(game).max_players, set())}


def taken_by(name: str, owner: str | None, author: str, reserved: set[str]) -> str | None:
    """Who else holds the bot name (its owner, or SAMPLE_BOT for a reserved one), or None where `author` may
    upload under it: it is theirs already, or no one's."""
    if name in reserved:
        return SAMPLE_BOT
    return owner if owner is not None and owner != author else None


def is_bot_name(text: str) -> bool:
    """True if text is a name a bot may have (uploads, house folders and sample bots alike)."""
    return NAME_PATTERN.match(text) is not None


def check_upload(store: Store, author: Author, name: str, version: str, reserved: set[str], most: int) -> None:
    """UploadRefused (409 or 429) unless `author` may upload this version of the bot: the name is theirs or no
    one's, the version is new, and it leaves them at most `most` bots in the competition (a retired bot keeps its
    name for its author but takes no place; a new version brings it back and takes one again)."""
    owner = store.bot_owner(name)
    holder = taken_by(name, owner, author.name, reserved)
    if holder == SAMPLE_BOT:
        raise UploadRefused(f"the bot name {name!r} is a sample bot's, which play in every competition: choose "
                            "another name in manifest.toml", 409)
    if holder is not None:
        raise UploadRefused(f"the bot name {name!r} belongs to someone else: choose another name in "
                            "manifest.toml", 409)
    same = store.version_in(name, version)
    if same is not None:
        raise UploadRefused(f"version {version!r} of {name} is in already (upload {same.id}, {same.status.value}):"
                            " raise the version in manifest.toml", 409)
    active = store.active_bots(author)
    if name not in active and len(active) >= most:
        raise UploadRefused(f"you have {len(active)} bots in the competition ({', '.join(active)}), the limit: "
                            "upload a new version of one of them instead, or retire one", 429)
