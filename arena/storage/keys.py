"""An entrant's key in a tournament, in one place: a bot's first version plays under its name, a later version
under NAME@VERSION (numbered NAME@VERSION-2, ... if that is taken too), so that one bot's versions share its name
before the mark. A hosted competition's upload plays under the version VERSION#UPLOAD, which tells two uploads
apart even when their manifests say the same."""

from __future__ import annotations

from arena.numbering import free_name

VERSION_MARK = "@"  # between a bot's name and its version in a later version's key
UPLOAD_MARK = "#"  # between a manifest's version and the upload's number in a hosted entrant's version


def new_key(name: str, version: str, taken: set[str]) -> str:
    """A new entrant's key: its name, else NAME@VERSION (a new version of a bot), numbered if that is taken too."""
    return free_name(name if name not in taken else f"{name}{VERSION_MARK}{version}", taken)


def bot_of(key: str) -> str:
    """The bot name of an entrant's key (every version's key begins with it)."""
    return key.split(VERSION_MARK, 1)[0]


def upload_version(version: str, upload: int) -> str:
    """The version a hosted competition's upload plays under: its manifest's, and the upload's number."""
    return f"{version}{UPLOAD_MARK}{upload}"
