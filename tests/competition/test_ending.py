"""A served season's end: when it is, and the finals settings a season refuses before it starts."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from arena.competition import ending
from arena.errors import ConfigError
from tests.helpers import arena

UTC = datetime.timezone.utc


@pytest.mark.parametrize("given, moment", [
    # A date is the season's last day: it ends at the next midnight UTC.
    ("2026-05-31", datetime.datetime(2026, 6, 1, tzinfo=UTC)),
    (datetime.date(2026, 12, 31), datetime.datetime(2027, 1, 1, tzinfo=UTC)),
    ("2026-05-31T18:30", datetime.datetime(2026, 5, 31, 18, 30, tzinfo=UTC)),  # a moment without a zone: UTC
    ("2026-05-31T18:30:05Z", datetime.datetime(2026, 5, 31, 18, 30, 5, tzinfo=UTC)),
    ("2026-05-31T20:30+02:00", datetime.datetime(2026, 5, 31, 18, 30, tzinfo=UTC)),
    ("2026-05-31 18:30:00+00:00", datetime.datetime(2026, 5, 31, 18, 30, tzinfo=UTC)),  # as TOML's moment reads
    (None, None), ("", None),
])
def test_the_end_of_a_season_is_a_moment_in_utc(given: object, moment: datetime.datetime | None) -> None:
    assert ending.end_moment(given) == moment  # type: ignore[arg-type]


def test_an_end_that_is_no_date_names_itself() -> None:
    with pytest.raises(ConfigError, match="end: 'soon' is not a date"):
        ending.end_moment("soon")


@pytest.mark.parametrize("top, confidence, games, said", [
    (1, 0.9, 100, "finals_top: the finals need at least 2 bots"),
    (3, 1.0, 100, "finals_confidence: between 0 and 1"),
    (3, 0.0, 100, "finals_confidence: between 0 and 1"),
    (3, 0.9, 2, "finals_games: the finals play a deal in every seat rotation: give at least 3 games"),
])
def test_finals_settings_a_season_could_never_play_are_refused(top: int, confidence: float, games: int,
                                                                said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        ending.check_finals(top, confidence, games, seats=3)
    ending.check_finals(3, 0.9, 3, seats=3)  # the least it could play with


def test_the_stored_finals_confidence_is_read_back_from_its_test() -> None:
    from arena.ratings.order import finals_settings

    for k, c in ((2, 0.9), (4, 0.95), (8, 0.99)):
        assert ending.confidence_of({"sprt": finals_settings(c, k).to_dict()}, k) == pytest.approx(c)


@pytest.mark.parametrize("args, said", [
    (("--end", "whenever"), "end: 'whenever' is not a date"),
    (("--finals-games", "2"), "finals_games: the finals play a deal in every seat rotation"),
    (("--finals-top", "1"), "--finals-top"),
    (("--finals-confidence", "1"), "--finals-confidence"),
])
def test_bad_finals_settings_of_arena_serve_are_one_line_usage_errors(tmp_path: Path, args: tuple[str, ...],
                                                                      said: str) -> None:
    r = arena("serve", "bali-2001", "--port", "0", "--sandbox", "none", "--results", str(tmp_path / "r"), *args,
              cwd=tmp_path)
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_competition_files_serve_table_takes_the_end_and_the_finals(tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    config.write_text('game = "bali-2001"\n[serve]\nend = 2026-05-31T18:30:00Z\nfinals_top = 1\n')
    r = arena("serve", "--config", str(config), "bali-2001", "--port", "0", "--sandbox", "none", "--results",
              str(tmp_path / "r"), cwd=tmp_path)
    # The file's finals_top is read (and refused as the option would be), its moment of an end taken.
    assert r.returncode == 2 and "finals-top" in r.stderr.replace("finals_top", "finals-top"), r.stderr


def test_the_final_table_asks_for_no_store_before_the_season_ends(tmp_path: Path) -> None:
    """The front page asks for the final table at every request: before the end it costs no connection."""
    from arena.competition.season import SeasonSettings
    from arena.storage import Store
    from arena.tournament.formats.base import Play

    def refused() -> Store:
        raise AssertionError("a store was asked for before the season ended")

    later = datetime.datetime.now(UTC) + datetime.timedelta(days=1)
    for ends in (None, later):
        settings = SeasonSettings(play=Play(game="bali-2001"), name="s", results_dir=tmp_path, db=tmp_path / "db",
                                  ends=ends)
        assert ending.FinalTable(settings).table(refused) is None
    ended = SeasonSettings(play=Play(game="bali-2001"), name="s", results_dir=tmp_path, db=tmp_path / "arena.sqlite",
                           ends=datetime.datetime.now(UTC) - datetime.timedelta(days=1))
    with Store(ended.db) as store:
        assert ending.FinalTable(ended).table(lambda: store) is None  # ended, but its finals have not begun
