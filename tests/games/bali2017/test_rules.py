"""bali-2017: one or more tests per numbered rule of arena/games/bali2017/README.md (test_rN: rules §N), and the
rulebook's examples.

The rulebook's examples seat Kenny, Robert and Jessica clockwise as seats 0, 1 and 2.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games.bali2017 import GAME
from arena.games.bali2017.cards import (
    DECK_CARDS,
    DECK_KINDS,
    DEFAULT_START_FARMERS,
    KIND_NAMES,
    NUM_ORACLES,
    OFFERING_NAMES,
    ORACLE_CARDS,
    Kind,
)
from arena.games.bali2017.rules import altar_values
from arena.games.bali2017.state import Phase
from tests.games.bali2017.helpers import (
    BANANA,
    BANANA_F,
    ORACLE,
    PEANUT,
    PEANUT_F,
    PEPPER,
    PEPPER_F,
    PRIEST,
    RICE,
    RICE_F,
    SHRINE,
    STONEMASON,
    choose,
    event_types,
    events,
    matching,
    position,
)

KENNY, ROBERT, JESSICA = 0, 1, 2
ALL_VARIANTS = [None, {"oracle": True}, {"demon": True}, {"oracle": True, "demon": True}]


def _types(counts: dict[str, int]) -> list[int]:
    return [counts[t] for t in OFFERING_NAMES]


def _last(state, kind: str) -> dict:
    return [e for e in state.referee_events() if e["type"] == kind][-1]


# --- 1-5: table and material ----------------------------------------------------------------------------------------
def test_r1_seat_0_starts_and_the_turn_passes_clockwise() -> None:
    for n in (2, 3, 4):
        s = GAME.new_state(n, 7)
        assert s.active == 0 and s.turn == 1 and s.current_player() == 0
        while s.turn <= 2 * n + 1:
            s.apply(0)
        turns = [(e["turn"], e["seat"]) for e in events(s) if e["type"] == "turn"]
        assert turns == [(t + 1, t % n) for t in range(len(turns))]


def test_r1_seat_colours_in_seat_order() -> None:
    assert [GAME.format_event({"type": "skip_buy", "seat": i}) for i in range(4)] == [
        "seat 0 (red) buys nothing", "seat 1 (blue) buys nothing", "seat 2 (yellow) buys nothing",
        "seat 3 (green) buys nothing"]


def test_r2_farmer_and_offering_types_in_fixed_order() -> None:
    assert OFFERING_NAMES == ("rice", "peanut", "banana", "pepper")
    assert KIND_NAMES[:4] == ("rice_farmer", "peanut_farmer", "banana_farmer", "pepper_farmer")
    view = GAME.new_state(2, 0).view(0)
    assert list(view["supply"]) == list(OFFERING_NAMES) and list(view["offerings"]) == list(OFFERING_NAMES)


def test_r3_play_deck_and_oracle_cards() -> None:
    assert Counter(KIND_NAMES[k] for k in DECK_KINDS) == {
        PRIEST: 9, SHRINE: 9, STONEMASON: 12, RICE_F: 5, PEANUT_F: 5, BANANA_F: 5, PEPPER_F: 5}
    assert len(DECK_KINDS) == 50 and NUM_ORACLES == 8
    for options in ALL_VARIANTS:
        s = GAME.new_state(4, 3, options)
        everywhere = [c for h in s.hands for c in h] + [c for d in s.displays for c in d]
        everywhere += [c for r in s.rows for c in r] + s.deck + s.box
        oracles = [c for c in everywhere if s.kinds[c] == Kind.ORACLE]
        assert len(oracles) == (8 if options and options.get("oracle") else 0)
        assert len(everywhere) == 16 + 50 + len(oracles)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r3_start_sets_lack_the_seats_own_type(n: int) -> None:
    s = GAME.new_state(n, 0)
    for seat in range(n):
        hand = [KIND_NAMES[s.kinds[c]] for c in s.hands[seat]]
        assert sorted(hand) == sorted(KIND_NAMES[t] for t in range(4) if t != seat)
        assert [KIND_NAMES[s.kinds[c]] for c in s.displays[seat]] == [STONEMASON]
    assert DEFAULT_START_FARMERS[1] == (0, 2, 3)  # seat 1 has no peanut farmer
    unused = set(range(16)) - {c for seat in range(n) for c in s.hands[seat] + s.displays[seat]}
    assert sorted(s.box) == sorted(unused) and len(unused) == 4 * (4 - n)


def test_r3_start_farmers_are_an_option() -> None:
    sets = [[RICE, RICE, RICE], [PEPPER, PEPPER, BANANA], [PEANUT, RICE, BANANA], [PEANUT, PEANUT, PEPPER]]
    s = GAME.new_state(2, 0, {"start_farmers": sets})
    # Seat 0 can only play rice farmers and has 2 stones: its first farmer is played without a question.
    assert s.view(0)["hand"] == [RICE_F] * 2 and s.view(0)["displays"][0][RICE_F] == 1
    assert sorted(s.view(1)["hand"]) == [BANANA_F, PEPPER_F, PEPPER_F]
    assert GAME.new_state(4, 3, GAME.default_options()).to_dict() == GAME.new_state(4, 3).to_dict()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r4_offering_supply_of_25_per_type(n: int) -> None:
    for options, altar in ((None, 0), ({"oracle": True}, 1)):
        s = GAME.new_state(n, 1, options)
        assert [len(stack) for stack in s.supply] == [25 - n - altar] * 4
        assert _types(s.view(0)["supply"]) == [25 - n - altar] * 4
        everywhere = s.altar + [c for o in s.offerings for c in o] + [c for st in s.supply for c in st]
        assert sorted(everywhere) == list(range(100))
        assert Counter(c // 25 for c in everywhere) == {0: 25, 1: 25, 2: 25, 3: 25}


def test_r4_stones_and_points_are_unlimited() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]}, stones=[100, 3], points=[200, 0],
                 displays={0: [STONEMASON] * 3, 1: [PRIEST] * 3}, rows=[[PRIEST, STONEMASON, PRIEST], None, None, None])
    choose(s, action="take", row=0)
    assert s.stones == [104, 3]
    s = position(2, phase=Phase.TAKE, hands={0: [SHRINE, SHRINE]}, stones=[100, 3], points=[200, 0],
                 displays={0: [STONEMASON] * 3, 1: [PRIEST] * 3}, rows=[[PRIEST, PRIEST, SHRINE], None, None, None])
    choose(s, action="take", row=0)
    assert s.points == [200, 4]


@pytest.mark.parametrize("options", ALL_VARIANTS)
def test_r5_variants_alone_or_together(options: dict | None) -> None:
    s = GAME.new_state(3, 5, options)
    oracle = bool(options and options.get("oracle"))
    demon = bool(options and options.get("demon"))
    view = s.view(0)
    assert view["variants"] == {"oracle": oracle, "demon": demon}
    assert (view["demon"] == 0) if demon else view["demon"] is None
    assert len(view["altar"]) == (4 if oracle else 0)
    assert view["oracles_in_deck"] == (8 if oracle else 0)


@pytest.mark.parametrize("bad, field", [
    ({"oracle": "yes"}, "oracle"),
    ({"demon": 1}, "demon"),
    ({"dragon": True}, "dragon"),
    ({"start_farmers": [[RICE, RICE, RICE]] * 3}, "start_farmers"),
    ({"start_farmers": [[RICE, RICE]] * 4}, "start_farmers"),
    ({"start_farmers": [[RICE, RICE, "mango"]] * 4}, "mango"),
    ("oracle", "options"),
])
def test_r5_bad_options_raise_naming_the_field(bad, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        GAME.new_state(3, 0, bad)


@pytest.mark.parametrize("players", [0, 1, 5, True, 2.0, "3"])
def test_r1_players_outside_2_to_4_raise(players) -> None:
    with pytest.raises(ValueError, match="players"):
        GAME.new_state(players, 0)


def test_bad_seed_raises_naming_seed() -> None:
    for seed in ("1", 1.5, None):
        with pytest.raises(ValueError, match="seed"):
            GAME.new_state(2, seed)  # type: ignore[arg-type]


# --- 6-9: setup -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_r6_start_display_hand_and_one_offering_of_each_type(n: int) -> None:
    s = GAME.new_state(n, 2)
    for seat in range(n):
        view = s.view(seat)
        assert view["displays"][seat][STONEMASON] == 1 and sum(view["displays"][seat].values()) == 1
        assert len(view["hand"]) == 3
        assert _types(view["offerings"]) == [1, 1, 1, 1]
        assert all(_types(known) == [1, 1, 1, 1] for known in view["offerings_known"])


def test_r7_oracle_altar_holds_one_face_down_card_of_each_type() -> None:
    s = GAME.new_state(3, 4, {"oracle": True})
    assert sorted(c // 25 for c in s.altar) == [0, 1, 2, 3]
    assert s.altar_up == [False] * 4
    for seat in range(3):
        assert s.view(seat)["altar"] == [None] * 4
        assert s.view(seat)["altar_top_face_up"] is False


@pytest.mark.parametrize("options", [None, {"oracle": True}])
def test_r8_rows_from_the_shuffled_deck_then_oracles_shuffled_in(options: dict | None) -> None:
    seed = 11
    s = GAME.new_state(4, seed, options)
    rng = random.Random(seed)
    if options:
        rng.shuffle([0, 1, 2, 3])  # the oracle altar is shuffled first (rules §7)
    deck = list(DECK_CARDS)
    rng.shuffle(deck)
    expected_rows = [[deck.pop() for _ in range(4)] for _ in range(4)]
    assert s.rows == expected_rows
    assert all(s.kinds[c] != Kind.ORACLE for row in s.rows for c in row)
    if options:
        assert sorted(s.deck) == sorted(deck + list(ORACLE_CARDS)) and len(s.deck) == 42
    else:
        assert s.deck == deck and len(s.deck) == 34


def test_r8_the_bottom_card_is_the_last_laid_and_is_taken_first() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]},
                 rows=[[SHRINE, PRIEST, STONEMASON], None, None, None])
    assert s.view(0)["rows"][0] == [SHRINE, PRIEST, STONEMASON]
    assert matching(s, action="take", row=0) == [matching(s, action="take", row=0, card=STONEMASON)[0]]
    choose(s, action="take", row=0)
    assert _last(s, "take")["card"] == STONEMASON
    assert s.view(0)["rows"][0] == [SHRINE, PRIEST]


def test_r8_demon_starts_on_row_0() -> None:
    assert GAME.new_state(2, 0, {"demon": True}).demon == 0
    assert GAME.new_state(2, 0).view(0)["demon"] is None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r9_seat_k_starts_with_k_plus_2_stones(n: int) -> None:
    s = GAME.new_state(n, 0)
    assert s.view(0)["stones"] == [2, 3, 4, 5][:n]
    setup = events(s)[0]
    assert setup["type"] == "setup" and setup["stones"] == [2, 3, 4, 5][:n]


# --- 10: buy ---------------------------------------------------------------------------------------------------------
def test_r10_example_kenny_buys_a_banana_card_for_1_stone_with_4_banana_farmers() -> None:
    s = position(3, displays={KENNY: [BANANA_F] * 4}, stones=[3, 3, 4])
    option = s.options()[matching(s, action="buy", offering=BANANA)[0]]
    assert option["cost"] == 1
    choose(s, action="buy", offering=BANANA)
    assert s.stones[KENNY] == 2
    assert s.view(KENNY)["offerings"][BANANA] == 1
    assert s.view(ROBERT)["offerings_known"][KENNY][BANANA] == 1
    assert _last(s, "buy") == {"type": "buy", "seat": KENNY, "offering": BANANA, "cost": 1}


@pytest.mark.parametrize("farmers, cost", [(0, 5), (1, 4), (2, 3), (3, 2), (4, 1), (5, 0), (6, 0)])
def test_r10_cost_is_5_minus_own_farmers_of_the_type_never_below_0(farmers: int, cost: int) -> None:
    s = position(2, displays={0: [PEPPER_F] * farmers}, stones=[9, 9])
    assert s.options()[matching(s, action="buy", offering=PEPPER)[0]]["cost"] == cost
    assert s.options()[matching(s, action="buy", offering=RICE)[0]]["cost"] == 5


def test_r10_skip_is_the_default_and_unaffordable_or_sold_out_types_are_not_offered() -> None:
    s = position(2, displays={0: [RICE_F, RICE_F, BANANA_F]}, stones=[4, 0], supply={RICE: 0},
                 hands={0: [PRIEST, STONEMASON, STONEMASON]})
    assert s.options()[0] == {"action": "skip"}
    assert [o.get("offering") for o in s.options()[1:]] == [BANANA]  # rice sold out, peanut and pepper cost 5
    s.apply(0)
    assert _last(s, "skip_buy") == {"type": "skip_buy", "seat": 0}
    assert s.pending.phase == Phase.PLAY


def test_r10_a_seat_that_can_buy_nothing_is_not_asked() -> None:
    s = GAME.new_state(2, 0)
    assert s.decision()["kind"] == "play"  # seat 0 has 2 stones: every type costs 5
    assert event_types(s)[-2:] == ["turn", "skip_buy"]


# --- 11: play --------------------------------------------------------------------------------------------------------
def test_r11_options_are_one_stonemason_priest_or_shrine_or_farmers() -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [SHRINE, PRIEST, RICE_F]}, stones=[7, 0])
    assert s.options() == [{"action": "play", "card": PRIEST, "cost": 0},
                           {"action": "play", "card": RICE_F, "cost": 0},
                           {"action": "play", "card": SHRINE, "cost": 7}]
    s = position(2, phase=Phase.PLAY, hands={0: [SHRINE, STONEMASON, PEPPER_F]}, stones=[6, 0])
    assert [o["card"] for o in s.options()] == [STONEMASON, PEPPER_F]


@pytest.mark.parametrize("card", [STONEMASON, PRIEST])
def test_r11_a_single_card_is_played_free_and_then_the_take_follows(card: str) -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [card, card, RICE_F]}, stones=[0, 0])
    choose(s, action="play", card=card)
    assert s.view(1)["displays"][0][card] == 1 and s.stones[0] == 0
    assert s.decision()["kind"] == "take" and s.decision()["to_take"] == 1


def test_r11_example_robert_plays_2_rice_farmers_for_1_stone() -> None:
    s = position(3, active=ROBERT, phase=Phase.PLAY, hands={ROBERT: [RICE_F, RICE_F, PRIEST]},
                 displays={ROBERT: [RICE_F]}, stones=[2, 3, 4])
    choose(s, action="play", card=RICE_F)
    assert s.decision() == {"kind": "more_farmers", "seat": ROBERT, "active": ROBERT, "card": RICE_F, "played": 1}
    assert s.options() == [{"action": "stop"}, {"action": "play", "card": RICE_F, "cost": 1}]
    choose(s, action="play", card=RICE_F)
    assert s.stones[ROBERT] == 2
    assert s.view(KENNY)["displays"][ROBERT][RICE_F] == 3
    assert s.decision()["kind"] == "take" and s.decision()["to_take"] == 2


@pytest.mark.parametrize("count, cost", [(1, 0), (2, 1), (3, 2)])
def test_r11_one_two_or_three_farmers_cost_0_1_or_2(count: int, cost: int) -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [PEPPER_F] * 3}, stones=[5, 0])
    choose(s, action="play", card=PEPPER_F)
    for _ in range(count - 1):
        choose(s, action="play", card=PEPPER_F)
    if count < 3:
        choose(s, action="stop")
    assert s.stones[0] == 5 - cost
    assert s.display_counts[0][Kind.PEPPER_FARMER] == count
    assert s.decision()["kind"] == "take"  # after the third farmer nothing is left to ask


def test_r11_farmers_must_be_of_one_type_and_each_extra_needs_a_stone() -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [PEPPER_F, PEPPER_F, RICE_F]}, stones=[5, 0])
    choose(s, action="play", card=RICE_F)
    assert s.decision()["kind"] == "take"  # no second rice farmer: no question
    s = position(2, phase=Phase.PLAY, hands={0: [PEPPER_F, PEPPER_F, RICE_F]}, stones=[0, 0])
    choose(s, action="play", card=PEPPER_F)
    assert s.decision()["kind"] == "take"  # no stone for a second farmer


def test_r11_a_shrine_costs_7_stones_and_starts_the_offering_phase() -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [SHRINE, PRIEST, PRIEST]}, stones=[9, 0],
                 offerings={0: [RICE, PEPPER], 1: [BANANA, PEANUT]})
    choose(s, action="play", card=SHRINE)
    assert s.stones[0] == 2
    assert s.decision() == {"kind": "offer", "seat": 1, "active": 0}


def test_r11_with_three_shrines_and_under_7_stones_a_card_goes_back_to_the_box() -> None:
    s = position(2, hands={0: [SHRINE] * 3}, stones=[6, 0])
    s.apply(0)  # skip the purchase; no card can be played, and returning a shrine is the only choice
    assert event_types(s)[-2:] == ["skip_buy", "return"]
    assert _last(s, "return") == {"type": "return", "seat": 0, "card": SHRINE}
    assert len(s.hands[0]) == 2 and s.box[-1] in range(16, 66) and s.kinds[s.box[-1]] == Kind.SHRINE
    assert s.decision()["kind"] == "take" and s.decision()["to_take"] == 1
    assert s.display_counts[0][Kind.SHRINE] == 0 and s.stones[0] == 6


def test_r11_buying_below_7_stones_with_three_shrines_forces_the_return() -> None:
    s = position(2, hands={0: [SHRINE] * 3}, stones=[8, 0], displays={0: [RICE_F] * 3})
    choose(s, action="buy", offering=RICE)
    assert event_types(s)[-2:] == ["buy", "return"]


@pytest.mark.parametrize("start, after", [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_r11_demon_moves_one_row_right_after_a_priest(start: int, after: int) -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [PRIEST, STONEMASON, STONEMASON]}, options={"demon": True},
                 demon=start)
    choose(s, action="play", card=PRIEST)
    assert s.demon == after and s.view(1)["demon"] == after
    assert _last(s, "demon") == {"type": "demon", "from": start, "to": after}
    s = position(2, phase=Phase.PLAY, hands={0: [STONEMASON] * 3}, options={"demon": True}, demon=start)
    choose(s, action="play", card=STONEMASON)
    assert s.demon == start


def test_r11_without_the_demon_variant_a_priest_moves_nothing() -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [PRIEST, STONEMASON, STONEMASON]})
    choose(s, action="play", card=PRIEST)
    assert s.demon == -1 and "demon" not in event_types(s)


# --- 12: the offering phase ------------------------------------------------------------------------------------------
def _kenny_plays_a_shrine():
    return position(3, active=KENNY, phase=Phase.PLAY, hands={KENNY: [SHRINE, PRIEST, PRIEST]}, stones=[7, 3, 4],
                    offerings={KENNY: [RICE, PEPPER], ROBERT: [PEANUT, RICE], JESSICA: [PEANUT, BANANA]})


def test_r12_example_kennys_shrine_and_the_offering_sequence() -> None:
    s = _kenny_plays_a_shrine()
    supply = sum(len(x) for x in s.supply)
    choose(s, action="play", card=SHRINE)
    assert s.decision()["kind"] == "offer" and s.decision()["seat"] == ROBERT
    choose(s, action="offer", offering=PEANUT)
    assert s.decision()["kind"] == "offer" and s.decision()["seat"] == JESSICA
    choose(s, action="offer", offering=PEANUT)
    assert s.decision() == {"kind": "offer_face_down", "seat": KENNY, "active": KENNY}
    choose(s, action="offer", offering=RICE)
    assert s.decision() == {"kind": "offer_from_supply", "seat": KENNY, "active": KENNY}
    assert len(s.options()) == 4
    choose(s, action="offer", offering=PEPPER)
    assert [c // 25 for c in s.altar] == [1, 1, 0, 3]
    assert s.altar_up == [True, True, False, True]
    assert s.view(KENNY)["altar"] == [PEANUT, PEANUT, RICE, PEPPER]
    for seat in (ROBERT, JESSICA):
        assert s.view(seat)["altar"] == [PEANUT, PEANUT, None, PEPPER]
        assert s.view(seat)["altar_top_face_up"] is True
    offers = [e for e in events(s, seat=ROBERT) if e["type"] == "offer"]
    assert offers == [
        {"type": "offer", "seat": ROBERT, "face_up": True, "offering": PEANUT},
        {"type": "offer", "seat": JESSICA, "face_up": True, "offering": PEANUT},
        {"type": "offer", "seat": KENNY, "face_up": False},
        {"type": "offer", "seat": KENNY, "face_up": True, "offering": PEPPER, "from_supply": True}]
    assert [e for e in events(s, seat=KENNY) if e["type"] == "offer"][2]["offering"] == RICE
    assert s.view(KENNY)["offerings"] == {RICE: 0, PEANUT: 0, BANANA: 0, PEPPER: 1}
    assert sum(len(x) for x in s.supply) == supply - 1
    assert s.decision()["kind"] == "take"


def test_r12_a_seat_without_offerings_offers_nothing_and_takes_no_replacement() -> None:
    s = position(3, active=KENNY, phase=Phase.PLAY, hands={KENNY: [SHRINE, PRIEST, PRIEST]}, stones=[7, 3, 4],
                 offerings={KENNY: [], ROBERT: [], JESSICA: [PEANUT]})
    choose(s, action="play", card=SHRINE)
    # Robert has nothing; Jessica's one card goes without a question; Kenny has nothing to put face down.
    assert [(e["type"], e["seat"]) for e in events(s) if e["type"] in ("offer", "no_offering")] == [
        ("no_offering", ROBERT), ("offer", JESSICA), ("no_offering", KENNY)]
    assert s.decision()["kind"] == "offer_from_supply"
    choose(s, action="offer", offering=BANANA)
    assert [c // 25 for c in s.altar] == [1, 2]


def test_r12_no_supply_card_when_the_supply_is_empty() -> None:
    s = position(2, phase=Phase.PLAY, hands={0: [SHRINE, PRIEST, PRIEST]}, stones=[7, 3],
                 offerings={0: [RICE], 1: [RICE]}, supply={RICE: 0, PEANUT: 0, BANANA: 0, PEPPER: 0})
    before = len(s.altar)
    choose(s, action="play", card=SHRINE)
    assert len(s.altar) == before + 2
    assert _last(s, "no_offering") == {"type": "no_offering", "seat": 0, "from_supply": True}
    assert s.decision()["kind"] == "take"


def test_r12_others_lose_certainty_about_a_display_after_its_face_down_offering() -> None:
    s = _kenny_plays_a_shrine()
    choose(s, action="play", card=SHRINE)
    choose(s, action="offer", offering=PEANUT)
    choose(s, action="offer", offering=BANANA)
    assert s.view(JESSICA)["offerings_known"][ROBERT] == {RICE: 1, PEANUT: 0, BANANA: 0, PEPPER: 0}
    choose(s, action="offer", offering=PEPPER)  # Kenny's face-down card
    assert s.view(ROBERT)["offering_counts"][KENNY] == 1
    assert s.view(ROBERT)["offerings_known"][KENNY] == {RICE: 0, PEANUT: 0, BANANA: 0, PEPPER: 0}
    assert s.view(KENNY)["offerings_known"][KENNY] == {RICE: 1, PEANUT: 0, BANANA: 0, PEPPER: 0}


# --- 13: take ---------------------------------------------------------------------------------------------------------
def test_r13_example_robert_takes_2_cards_the_shrine_and_the_banana_farmer() -> None:
    rows = [[PRIEST, STONEMASON, SHRINE], [RICE_F, PRIEST, BANANA_F], [STONEMASON, PEPPER_F], [PRIEST, SHRINE]]
    s = position(3, active=ROBERT, phase=Phase.TAKE, hands={ROBERT: [PRIEST]}, rows=rows)
    assert s.decision() == {"kind": "take", "seat": ROBERT, "active": ROBERT, "to_take": 2}
    assert s.options() == [{"action": "take", "row": 0, "card": SHRINE}, {"action": "take", "row": 1, "card": BANANA_F},
                           {"action": "take", "row": 2, "card": PEPPER_F}, {"action": "take", "row": 3, "card": SHRINE}]
    choose(s, action="take", row=0)
    assert s.decision()["to_take"] == 1
    choose(s, action="take", row=1)
    assert sorted(s.view(ROBERT)["hand"]) == sorted([PRIEST, SHRINE, BANANA_F])
    assert [e["card"] for e in events(s) if e["type"] == "take"] == [SHRINE, BANANA_F]
    assert _last(s, "scoring")["card"] == PRIEST and _last(s, "scoring")["row"] == 1


def test_r13_an_emptied_row_is_formed_again_at_once_and_can_be_used() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: []}, rows=[[STONEMASON], None, None, None],
                 deck_top=[PRIEST, RICE_F, PEANUT_F, BANANA_F])
    choose(s, action="take", row=0)
    assert s.view(0)["rows"][0] == [PRIEST, RICE_F, PEANUT_F, BANANA_F]
    row_event = _last(s, "new_row")
    assert row_event["row"] == 0 and row_event["cards"] == [PRIEST, RICE_F, PEANUT_F, BANANA_F]
    assert row_event["oracles"] == 0
    choose(s, action="take", row=0)
    assert _last(s, "take")["card"] == BANANA_F


def test_r13_demon_row_cannot_be_taken_from() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: [PRIEST]}, options={"demon": True}, demon=2)
    assert [o["row"] for o in s.options()] == [0, 1, 3]


def _oracle_position(new_row: list[str], altar: list[tuple[str, bool, int]]) -> object:
    return position(3, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]}, rows=[[STONEMASON], None, None, None],
                    deck_top=new_row, altar=altar, options={"oracle": True})


def test_r13_oracles_in_a_new_row_are_removed_and_the_active_seat_picks_one_of_the_top_4_altar_cards() -> None:
    altar = [(BANANA, True, 1), (RICE, True, 2), (PEPPER, False, 1), (PEANUT, True, 0), (BANANA, False, 2)]
    s = _oracle_position([PRIEST, ORACLE, STONEMASON, ORACLE], altar)
    choose(s, action="take", row=0)
    assert s.view(0)["rows"][0] == [PRIEST, STONEMASON]
    assert _last(s, "new_row")["oracles"] == 2
    assert sum(1 for c in s.box if s.kinds[c] == Kind.ORACLE) == 2 and s.view(1)["oracles_in_deck"] == 6
    assert s.decision() == {"kind": "oracle_pick", "seat": 0, "active": 0, "looked": 4}
    assert s.options() == [{"action": "pick", "depth": 0, "offering": BANANA},
                           {"action": "pick", "depth": 1, "offering": PEANUT},
                           {"action": "pick", "depth": 2, "offering": PEPPER},
                           {"action": "pick", "depth": 3, "offering": RICE}]
    assert s.view(0)["altar"] == [BANANA, RICE, PEPPER, PEANUT, BANANA]  # the look reveals all four
    assert s.view(1)["altar"] == [BANANA, RICE, PEPPER, PEANUT, None]
    look = _last(s, "oracle_look")
    assert look["cards"] == [BANANA, PEANUT, PEPPER, RICE]
    assert "cards" not in [e for e in events(s, seat=1) if e["type"] == "oracle_look"][-1]
    choose(s, action="pick", depth=2)
    assert [c // 25 for c in s.altar] == [2, 0, 1, 2]  # the rest back in their order
    assert s.view(0)["offerings"][PEPPER] == 1
    assert s.view(0)["altar"] == [BANANA, RICE, PEANUT, BANANA]
    # The others cannot tell which card stayed out: the returned cards are unknown to them again (even seat 2's
    # own face-down card), the bottom card the look did not reach stays known; the new top lies face down.
    assert s.view(1)["altar"] == [BANANA, None, None, None]
    assert s.view(2)["altar"] == [BANANA, None, None, None]
    assert s.view(2)["altar_top_face_up"] is False
    assert s.view(1)["offering_counts"][0] == 1 and s.view(1)["offerings_known"][0][PEPPER] == 0
    assert [e for e in events(s) if e["type"] == "oracle_pick"][-1] == {"type": "oracle_pick", "seat": 0,
                                                                           "returned": 3}
    assert _last(s, "oracle_pick")["offering"] == PEPPER
    assert _last(s, "scoring")["card"] == STONEMASON and s.active == 1  # hand full: scoring, then the next turn


def test_r13_a_face_up_top_card_after_the_pick_is_seen_by_everyone() -> None:
    altar = [(RICE, True, 1), (PEANUT, True, 2)]
    s = _oracle_position([ORACLE, PRIEST, PRIEST, PRIEST], altar)
    choose(s, action="take", row=0)
    assert s.decision()["looked"] == 2
    choose(s, action="pick", depth=0)
    assert s.view(1)["altar"] == [RICE] and s.view(1)["altar_top_face_up"] is True


def test_r13_with_fewer_than_4_altar_cards_all_are_looked_at_and_one_card_is_taken_without_a_question() -> None:
    s = _oracle_position([ORACLE, PRIEST, PRIEST, PRIEST], [(PEPPER, False, 2)])
    choose(s, action="take", row=0)
    assert s.altar == [] and s.view(0)["offerings"][PEPPER] == 1
    assert event_types(s)[event_types(s).index("oracle_look"):][:2] == ["oracle_look", "oracle_pick"]


def test_r13_an_all_oracle_row_is_formed_again_and_gives_one_look() -> None:
    s = _oracle_position([ORACLE] * 4 + [PRIEST, STONEMASON, ORACLE, SHRINE], [(PEPPER, True, 2), (RICE, True, 1)])
    choose(s, action="take", row=0)
    rows = [e for e in events(s) if e["type"] == "new_row"]
    assert [(e["cards"], e["oracles"]) for e in rows] == [([], 4), ([PRIEST, STONEMASON, SHRINE], 1)]
    assert event_types(s).count("oracle_look") == 1
    assert s.decision()["kind"] == "oracle_pick" and s.decision()["looked"] == 2


def test_r13_an_oracle_with_an_empty_altar_gives_nothing() -> None:
    s = _oracle_position([ORACLE, PRIEST, PRIEST, PRIEST], [])
    choose(s, action="take", row=0)
    assert _last(s, "oracle_look")["count"] == 0 and "oracle_pick" not in event_types(s)
    assert s.view(0)["offering_counts"][0] == 0


# --- 14: the end ------------------------------------------------------------------------------------------------------
def test_r14_the_game_ends_when_a_row_empties_the_deck_and_the_scoring_is_skipped() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: []}, rows=[[STONEMASON], None, None, None], deck=[PRIEST, RICE_F])
    choose(s, action="take", row=0)
    assert s.is_terminal() and s.current_player() is None and s.options() == []
    assert len(s.hands[0]) == 1  # the turn stopped mid-take
    assert s.view(0)["rows"][0] == [PRIEST, RICE_F] and s.deck == []
    assert "scoring" not in event_types(s)
    assert event_types(s)[-2:] == ["new_row", "game_over"]
    assert s.result().reason == "the deck ran out"
    assert s.decision() == {"kind": "game_over", "seat": None, "active": s.active}
    with pytest.raises(ValueError):
        s.apply(0)


def test_r14_a_row_that_must_be_formed_from_an_empty_deck_ends_the_game() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: []}, rows=[[STONEMASON], None, None, None], deck=[ORACLE, ORACLE],
                 options={"oracle": True}, altar=[(RICE, True, 1)])
    choose(s, action="take", row=0)
    assert s.is_terminal() and _last(s, "new_row")["oracles"] == 2 and s.rows[0] == []
    assert "oracle_look" not in event_types(s)


def test_r14_every_random_game_ends_with_an_empty_deck() -> None:
    for n in (2, 3, 4):
        for options in ALL_VARIANTS:
            s = GAME.new_state(n, 1, options)
            rng = random.Random(1)
            while not s.is_terminal():
                s.apply(rng.randrange(len(s.options())))
            assert s.deck == [] and s.result().reason == "the deck ran out"


# --- 15: scoring ------------------------------------------------------------------------------------------------------
def _score_with(bottom: str, n: int = 3, active: int = KENNY, **kw) -> object:
    """The active seat takes its last card from row 0, uncovering `bottom`."""
    other = SHRINE if bottom == STONEMASON else STONEMASON
    s = position(n, active=active, phase=Phase.TAKE, hands={active: [other, other]},
                 rows=[[bottom, bottom], None, None, None], **kw)
    choose(s, action="take", row=0)
    return s


def test_r15_example_stonemasons_robert_2_plus_1_kenny_1_jessica_0() -> None:
    s = _score_with(STONEMASON, displays={ROBERT: [STONEMASON] * 2, KENNY: [STONEMASON]}, stones=[0, 0, 0])
    assert s.stones == [1, 3, 0]
    scoring = _last(s, "scoring")
    assert scoring == {"type": "scoring", "row": 0, "card": STONEMASON, "counts": [1, 2, 0], "bonus": ROBERT,
                       "stones": [1, 3, 0]}


def test_r15_example_priests_jessica_and_kenny_tied_at_2_no_bonus() -> None:
    s = _score_with(PRIEST, displays={JESSICA: [PRIEST] * 2, KENNY: [PRIEST] * 2, ROBERT: [PRIEST]})
    assert s.points == [2, 1, 2]
    assert _last(s, "scoring")["bonus"] is None


def test_r15_example_kennys_3_shrines_give_3_plus_1_of_one_choice() -> None:
    for reward, field in (("points", "points"), ("stones", "stones")):
        s = _score_with(SHRINE, displays={KENNY: [SHRINE] * 3, JESSICA: [SHRINE]}, stones=[0, 0, 0])
        assert s.decision() == {"kind": "shrine_reward", "seat": KENNY, "active": KENNY, "bonus": True}
        assert s.options() == [{"action": "points", "amount": 4}, {"action": "stones", "amount": 4}]
        choose(s, action=reward)
        assert getattr(s, field)[KENNY] == 4
        assert s.decision() == {"kind": "shrine_reward", "seat": JESSICA, "active": KENNY, "bonus": False}
        choose(s, action="stones")
        assert s.stones[JESSICA] == 1 and s.points[JESSICA] == 0
        assert _last(s, "shrine_reward") == {"type": "shrine_reward", "seat": JESSICA, "reward": "stones",
                                             "amount": 1}
        assert s.active == ROBERT


def test_r15_shrine_rewards_are_chosen_active_seat_first_then_clockwise() -> None:
    s = _score_with(SHRINE, n=4, active=2, displays={0: [SHRINE], 1: [SHRINE], 3: [SHRINE]})
    order = []
    while s.decision()["kind"] == "shrine_reward":
        order.append(s.decision()["seat"])
        choose(s, action="points")
    assert order == [3, 0, 1]


def test_r15_example_jessicas_single_rice_farmer_gives_one_card_and_no_bonus() -> None:
    s = _score_with(RICE_F, displays={JESSICA: [RICE_F]})
    assert s.view(JESSICA)["offerings"][RICE] == 1
    assert [e for e in events(s) if e["type"] == "reward"] == [
        {"type": "reward", "seat": JESSICA, "offering": RICE, "bonus": False, "substitute": False}]


def test_r15_farmer_rewards_active_first_one_card_each_and_the_bonus_after_everyone() -> None:
    s = _score_with(PEPPER_F, n=4, active=1, displays={0: [PEPPER_F] * 3, 1: [PEPPER_F], 3: [PEPPER_F] * 2})
    rewards = [(e["seat"], e["bonus"]) for e in events(s) if e["type"] == "reward"]
    assert rewards == [(1, False), (3, False), (0, False), (0, True)]
    assert [s.view(0)["offerings"][PEPPER], s.view(1)["offerings"][PEPPER], s.view(3)["offerings"][PEPPER]] == [2, 1, 1]


def test_r15_a_sold_out_farmer_reward_is_any_other_type_of_the_seats_choice() -> None:
    s = _score_with(PEANUT_F, displays={KENNY: [PEANUT_F] * 2, ROBERT: [PEANUT_F]}, supply={PEANUT: 0})
    assert s.decision() == {"kind": "substitute_reward", "seat": KENNY, "active": KENNY, "sold_out": PEANUT,
                            "bonus": False}
    assert [o["offering"] for o in s.options()] == [RICE, BANANA, PEPPER]
    choose(s, action="substitute", offering=BANANA)
    assert s.decision()["seat"] == ROBERT
    choose(s, action="substitute", offering=RICE)
    assert s.decision() == {"kind": "substitute_reward", "seat": KENNY, "active": KENNY, "sold_out": PEANUT,
                            "bonus": True}
    choose(s, action="substitute", offering=PEPPER)
    assert [(e["seat"], e["offering"], e["bonus"], e["substitute"]) for e in events(s) if e["type"] == "reward"] == [
        (KENNY, BANANA, False, True), (ROBERT, RICE, False, True), (KENNY, PEPPER, True, True)]


def test_r15_with_one_type_left_the_substitute_is_not_asked_and_with_none_there_is_nothing() -> None:
    s = _score_with(PEANUT_F, displays={KENNY: [PEANUT_F]}, supply={RICE: 0, PEANUT: 0, BANANA: 0, PEPPER: 1})
    assert _last(s, "reward") == {"type": "reward", "seat": KENNY, "offering": PEPPER, "bonus": False,
                                  "substitute": True}
    s = _score_with(PEANUT_F, displays={KENNY: [PEANUT_F]}, supply={RICE: 0, PEANUT: 0, BANANA: 0, PEPPER: 0})
    assert _last(s, "no_reward") == {"type": "no_reward", "seat": KENNY, "bonus": False}
    assert s.active == ROBERT


@pytest.mark.parametrize("counts, bonus", [
    ([1, 0, 0], None), ([2, 0, 0], 0), ([2, 2, 0], None), ([3, 2, 2], 0), ([0, 1, 1], None), ([1, 3, 2], 1)])
def test_r15_the_bonus_needs_a_sole_majority_of_at_least_2(counts: list[int], bonus: int | None) -> None:
    s = _score_with(PRIEST, displays={seat: [PRIEST] * c for seat, c in enumerate(counts)})
    assert _last(s, "scoring")["bonus"] == bonus
    assert s.points == [c + (seat == bonus) for seat, c in enumerate(counts)]


def test_r15_the_scored_card_of_a_just_formed_row_is_its_bottom_card() -> None:
    s = position(2, phase=Phase.TAKE, hands={0: [PRIEST, PRIEST]}, rows=[[STONEMASON], None, None, None],
                 deck_top=[SHRINE, SHRINE, SHRINE, PRIEST], displays={1: [PRIEST]})
    choose(s, action="take", row=0)
    assert _last(s, "scoring")["card"] == PRIEST and s.points == [0, 1]


# --- 16-17: final scoring ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("counts, values", [
    ([3, 4, 4, 5], [1, 2, 2, 3]),  # the rulebook's example: pepper 5, banana 4, peanut 4, rice 3
    ([4, 3, 2, 1], [3, 2, 1, 0]),
    ([4, 4, 2, 1], [3, 3, 2, 1]),  # two types tied: 3, 2 or 1
    ([3, 3, 3, 1], [3, 3, 3, 2]),  # three types tied: only 3 or 2
    ([3, 3, 1, 1], [3, 3, 2, 2]),  # two pairs: only 3 or 2
    ([2, 2, 2, 2], [3, 3, 3, 3]),  # all tied: 3 each
    ([5, 0, 3, 0], [3, 0, 2, 0]),  # a type with no altar card is worth nothing
    ([0, 0, 0, 0], [0, 0, 0, 0]),
])
def test_r16_altar_values_by_dense_rank(counts: list[int], values: list[int]) -> None:
    assert altar_values(counts) == values


def _ending(n: int, **kw) -> object:
    """A position where seat 0's next take empties the deck and ends the game."""
    return position(n, phase=Phase.TAKE, hands={0: [STONEMASON, STONEMASON]}, rows=[[STONEMASON], None, None, None],
                    deck=[PRIEST], **kw)


def _full_supply_except(altar: dict[str, int], displays: dict[int, list[str]]) -> dict[str, int]:
    used = Counter(t for cards in displays.values() for t in cards)
    return {t: 25 - altar.get(t, 0) - used[t] for t in OFFERING_NAMES}


def test_r17_example_robert_scores_22() -> None:
    altar_counts = {PEPPER: 5, BANANA: 4, PEANUT: 4, RICE: 3}
    altar = [(t, True, -1) for t, c in altar_counts.items() for _ in range(c)]
    offerings = {KENNY: [], ROBERT: [PEPPER] * 2 + [BANANA] * 3 + [RICE] * 3, JESSICA: []}
    s = _ending(3, altar=altar, offerings=offerings, supply=_full_supply_except(altar_counts, offerings),
                points=[0, 2, 0], stones=[0, 7, 0], displays={ROBERT: [SHRINE]})
    choose(s, action="take", row=0)
    result = s.result()
    assert result.scores[ROBERT] == 22
    over = _last(s, "game_over")
    assert over["values"] == {RICE: 1, PEANUT: 2, BANANA: 2, PEPPER: 3}
    assert over["breakdown"][ROBERT] == {"points": 2, "shrines": 4, "stones": 1, "offerings": 15, "total": 22}
    assert result.ranks == (2, 1, 2)  # Kenny and Jessica: 0 each, no shrines, no stones: a shared rank


@pytest.mark.parametrize("shrines, stones, ranks", [
    ([1, 0], [0, 0], (1, 2)),  # equal score: more shrines first
    ([0, 0], [9, 5], (1, 2)),  # then more stones
    ([0, 0], [4, 4], (1, 1)),  # then a shared rank
])
def test_r17_ties_broken_by_shrines_then_stones_then_shared(shrines, stones, ranks) -> None:
    displays = {seat: [SHRINE] * k for seat, k in enumerate(shrines)}
    points = [4 - 4 * k for k in shrines]
    points = [p - stones[seat] // 5 for seat, p in enumerate(points)]
    points = [p + 1 for p in points]  # keep every total positive and equal
    s = _ending(2, displays=displays, points=points, stones=stones, offerings={0: [], 1: []})
    choose(s, action="take", row=0)
    result = s.result()
    assert result.scores[0] == result.scores[1]
    assert result.ranks == ranks


def test_r17_the_score_counts_tokens_shrines_stones_and_offerings_still_held() -> None:
    altar_counts = {RICE: 2, PEPPER: 1}
    altar = [(t, False, -1) for t, c in altar_counts.items() for _ in range(c)]
    offerings = {0: [RICE, PEPPER, PEANUT], 1: [PEPPER]}
    s = _ending(2, altar=altar, offerings=offerings, supply=_full_supply_except(altar_counts, offerings),
                points=[3, 0], stones=[14, 4], displays={0: [SHRINE, SHRINE], 1: [SHRINE]})
    choose(s, action="take", row=0)
    assert s.result().scores == (3 + 8 + 2 + 3 + 2 + 0, 0 + 4 + 0 + 2)


# --- 18: what each seat knows ----------------------------------------------------------------------------------------
def test_r18_the_view_has_its_own_hand_and_offerings_and_only_sizes_of_others() -> None:
    s = GAME.new_state(3, 9)
    view = s.view(1)
    assert sorted(view["hand"]) == sorted([RICE_F, BANANA_F, PEPPER_F])
    assert view["hand_sizes"] == [3, 3, 3]
    assert "hands" not in view and all(k not in view for k in ("deck_order", "box"))
    assert view["deck"] == 34


def test_r18_events_hide_the_other_hands_and_face_down_cards() -> None:
    s = GAME.new_state(3, 9)
    deals = [e for e in events(s, seat=1) if e["type"] == "deal"]
    assert [("cards" in e) for e in deals] == [False, True, False]
    assert all("cards" not in e for e in events(s) if e["type"] == "deal")
    assert all("cards" in e for e in s.referee_events() if e["type"] == "deal")


def test_r18_at_the_end_the_altar_and_every_offering_display_are_open() -> None:
    s = GAME.new_state(3, 4, {"oracle": True})
    rng = random.Random(4)
    while not s.is_terminal():
        s.apply(rng.randrange(len(s.options())))
    for seat in range(3):
        view = s.view(seat)
        assert None not in view["altar"]
        assert [sum(k.values()) for k in view["offerings_known"]] == view["offering_counts"]


def test_r18_knowledge_of_others_offerings_is_never_more_than_the_truth() -> None:
    for options in ALL_VARIANTS:
        for seed in range(30):
            s = GAME.new_state(3, seed, options)
            rng = random.Random(seed)
            while not s.is_terminal():
                s.apply(rng.randrange(len(s.options())))
                for viewer in range(3):
                    view = s.view(viewer)
                    for seat in range(3):
                        truth = s.offering_counts(seat)
                        assert all(k <= t for k, t in zip(_types(view["offerings_known"][seat]), truth))
                    for card, known in zip(view["altar"], s.altar):
                        assert card is None or card == OFFERING_NAMES[known // 25]
