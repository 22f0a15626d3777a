"""Whose a bot name is: its first uploader's, and the sample bots' no one's, case by case."""

from __future__ import annotations

import pytest

from arena.competition import names


def test_the_sample_bots_names_are_reserved() -> None:
    reserved = names.reserved_names("bali-2017")
    assert "random_bot" in reserved and all(name for name in reserved)


@pytest.mark.parametrize("name, owner, author, held", [
    ("alicebot", None, "alice", None),  # no one's yet
    ("alicebot", "alice", "alice", None),  # hers already
    ("alicebot", "alice", "bob", "alice"),  # someone else's
    ("random_bot", None, "alice", names.SAMPLE_BOT),  # a sample bot's
    ("random_bot", "alice", "alice", names.SAMPLE_BOT),  # whoever the store says
])
def test_a_name_is_its_first_uploaders(name: str, owner: str | None, author: str, held: str | None) -> None:
    assert names.taken_by(name, owner, author, {"random_bot"}) == held
