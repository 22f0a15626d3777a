"""The replay page's data: every frame of a view is exactly what the engine showed that view, a seat's page holds
nothing that seat was not sent, and the page is self-contained and inert to hostile names."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

import pytest

from arena.errors import ReplayError
from arena.games import get_game
from arena.match.record import load_record
from arena.viewer import patch, render_replay, replay_data
from arena.viewer.games import GAMES
from tests.viewer.conftest import card_ids, page_data, seat_knowledge
from tests.viewer.conftest import engine_record as play_record

GAMES_UNDER_TEST = [("bali-2001", 3, 10, None), ("bali-2017", 3, 4, (("oracle", True), ("demon", True))),
                    ("bali-2017", 2, 1, None)]


@lru_cache(maxsize=None)
def engine_record(game: str, players: int, seed: int, options: Any = None) -> Any:
    """A random game's record, played once per test run."""
    return play_record(game, players, seed, dict(options) if options else None)


def frames(data: dict[str, Any], view: str) -> list[Any]:
    """Every frame of a view, rebuilt from the page's patches as viewer.js does: the public part and its own."""
    shared: Any = None
    own: Any = None
    out = []
    for public, mine in zip(data["public"], data["views"][view]["frames"], strict=True):
        shared, own = patch.apply(shared, public), patch.apply(own, mine)
        out.append({**shared, **own})
    return out


@pytest.mark.parametrize("value_pairs", [
    ({"a": [1, 2, 3], "b": {"c": None}}, {"a": [1, 2, 3, 4], "b": {"d": 1}}),
    ([{"id": 1}, {"id": 2}], [{"id": 2}]),
    ([1, 2, 3, 4], [1, 9, 3, 4]),
    ({"x": [1]}, {"x": None}),
    ({"x": 1}, {"x": 1.0}),
])
def test_a_patch_turns_the_old_value_into_the_new(value_pairs: tuple[Any, Any]) -> None:
    old, new = value_pairs
    result = patch.apply(old, patch.diff(old, new))
    assert result == new and type(result) is type(new)


@pytest.mark.parametrize("game, players, seed, options", GAMES_UNDER_TEST)
def test_each_seat_page_holds_exactly_that_seats_views(game: str, players: int, seed: int,
                                                       options: dict[str, Any] | None) -> None:
    record = engine_record(game, players, seed, options)
    for seat in range(players):
        data = replay_data(record, seat)
        assert list(data["views"]) == [str(seat)] and "seed" not in data  # the seed would deal every hidden card
        views, _ = seat_knowledge(record, seat)
        assert frames(data, str(seat)) == views
        others = [d for d in data["decisions"] if d["seat"] != seat]
        assert others and all("options" not in d and "index" not in d for d in others)
        assert all("options" in d for d in data["decisions"] if d["seat"] == seat)


@pytest.mark.parametrize("game, players, seed, options", GAMES_UNDER_TEST)
def test_a_seat_page_logs_exactly_the_events_the_seat_was_sent(game: str, players: int, seed: int,
                                                               options: dict[str, Any] | None) -> None:
    record = engine_record(game, players, seed, options)
    engine = get_game(game)
    for seat in range(players):
        _, events = seat_knowledge(record, seat)
        assert replay_data(record, seat)["events"] == [[engine.format_event(e) for e in step] for step in events]


@pytest.mark.parametrize("game, players, seed, options", GAMES_UNDER_TEST)
def test_the_referee_page_holds_the_record_for_the_browser_to_replay(game: str, players: int, seed: int,
                                                                    options: dict[str, Any] | None) -> None:
    record = engine_record(game, players, seed, options)
    data = replay_data(record)
    assert data["mode"] == "record" and "public" not in data and "views" not in data
    assert data["decisions"] == [[d.seat, d.index, d.time, None, d.cpu, d.charged, d.wait] for d in record.decisions]
    assert data["parsed_options"] == get_game(game).parse_options(record.options).to_dict()
    assert (data["seed"], data["num_players"]) == (record.seed, players)


def test_the_final_scoring_adds_up_to_the_recorded_scores() -> None:
    for game, players, seed, options in GAMES_UNDER_TEST:
        record = engine_record(game, players, seed, options)
        for seat in range(players):
            scoring = replay_data(record, seat)["views"][str(seat)]["scoring"]
            assert [row["total"] for row in scoring["rows"]] == list(record.result.scores), (game, seat)


def test_a_seat_page_names_no_card_the_seat_never_knew() -> None:
    record = engine_record("bali-2001", 3, 10)
    for seat in range(3):
        views, events = seat_knowledge(record, seat)
        known = card_ids(views) | card_ids(events)
        page = page_data(render_replay(record, seat))
        assert card_ids(page) <= known


def test_another_seats_fault_detail_is_withheld(match_2001: Any) -> None:
    record = load_record(match_2001)
    faulty = {f.seat for f in record.faults}
    assert faulty == {2}, "the illegal-move bot should have faulted"
    mine, theirs = replay_data(record, 2), replay_data(record, 0)
    assert all("detail" in f and "stderr" in f for f in mine["faults"])
    assert theirs["faults"] and all("detail" not in f and "stderr" not in f for f in theirs["faults"])
    assert all("detail" in f for f in replay_data(record)["faults"])


def test_the_page_is_self_contained_and_a_hostile_name_stays_text() -> None:
    record = engine_record("bali-2017", 2, 3)
    evil = '</script><script>alert(1)</script><img src="http://example.com/x">'
    record = replace(record, seats=(replace(record.seats[0], name=evil), record.seats[1]))
    html = render_replay(record)
    assert "</script><script>alert" not in html and "<img" not in html
    assert page_data(html)["seats"][0]["name"] == evil
    outside_data = re.sub(r'<script type="application/json".*?</script>', "", html, flags=re.S)
    assert not re.search(r"https?://|<link|<img|<iframe|\ssrc=|url\(", outside_data)
    assert "default-src 'none'" in html  # the page may not fetch anything


def test_a_record_that_does_not_reproduce_makes_no_page() -> None:
    record = engine_record("bali-2001", 3, 10)
    broken = replace(record, decisions=record.decisions[:-1])
    with pytest.raises(ReplayError, match="does not reproduce"):
        render_replay(broken)
    with pytest.raises(ReplayError, match="does not reproduce"):
        render_replay(broken, 0)
    assert page_data(render_replay(broken, check=False))["mode"] == "record"  # its browser says it does not
    with pytest.raises(ReplayError, match="seat must be from 0 to 2"):
        replay_data(record, 3)


def test_every_registered_game_has_a_viewer() -> None:
    from arena.games import available
    assert set(available()) <= set(GAMES)
    assert all(get_game(name).name == name for name in GAMES)


def test_a_seat_is_named_as_the_tournament_knows_it_with_its_own_name_beside() -> None:
    record = engine_record("bali-2017", 2, 3)
    record = replace(record, seats=(replace(record.seats[0], entrant="h", name="heuristic"),
                                    replace(record.seats[1], entrant="b", name="b")))
    assert [s["name"] for s in replay_data(record)["seats"]] == ["h (heuristic)", "b"]
