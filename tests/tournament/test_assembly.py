"""A tournament assembled by the library (arena.tournament.assembly, arena.tournament.compare): seats, rounds and
sample opponents as the command line and a competition file get them, checked before anything is stored."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import fields, replace
from pathlib import Path

import pytest

from arena.bots.entrants import Refusal
from arena.bots.sandbox import Isolation, Sandbox
from arena.errors import ConfigError
from arena.games import get_game
from arena.tournament import compare as comparison
from arena.tournament import competition_file
from arena.tournament.assembly import Intake, NoEntrants, assemble, check
from arena.tournament.formats import Gauntlet, get_format
from arena.tournament.formats.base import Play, TournamentSpec
from tests.helpers import RANDOM, arena


def test_a_lone_gauntlet_challenger_sits_with_sample_bots_at_the_largest_table_for_enough_rounds() -> None:
    assembly = assemble(Play(game="bali-2001"), get_format("gauntlet"), [f"mine={RANDOM}"])
    spec = assembly.spec
    assert isinstance(spec.fmt, Gauntlet) and spec.seats == 4 and spec.rounds == 8
    assert spec.names() == ["mine", "heuristic_bot", "random_bot", "random_bot-2"]
    assert [e.version for e in spec.entrants[1:]] == ["sample"] * 3
    assert spec.fmt.total_games(replace(spec, seed=0)) == 32 and assembly.refused == ()


def test_a_round_robin_seats_as_many_as_the_entrants_allow_and_adds_no_sample_bot() -> None:
    three = assemble(Play(game="bali-2001"), get_format("round-robin"), [f"{n}={RANDOM}" for n in "abc"]).spec
    assert (three.seats, three.rounds, three.names()) == (3, 1, ["a", "b", "c"])
    five = assemble(Play(game="bali-2017"), get_format("round-robin"), [f"{n}={RANDOM}" for n in "abcde"]).spec
    assert (five.seats, five.names()) == (4, list("abcde"))


def test_seats_rounds_and_the_other_settings_given_are_kept() -> None:
    gauntlet = get_format("gauntlet")
    spec = replace(assemble(Play(game="bali-2017"), gauntlet, [f"mine={RANDOM}"], seats=2, rounds=3).spec,
                   duplicate=True, title="Cup", seed=7)
    assert (spec.seats, spec.rounds, spec.duplicate, spec.title, spec.seed) == (2, 3, True, "Cup", 7)
    assert spec.names() == ["mine", "heuristic_bot"]
    randoms = assemble(Play(game="bali-2017"), gauntlet, [f"mine={RANDOM}"], seats=3, samples="random").spec
    assert randoms.names() == ["mine", "random_bot", "random_bot-2"]


@pytest.mark.parametrize("args, settings, error, message", [
    ((), {}, NoEntrants, "give at least one bot command or --submissions DIR"),
    ([f"{n}={RANDOM}" for n in "abc"], {"seats": 5}, ConfigError, "not 5"),
    ([f"{n}={RANDOM}" for n in "ab"], {}, ConfigError, "2 entrants cannot fill a table of 3 seats"),
    ([f"{n}={RANDOM}" for n in "abc"], {"options": {"masks": [1]}}, ConfigError, "masks"),
])
def test_what_cannot_be_played_is_refused_with_its_reason(args: list[str], settings: dict[str, object],
                                                          error: type[Exception], message: str) -> None:
    play = Play(game="bali-2001", options=settings.pop("options", None))  # type: ignore[arg-type]
    with pytest.raises(error, match=message):
        check(assemble(play, get_format("round-robin"), args, **settings).spec)  # type: ignore[arg-type]


def test_a_broken_submission_is_refused_and_told_or_with_strict_stops_the_tournament(tmp_path: Path) -> None:
    broken = tmp_path / "subs" / "broken"
    broken.mkdir(parents=True)
    (broken / "manifest.toml").write_text("name = 'broken'\ncommand = [unclosed", encoding="utf-8")
    bots, rlimit = [f"{n}={RANDOM}" for n in "abc"], Sandbox(Isolation.RLIMIT)
    told: list[Refusal] = []
    play, round_robin = Play(game="bali-2001", sandbox=rlimit), get_format("round-robin")
    assembly = assemble(play, round_robin, bots, tmp_path / "subs", intake=Intake(on_refused=told.append))
    assert assembly.spec.names() == ["a", "b", "c"]
    assert [r.name for r in assembly.refused] == ["broken"] and told == list(assembly.refused)
    with pytest.raises(ConfigError, match=r"1 submission\(s\) not admitted \(--strict\):\n  .*not valid TOML"):
        assemble(play, round_robin, bots, tmp_path / "subs", intake=Intake(strict=True))


def test_a_comparison_fills_its_table_with_sample_bots_past_the_opponents_given() -> None:
    spec = comparison.assemble(Play(game="bali-2001"), f"new={RANDOM}", f"base={RANDOM}", [f"other={RANDOM}"], seats=4,
                                max_games=100)
    assert spec.names() == ["new", "base", "other", "heuristic_bot", "random_bot"]
    smallest = comparison.assemble(Play(game="bali-2017"), RANDOM, RANDOM, max_games=100)
    assert smallest.seats == 2 and smallest.names() == ["random_bot", "random_bot-base", "heuristic_bot"]
    with pytest.raises(ConfigError, match="not 5"):
        comparison.assemble(Play(game="bali-2001"), RANDOM, RANDOM, seats=5, max_games=100)


@pytest.mark.slow
def test_a_competition_file_assembles_the_same_tournament_in_the_library_as_through_the_command(
        tmp_path: Path) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(f'game = "bali-2001"\nformat = "gauntlet"\nbots = ["mine={RANDOM}"]\nseats = 3\nrounds = 2\n'
                    'duplicate = true\ntitle = "Spring cup"\n', encoding="utf-8")
    settings = competition_file.load(file)
    assert settings.pop("name") == "spring-cup"  # the tournament's name in the store, not a setting of its spec
    play, fmt = Play(game=settings.pop("game")), get_format(settings.pop("fmt"))
    spec = replace(assemble(play, fmt, settings.pop("bots"), seats=settings.pop("seats"),
                            rounds=settings.pop("rounds")).spec, **settings)
    r = arena("tournament", "--config", str(file), "--jobs", "1", "--time-limit", "0.01", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "results" / "arena.sqlite") as con:
        stored = json.loads(con.execute("SELECT config FROM tournaments").fetchone()[0])
    chosen = ("format", "entrants", "seats", "rounds", "duplicate", "title", "game")
    assert {k: stored[k] for k in chosen} == {k: spec.identity()[k] for k in chosen}
    assert [e["name"] for e in stored["entrants"]] == ["mine", "heuristic_bot", "random_bot"]


def test_the_play_settings_are_declared_once_in_the_play_the_spec_holds() -> None:
    """The game, its options, clocks, sandbox and ratings are the Play's fields; the spec holds a Play and reads them
    from it, and its rating, where the play names none, is the game's own."""
    spec = assemble(Play(game="bali-2017"), get_format("round-robin"), [f"{n}={RANDOM}" for n in "abc"]).spec
    assert {f.name for f in fields(TournamentSpec)} & {f.name for f in fields(Play)} == set()
    assert (spec.game, spec.options, spec.time, spec.sandbox) == (spec.play.game, None, spec.play.time,
                                                                 spec.play.sandbox)
    assert spec.rating.draw_probability == get_game("bali-2017").draw_probability
