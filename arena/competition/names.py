"""Whose a name is, in one place: a bot name is its first uploader's for good (a refused upload takes none), the
sample bots' names, which play in every competition, are no one's to take, and no two bots or two authors may have
names that look alike (`look`): the same letters in another case, another Unicode form, or with a trailing '.', '-'
or '_'. Every way in (uploads, sign-up by invite, `arena authors add`, the organiser's own folders) asks here."""

from __future__ import annotations

import unicodedata
from typing import Iterable

from arena.bots.manifest import NAME_PATTERN
from arena.competition.uploads import UploadRefused
from arena.errors import ConfigError
from arena.games import available, get_game
from arena.storage import Store
from arena.storage.authors import HOUSE_AUTHOR, Author, check_author_name
from arena.tournament.opponents import sample_opponents

SAMPLE_BOT = "a sample bot"  # the owner a reserved name is said to have
TRAILING = ".-_"  # characters that make no new name at a name's end


def look(name: str) -> str:
    """What a name looks like to a reader: NFKC-normalized, case-folded, without trailing '.', '-' or '_'. Two
    names that look alike name one thing (`Uidalice`, `UIDALICE` and `uidalice.` are `uidalice`)."""
    return unicodedata.normalize("NFKC", name).casefold().rstrip(TRAILING)


def look_alike(name: str, taken: Iterable[str]) -> str | None:
    """The first name of `taken` that looks like name (name itself included), else None."""
    mine = look(name)
    return next((other for other in taken if look(other) == mine), None)


def reserved_names(game: str) -> set[str]:
    """The names the sample bots of a game play under, at its largest table: no author's bot may take them."""
    return {e.name for e in sample_opponents(game, get_game(game).max_players, set())}


def reserved_author_names() -> set[str]:
    """The names no competitor may sign up under: the organiser's own, and every game's sample bots'."""
    return {HOUSE_AUTHOR}.union(*(reserved_names(game) for game in available()))


def taken_by(name: str, author: str, owners: dict[str, str], reserved: set[str]) -> tuple[str, str] | None:
    """(the name it looks like, whose: its owner or SAMPLE_BOT) where the bot name may not be uploaded by `author`:
    it looks like a sample bot's, another author's bot's, or another of the author's own bots' under another
    spelling; None where it is theirs already (spelt the same) or no one's. `owners` maps each bot name to its
    owner."""
    sample = look_alike(name, sorted(reserved))
    if sample is not None:
        return sample, SAMPLE_BOT
    other = look_alike(name, sorted(owners, key=lambda bot: (bot != name, bot)))
    if other is None or (other == name and owners[other] == author):
        return None
    return other, owners[other]


def check_bot_name(store: Store, author: Author, name: str, reserved: set[str]) -> None:
    """UploadRefused (409) naming the name it collides with, unless `author` may have a bot of this name."""
    found = taken_by(name, author.name, store.bot_owners(), reserved)
    if found is None:
        return
    other, owner = found
    like = "" if other == name else f" looks like {other!r}, which"
    if owner == SAMPLE_BOT:
        raise UploadRefused(f"the bot name {name!r}{like} is a sample bot's, which play in every competition: "
                            "choose another name in manifest.toml", 409)
    if owner == author.name:
        raise UploadRefused(f"the bot name {name!r} looks like {other!r}, your bot already: upload it as "
                            f"{other!r} (its next version), or choose a name of its own in manifest.toml", 409)
    raise UploadRefused(f"the bot name {name!r}{like} belongs to someone else: choose another name in "
                        "manifest.toml", 409)


def check_author_look(name: str, taken: Iterable[str]) -> None:
    """ConfigError naming the name it collides with if the author name is not a name, looks like a reserved one
    (the organiser's, a sample bot's) or like an author's in `taken`."""
    check_author_name(name)
    reserved = look_alike(name, sorted(reserved_author_names()))
    if reserved is not None:
        like = "" if reserved == name else f" looks like {reserved!r}, which"
        raise ConfigError(f"the name {name!r}{like} is reserved (the organiser's, or a "
                          "sample bot's): choose another")
    other = look_alike(name, taken)
    if other is not None:
        like = "is taken" if other == name else f"looks like {other!r}, an author's already"
        raise ConfigError(f"the name {name!r} {like}: choose another")


def add_author(store: Store, name: str, organiser: bool = False) -> tuple[Author, str, str]:
    """A new author, as `Store.add_author`, refused (ConfigError) for a name that looks like a taken or reserved
    one."""
    return store.add_author(name, organiser, check=lambda taken: check_author_look(name, taken))


def redeem_invite(store: Store, code: str, name: str) -> tuple[Author, str] | None:
    """A new author signed up by an invite code, as `Store.redeem_invite`, refused (ConfigError) for a name that
    looks like a taken or reserved one."""
    check_author_look(name, ())  # before the code's slow hash: a name that is no name costs nothing
    return store.redeem_invite(code, name, check=lambda taken: check_author_look(name, taken))


def is_bot_name(text: str) -> bool:
    """True if text is a name a bot may have (uploads, house folders and sample bots alike)."""
    return NAME_PATTERN.match(text) is not None


def check_upload(store: Store, author: Author, name: str, version: str, reserved: set[str], most: int) -> None:
    """UploadRefused (409 or 429) unless `author` may upload this version of the bot: the name is theirs or no
    one's (nor looks like another's), the version is new, and it leaves them at most `most` bots in the
    competition (a retired bot keeps its name for its author but takes no place; a new version brings it back
    and takes one again)."""
    check_bot_name(store, author, name, reserved)
    same = store.version_in(name, version)
    if same is not None:
        raise UploadRefused(f"version {version!r} of {name} is in already (upload {same.id}, {same.status.value}):"
                            " raise the version in manifest.toml", 409)
    active = store.active_bots(author)
    if name not in active and len(active) >= most:
        raise UploadRefused(f"you have {len(active)} bots in the competition ({', '.join(active)}), the limit: "
                            "upload a new version of one of them instead, or retire one", 429)
