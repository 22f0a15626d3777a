"""Game options of bali-2017 (oracle, demon, start_farmers): defaults and validation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.games.bali2017.cards import (
    DEFAULT_START_FARMERS,
    GAME_NAME,
    MAX_PLAYERS,
    OFFERING_BY_NAME,
    OFFERING_NAMES,
    START_FARMERS_PER_SET,
)
from arena.games.base import GameError


@dataclass(frozen=True)
class Options:
    """Validated options of one game."""

    oracle: bool = False
    demon: bool = False
    start_farmers: tuple[tuple[int, ...], ...] = DEFAULT_START_FARMERS

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""
        return {"oracle": self.oracle, "demon": self.demon,
                "start_farmers": [[OFFERING_NAMES[t] for t in farmers] for farmers in self.start_farmers]}


def _parse_flag(name: str) -> Any:
    def parse(value: Any) -> bool:
        if not isinstance(value, bool):
            raise GameError(f"option {name!r} must be true or false, got {value!r}")
        return value
    return parse


def _parse_start_farmers(value: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, (list, tuple)) or len(value) != MAX_PLAYERS:
        raise GameError(f"option 'start_farmers' must be a list of {MAX_PLAYERS} start sets of "
                        f"{START_FARMERS_PER_SET} farmer types each, written as JSON, for example the default: "
                        f"{json.dumps(Options().to_dict()['start_farmers'], separators=(',', ':'))}; got {value!r}")
    sets = []
    for seat, farmers in enumerate(value):
        if not isinstance(farmers, (list, tuple)) or len(farmers) != START_FARMERS_PER_SET:
            raise GameError(f"option 'start_farmers', set {seat}: must list {START_FARMERS_PER_SET} farmer types, "
                             f"got {farmers!r}")
        for name in farmers:
            if not isinstance(name, str) or name not in OFFERING_BY_NAME:
                raise GameError(f"option 'start_farmers', set {seat}: {name!r} is not a farmer type; types are "
                                 f"{', '.join(OFFERING_NAMES)}")
        sets.append(tuple(int(OFFERING_BY_NAME[name]) for name in farmers))
    return tuple(sets)


VARIANTS = ("oracle", "demon")
_PARSERS = {**{name: _parse_flag(name) for name in VARIANTS}, "start_farmers": _parse_start_farmers}


def parse_options(options: dict[str, Any] | None) -> Options:
    """Validated Options from a plain dict; missing keys take their defaults, a bad one is a GameError."""
    if options is None:
        return Options()
    if not isinstance(options, dict):
        raise GameError(f"options must be a map, got {options!r}")
    unknown = sorted(str(key) for key in set(options) - set(_PARSERS))
    if unknown:
        others = ", ".join(name for name in _PARSERS if name not in VARIANTS)
        raise GameError(f"unknown option {unknown[0]!r}; {GAME_NAME} has the variants {' and '.join(VARIANTS)} "
                         f"(other options: {others})")
    return Options(**{key: _PARSERS[key](value) for key, value in options.items()})
