"""The legend of a replay page is made from the game's facts: a short form for every kind of card, none twice."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games.bali2001 import cards as c2001
from arena.games.bali2017 import cards as c2017
from arena.viewer import render_replay
from arena.viewer.games import GAMES
from tests.viewer.conftest import engine_record, page_data


def legend(game: str) -> dict[str, Any]:
    return GAMES[game].legend()


@pytest.mark.parametrize("game, kinds", [("bali-2001", c2001.Kind), ("bali-2017", c2017.Kind)])
def test_every_kind_of_card_has_one_short_form_and_the_legend_explains_it(game: str, kinds: type) -> None:
    data = legend(game)
    assert set(data["cards"]) == {kind.wire for kind in kinds}
    assert len(set(data["cards"].values())) == len(data["cards"])
    terms = [term for term, _ in data["entries"]]
    assert len(set(terms)) == len(terms)
    assert set(data["cards"].values()) <= set(terms)


def test_the_islands_letters_differ_and_are_explained() -> None:
    data = legend("bali-2001")
    assert list(data["islands"]) == list(c2001.ISLAND_NAMES)
    assert len(set(data["islands"].values())) == len(c2001.ISLAND_NAMES)
    assert {letter: f"the island {name}" for name, letter in data["islands"].items()}.items() <= \
        dict(map(tuple, data["entries"])).items()


def test_a_page_carries_its_games_legend() -> None:
    record = engine_record("bali-2017", 2, 3)
    for seat in (None, 0):
        assert page_data(render_replay(record, seat))["legend"] == legend("bali-2017")
