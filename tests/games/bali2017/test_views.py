"""bali-2017: views hold no hidden identity, the log reads well, bad input is refused, decisions are real choices."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.games.bali2017 import GAME
from arena.games.bali2017.cards import OFFERING_NAMES, OFFERING_TYPE
from arena.games.bali2017.state import Phase
from tests.games.adapters import bali2017 as adapter
from tests.games.bali2017.helpers import BANANA, PEANUT, PEPPER, PRIEST, RICE, SHRINE, STONEMASON, choose, position

ALL_VARIANTS = [None, {"oracle": True}, {"demon": True}, {"oracle": True, "demon": True}]


def _played(n: int, seed: int, options: dict | None, steps: int):
    s = GAME.new_state(n, seed, options)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(rng.randrange(len(s.options())))
    return s


def test_another_seats_face_down_altar_card_is_not_in_the_view() -> None:
    s = position(3, phase=Phase.PLAY, hands={0: [SHRINE, PRIEST, PRIEST]}, stones=[7, 0, 0],
                 offerings={0: [RICE, PEPPER], 1: [PEANUT], 2: [BANANA]})
    choose(s, action="play", card=SHRINE)
    choose(s, action="offer", offering=RICE)  # face down
    choose(s, action="offer", offering=PEPPER)  # from the supply
    assert s.altar_up == [True, True, False, True]
    d = s.to_dict()
    # Seat 0's face-down card and the card it kept change places: a pepper lies face down, a rice is kept.
    d["altar"][2], d["offerings"][0][0] = d["offerings"][0][0], d["altar"][2]
    assert OFFERING_TYPE[d["altar"][2]] != OFFERING_TYPE[s.altar[2]]
    changed = GAME.state_from_dict(d)
    for seat in (1, 2):
        assert changed.view(seat) == s.view(seat) and changed.events(seat) == s.events(seat)
    assert changed.view(0)["altar"] != s.view(0)["altar"]  # the placer's own view does show it


# After seat 0's oracle pick: the altar from the bottom as (type, face up, placer), the depth picked, and what seats
# 0, 1 and 2 then see. A returned card is the one that lay at its position or the one above it (nobody else saw
# which card stayed out), so a seat knows it exactly when it knew both and they are of one type (rules §18).
ORACLE_PICK_CASES = [
    pytest.param([(PEPPER, True, 1)] + [(RICE, True, 2)] * 4, 1,
                 [[PEPPER, RICE, RICE, RICE]] * 3, id="four-face-up-rice-stay-certain"),
    pytest.param([(RICE, True, 1), (PEANUT, True, 2), (BANANA, True, 1)], 1,
                 [[RICE, BANANA], [None, BANANA], [None, BANANA]], id="different-types-are-lost-but-a-face-up-top"),
    pytest.param([(BANANA, True, 1), (RICE, True, 2), (RICE, True, 2), (PEPPER, False, 1), (RICE, True, 0)], 0,
                 [[BANANA, RICE, RICE, PEPPER], [BANANA, RICE, None, None], [BANANA, RICE, None, None]],
                 id="only-pairs-of-one-known-type"),
    pytest.param([(PEANUT, False, 1), (PEANUT, False, 1), (PEANUT, True, 2)], 0,
                 [[PEANUT, PEANUT], [PEANUT, PEANUT], [None, None]],
                 id="own-face-down-cards-stay-known-to-their-placer"),
    pytest.param([(PEANUT, False, 1), (PEANUT, False, 1), (PEANUT, True, 2)], 2,
                 [[PEANUT, PEANUT], [PEANUT, PEANUT], [None, PEANUT]], id="a-face-up-top-is-seen-by-all"),
]


@pytest.mark.parametrize("altar, depth, expected", ORACLE_PICK_CASES)
def test_after_another_seats_oracle_pick_a_seat_sees_every_altar_card_it_still_knows(
        altar: list, depth: int, expected: list) -> None:
    s = position(3, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]}, rows=[[STONEMASON], None, None, None],
                 deck_top=["oracle", PRIEST, PRIEST, PRIEST], options={"oracle": True}, altar=altar)
    choose(s, action="take", row=0)
    choose(s, action="pick", depth=depth)
    assert [s.view(seat)["altar"] for seat in range(3)] == expected
    truth = [OFFERING_NAMES[OFFERING_TYPE[card]] for card in s.altar]
    for seat in range(3):
        assert all(seen in (None, real) for seen, real in zip(s.view(seat)["altar"], truth))


def test_an_oracle_pick_is_not_in_the_others_views() -> None:
    s = position(3, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]}, rows=[[STONEMASON], None, None, None],
                 deck_top=["oracle", PRIEST, PRIEST, PRIEST], options={"oracle": True},
                 altar=[(RICE, True, 1), (PEANUT, True, 2), (BANANA, True, 1)])
    choose(s, action="take", row=0)
    choose(s, action="pick", depth=1)
    assert [OFFERING_TYPE[c] for c in s.altar] == [0, 2] and [OFFERING_TYPE[c] for c in s.offerings[0]] == [1]
    d = s.to_dict()
    # The picked peanut and the rice that went back change places: the others cannot tell.
    d["altar"][0], d["offerings"][0][0] = d["offerings"][0][0], d["altar"][0]
    changed = GAME.state_from_dict(d)
    for seat in (1, 2):
        assert changed.view(seat) == s.view(seat) and changed.events(seat) == s.events(seat)
    assert changed.view(0)["offerings"] != s.view(0)["offerings"]


@pytest.mark.parametrize("options", ALL_VARIANTS)
def test_other_hands_and_the_deck_order_are_not_in_the_view(options: dict | None) -> None:
    s = _played(3, 5, options, 25)
    d = s.to_dict()
    hand, deck = d["hands"][1], d["deck"]
    other = next(i for i, c in enumerate(deck) if s.kinds[c] != s.kinds[hand[0]] and s.kinds[c] < 7)
    hand[0], deck[other] = deck[other], hand[0]
    deck.reverse()
    changed = GAME.state_from_dict(d)
    assert changed.view(0) == s.view(0) and changed.events(0) == s.events(0)
    assert changed.view(1)["hand"] != s.view(1)["hand"]


@pytest.mark.parametrize("options", ALL_VARIANTS)
def test_shuffling_everything_a_seat_may_not_know_leaves_its_view_unchanged(options: dict | None) -> None:
    rng = random.Random(2017)
    for seed in range(15):
        s = _played(4, seed, options, rng.randrange(20, 120))
        d = s.to_dict()
        for seat in range(4):
            shuffled = GAME.state_from_dict(adapter.perturb_hidden(d, seat, rng))
            assert shuffled.view(seat) == s.view(seat)
            assert shuffled.events(seat) == s.events(seat)


def test_views_are_plain_data_without_card_ids() -> None:
    s = _played(4, 3, {"oracle": True, "demon": True}, 60)
    for seat in range(4):
        view = s.view(seat)
        assert json.loads(json.dumps(view)) == view
        assert "id" not in json.dumps(view)


def test_a_decision_with_one_legal_choice_is_never_asked() -> None:
    for options in ALL_VARIANTS:
        for seed in range(20):
            s = GAME.new_state(3, seed, options)
            rng = random.Random(seed)
            while not s.is_terminal():
                assert len(s.options()) >= 2, s.decision()
                s.apply(rng.randrange(len(s.options())))


def test_every_event_of_long_games_reads_as_a_line_of_text() -> None:
    seen = set()
    for options in ALL_VARIANTS:
        for seed in range(10):
            s = _played(4, seed, options, 10_000)
            for e in s.referee_events() + s.events(None):
                line = GAME.format_event(e)
                assert line != str(e) and "{" not in line and "_" not in line, line
                seen.add(e["type"])
    assert {"setup", "deal", "turn", "skip_buy", "buy", "play", "demon", "offer", "take", "new_row", "oracle_look",
            "oracle_pick", "scoring", "shrine_reward", "reward", "game_over"} <= seen


def test_referee_events_hold_every_hidden_detail_and_spectators_none() -> None:
    s = _played(3, 8, {"oracle": True}, 10_000)
    hidden = [e for e in s.referee_events() if e["type"] in ("deal", "oracle_look", "oracle_pick")
              or (e["type"] == "offer" and not e["face_up"])]
    assert hidden and all(("cards" in e) or ("offering" in e) for e in hidden)
    public = [e for e in s.events(None) if e["type"] in ("deal", "oracle_look", "oracle_pick")
              or (e["type"] == "offer" and not e["face_up"])]
    assert all("cards" not in e and "offering" not in e for e in public)


def test_state_from_dict_refuses_inconsistent_states() -> None:
    d = _played(3, 1, None, 30).to_dict()
    bad = [
        {**d, "game": "bali-2001"},
        {**d, "deck": d["deck"] + d["deck"][:1]},
        {**d, "altar": d["altar"] + [d["supply"][0][0]]},
        {**d, "demon": 2},
        {**d, "altar_up": d["altar_up"] + [True]},
        {**d, "hands": d["hands"][:2]},
        {k: v for k, v in d.items() if k != "rows"},
        {**d, "options": {"oracle": "no"}},
        {**d, "pending": {**d["pending"], "seat": 7}},
        {**d, "pending": {**d["pending"], "look": 3}},
        {**d, "pending": {**d["pending"], "phase": 99}},
    ]
    for state in bad:
        with pytest.raises(ValueError):
            GAME.state_from_dict(state)
    assert GAME.state_from_dict(d).to_dict() == d


def test_a_finished_game_has_a_result_and_a_running_one_has_none() -> None:
    s = GAME.new_state(2, 0)
    with pytest.raises(ValueError):
        s.result()
    s = _played(2, 0, None, 10_000)
    result = s.result()
    assert s.is_terminal() and len(result.scores) == 2 and min(result.ranks) == 1
    assert s.events(None)[-1]["scores"] == list(result.scores)


def test_the_readme_example_view_is_a_real_view() -> None:
    text = (Path(__file__).parents[3] / "arena" / "games" / "bali2017" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    example, recent = json.loads(blocks[0]), [json.loads(line) for line in blocks[1].splitlines()]
    s = _played(3, 2, {"oracle": True, "demon": True}, 100)
    assert s.view(2) == example
    assert s.events(2)[-len(recent):] == recent
    assert [o["offering"] for o in s.options()] == ["rice", "banana", "rice", "banana"]
