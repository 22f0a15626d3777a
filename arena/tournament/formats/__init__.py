"""Tournament formats, one object each, and the registry the command line and the store name them by."""

from __future__ import annotations

from arena.errors import ConfigError
from arena.tournament.formats.base import Table, TournamentFormat, TournamentSpec
from arena.tournament.formats.compare import Compare
from arena.tournament.formats.gauntlet import Gauntlet, gauntlet
from arena.tournament.formats.ladder import Ladder, ladder_wave
from arena.tournament.formats.round_robin import RoundRobin, round_robin

# A new format is a module beside these and a line here.
FORMATS: dict[str, TournamentFormat] = {f.name: f for f in (RoundRobin(), Gauntlet(), Ladder(), Compare())}
DEFAULT_FORMAT = RoundRobin.name


def get_format(name: str) -> TournamentFormat:
    """The registered format of that name; ConfigError naming the known ones otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ConfigError(f"unknown tournament format {name!r} (formats: {', '.join(FORMATS)})") from None


__all__ = ["Compare", "DEFAULT_FORMAT", "FORMATS", "Gauntlet", "Ladder", "RoundRobin", "Table", "TournamentFormat",
           "TournamentSpec", "gauntlet", "get_format", "ladder_wave", "round_robin"]
