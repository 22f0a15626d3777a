"""Whose a name is: its first uploader's, the sample bots' no one's, and no two names that look alike, case by
case."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.competition import names
from arena.errors import ConfigError
from arena.storage import Store


def test_the_sample_bots_names_are_reserved() -> None:
    reserved = names.reserved_names("bali-2017")
    assert "random_bot" in reserved and all(name for name in reserved)


@pytest.mark.parametrize("name, owners, author, held", [
    ("alicebot", {}, "alice", None),  # no one's yet
    ("alicebot", {"alicebot": "alice"}, "alice", None),  # hers already
    ("alicebot", {"alicebot": "alice"}, "bob", ("alicebot", "alice")),  # someone else's
    ("Alicebot", {"alicebot": "alice"}, "bob", ("alicebot", "alice")),  # someone else's, in another case
    ("Alicebot", {"alicebot": "alice"}, "alice", ("alicebot", "alice")),  # hers, spelt another way: a second page
    ("alicebot.", {"alicebot": "alice"}, "bob", ("alicebot", "alice")),  # a trailing '.'
    ("alicebot_-", {"alicebot": "alice"}, "bob", ("alicebot", "alice")),  # trailing '_' and '-'
    ("alice.bot", {"alicebot": "alice"}, "bob", None),  # a '.' inside makes another name
    ("random_bot", {}, "alice", ("random_bot", names.SAMPLE_BOT)),  # a sample bot's
    ("Heuristic_bot", {}, "alice", ("heuristic_bot", names.SAMPLE_BOT)),
    ("random_bot", {"random_bot": "alice"}, "alice", ("random_bot", names.SAMPLE_BOT)),  # whoever the store says
])
def test_a_name_is_its_first_uploaders_in_every_spelling(name: str, owners: dict[str, str], author: str,
                                                         held: tuple[str, str] | None) -> None:
    assert names.taken_by(name, author, owners, {"random_bot", "heuristic_bot"}) == held


def test_a_name_looks_the_same_case_folded_and_nfkc_normalized() -> None:
    assert names.look("UIDALICE") == names.look("Uidalice") == names.look("uidalice.") == "uidalice"
    assert names.look("\uff55idalice") == "uidalice"  # a fullwidth letter, as NFKC folds it
    assert names.look("STRASSE") == names.look("straße")  # case folding, not lower()


@pytest.mark.parametrize("name, clash", [("Boss", "looks like 'boss', an author's"),
                                         ("boss-", "looks like 'boss', an author's"),
                                         ("organiser.", "looks like 'organiser', which is reserved"),
                                         ("Random_Bot", "looks like 'random_bot', which is reserved"),
                                         ("boss", "'boss' is taken")])
def test_an_author_name_like_a_taken_or_reserved_one_is_refused_naming_it(tmp_path: Path, name: str,
                                                                          clash: str) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        names.add_author(store, "boss", organiser=True)
        with pytest.raises(ConfigError, match=clash):
            names.add_author(store, name)
        assert [a.name for a in store.authors()] == ["boss"]
        names.add_author(store, "bossa")  # another name


@pytest.mark.parametrize("who, name, said", [
    ("bob", "alicebot", "the bot name 'alicebot' belongs to someone else"),
    ("bob", "AliceBot", "the bot name 'AliceBot' looks like 'alicebot', which belongs to someone else"),
    ("alice", "ALICEBOT", "looks like 'alicebot', your bot already: upload it as 'alicebot'"),
    ("bob", "random_bot", "the bot name 'random_bot' is a sample bot's"),
    ("bob", "Random_Bot-", "the bot name 'Random_Bot-' looks like 'random_bot', which is a sample bot's"),
])
def test_an_upload_under_a_name_like_a_taken_one_is_refused_naming_it(tmp_path: Path, who: str, name: str,
                                                                      said: str) -> None:
    from arena.competition.uploads import UploadRefused

    with Store(tmp_path / "arena.sqlite") as store:
        alice, _, _ = store.add_author("alice")
        bob, _, _ = store.add_author("bob")
        store.add_submission(alice, "alicebot", "1", str(tmp_path))
        with pytest.raises(UploadRefused, match=said):
            names.check_bot_name(store, {"alice": alice, "bob": bob}[who], name, {"random_bot"})
        names.check_bot_name(store, alice, "alicebot", {"random_bot"})  # hers, spelt the same: a next version
