"""The choice of a bot's playing version in a real store: one admitted version per bot, swapped in one step."""

from __future__ import annotations

from pathlib import Path

from arena.storage import Store
from arena.storage.authors import Status


def _admit(store: Store, author, bot: str, version: str, folder: Path):  # type: ignore[no-untyped-def]
    s = store.add_submission(author, bot, version, str(folder))
    store.set_status(s.id, Status.ADMITTED)
    return s


def test_choosing_a_replaced_version_makes_it_the_one_admitted(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        author, _, _ = store.add_author("alice")
        first = _admit(store, author, "alicebot", "0.1", tmp_path / "a")
        second = _admit(store, author, "alicebot", "0.2", tmp_path / "b")
        assert store.submission(first.id).status == Status.RETIRED  # replaced by the newer admission
        assert store.choose_version(first.id, "replaced by version 0.1 (upload 1), chosen by its author")
        assert [s.id for s in store.current_versions()] == [first.id]
        back = store.submission(second.id)
        assert back.status == Status.RETIRED and "chosen by its author" in back.reason
        assert store.submission(first.id).reason == ""
        third = _admit(store, author, "alicebot", "0.3", tmp_path / "c")  # a new admission plays, as before
        assert [s.id for s in store.current_versions()] == [third.id]


def test_a_version_never_admitted_or_a_retired_bot_is_not_chosen(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        author, _, _ = store.add_author("alice")
        first = _admit(store, author, "alicebot", "0.1", tmp_path / "a")
        refused = store.add_submission(author, "alicebot", "0.2", str(tmp_path / "b"))
        store.set_status(refused.id, Status.REFUSED, "its first game")
        assert not store.choose_version(refused.id, "")
        assert [s.id for s in store.current_versions()] == [first.id]
        second = _admit(store, author, "alicebot", "0.3", tmp_path / "c")
        store.retire_bot("alicebot")
        assert not store.choose_version(first.id, "")
        assert store.current_versions() == [] and store.submission(second.id).status == Status.RETIRED


def test_the_games_a_bot_page_counts_are_the_ones_its_full_statistics_count(tmp_path: Path) -> None:
    """games_played (one bot's keys, counted alone) agrees with bot_stats (every entrant's figures) for each
    key, failed games and other bots' games left out."""
    import random

    from arena.bots.entrants import Entrant
    from arena.storage import StoredGame

    names = ("a", "a@2", "b", "c")
    rng = random.Random(7)
    with Store(tmp_path / "arena.sqlite") as store:
        t = store.open_tournament("t", "bali-2017", "ladder", {}, [Entrant(n, (n,)) for n in names])
        games = []
        for seq in range(60):
            seated = tuple(rng.sample(names, 2))
            games.append(StoredGame(seq, seq, seq, seated, "failed" if seq % 7 == 0 else "done", "end", (1, 2),
                                    (1, 2)))
        store.record_games(t.id, games)
        full = {key: int(stats["games"]) for key, stats in store.bot_stats(t.id).items()}
        assert store.games_played(t.id, ["a", "a@2"]) == {k: full[k] for k in ("a", "a@2") if full[k]}
        assert store.games_played(t.id, ["nobody"]) == {}
        assert sum(full.values()) == 2 * sum(1 for g in games if g.status == "done")
