"""Entrant keys, declared once: a bot's first version plays under its name, a later one under NAME@VERSION."""

from __future__ import annotations

import pytest

from arena.storage.keys import bot_of, new_key, upload_version


@pytest.mark.parametrize("name, version, taken, key", [
    ("alpha", "1", set(), "alpha"),
    ("alpha", "2", {"alpha"}, "alpha@2"),
    ("alpha", "2", {"alpha", "alpha@2"}, "alpha@2-2"),
    ("alpha", "2", {"alpha", "alpha@2", "alpha@2-2"}, "alpha@2-3"),
    ("alpha", "2#7", {"alpha"}, "alpha@2#7"),
])
def test_a_new_key_is_the_name_then_name_at_version_numbered_past_those_taken(name: str, version: str,
                                                                               taken: set[str], key: str) -> None:
    assert new_key(name, version, taken) == key
    assert bot_of(key) == name  # every version's key begins with its bot's name


def test_an_uploads_version_tells_two_uploads_of_one_manifest_apart() -> None:
    assert upload_version("0.1", 7) != upload_version("0.1", 8)
    assert bot_of(new_key("bot", upload_version("0.1", 7), {"bot"})) == "bot"
