"""The search bot: its determinizers sample only worlds the view allows, a seeded search repeats itself, and it
plays whole games through the protocol without a fault and within its time."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games import GameError, get_game, sample_modules
from arena.tournament.opponents import sample_opponents
from protocol import NewGame, TimeControl
from protocol.messages import Clock
from sample_bots import determinize_2001, determinize_2017
from sample_bots.search_bot import DETERMINIZERS, SearchBot, parse_args
from tests.cli.conftest import run
from tests.helpers import quick_run

ROOT = Path(__file__).resolve().parents[2]
# Every table and variant: (game, seats, options).
CONFIGS = [("bali-2001", 3, None), ("bali-2001", 4, None)] + [
    ("bali-2017", seats, {"oracle": oracle, "demon": demon})
    for seats in (2, 3, 4) for oracle in (False, True) for demon in (False, True)]


def positions(game: str, seats: int, options: dict[str, Any] | None, games: int, share: float,
              seed: int) -> Any:
    """Random positions of random games: (state, the seat to move, its events so far), a `share` of all."""
    rng = random.Random(seed)
    rules = get_game(game)
    for number in range(games):
        state = rules.new_state(seats, seed * 1000 + number, options)
        while not state.is_terminal():
            if rng.random() < share:
                seat = state.current_player()
                yield state, seat, state.events(seat)
            state.apply(rng.randrange(len(state.legal_actions())))


def check_worlds(game: str, seats: int, options: dict[str, Any] | None, games: int, seed: int,
                 share: float = 0.2) -> int:
    """Sample worlds at random positions; each must show the seat exactly its view, the pending decision and the
    options of the real game, and play on to the end. Returns how many positions were checked."""
    rng, checked = random.Random(seed), 0
    for state, seat, events in positions(game, seats, options, games, share, seed):
        sampler = DETERMINIZERS[game](state.view(seat), events, state.opts.to_dict())
        world = sampler.sample(rng)
        assert world.view(seat) == state.view(seat)
        assert world.pending == state.pending
        assert world.options() == state.options()
        while not world.is_terminal():
            world.apply(rng.randrange(len(world.legal_actions())))
        checked += 1
    return checked


# The quick run checks one table of each game with every variant on; the others repeat the claim (slow).
QUICK = [CONFIGS[0], CONFIGS[-1]]


@pytest.mark.parametrize("config", quick_run(CONFIGS, QUICK, str))
def test_every_sampled_world_shows_the_seat_its_own_view(config: tuple[str, int, Any]) -> None:
    game, seats, options = config
    # bali-2001's games are long: a few of their positions are enough here.
    share = 0.02 if game == "bali-2001" else 0.2
    assert check_worlds(game, seats, options, games=1 if game == "bali-2001" else 3, seed=seats, share=share) > 5


@pytest.mark.slow
@pytest.mark.parametrize("game, seats, options", CONFIGS)
def test_every_sampled_world_shows_the_seat_its_own_view_over_many_games(game: str, seats: int,
                                                                          options: Any) -> None:
    assert check_worlds(game, seats, options, games=10 if game == "bali-2001" else 40, seed=100 + seats) > 200


def test_the_hidden_cards_are_dealt_differently_from_world_to_world() -> None:
    rules = get_game("bali-2001")
    state = rules.new_state(4, 3)
    sampler = determinize_2001.Determinizer(state.view(0), state.events(0), state.opts.to_dict())
    rng = random.Random(1)
    hands = {tuple(sampler.sample(rng).hands[1]) for _ in range(20)}
    assert len(hands) > 10
    assert all(card not in hand for hand in hands for card in state.hands[0])


def test_bali_2017_hands_are_known_from_the_events_and_the_deck_only_reshuffled() -> None:
    state, seat, events = next((s, x, e) for s, x, e in positions("bali-2017", 3, None, 5, 0.3, 9) if s.turn > 6)
    sampler = determinize_2017.Determinizer(state.view(seat), events, state.opts.to_dict())
    world = sampler.sample(random.Random(2))
    assert [sorted(world.kinds[c] for c in h) for h in world.hands] == \
        [sorted(state.kinds[c] for c in h) for h in state.hands]
    assert sorted(world.kinds[c] for c in world.deck) == sorted(state.kinds[c] for c in state.deck)


def test_a_view_the_events_do_not_explain_is_refused() -> None:
    state = get_game("bali-2017").new_state(3, 1)
    view = state.view(0)
    view["hand_sizes"] = [5, 5, 5]
    with pytest.raises(ValueError, match="hand"):
        determinize_2017.Determinizer(view, state.events(0), state.opts.to_dict())


def play(game: str, seats: int, bot: SearchBot, seed: int, decisions: int,
         clock: Clock = Clock(remaining=1.0, bank=0.0)) -> list[int]:
    """The bot's first `decisions` moves at seat 0 of a game against random players, as the SDK would run it."""
    state = get_game(game).new_state(seats, seed)
    bot.game = NewGame(id=1, game=game, game_index=0, options=state.opts.to_dict(), seat=0, num_players=seats,
                       seed=seed, time=TimeControl())
    bot.events, sent, rng, moves = [], 0, random.Random(seed), []
    bot.new_game(bot.game)
    while not state.is_terminal() and len(moves) < decisions:
        if state.current_player() == 0:
            bot.events.extend(state.events(0, sent))
            sent = state.num_events()
            bot.clock = clock
            index = bot.decide(state.view(0), state.options(), state.decision())
            assert 0 <= index < len(state.options())
            moves.append(index)
        else:
            index = rng.randrange(len(state.legal_actions()))
        state.apply(index)
    return moves


@pytest.mark.parametrize("game", ["bali-2001", "bali-2017"])
def test_a_seeded_search_of_a_fixed_number_of_simulations_plays_the_same_moves(game: str) -> None:
    args = ["--simulations", "12", "--rollout", "random", "--depth", "40"]
    first = play(game, 3, parse_args(args), seed=4, decisions=8)
    assert play(game, 3, parse_args(args), seed=4, decisions=8) == first
    assert len(first) == 8


def test_the_search_stays_within_its_share_of_the_decision_time() -> None:
    bot = parse_args(["--max-time", "5"])
    play("bali-2017", 2, bot, seed=1, decisions=3)
    # A decision may take 1 s here: the search stops at a quarter of it, whatever its own cap.
    assert max(bot.thinking) < 0.25 + 0.1


def test_with_a_game_clock_each_decision_takes_a_small_part_of_what_is_left_of_it() -> None:
    bot = parse_args([])
    play("bali-2017", 2, bot, seed=1, decisions=3, clock=Clock(remaining=1.0, bank=0.0, game_clock=1.0))
    # A twenty-fifth of 1 s is 0.04 s, where without a game clock it would think 0.13 s (0.15 s less its reserve).
    assert max(bot.thinking) < 0.08


def test_the_arena_and_the_protocol_import_no_sample_bot() -> None:
    imports = re.compile(r"^\s*(from|import)\s+sample_bots\b", re.M)
    for path in [*(ROOT / "arena").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")]:
        assert not imports.search(path.read_text()), f"{path} imports a sample bot"


def test_the_sample_opponents_come_from_the_registry_strongest_first() -> None:
    names = lambda level: [e.command[-1] for e in sample_opponents("bali-2001", 3, set(), level)]  # noqa: E731
    assert names("search") == ["sample_bots.search_bot", "sample_bots.heuristic_bot", "sample_bots.random_bot"]
    assert names("heuristic") == ["sample_bots.heuristic_bot"] + ["sample_bots.random_bot"] * 2
    assert names("random") == ["sample_bots.random_bot"] * 3
    with pytest.raises(GameError, match="unknown game 'chess'"):
        sample_modules("chess")


SEARCH = f"{sys.executable} -m sample_bots.search_bot"


@pytest.mark.slow
def test_validate_runs_the_search_bot_without_a_fault_and_reports_the_samples(tmp_path: Path) -> None:
    r = run("validate", f"{SEARCH} --max-time 0.05", "--game", "bali-2017", "--players", "2", "--samples",
            "heuristic", "--results", str(tmp_path), "--timeout", "0.5", "--init-timeout", "20")
    assert r.exit_code == 0, r.output
    assert "PASS: bot search_bot (handshake: 'search' version '1.0')" in r.output
    assert re.search(r"against the samples \(heuristic\): mean rank \d\.\d\d; theirs: heuristic_bot \d\.\d\d",
                     r.output)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bali-2001", "bali-2017"])
def test_validate_at_the_defaults_finds_no_fault_no_illegal_index_and_no_timeout(game: str, tmp_path: Path) -> None:
    r = run("validate", SEARCH, "--game", game, "--results", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert r.output.count(": ok:") == 4 and "PASS: bot search_bot" in r.output


@pytest.mark.slow
def test_a_gauntlet_with_the_search_samples_seats_the_search_and_the_heuristic_bot(tmp_path: Path) -> None:
    r = run("tournament", "bali-2017", f"{sys.executable} -m sample_bots.random_bot", "--format", "gauntlet",
            "--samples", "search", "--seats", "3", "--rounds", "1", "--timeout", "0.1", "--init-timeout", "20",
            "--results", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert re.search(r"^ +\d +search_bot +", r.output, re.M) and re.search(r"^ +\d +heuristic_bot +", r.output, re.M)
