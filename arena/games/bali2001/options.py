"""Game options of bali-2001 (masks, start_cards, max_turns): defaults and validation (README.md, "Options")."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from arena.games.bali2001.cards import (
    DEFAULT_MASKS,
    DEFAULT_MAX_TURNS,
    DEFAULT_START_CARDS,
    GAME_NAME,
    ISLAND_BY_NAME,
    ISLAND_NAMES,
    ISLANDS,
    NUM_MASKS,
    NUM_START_CARDS,
    Island,
)
from arena.games.base import GameError, is_int


@dataclass(frozen=True)
class StartCard:
    """One start card: where its holder's prince and priest chips go, and a Dalang start island."""

    prince: Island
    priest: Island
    dalang: Island

    def to_dict(self) -> dict[str, str]:
        """The start card as a plain dict."""
        return {"prince": ISLAND_NAMES[self.prince], "priest": ISLAND_NAMES[self.priest],
                "dalang": ISLAND_NAMES[self.dalang]}


START_CARD_FIELDS = tuple(f.name for f in fields(StartCard))


@dataclass(frozen=True)
class Options:
    """Validated options of one game."""

    masks: tuple[int, ...] = DEFAULT_MASKS
    start_cards: tuple[StartCard, ...] = tuple(StartCard(*card) for card in DEFAULT_START_CARDS)
    max_turns: int = DEFAULT_MAX_TURNS

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""
        return {"masks": list(self.masks), "start_cards": [c.to_dict() for c in self.start_cards],
                "max_turns": self.max_turns}


def _parse_masks(value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != NUM_MASKS:
        raise GameError(f"option 'masks' must be a list of {NUM_MASKS} mask values, written as JSON, for example the "
                        f"default: {json.dumps(list(DEFAULT_MASKS), separators=(',', ':'))}; got {value!r}")
    if not all(is_int(v) and v > 0 for v in value):
        raise GameError(f"option 'masks' must hold positive integers, got {value!r}")
    return tuple(sorted(value))


def _parse_island(value: Any, where: str) -> Island:
    if value not in ISLAND_BY_NAME:
        raise GameError(f"{where}: {value!r} is not an island; islands are {', '.join(ISLAND_NAMES)}")
    return ISLAND_BY_NAME[value]


def _parse_start_cards(value: Any) -> tuple[StartCard, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != NUM_START_CARDS:
        raise GameError(f"option 'start_cards' must be a list of {NUM_START_CARDS} cards, written as JSON, for example "
                        f"the default: {json.dumps(Options().to_dict()['start_cards'], separators=(',', ':'))}; "
                        f"got {value!r}")
    cards = []
    for number, card in enumerate(value, start=1):
        where = f"option 'start_cards', card {number}"
        if not isinstance(card, dict) or set(card) != set(START_CARD_FIELDS):
            raise GameError(f"{where} must be a map with exactly the keys {', '.join(START_CARD_FIELDS)}")
        parsed = StartCard(*(_parse_island(card[f], f"{where}, {f}") for f in START_CARD_FIELDS))
        if parsed.prince == parsed.priest:
            raise GameError(f"{where} puts both chips on {ISLAND_NAMES[parsed.prince]}; they must differ")
        cards.append(parsed)
    for chip in ("prince", "priest"):
        if sorted(getattr(c, chip) for c in cards) != list(ISLANDS):
            raise GameError(f"option 'start_cards' must put exactly one {chip} chip on each island")
    return tuple(cards)


def _parse_max_turns(value: Any) -> int:
    if not is_int(value) or value < 1:
        raise GameError(f"option 'max_turns' must be a positive integer, got {value!r}")
    return value


_PARSERS = {"masks": _parse_masks, "start_cards": _parse_start_cards, "max_turns": _parse_max_turns}


def parse_options(options: dict[str, Any] | None) -> Options:
    """Validated Options from a plain dict; missing keys take their defaults, a bad one is a GameError."""
    if options is None:
        return Options()
    if not isinstance(options, dict):
        raise GameError(f"options must be a map, got {options!r}")
    unknown = sorted(set(options) - set(_PARSERS))
    if unknown:
        raise GameError(f"unknown option {unknown[0]!r}; {GAME_NAME} options are {', '.join(_PARSERS)}")
    return Options(**{key: _PARSERS[key](value) for key, value in options.items()})
