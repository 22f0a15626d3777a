"""The long-lived ladder: opened once, its field entered only when it changes (a retired bot no longer seated, the
roster never read again), each bot's fault streak counted as its games are stored; the Runner plays fixed
schedules only. Real games of real bot processes, stored in a real SQLite file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots.entrants import Entrant
from arena.bots.sandbox import Isolation, Sandbox
from arena.errors import ConfigError
from arena.storage import Store
from arena.tournament.formats import Ladder as LadderFormat
from arena.tournament.formats import RoundRobin, TournamentSpec
from arena.tournament.formats.base import Play
from arena.tournament.ladder import Ladder
from arena.tournament.run import Runner

pytestmark = pytest.mark.slow

RANDOM = (sys.executable, "-m", "sample_bots.random_bot")
CRASHES = (sys.executable, "-c", "import sys; sys.exit(3)")  # faults at its first word: disqualified every game


def spec(entrants: tuple[Entrant, ...], fmt=LadderFormat(), **settings) -> TournamentSpec:
    return TournamentSpec(Play(game="bali-2017", sandbox=Sandbox(Isolation.NONE)), fmt, entrants, 2, wave=2, seed=3,
                          **settings)


def counting(monkeypatch: pytest.MonkeyPatch, *methods: str) -> dict[str, int]:
    """Count the calls of these Store methods from now on."""
    calls = dict.fromkeys(methods, 0)
    for method in methods:
        real = getattr(Store, method)

        def counted(self: Store, *args, _real=real, _method=method, **kwargs):
            calls[_method] += 1
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Store, method, counted)
    return calls


def test_a_retired_bot_is_no_longer_seated_and_the_roster_is_never_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = (Entrant(name, RANDOM) for name in "abc")
    with Store(tmp_path / "arena.sqlite") as store:
        ladder = Ladder(store, spec((a, b, c)), tmp_path, time_limit=60)
        try:
            ladder.play(games=4)
            calls = counting(monkeypatch, "roster", "update_roster", "tournaments", "recorded_count")
            ladder.enter([a, b])  # c retires
            ladder.play(games=4)
            ladder.enter([a, b])  # the same field: nothing read, nothing written
            ladder.play(games=4)
            seen = dict(calls)
        finally:
            ladder.close()
        games = store.games(ladder.tournament.id)
        roster = store.roster(ladder.tournament.id)
    assert seen == {"roster": 0, "update_roster": 1, "tournaments": 0, "recorded_count": 0}
    assert len(games) == 12 and ladder.recorded == 12
    assert all("c" not in (s.bot for s in g.seats) for g in games[4:])
    assert [key for key, _, _, retired in roster if retired] == ["c"]


def test_a_fault_streak_is_counted_as_the_games_are_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    field = (Entrant("good", RANDOM), Entrant("bad", CRASHES), Entrant("fine", RANDOM))
    with Store(tmp_path / "arena.sqlite") as store:
        ladder = Ladder(store, spec(field, max_games=12), tmp_path)
        try:
            assert [ladder.fault_streak(bot, "", 5) for bot in ("good", "bad", "fine")] == [0, 0, 0]
            calls = counting(monkeypatch, "faulty_streak")
            ladder.play()
            counted = {bot: ladder.fault_streak(bot, "", 5) for bot in ("good", "bad", "fine")}
        finally:
            ladder.close()
        assert calls == {"faulty_streak": 0}  # read once each, before: then counted as games were stored
        tid = ladder.tournament.id
        bad_games = sum("bad" in (s.bot for s in g.seats) for g in store.games(tid))
        assert bad_games >= 2
        assert counted == {"good": 0, "bad": bad_games, "fine": 0}
        assert store.faulty_streak(tid, "bad", 99) == bad_games  # as a look through the store finds it
        assert ladder.fault_streak("unknown", "", 5) == 0


def test_the_runner_refuses_a_ladder_before_storing_anything(tmp_path: Path) -> None:
    entrants = (Entrant("a", RANDOM), Entrant("b", RANDOM))
    with Store(tmp_path / "arena.sqlite") as store:
        with pytest.raises(ConfigError, match="arena.tournament.ladder.Ladder"):
            Runner(spec(entrants, max_games=4), store, tmp_path).run()
        assert store.tournaments() == []
        Runner(spec(entrants, fmt=RoundRobin()), store, tmp_path).run()  # a fixed schedule it plays
        assert store.recorded_count(store.tournament().id) == 2
