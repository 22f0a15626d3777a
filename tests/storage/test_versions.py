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
