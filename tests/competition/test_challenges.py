"""What a challenge request may ask, checked against a real store before anything is queued."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.competition.challenges import ChallengeRefused, ask, play_some
from arena.competition.season import SeasonSettings
from arena.errors import ConfigError
from arena.storage import Store
from arena.storage.authors import Status
from arena.tournament.formats.base import Play


def _settings(tmp_path: Path, **quotas: int) -> SeasonSettings:
    return SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path, db=tmp_path / "arena.sqlite",
                          **quotas)  # type: ignore[arg-type]


@pytest.mark.parametrize("body, status, words", [
    ([], 400, 'send JSON {"bot": NAME'),
    ({"bot": "alicebot", "rivals": [], "games": 2}, 400, '"rivals" a list'),
    ({"bot": "alicebot", "rivals": ["bobbot", "bobbot"], "games": 2}, 400, "each once"),
    ({"bot": "alicebot", "rivals": ["bobbot"], "games": 0}, 400, "at least 1"),
    ({"bot": "alicebot", "rivals": ["bobbot"], "games": True}, 400, "whole number"),
    ({"bot": "alicebot", "rivals": ["bobbot"], "games": 2, "until": "soon"}, 400, '"until" is "decided"'),
    ({"bot": "bobbot", "rivals": ["alicebot"], "games": 2}, 404, "you have no bot 'bobbot'"),
    ({"bot": "alicebot", "rivals": ["nobody"], "games": 2}, 404, "no bot 'nobody'"),
    ({"bot": "alicebot", "rivals": ["alicebot"], "games": 2}, 400, "other bots"),
    ({"bot": "alicebot", "rivals": ["bobbot"], "games": 2, "version": "0.1"}, 400, 'go with "until"'),
    ({"bot": "alicebot", "rivals": ["alicebot"], "games": 9, "until": "decided", "version": "0.1",
      "rival_version": "0.1"}, 400, "two different versions"),
    ({"bot": "alicebot", "rivals": ["alicebot"], "games": 9, "until": "decided", "version": "0.1",
      "rival_version": "0.2"}, 409, "never admitted"),
    ({"bot": "alicebot", "rivals": ["alicebot"], "games": 9, "until": "decided", "version": "0.1",
      "rival_version": "7"}, 404, "no version '7'"),
    ({"bot": "alicebot", "rivals": ["bobbot"], "games": 201}, 429, "at most 200 games"),
])
def test_a_request_that_cannot_be_played_is_refused_with_its_reason(tmp_path: Path, body: object, status: int,
                                                                     words: str) -> None:
    settings = _settings(tmp_path)
    with Store(settings.db) as store:
        alice, _, _ = store.add_author("alice")
        bob, _, _ = store.add_author("bob")
        store.set_status(store.add_submission(alice, "alicebot", "0.1", str(tmp_path / "a")).id, Status.ADMITTED)
        store.set_status(store.add_submission(alice, "alicebot", "0.2", str(tmp_path / "b")).id, Status.REFUSED)
        store.set_status(store.add_submission(bob, "bobbot", "0.1", str(tmp_path / "c")).id, Status.ADMITTED)
        with pytest.raises(ChallengeRefused) as refused:
            ask(store, settings, alice, body)
        assert refused.value.status == status and words in str(refused.value), str(refused.value)
        assert store.unfinished_challenges() == []
        queued = ask(store, settings, alice, {"bot": "alicebot", "rivals": ["bobbot", "random_bot"], "games": 3})
        assert queued.status == "queued" and queued.rivals == ("bobbot", "random_bot")


@pytest.mark.parametrize("quotas", [{"challenges_per_day": 0}, {"challenge_games": 1}])
def test_quotas_that_could_never_be_met_are_refused_before_the_server_starts(tmp_path: Path,
                                                                            quotas: dict[str, int]) -> None:
    with pytest.raises(ConfigError, match="challenges_per_day must be at least 1 and challenge_games at least 2"):
        _settings(tmp_path, **quotas).check()


def test_a_challenge_that_ends_tells_its_authors_hooks_once(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with Store(settings.db) as store:
        alice, _, _ = store.add_author("alice")
        bob, _, _ = store.add_author("bob")
        hook = store.add_webhook(alice.id, "https://example.org/done", ("challenge_done",), b"s" * 16, 5)
        store.set_status(store.add_submission(alice, "alicebot", "0.1", str(tmp_path / "a")).id, Status.ADMITTED)
        rival = store.add_submission(bob, "bobbot", "0.1", str(tmp_path / "c"))
        store.set_status(rival.id, Status.ADMITTED)
        asked = ask(store, settings, alice, {"bot": "alicebot", "rivals": ["bobbot"], "games": 3})
        # The bot's folder was never there, so the challenge cannot be played: it ends with the reason.
        season = SimpleNamespace(settings=settings, stopping=threading.Event())
        play_some(season, store)  # type: ignore[arg-type]
        play_some(season, store)  # type: ignore[arg-type]  # nothing left to play, nothing told again
        done = store.challenge(asked.id)
        assert done is not None and done.status == "done" and "cannot be opened" in done.outcome["error"]
        due = store.due_deliveries(time.time(), 10)
        assert [(d.hook_id, d.event) for d in due] == [(hook, "challenge_done")]
        body = json.loads(due[0].body)
        assert body["challenge"] == asked.id and body["bot"] == "alicebot" and body["error"] == done.outcome["error"]
