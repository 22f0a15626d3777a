"""bali-2001: one or more tests per numbered rule of arena/games/bali2001/README.md (test_rN: rules §N), and the
rulebook's examples."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games.bali2001 import GAME
from arena.games.bali2001.cards import (
    CARD_KIND,
    CARD_TYPE,
    DALANG_PAIRS,
    DEFAULT_MASKS,
    DEFAULT_START_CARDS,
    ISLAND_NAMES,
    Kind,
)
from tests.games.bali2001.helpers import (
    ARTIST,
    BLUE,
    GREEN,
    PRIEST,
    PRINCE,
    RED,
    SCHOLAR,
    WARRIOR,
    YELLOW,
    K,
    P,
    T,
    W,
    choose,
    dalang,
    event_types,
    hand_kinds,
    matching,
    position,
)


# --- 1-5: table and material ----------------------------------------------------------------------------------------
def test_r1_seats_pass_the_turn_to_the_left_neighbour() -> None:
    for n in (3, 4):
        for active in range(n):
            s = position(n, active=active, hands={active: [SCHOLAR]})
            choose(s, action="end_turn")
            assert s.active == (active + 1) % n
            assert s.events(None)[-1 - n]["type"] == "turn"


def test_r1_seat_colours_in_seat_order() -> None:
    assert [GAME.format_event({"type": "pass", "seat": i}) for i in range(4)] == [
        "seat 0 (green) passes", "seat 1 (yellow) passes", "seat 2 (red) passes", "seat 3 (blue) passes"]


def test_r2_islands_in_fixed_order() -> None:
    assert ISLAND_NAMES == ("Kukusch", "Panschar", "Tschakkalag", "Wontong")
    assert list(GAME.new_state(4, 0).view(0)["chips"]) == list(ISLAND_NAMES)


def test_r3_deck_composition() -> None:
    kinds = Counter(CARD_KIND)
    assert len(CARD_KIND) == 159
    assert kinds == {Kind.PRIEST: 30, Kind.WARRIOR: 30, Kind.PRINCE: 30, Kind.SCHOLAR: 30, Kind.ARTIST: 15,
                     Kind.DALANG: 24}
    pairs = Counter(CARD_TYPE[c] for c in range(159) if CARD_KIND[c] == Kind.DALANG)
    assert len(DALANG_PAIRS) == 6 and set(pairs.values()) == {4}
    assert all(a != b for a, b in DALANG_PAIRS)


def test_r4_masks_and_seals() -> None:
    assert DEFAULT_MASKS == (1,) * 4 + (2,) * 4 + (3,) * 4 + (4,) * 4
    s = position(4, prince={K: GREEN}, priest={K: GREEN}, seals={K: GREEN, P: GREEN})
    assert s.view(1)["scores"] == [6, 0, 0, 0]
    custom = GAME.new_state(4, 0, {"masks": [5] * 16})
    assert custom.view(0)["masks_left"] == [5] * 16


@pytest.mark.parametrize("bad, field", [
    ({"masks": [1] * 15}, "masks"),
    ({"masks": [1] * 15 + [0]}, "masks"),
    ({"masks": "1,2"}, "masks"),
    ({"start_cards": [{"prince": "Atlantis", "priest": K, "dalang": W}] * 4}, "Atlantis"),
    ({"start_cards": [{"prince": K, "priest": K, "dalang": W}] * 4}, "start_cards"),
    ({"start_cards": [{"prince": P, "priest": K, "dalang": W}] * 4}, "start_cards"),
    ({"start_cards": [{"prince": P, "priest": K}] * 4}, "start_cards"),
    ({"max_turns": 0}, "max_turns"),
    ({"max_turns": "ten"}, "max_turns"),
    ({"colour": "red"}, "colour"),
])
def test_r4_r5_r24_bad_options_raise_naming_the_field(bad: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        GAME.new_state(4, 0, bad)


def test_r5_start_cards_option_round_trips_the_defaults() -> None:
    default = GAME.default_options()
    assert [(c["prince"], c["priest"], c["dalang"]) for c in default["start_cards"]] == [
        tuple(ISLAND_NAMES[i] for i in card) for card in DEFAULT_START_CARDS]
    assert GAME.new_state(4, 3, default).to_dict() == GAME.new_state(4, 3).to_dict()


# --- 6-9: setup -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
def test_r6_piles_dealt_round_robin_per_island_and_the_rest_is_the_draw_pile(n: int) -> None:
    seed = 17
    s = GAME.new_state(n, seed)
    deck = list(range(159))
    random.Random(seed).shuffle(deck)
    expected = [[[] for _ in range(4)] for _ in range(n)]
    for island in range(4):
        for _ in range(3):
            for seat in range(n):
                expected[seat][island].append(deck.pop())
    for seat in range(n):
        for island in range(4):
            if island != s.dalang:
                assert s.piles[seat][island] == expected[seat][island]
        assert s.hands[seat][:3] == expected[seat][s.dalang]
    assert s.discard == []
    assert len(s.draw_pile) == 159 - 12 * n - (2 + n - 1)


def test_r7_start_player_holds_card_1_and_chips_follow_the_start_cards() -> None:
    for seed in range(40):
        for n in (3, 4):
            s = GAME.new_state(n, seed)
            cards = s.start_cards
            assert s.start_player == cards.index(min(cards))
            assert s.active == s.start_player
            for seat, number in enumerate(cards):
                prince, priest, _ = DEFAULT_START_CARDS[number - 1]
                assert s.prince[prince] == seat and s.priest[priest] == seat
            if n == 3:
                unused = ({1, 2, 3, 4} - set(cards)).pop()
                prince, priest, _ = DEFAULT_START_CARDS[unused - 1]
                assert s.prince[prince] == -1 and s.priest[priest] == -1
                assert s.prince.count(-1) == 1 and s.priest.count(-1) == 1


def test_r7_with_three_players_and_card_1_unused_card_2_starts() -> None:
    seeds = [seed for seed in range(60) if 1 not in GAME.new_state(3, seed).start_cards]
    assert seeds
    for seed in seeds:
        s = GAME.new_state(3, seed)
        assert s.start_cards[s.start_player] == 2


def test_r8_dalang_starts_on_the_island_of_the_start_card_right_of_the_start_player() -> None:
    for seed in range(40):
        for n in (3, 4):
            s = GAME.new_state(n, seed)
            right = (s.start_player - 1) % n
            assert s.dalang == DEFAULT_START_CARDS[s.start_cards[right] - 1][2]


def test_r9_hands_are_the_piles_at_the_dalangs_island() -> None:
    s = GAME.new_state(4, 5)
    for seat in range(4):
        assert s.piles[seat][s.dalang] == []
        assert len(s.hands[seat]) == 3 + (2 if seat == s.start_player else 1)
        assert len(s.view(seat)["piles"][ISLAND_NAMES[s.dalang]]) == 0


# --- 10-13: a turn --------------------------------------------------------------------------------------------------
def test_r10_draws_active_two_then_each_other_one_clockwise() -> None:
    s = position(4, active=RED, hands={RED: [SCHOLAR]}, draw_top=[PRIEST, PRIEST, WARRIOR, PRINCE, ARTIST])
    choose(s, action="end_turn")
    assert s.active == BLUE
    draws = [(e["seat"], e["count"]) for e in s.events(None) if e["type"] == "draw"]
    assert draws == [(BLUE, 2), (GREEN, 1), (YELLOW, 1), (RED, 1)]
    assert hand_kinds(s, BLUE) == [PRIEST, PRIEST]
    assert hand_kinds(s, GREEN) == [WARRIOR]
    assert hand_kinds(s, YELLOW) == [PRINCE]
    assert hand_kinds(s, RED) == [ARTIST, SCHOLAR]


def test_r10_empty_draw_pile_reshuffles_the_discard_pile() -> None:
    s = position(4, active=GREEN, hands={GREEN: [SCHOLAR]}, empty_draw=True)
    discarded = len(s.discard)
    choose(s, action="end_turn")
    events = s.events(None)
    types = [e["type"] for e in events]
    assert types[:4] == ["end_turn", "turn", "reshuffle", "draw"]
    assert events[2]["count"] == discarded
    assert [(e["seat"], e["count"]) for e in events[3:7]] == [(YELLOW, 2), (RED, 1), (BLUE, 1), (GREEN, 1)]


def test_r10_nothing_is_drawn_when_both_piles_are_empty() -> None:
    everything = [PRIEST] * 30 + [WARRIOR] * 30 + [PRINCE] * 30 + [SCHOLAR] * 29 + [ARTIST] * 14
    dalangs = [dalang(a, b) for a, b in [(K, P), (K, T), (K, W), (P, T), (P, W), (T, W)] for _ in range(4)]
    s = position(3, active=GREEN, hands={GREEN: [ARTIST], YELLOW: [SCHOLAR]}, piles={(1, K): everything + dalangs})
    choose(s, action="end_turn")
    assert [e["count"] for e in s.events(None) if e["type"] == "draw"] == [0, 0, 0]
    assert s.active == YELLOW and s.current_player() == YELLOW


def test_r10_fled_seats_are_present_again_when_a_turn_begins() -> None:
    s = position(4, active=GREEN, hands={GREEN: [SCHOLAR]}, absent=[RED, BLUE])
    assert s.view(0)["fled"] == [RED, BLUE]
    choose(s, action="end_turn")
    assert s.view(0)["fled"] == []


def test_r11_the_active_player_plays_on_until_it_ends_the_turn() -> None:
    s = position(4, active=GREEN, hands={GREEN: [ARTIST, ARTIST, SCHOLAR]})
    choose(s, action="play", card=ARTIST)
    choose(s, action="stop")
    assert s.current_player() == GREEN and s.decision()["kind"] == "turn"
    choose(s, action="play", card=ARTIST)
    choose(s, action="stop")
    choose(s, action="end_turn")
    assert s.active == YELLOW


def test_r12_only_present_seats_react_clockwise_from_the_active_player() -> None:
    s = position(4, active=YELLOW, hands={YELLOW: [ARTIST, PRIEST], GREEN: [ARTIST], RED: [ARTIST], BLUE: [ARTIST]},
                 absent=[RED])
    choose(s, action="play", card=ARTIST)
    choose(s, action="stop")
    asked = []
    while s.decision()["kind"] == "react":
        asked.append(s.current_player())
        choose(s, action="pass")
    assert asked == [BLUE, GREEN]


def test_r13_every_card_played_goes_face_up_on_the_discard_pile() -> None:
    s = position(4, active=GREEN, hands={GREEN: [ARTIST, PRIEST, PRIEST], YELLOW: [ARTIST]})
    choose(s, action="play", card=ARTIST)
    choose(s, action="discard", card=PRIEST)
    choose(s, action="stop")
    choose(s, action="play", card=ARTIST)
    top = [CARD_KIND[c] for c in s.discard[-3:]]
    assert top == [Kind.ARTIST, Kind.PRIEST, Kind.ARTIST]
    assert [c["kind"] for c in s.view(RED)["discard"]] == [ARTIST, PRIEST, ARTIST]
    plays = [e["card"]["kind"] for e in s.events(RED) if e["type"] == "play"]
    assert plays == [ARTIST, ARTIST]


# --- 14: warrior ----------------------------------------------------------------------------------------------------
def test_r14_warrior_needs_a_present_passive_seat() -> None:
    s = position(3, active=GREEN, hands={GREEN: [WARRIOR, SCHOLAR]}, absent=[YELLOW, RED])
    assert not matching(s, action="play", card=WARRIOR)
    s = position(3, active=GREEN, hands={GREEN: [WARRIOR, SCHOLAR]}, absent=[YELLOW])
    assert matching(s, action="play", card=WARRIOR)


def test_r14_exempt_seat_is_not_challenged_others_defend_or_flee_in_order() -> None:
    s = position(4, active=GREEN, hands={GREEN: [WARRIOR, SCHOLAR], YELLOW: [WARRIOR], RED: [WARRIOR],
                                          BLUE: [WARRIOR]})
    choose(s, action="play", card=WARRIOR)
    assert s.decision()["kind"] == "warrior_exempt"
    assert [o["seat"] for o in s.options()] == [YELLOW, RED, BLUE]
    choose(s, action="exempt", seat=RED)
    assert s.current_player() == YELLOW and s.options()[0] == {"action": "flee"}
    choose(s, action="defend")
    assert s.current_player() == BLUE
    choose(s, action="defend")
    assert s.current_player() == GREEN and s.decision()["kind"] == "turn"
    assert s.hands[RED] and s.view(0)["fled"] == []
    assert [e["seat"] for e in s.events(None) if e["type"] == "defend"] == [YELLOW, BLUE]


def test_r14_a_fleeing_seat_places_three_cards_one_at_a_time_and_discards_the_rest() -> None:
    s = position(4, active=GREEN, dalang_on=W,
                 hands={GREEN: [WARRIOR, SCHOLAR], YELLOW: [PRIEST, PRINCE, SCHOLAR, ARTIST, PRIEST]})
    choose(s, action="play", card=WARRIOR)
    choose(s, action="exempt", seat=RED)
    # Yellow holds no warrior: fleeing is its only choice, so it is not asked.
    assert [e["type"] for e in s.events(None)][-1] == "flee"
    assert s.decision() == {"kind": "flee_place", "seat": YELLOW, "active": GREEN, "remaining": 3}
    assert {o["pile"] for o in s.options()} == {K, P, T}
    choose(s, action="place", card=PRINCE, pile=K)
    choose(s, action="place", card=PRIEST, pile=T)
    choose(s, action="place", card=SCHOLAR, pile=T)
    assert s.hands[YELLOW] == []
    assert [c["kind"] if c else None for c in s.view(YELLOW)["piles"][T]] == [PRIEST, SCHOLAR]
    discards = [e for e in s.events(None) if e["type"] == "discard" and e["seat"] == YELLOW]
    assert sorted(c["kind"] for c in discards[0]["cards"]) == [ARTIST, PRIEST]
    assert s.view(GREEN)["fled"] == [YELLOW, BLUE]  # Blue holds nothing and flees with nothing to place
    assert s.current_player() == GREEN


def test_r14_a_seat_with_fewer_than_three_cards_places_all_of_them() -> None:
    s = position(4, active=GREEN, hands={GREEN: [WARRIOR, SCHOLAR], BLUE: [SCHOLAR]})
    choose(s, action="play", card=WARRIOR)
    choose(s, action="exempt", seat=YELLOW)
    # Red holds nothing: flees with nothing to place. Blue places its only card.
    assert s.current_player() == BLUE and s.decision()["remaining"] == 1
    choose(s, action="place", card=SCHOLAR, pile=P)
    assert s.view(GREEN)["fled"] == [RED, BLUE]
    assert len(s.piles[BLUE][1]) == 1


def test_r14_fled_seats_cannot_react_or_be_challenged_until_the_dalang_moves() -> None:
    s = position(4, active=GREEN, hands={GREEN: [WARRIOR, WARRIOR, dalang(K, P)], YELLOW: [SCHOLAR, dalang(K, P)],
                                          RED: [WARRIOR]})
    choose(s, action="play", card=WARRIOR)
    choose(s, action="exempt", seat=BLUE)
    choose(s, action="place", card=SCHOLAR, pile=K)
    choose(s, action="place", card="dalang", pile=K)
    choose(s, action="defend")
    choose(s, action="play", card=WARRIOR)
    assert [o["seat"] for o in s.options()] == [RED, BLUE]
    choose(s, action="exempt", seat=RED)
    assert s.current_player() == GREEN  # Blue, the one challenged, has no warrior and nothing to place
    assert s.view(GREEN)["fled"] == [YELLOW, BLUE]
    choose(s, action="play", card="dalang", target=K)
    assert s.view(GREEN)["fled"] == []


def test_r14_a_second_warrior_ends_the_turn_later_seats_still_react_and_the_defender_draws() -> None:
    s = position(4, active=GREEN, hands={GREEN: [WARRIOR, SCHOLAR], YELLOW: [WARRIOR, WARRIOR],
                                          RED: [WARRIOR, WARRIOR], BLUE: [WARRIOR]},
                 draw_top=[ARTIST])
    choose(s, action="play", card=WARRIOR)
    choose(s, action="exempt", seat=BLUE)
    choose(s, action="defend_and_end_turn")
    assert hand_kinds(s, YELLOW) == [ARTIST]
    assert s.current_player() == RED
    assert not matching(s, action="defend_and_end_turn")  # the turn is already ended during this card
    choose(s, action="defend")
    assert s.active == YELLOW and s.turn == 2
    assert event_types(s).count("turn_ended_by") == 1


# --- 15-17: scholar, second cards, artist ---------------------------------------------------------------------------
def test_r15_scholar_places_up_to_three_cards_on_own_piles_at_other_islands() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [SCHOLAR, PRIEST, PRINCE, ARTIST, WARRIOR]})
    choose(s, action="play", card=SCHOLAR)
    assert {o["pile"] for o in s.options() if "pile" in o} == {P, T, W}
    choose(s, action="place", card=PRIEST, pile=P)
    assert not matching(s, action="take")  # the first card fixed the mode
    choose(s, action="place", card=PRINCE, pile=P)
    choose(s, action="place", card=ARTIST, pile=W)
    assert s.decision()["kind"] != "scholar"  # three is the limit
    assert [c["kind"] for c in s.view(GREEN)["piles"][P]] == [PRIEST, PRINCE]
    placed = [e for e in s.events(YELLOW) if e["type"] == "place"]
    assert [e["pile"] for e in placed] == [P, P, W] and all("card" not in e for e in placed)
    assert all("card" in e for e in s.events(GREEN) if e["type"] == "place")


def test_r15_scholar_takes_top_cards_one_at_a_time_seeing_each_and_may_stop() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [SCHOLAR, SCHOLAR]},
                 piles={(GREEN, P): [PRIEST, PRINCE], (GREEN, T): [ARTIST], (GREEN, K): [WARRIOR]})
    choose(s, action="play", card=SCHOLAR)
    assert {o["pile"] for o in s.options() if o["action"] == "take"} == {P, T}
    choose(s, action="take", pile=P)
    assert hand_kinds(s, GREEN) == [PRINCE, SCHOLAR]
    assert s.events(GREEN)[-1]["card"]["kind"] == PRINCE and "card" not in s.events(RED)[-1]
    assert not matching(s, action="place")
    choose(s, action="take", pile=P)
    choose(s, action="stop")
    assert hand_kinds(s, GREEN) == [PRIEST, PRINCE, SCHOLAR]
    assert s.piles[GREEN][2] and s.piles[GREEN][1] == []


def test_r15_passive_seats_may_each_play_a_scholar_and_exchange() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [SCHOLAR, SCHOLAR], RED: [SCHOLAR, PRIEST]})
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="stop")
    assert s.current_player() == RED and s.decision()["kind"] == "react"  # Yellow holds no scholar: passes
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="place", card=PRIEST, pile=W)
    assert s.current_player() == GREEN and s.decision()["kind"] == "turn"
    assert [e["seat"] for e in s.events(None) if e["type"] == "pass"] == [YELLOW, BLUE]


def test_r16_second_scholar_ends_the_turn_later_seats_react_then_the_turn_ends() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [SCHOLAR, ARTIST], YELLOW: [SCHOLAR, SCHOLAR],
                                                       RED: [SCHOLAR, SCHOLAR]}, draw_top=[PRIEST])
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="stop")
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="stop")
    assert s.decision()["kind"] == "end_turn_offer" and s.options()[0] == {"action": "decline"}
    choose(s, action="play_second", card=SCHOLAR)
    assert hand_kinds(s, YELLOW) == [PRIEST]
    assert s.current_player() == RED and s.decision()["kind"] == "react"
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="stop")
    # Red may not end the turn a second time: its offer has only "decline" and is not asked.
    assert s.active == YELLOW and s.turn == 2


def test_r16_second_artist_ends_the_turn() -> None:
    s = position(3, active=GREEN, hands={GREEN: [ARTIST, WARRIOR], RED: [ARTIST, ARTIST]})
    choose(s, action="play", card=ARTIST)
    choose(s, action="stop")
    choose(s, action="play", card=ARTIST)
    choose(s, action="stop")
    choose(s, action="play_second", card=ARTIST)
    assert s.active == YELLOW


def test_r17_artist_discards_up_to_three_then_draws_as_many() -> None:
    s = position(4, active=GREEN, hands={GREEN: [ARTIST, PRIEST, PRIEST, PRIEST, PRIEST]},
                 draw_top=[WARRIOR, WARRIOR, WARRIOR, PRINCE])
    choose(s, action="play", card=ARTIST)
    for _ in range(3):
        choose(s, action="discard", card=PRIEST)
    assert hand_kinds(s, GREEN) == [PRIEST, WARRIOR, WARRIOR, WARRIOR]
    assert [e["count"] for e in s.events(None) if e["type"] == "draw"] == [3]


def test_r17_artist_may_stop_early() -> None:
    s = position(4, active=GREEN, hands={GREEN: [ARTIST, PRIEST, PRINCE]}, draw_top=[WARRIOR])
    choose(s, action="play", card=ARTIST)
    choose(s, action="discard", card=PRINCE)
    choose(s, action="stop")
    assert hand_kinds(s, GREEN) == [PRIEST, WARRIOR]


# --- 18-19: contests and seals --------------------------------------------------------------------------------------
def test_r18_contest_needs_two_cards_of_the_kind() -> None:
    s = position(4, active=GREEN, hands={GREEN: [PRIEST, PRINCE, PRINCE]})
    assert not matching(s, action="play", card=PRIEST)
    assert matching(s, action="play", card=PRINCE)


def test_r18_rulebook_example_prince_contest_on_wontong() -> None:
    """Yellow opens with 2 more princes; Green has none; Red shows 3; Blue shows 4 and keeps the chip."""
    s = position(4, active=YELLOW, dalang_on=W, prince={W: BLUE},
                 hands={YELLOW: [PRINCE] * 3, GREEN: [PRIEST], RED: [PRINCE] * 3, BLUE: [PRINCE] * 4})
    choose(s, action="play", card=PRINCE)
    assert [o["count"] for o in s.options()] == [1, 2]
    choose(s, action="show", count=2)
    assert s.current_player() == RED and [o.get("count") for o in s.options()] == [None, 3]
    choose(s, action="show", count=3)
    assert s.decision() == {"kind": "contest_respond", "seat": BLUE, "active": YELLOW, "chip": PRINCE,
                            "highest": 3, "leader": RED}
    choose(s, action="show", count=4)
    shows = [(e["seat"], e["count"]) for e in s.events(None) if e["type"] == "show"]
    assert shows == [(YELLOW, 2), (RED, 3), (BLUE, 4)]
    assert [e["seat"] for e in s.events(None) if e["type"] == "pass"] == [GREEN]
    assert s.prince[3] == BLUE and s.view(GREEN)["chips"][W]["prince"] == BLUE
    assert hand_kinds(s, YELLOW) == [PRINCE, PRINCE] and len(s.hands[BLUE]) == 4 and len(s.hands[RED]) == 3
    assert s.current_player() == YELLOW and s.decision()["kind"] == "turn"


def test_r18_active_player_wins_when_no_one_shows_more() -> None:
    s = position(4, active=GREEN, dalang_on=P, priest={P: RED}, hands={GREEN: [PRIEST] * 3, RED: [PRIEST] * 2})
    choose(s, action="play", card=PRIEST)
    choose(s, action="show", count=2)
    assert s.priest[1] == GREEN


def test_r18_with_three_players_an_absent_chip_enters_by_contest() -> None:
    s = position(3, active=RED, dalang_on=T, priest={}, hands={RED: [PRIEST, PRIEST]})
    assert s.priest[2] == -1
    choose(s, action="play", card=PRIEST)
    assert s.priest[2] == RED


def test_r19_both_chips_in_one_village_take_the_seal_even_from_another_seat() -> None:
    s = position(4, active=GREEN, dalang_on=K, prince={K: GREEN}, priest={K: BLUE}, seals={K: RED},
                 hands={GREEN: [PRIEST, PRIEST]})
    choose(s, action="play", card=PRIEST)
    assert s.seals[0] == GREEN
    seal = [e for e in s.events(None) if e["type"] == "seal"]
    assert seal == [{"type": "seal", "island": K, "seat": GREEN, "from": RED}]


def test_r19_nobody_is_null_in_events_as_in_the_view() -> None:
    """A chip off the board and a seal in the supply are null in the chip and seal events, as in the view."""
    s = position(3, active=RED, dalang_on=T, prince={T: RED}, priest={}, hands={RED: [PRIEST, PRIEST]})
    assert s.view(GREEN)["chips"][T]["priest"] is None and s.view(GREEN)["seals"][T] is None
    choose(s, action="play", card=PRIEST)
    chip, seal = ([e for e in s.events(None) if e["type"] == kind] for kind in ("chip", "seal"))
    assert chip == [{"type": "chip", "chip": PRIEST, "island": T, "seat": RED, "from": None}]
    assert seal == [{"type": "seal", "island": T, "seat": RED, "from": None}]
    assert s.view(GREEN)["seals"][T] == RED


def test_r22_a_finished_game_still_names_the_active_seat_in_its_decision() -> None:
    s = position(4, active=GREEN, dalang_on=K, prince={P: GREEN}, masks_left=[4], hands={GREEN: [dalang(K, P)]})
    choose(s, action="play", card="dalang", target=P)
    while not s.is_terminal():
        s.apply(0)
    assert s.decision() == {"kind": "game_over", "seat": None, "active": GREEN}


def test_r19_a_seal_is_kept_without_the_chips_until_someone_holds_both() -> None:
    s = position(4, active=GREEN, dalang_on=K, prince={K: RED}, priest={K: BLUE}, seals={K: YELLOW},
                 hands={GREEN: [PRIEST, PRIEST]})
    choose(s, action="play", card=PRIEST)
    assert s.seals[0] == YELLOW and s.priest[0] == GREEN


# --- 20-21: Dalang cards and scoring --------------------------------------------------------------------------------
def test_r20_target_is_one_of_the_cards_islands_but_not_the_active_island() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [dalang(K, P), dalang(T, W)]})
    targets = sorted(o["target"] for o in s.options() if o.get("card") == "dalang")
    assert targets == [P, T, W]


def test_r20_rulebook_example_blue_to_kukusch_blocked_by_yellow() -> None:
    s = position(4, active=BLUE, dalang_on=W, prince={K: BLUE},
                 hands={BLUE: [dalang(K, T), SCHOLAR], YELLOW: [dalang(K, P)], RED: [dalang(K, W)],
                        GREEN: [PRIEST]})
    choose(s, action="play", card="dalang", target=K)
    assert s.current_player() == YELLOW  # Green holds no Kukusch card
    assert s.options() == [{"action": "pass"}, {"action": "block", "card": "dalang", "islands": [K, P]}]
    choose(s, action="block")
    assert s.dalang == 3 and s.current_player() == BLUE and s.decision()["kind"] == "turn"
    assert len(s.hands[RED]) == 1  # after the first block no one else is asked
    assert [e["type"] for e in s.events(None)] == ["play", "pass", "play", "block"]
    choose(s, action="end_turn")
    assert s.active == GREEN


def test_r21_no_scoring_everyone_picks_up_the_whole_pile_and_the_active_player_goes_on() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: RED}, priest={K: BLUE},
                 hands={GREEN: [dalang(K, T), PRIEST, SCHOLAR], YELLOW: [ARTIST]},
                 piles={(GREEN, K): [WARRIOR] * 6, (YELLOW, K): [PRINCE] * 5})
    choose(s, action="play", card="dalang", target=K)
    assert s.decision() == {"kind": "arrange_pile", "seat": GREEN, "active": GREEN, "island": W, "placed": 0}
    choose(s, action="arrange", card=SCHOLAR)  # the priest follows on its own
    assert [c["kind"] for c in s.view(GREEN)["piles"][W]] == [SCHOLAR, PRIEST]
    assert s.dalang == 0 and s.active == GREEN and s.decision()["kind"] == "turn"
    assert hand_kinds(s, GREEN) == [WARRIOR] * 6 and hand_kinds(s, YELLOW) == [PRINCE] * 5
    assert len(s.piles[YELLOW][3]) == 1 and "draw" not in event_types(s)
    assert not s.masks_won[GREEN]


def test_r21_rulebook_example_red_moves_to_tschakkalag_with_both_chips() -> None:
    s = position(4, active=RED, dalang_on=P, prince={T: RED}, priest={T: RED},
                 hands={RED: [dalang(P, T), dalang(T, W), SCHOLAR], YELLOW: [dalang(K, T), ARTIST],
                        GREEN: [PRIEST, PRIEST], BLUE: [WARRIOR]},
                 piles={(RED, T): [PRIEST, PRINCE, ARTIST], (BLUE, T): [PRINCE, PRINCE, SCHOLAR, WARRIOR,
                                                                         PRIEST, PRIEST],
                        (GREEN, T): [SCHOLAR] * 4},
                 draw_top=[ARTIST, ARTIST, WARRIOR, WARRIOR, WARRIOR])
    choose(s, action="play", card="dalang", islands=[P, T], target=T)
    assert s.current_player() == YELLOW  # Blue and Green hold no Tschakkalag card
    choose(s, action="block")
    choose(s, action="play", card="dalang", target=T)
    arranged = [e["seat"] for e in s.events(None) if e["type"] == "pile_down"]
    assert arranged == [RED, BLUE, GREEN, YELLOW]
    scoring = [e for e in s.events(None) if e["type"] == "scoring"]
    assert scoring[0]["masks"] == [{"seat": RED, "value": 1}]
    assert s.masks_won[RED] == [1]
    pickups = {e["seat"]: e["count"] for e in s.events(None) if e["type"] == "pick_up"}
    assert pickups == {RED: 3, BLUE: 4, GREEN: 4, YELLOW: 0}
    blue_discard = [e for e in s.events(None) if e["type"] == "discard" and e["seat"] == BLUE]
    assert [c["kind"] for c in blue_discard[0]["cards"]] == [PRIEST, PRIEST]  # the top 2 of 6
    assert s.active == BLUE and s.turn == 2
    draws = [(e["seat"], e["count"]) for e in s.events(None) if e["type"] == "draw"]
    assert draws == [(BLUE, 2), (GREEN, 1), (YELLOW, 1), (RED, 1)]
    assert hand_kinds(s, YELLOW) == [WARRIOR]  # continued with 0 cards, then drew 1
    assert hand_kinds(s, BLUE) == sorted([PRINCE, PRINCE, SCHOLAR, WARRIOR, ARTIST, ARTIST])


def test_r21_one_chip_each_the_other_seat_takes_the_lowest_mask_the_active_the_next() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: GREEN}, priest={K: RED}, masks_left=[3, 1, 2, 4],
                 hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    assert s.masks_won[RED] == [1] and s.masks_won[GREEN] == [2]
    assert s.active == YELLOW


def test_r21_one_chip_alone_on_the_island_takes_the_lowest_mask() -> None:
    s = position(3, active=GREEN, dalang_on=W, prince={K: GREEN}, masks_left=[2, 3], hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    assert s.masks_won[GREEN] == [2]


def test_r21_r22_last_mask_goes_to_the_active_player_and_ends_the_game() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: GREEN}, priest={K: RED}, masks_left=[4],
                 hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    assert s.masks_won[GREEN] == [4] and s.masks_won[RED] == []
    assert s.is_terminal() and s.current_player() is None


def test_r21_moving_without_own_chip_on_the_target_is_no_scoring() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: RED}, priest={K: RED},
                 hands={GREEN: [dalang(K, W)]}, piles={(GREEN, K): [SCHOLAR]})
    choose(s, action="play", card="dalang", target=K)
    assert not any(s.masks_won) and s.active == GREEN


def test_r21_scoring_makes_fled_seats_present_and_ends_the_turn() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: GREEN}, absent=[RED], hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    assert s.view(0)["fled"] == [] and s.active == YELLOW


def test_r22_highest_score_wins_and_the_ender_wins_a_tie_for_first() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: GREEN}, seals={P: RED}, masks_left=[3],
                 hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    r = s.result()
    assert r.scores == (3, 0, 3, 0)
    assert r.ranks == (1, 3, 2, 3) and not r.cut_short


def test_r22_ties_below_the_top_are_shared() -> None:
    s = position(4, active=GREEN, dalang_on=W, prince={K: GREEN}, seals={P: RED, T: BLUE}, masks_left=[1],
                 hands={GREEN: [dalang(K, W)]})
    choose(s, action="play", card="dalang", target=K)
    assert s.result().ranks == (3, 4, 1, 1)


# --- 23: views ------------------------------------------------------------------------------------------------------
def test_r23_a_seat_knows_the_cards_it_put_on_its_piles_and_not_the_rest() -> None:
    s = position(4, active=GREEN, dalang_on=K, hands={GREEN: [SCHOLAR, PRINCE, SCHOLAR]},
                 piles={(GREEN, P): [WARRIOR, WARRIOR]})
    choose(s, action="play", card=SCHOLAR)
    choose(s, action="place", card=PRINCE, pile=P)
    choose(s, action="stop")
    view = s.view(GREEN)
    assert view["piles"][P] == [None, None, {"id": s.piles[GREEN][1][2], "kind": PRINCE}]
    assert s.view(RED)["pile_sizes"][GREEN][P] == 3
    assert "piles" in s.view(RED) and s.view(RED)["piles"][P] == []


def test_r23_view_fields_are_what_a_seat_may_know() -> None:
    s = GAME.new_state(4, 8)
    view = s.view(2)
    assert set(view) == {
        "game", "seat", "num_players", "turn", "max_turns", "active", "start_player", "start_cards", "dalang",
        "hand", "piles", "hand_sizes", "pile_sizes", "draw_pile", "discard", "chips", "seals", "masks_left",
        "masks", "scores", "fled", "decision"}
    assert [c["id"] for c in view["hand"]] == s.hands[2]
    assert view["hand_sizes"] == [len(h) for h in s.hands]
    assert view["draw_pile"] == len(s.draw_pile)


def test_r23_events_show_hidden_cards_only_to_their_owner() -> None:
    rng = random.Random(4)
    for seed in range(30):
        s = GAME.new_state(4, seed)
        while not s.is_terminal():
            s.apply(rng.randrange(len(s.options())))
        public = s.events(None)
        for event in public:
            if event["type"] in ("play", "discard"):
                continue
            assert "card" not in event and "cards" not in event, event
        for seat in range(4):
            for mine, spectator in zip(s.events(seat), public):
                if mine != spectator:
                    assert mine["seat"] == seat and mine["type"] in ("draw", "place", "take", "pick_up",
                                                                     "pile_down")


# --- 24: safeguard --------------------------------------------------------------------------------------------------
def test_r24_max_turns_ends_the_game_scored_as_it_stands_without_tie_break() -> None:
    s = position(4, active=GREEN, hands={GREEN: [SCHOLAR]}, seals={K: GREEN, P: BLUE}, turn=5,
                 options={"max_turns": 5})
    choose(s, action="end_turn")
    assert s.is_terminal()
    r = s.result()
    assert r.cut_short and r.ranks == (1, 3, 3, 1) and "max_turns" in r.reason
    assert s.turn == 5


def test_r24_every_game_ends_within_max_turns() -> None:
    for seed in range(20):
        s = GAME.new_state(3, seed, {"max_turns": 3})
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(rng.randrange(len(s.options())))
        assert s.turn <= 3
