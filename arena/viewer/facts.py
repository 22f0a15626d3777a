"""The fixed facts of each game as data for the browser's engines: every enum with its wire names and every public
constant of the modules that declare them (cards, state, views), emitted from Python so that the JavaScript engines
type no table again."""

from __future__ import annotations

import json
import re
from enum import Enum
from types import ModuleType
from typing import Any

from arena.games.base import WireEnum

_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")


def _plain(value: Any) -> Any:
    """A constant as JSON data: enum members as their numbers, tuples as lists, a map with other than text keys as
    [key, value] pairs (JSON keys are text)."""
    if isinstance(value, Enum):
        return int(value.value)
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, frozenset):
        return sorted(_plain(item) for item in value)
    if isinstance(value, dict):
        if all(isinstance(key, str) and not isinstance(key, Enum) for key in value):
            return {key: _plain(item) for key, item in value.items()}
        return [[_plain(key), _plain(item)] for key, item in value.items()]
    raise TypeError(f"a fixed fact cannot be {type(value).__name__}: {value!r}")


def _enum(cls: type[WireEnum]) -> dict[str, Any]:
    """An enum as {members: name -> number, wires: wire name by number}."""
    members = list(cls)
    if [int(m) for m in members] != list(range(len(members))):
        raise TypeError(f"{cls.__name__} must number its members 0, 1, 2, ... for the browser's tables")
    return {"members": {m.name: int(m) for m in members}, "wires": [m.wire for m in members]}


def _facts_of(module: ModuleType, known: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in vars(module).items():
        if name in known:
            continue  # imported from a module before it, which declares it
        if isinstance(value, type) and issubclass(value, WireEnum):
            if value.__module__ == module.__name__:
                found[name] = _enum(value)
        elif _CONSTANT.fullmatch(name) and not isinstance(value, (type, ModuleType)) and not callable(value):
            found[name] = _plain(value)
    return found


def game_facts(modules: tuple[ModuleType, ...]) -> dict[str, Any]:
    """Every enum and public constant the modules declare, the first module's first, as plain data."""
    facts: dict[str, Any] = {}
    for module in modules:
        facts.update(_facts_of(module, facts))
    return facts


def facts_script(name: str, modules: tuple[ModuleType, ...]) -> str:
    """A script that hands the browser's engine of game name its facts: BaliFacts[name]."""
    data = json.dumps(game_facts(modules), separators=(",", ":"), sort_keys=True)
    return ("/* Generated from the Python engine's modules (arena/viewer/facts.py): do not edit. */\n"
            "(function (root) {\n  \"use strict\";\n  var facts = root.BaliFacts = root.BaliFacts || {};\n"
            f"  facts[{json.dumps(name)}] = {data};\n"
            "})(typeof globalThis !== \"undefined\" ? globalThis : this);\n")
