"""The conformance suite: every registered game must pass it (docs/ARCHITECTURE.md, "The game interface")."""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack
import pytest

from arena.games import Game, GameError, GameInvariantError, available, get_game
from tests.games.adapters import adapter_for

GAMES = available()
# Random playouts per configuration: enough in the default run to catch a lost card or a stuck game (a broken engine
# fails within the first few dozen), the full count under `pytest -m soak`.
DEFAULT_PLAYOUTS = 200
SOAK_PLAYOUTS = 2000
# The long game's playouts (several seconds each) are slow tests; the quick run plays the short game's.
SLOW_PLAYOUTS = frozenset({("bali-2001", 0), ("bali-2001", 1)})


def _play(game: Game, n: int, seed: int, options: Any = None, steps: int | None = None,
          check: Any = None) -> Any:
    state = game.new_state(n, seed, options)
    rng = random.Random(seed * 7919 + n)
    count = 0
    while not state.is_terminal() and (steps is None or count < steps):
        if check:
            check(state)
        state.apply(rng.randrange(len(state.options())))
        count += 1
    if check:
        check(state)
    return state


@pytest.mark.parametrize("name", GAMES)
def test_every_game_has_an_adapter(name: str) -> None:
    adapter_for(name)


def _playout_cases(slow: frozenset[tuple[str, int]] = frozenset()) -> list[Any]:
    """Every configuration of every game, (game, index in its adapter's configs); those in slow are slow tests."""
    cases = [(name, i) for name in GAMES for i in range(len(adapter_for(name).configs()))]
    return [pytest.param(*case, marks=[pytest.mark.slow] if case in slow else []) for case in cases]


def _random_playouts(name: str, config: int, games: int) -> None:
    """Play `games` seeded random games of one configuration, checking conservation after every step."""
    game, adapter = get_game(name), adapter_for(name)
    n, options = adapter.configs()[config]

    def check(state: Any) -> None:
        inventory = adapter.inventory(state)
        for key, expected in adapter.expected_inventory(state).items():
            assert sorted(inventory[key]) == expected, f"{key} not each in exactly one place"
        assert adapter.totals(state) == first_totals
        if not state.is_terminal():
            assert state.options(), "a pending decision must offer at least one option"
            assert state.current_player() is not None

    for seed in range(games):
        state = game.new_state(n, seed, options)
        first_totals = adapter.totals(state)
        state = _play(game, n, seed, options, check=check)
        assert state.is_terminal() and state.current_player() is None
        result = state.result()
        assert len(result.scores) == len(result.ranks) == n
        assert min(result.ranks) == 1


# One test per configuration, so that the playouts spread over the test workers.
@pytest.mark.parametrize("name, config", _playout_cases(SLOW_PLAYOUTS))
def test_random_playouts_conserve_components_and_end(name: str, config: int) -> None:
    _random_playouts(name, config, DEFAULT_PLAYOUTS)


@pytest.mark.soak
@pytest.mark.parametrize("name, config", _playout_cases())
def test_many_random_playouts_conserve_components_and_end(name: str, config: int) -> None:
    _random_playouts(name, config, SOAK_PLAYOUTS)


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_and_choices_give_the_same_game(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    for n, options in adapter.configs():
        for seed in (1, 2, 3):
            a, b = _play(game, n, seed, options), _play(game, n, seed, options)
            assert a.to_dict() == b.to_dict()
            assert a.result() == b.result()
        assert _play(game, n, 1, options, steps=5).to_dict() != _play(game, n, 2, options, steps=5).to_dict()


@pytest.mark.parametrize("name", GAMES)
def test_round_trip_is_exact_and_plays_on_identically(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    for n, options in adapter.configs():
        for seed in range(5):
            state = _play(game, n, seed, options, steps=40 * (seed + 1))
            d = state.to_dict()
            copy = game.state_from_dict(json.loads(json.dumps(d)))
            assert copy.to_dict() == d
            msgpack.unpackb(msgpack.packb(d), strict_map_key=False)
            rng = random.Random(seed)
            while not state.is_terminal():
                i = rng.randrange(len(state.options()))
                state.apply(i)
                copy.apply(i)
            assert copy.to_dict() == state.to_dict()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [-1, "LEN", "0", 1.0, True, None])
def test_apply_with_a_bad_index_raises_and_changes_nothing(name: str, bad: Any) -> None:
    game, adapter = get_game(name), adapter_for(name)
    for n, options in adapter.configs()[:2]:
        state = _play(game, n, 11, options, steps=30)
        before = state.to_dict()
        index = len(state.options()) if bad == "LEN" else bad
        with pytest.raises(GameError):
            state.apply(index)
        assert state.to_dict() == before


@pytest.mark.parametrize("name", GAMES)
def test_finished_game_refuses_moves(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    n, options = adapter.configs()[0]
    state = _play(game, n, 5, options)
    before = state.to_dict()
    with pytest.raises(GameError):
        state.apply(0)
    assert state.to_dict() == before


@pytest.mark.parametrize("name", GAMES)
def test_views_options_and_events_are_plain_msgpack_data(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    for n, options in adapter.configs():
        state = game.new_state(n, 3, options)
        rng = random.Random(3)
        for _ in range(200):
            if state.is_terminal():
                break
            seat = state.current_player()
            payload = {"view": state.view(seat), "options": state.options(), "decision": state.decision(),
                       "events": state.events(seat)}
            assert msgpack.unpackb(msgpack.packb(payload), strict_map_key=False) == json.loads(json.dumps(payload))
            assert "kind" in payload["decision"]
            state.apply(rng.randrange(len(payload["options"])))


@pytest.mark.parametrize("name", GAMES)
def test_a_view_is_its_public_part_and_the_seats_own_part(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    for n, options in adapter.configs():
        state = game.new_state(n, 5, options)
        rng = random.Random(5)
        for _ in range(150):
            public = state.public_view()
            for seat in range(n):
                own = state.private_view(seat)
                assert not set(own) & set(public), "a key in both parts would be silently overwritten"
                assert state.view(seat) == {**public, **own}
            versions = state.event_versions()
            assert [public if private is None else private for public, _, private in versions] == \
                state.referee_events()
            for seat in range(n):
                assert [private if who == seat and private is not None else public
                        for public, who, private in versions] == state.events(seat)
            if state.is_terminal():
                break
            state.apply(rng.randrange(len(state.options())))


@pytest.mark.parametrize("name", GAMES)
def test_changing_hidden_information_leaves_the_view_unchanged(name: str) -> None:
    game, adapter = get_game(name), adapter_for(name)
    rng = random.Random(99)
    checked = 0
    for n, options in adapter.configs():
        for seed in range(12):
            state = _play(game, n, seed, options, steps=rng.randrange(0, 400))
            d = state.to_dict()
            for seat in range(n):
                perturbed = game.state_from_dict(adapter.perturb_hidden(d, seat, rng))
                assert perturbed.view(seat) == state.view(seat)
                assert perturbed.events(seat) == state.events(seat)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", GAMES)
def test_bad_setup_arguments_raise_game_errors_naming_the_field(name: str) -> None:
    game = get_game(name)
    with pytest.raises(GameError, match="players"):
        game.new_state(game.max_players + 1, 0)
    with pytest.raises(GameError, match="players"):
        game.new_state(game.min_players - 1, 0)
    with pytest.raises(GameError, match="seed"):
        game.new_state(game.min_players, "seven")  # type: ignore[arg-type]
    with pytest.raises(GameError, match="no_such_option"):
        game.new_state(game.min_players, 0, {"no_such_option": 1})
    with pytest.raises(GameError):
        game.state_from_dict({"game": name})
    with pytest.raises(GameError, match="seat"):
        game.new_state(game.min_players, 0).view(game.max_players)
    with pytest.raises(GameError, match="not over"):
        game.new_state(game.min_players, 0).result()


@pytest.mark.parametrize("name", GAMES)
def test_a_damaged_saved_state_is_a_game_error(name: str) -> None:
    game = get_game(name)
    d = _play(game, game.min_players, 4, None, steps=20).to_dict()
    for damaged in ({**d, "num_players": "three"}, {**d, "rng": "lost"}, {**d, "pending": {"phase": 99}},
                    {**d, "log": 7}, {**d, "turn": "x"}, {k: v for k, v in d.items() if k != "active"},
                    {**d, "options": {"no_such_option": 1}}):
        with pytest.raises(GameError):
            game.state_from_dict(damaged)


@pytest.mark.parametrize("name", GAMES)
def test_a_broken_invariant_is_not_reported_as_bad_input(name: str) -> None:
    """An engine bug surfaces as GameInvariantError, which is no ValueError, so no caller mistakes it for bad input."""
    game = get_game(name)
    state, rng = game.new_state(game.max_players, 2), random.Random(2)
    while not any(option["action"] == "play" for option in state.options()):
        state.apply(rng.randrange(len(state.options())))
    plays = [i for i, option in enumerate(state.options()) if option["action"] == "play"]
    for hand in state.hands:
        hand.clear()  # behind the engine's back: the card to be played is gone
    with pytest.raises(GameInvariantError) as caught:
        state.apply(plays[0])
    assert not isinstance(caught.value, ValueError)
