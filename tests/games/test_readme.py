"""Each game's README (in its package) gives the type of every view, decision and option field; the engine agrees."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games import available, get_game
from tests.games.adapters import adapter_for

ALWAYS_IN_A_DECISION = {"kind", "seat", "active"}


def _section(text: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of any level."""
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    following = re.search(r"\n#+ ", text[start:])
    return text[start:start + following.start()] if following else text[start:]


def _field_types(text: str, heading: str) -> dict[str, str]:
    """Field name -> documented type, from the first table under a heading: | `a`, `b` | type | meaning |."""
    types = {}
    for line in _section(text, heading).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            for name in re.findall(r"`(\w+)`", cells[0]):
                types[name] = cells[1]
    return types


def _split_alternatives(spec: str) -> list[str]:
    """'a or (b or c)' -> ['a', '(b or c)']: split at ' or ' outside parentheses."""
    parts, depth, current = [], 0, ""
    for token in re.split(r"( or |[()])", spec):
        depth += token == "("
        depth -= token == ")"
        if token == " or " and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += token
    return parts + [current]


def _matches(spec: str, value: Any) -> bool:
    """Whether value fits a documented type: int, str, bool, null, card, map, 'list of [N] T', 'map K -> V',
    'T or U', '(T)'."""
    spec = spec.strip()
    if spec.startswith("map"):
        return isinstance(value, dict) and ("->" not in spec or
                                            all(_matches(spec.split("->", 1)[1], v) for v in value.values()))
    if spec.startswith("list of"):
        element = re.sub(r"^list of (\d+ )?", "", spec)
        count = re.match(r"list of (\d+) ", spec)
        return (isinstance(value, list) and (count is None or len(value) == int(count.group(1)))
                and all(_matches(element, v) for v in value))
    alternatives = _split_alternatives(spec)
    if len(alternatives) > 1:
        return any(_matches(alternative, value) for alternative in alternatives)
    if spec.startswith("(") and spec.endswith(")"):
        return _matches(spec[1:-1], value)
    simple = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool), "str": lambda v: isinstance(v, str),
              "bool": lambda v: isinstance(v, bool), "null": lambda v: v is None,
              "card": lambda v: isinstance(v, dict) and {"id", "kind"} <= set(v)}
    if spec in simple:
        return simple[spec](value)
    raise AssertionError(f"the README names a type this test cannot read: {spec!r}")


def test_the_type_reader_refuses_what_does_not_fit() -> None:
    assert _matches("list of (str or null)", ["rice", None]) and not _matches("list of (str or null)", ["rice", 1])
    assert _matches("map island -> int or null", {"K": None}) and not _matches("map island -> int", {"K": "x"})
    assert not _matches("list of 2 str", ["a"]) and not _matches("int", True) and not _matches("bool or null", 0)


def _random_states(name: str) -> Any:
    """The state at every decision of one random game per configuration, as it is played (do not keep them)."""
    game = get_game(name)
    for n, options in adapter_for(name).configs():
        state, rng = game.new_state(n, 1, options), random.Random(1)
        while not state.is_terminal():
            yield state
            state.apply(rng.randrange(len(state.options())))
        yield state


def _check_fields(fields: dict[str, Any], types: dict[str, str]) -> None:
    for field, value in fields.items():
        assert field in types, f"{field} is not documented"
        assert _matches(types[field], value), f"{field}: {value!r} is not {types[field]}"


@pytest.mark.parametrize("name", available())
def test_the_readme_gives_the_type_of_every_field_and_the_engine_keeps_to_it(name: str) -> None:
    package = Path(sys.modules[type(get_game(name)).__module__].__file__).parent  # type: ignore[arg-type]
    text = (package / "README.md").read_text(encoding="utf-8")
    view_types = _field_types(text, "## The view")
    decision_types = {**_field_types(text, "### Decision fields"),
                      "kind": "str", "seat": "int or null", "active": "int"}
    option_types = _field_types(text, "### Option fields")
    kinds = set(re.findall(r"^\| `(\w+)` \|", _section(text, "## Decisions"), re.M))
    seen_kinds = set()
    for state in _random_states(name):
        decision = state.decision()
        seen_kinds.add(decision["kind"])
        assert ALWAYS_IN_A_DECISION <= set(decision)
        _check_fields(decision, decision_types)
        for option in state.options():
            _check_fields(option, option_types)
        view = state.view(decision["seat"] if decision["seat"] is not None else 0)
        assert set(view) == set(view_types)
        _check_fields(view, view_types)
    assert seen_kinds <= kinds and "game_over" in seen_kinds
