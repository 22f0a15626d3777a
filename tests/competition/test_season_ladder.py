"""A served season is one long-lived ladder: each wave takes in the games stored since the last, never the whole
history, and its ratings are those of every game rated in order, across a restart too. Real games of the sample
bots, in worker processes, stored in a real SQLite file."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.sandbox import Isolation, Sandbox
from arena.competition import admissions
from arena.competition.season import Season, SeasonSettings, pause_reason
from arena.ratings.trueskill import RatingConfig, rate_all
from arena.storage import Store
from arena.storage.authors import Status
from arena.tournament.formats.base import Play

pytestmark = pytest.mark.slow

SEATS, WAVE = 2, 4
PER_WAVE = SEATS * WAVE  # games a season's wave plays: `seats` ladder waves of WAVE one-game tables


def settings(tmp_path: Path) -> SeasonSettings:
    results = tmp_path / "results"
    return SeasonSettings(play=Play(game="bali-2017", sandbox=Sandbox(Isolation.NONE)), name="season",
                          results_dir=results, db=results / "arena.sqlite", seats=SEATS, wave=WAVE, seed=7)


def rated_in_full(db: Path) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]], int]:
    """The season's stored ratings, those of every stored game rated afresh in order, and how many games."""
    with Store(db) as store:
        t = next(t for t in store.tournaments() if t.name == "season")
        config = RatingConfig(**t.config["rating"])
        fresh = rate_all(config, store.each_outcome(t.id), in_order=True)
        return store.stored_ratings(t.id), {n: (r.mu, r.sigma) for n, r in fresh.table.items()}, \
            store.recorded_count(t.id)


def test_each_wave_reads_only_the_games_since_the_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = Store.outcomes

    def counted(self: Store, tid: int, first: int = 0, below: int | None = None) -> list:
        found = real(self, tid, first, below)
        reads.append(len(found))
        return found

    monkeypatch.setattr(Store, "outcomes", counted)
    season = Season(settings(tmp_path))
    read_per_wave, workers = [], []
    try:
        for _ in range(4):
            reads.clear()
            season.play_wave([])
            read_per_wave.append(sum(reads))
            workers.append(season.ladder.tables.pids() if season.ladder else [])
    finally:
        season.stop()
    # The same workers for every wave: each checks and digests a bot's folder once, not once a wave.
    assert workers[0] and all(w == workers[0] for w in workers), workers
    # What a wave reads depends on the wave alone (its own games, as they come in, and the last wave's), not on the
    # games stored before it: replaying the season would read PER_WAVE more games at every wave.
    assert max(read_per_wave[1:]) - min(read_per_wave[1:]) < PER_WAVE, read_per_wave
    stored, fresh, games = rated_in_full(settings(tmp_path).db)
    assert games == 4 * PER_WAVE
    assert stored.keys() == fresh.keys() and all(stored[n] == pytest.approx(fresh[n]) for n in fresh)


def test_a_restarted_season_goes_on_with_the_same_ratings(tmp_path: Path) -> None:
    first = Season(settings(tmp_path))
    try:
        for _ in range(2):
            first.play_wave([])
    finally:
        first.stop()
    before, _, games = rated_in_full(settings(tmp_path).db)
    again = Season(settings(tmp_path))  # a new server process: its ladder reads the season once
    try:
        again.play_wave([])
    finally:
        again.stop()
    stored, fresh, now = rated_in_full(settings(tmp_path).db)
    assert now == games + PER_WAVE  # nothing played twice, nothing lost
    assert all(stored[n] == pytest.approx(fresh[n]) for n in fresh)
    assert before.keys() <= stored.keys()


def test_the_ratings_are_stored_as_each_game_comes_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The board reads the stored ratings: a bot shown with games played must be shown rated by them.
    unrated: list[str] = []
    real = Store.record_games

    def checked(self: Store, tid: int, games: list) -> list[int]:
        played = {bot for g in self.games(tid) for bot in (s.bot for s in g.seats)}
        unrated.extend(sorted(played - self.stored_ratings(tid).keys()))
        return real(self, tid, games)

    monkeypatch.setattr(Store, "record_games", checked)
    season = Season(settings(tmp_path))
    try:
        season.play_wave([])
    finally:
        season.stop()
    assert unrated == []


def test_a_faulty_bot_sits_out_by_the_streak_the_ladder_counts_without_a_look_through_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "bad.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")  # disqualified every game
    (folder / "manifest.toml").write_text(f"name = 'bad'\nversion = '1'\ncommand = ['{sys.executable}', 'bad.py']\n",
                                          encoding="utf-8")
    s = replace(settings(tmp_path), pause_after=2)
    s.results_dir.mkdir(parents=True)
    with Store(s.db) as store:
        submission = store.add_house_submission(store.house_author(), "bad", "1", str(folder))
        assert submission is not None
        store.set_status(submission.id, Status.ADMITTED)
    built: list[Path] = []
    real = admissions.from_folder
    monkeypatch.setattr(admissions, "from_folder", lambda path: built.append(path) or real(path))
    calls = {"roster": 0, "tournaments": 0, "faulty_streak": 0}
    for method in calls:
        def counted(self: Store, *args, _real=getattr(Store, method), _method=method):
            calls[_method] += 1
            return _real(self, *args)

        monkeypatch.setattr(Store, method, counted)
    season = Season(s)
    try:
        for _ in range(3):  # the ladder thread's waves: the admitted field read, the paused left out, one wave
            season._ladder()
        before = season.games
        season._ladder()  # it sits out by now, as the ladder's own count says
        in_last = season.games - before
    finally:
        season.stop()
    assert len(built) == 1  # its manifest read and folder walked once, not once a wave
    # The roster read once, as the ladder opens; one look for the bot's streak (at its first wave with the ladder
    # open), then counted as games are stored; the tournaments never scanned.
    assert calls == {"roster": 1, "tournaments": 0, "faulty_streak": 1}
    assert pause_reason(s, submission) is not None  # as the pages, looking in the store, find it too
    with Store(s.db) as store:
        t = store.tournament("season")
        last = store.games(t.id)[-in_last:]
        assert in_last > 0 and all("bad" not in seat.bot for game in last for seat in game.seats)
        assert any(key.startswith("bad") and retired for key, _, _, retired in store.roster(t.id))
    # A restart: the first wave of a new season, before its ladder is open, leaves the paused bot out too.
    with Store(s.db) as store:
        stored = len(store.games(store.tournament("season").id))
    restarted = Season(s)
    try:
        restarted._ladder()
    finally:
        restarted.stop()
    with Store(s.db) as store:
        after = store.games(store.tournament("season").id)[stored:]
        assert after and all("bad" not in seat.bot for game in after for seat in game.seats)
