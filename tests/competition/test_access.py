"""The one access policy of a hosted competition, case by case: the owner and the organiser see a bot's private
pages and an upload; no one else, and no one signed out."""

from __future__ import annotations

import pytest

from arena.competition import access
from arena.storage.authors import Author, Status, Submission

ALICE = Author(1, "alice", False, 0.0)
BOB = Author(2, "bob", False, 0.0)
ORGANISER = Author(3, "organiser", True, 0.0)


@pytest.mark.parametrize("viewer, owner, allowed", [
    (ALICE, "alice", True), (BOB, "alice", False), (ORGANISER, "alice", True), (None, "alice", False),
    (ALICE, None, False), (ORGANISER, None, True), (None, None, False),
])
def test_a_bots_private_pages_are_its_owners_and_the_organisers(viewer: Author | None, owner: str | None,
                                                                allowed: bool) -> None:
    assert access.may_see_bot(viewer, owner) is allowed


@pytest.mark.parametrize("viewer, allowed, listed", [(ALICE, True, "alice"), (BOB, False, "bob"),
                                                     (ORGANISER, True, None)])
def test_an_upload_is_its_authors_and_the_organisers(viewer: Author, allowed: bool, listed: str | None) -> None:
    upload = Submission(7, "alice", "alicebot", "1", "/x", Status.ADMITTED, "", 0.0, 0.0, "")
    assert access.may_see_submission(viewer, upload) is allowed
    assert access.whose_submissions(viewer) == listed


def test_the_organiser_lists_every_bot_an_author_their_own() -> None:
    assert access.bots_listed(ALICE, ["alicebot"], ["bobbot", "alicebot", "bobbot"]) == ["alicebot"]
    assert access.bots_listed(ORGANISER, [], ["bobbot", "alicebot", "bobbot"]) == ["alicebot", "bobbot"]


def test_a_private_replay_shows_only_the_bots_own_seats_logs_and_fault_details() -> None:
    data = {"decisions": [[0, "x"], [1, "y"], [0, "z"]], "logs": {"0": "mine", "1": "theirs", "2": "mine too"},
            "faults": [{"seat": 0, "kind": "timeout", "detail": "d0", "stderr": "s0"},
                       {"seat": 1, "kind": "illegal", "detail": "d1", "stderr": "s1"}], "other": 1}
    seen = access.private_view(data, {0})
    assert seen["logs"] == {"0": "mine", "2": "mine too"}
    assert seen["faults"] == [{"seat": 0, "kind": "timeout", "detail": "d0", "stderr": "s0"},
                              {"seat": 1, "kind": "illegal"}]
    assert seen["other"] == 1 and data["logs"]["1"] == "theirs"  # the data given is left as it was
