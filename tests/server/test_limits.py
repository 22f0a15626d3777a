"""The server's limits on what a request may cost: the slow hash of a secret is worked out on a few threads of its
own, so that the memory it takes stays with them whatever the number of requests at once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.competition.season import SeasonSettings
from arena.server.app import make_app
from arena.server.hosting import Hosting
from arena.server.limits import SLOW_CHECKS
from arena.storage import authors
from arena.tournament.formats.base import Play

AT_ONCE = 12  # requests with a token sent at once


def test_tokens_sent_at_once_are_hashed_on_at_most_slow_checks_threads(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    hosting = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                                     db=tmp_path / "arena.sqlite"))
    tokens = [hosting.store().add_author(f"author{i}")[1] for i in range(AT_ONCE)]
    hashed_on: list[str] = []
    lock = threading.Lock()
    real = authors.salted_hash

    def watched(secret: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
        with lock:
            hashed_on.append(threading.current_thread().name)
        return real(secret, salt)

    monkeypatch.setattr(authors, "salted_hash", watched)
    client = TestClient(make_app(hosting))
    with ThreadPoolExecutor(AT_ONCE) as pool:
        pages = list(pool.map(lambda t: client.get("/me", headers={"Authorization": f"Bearer {t}"}), tokens))
    assert [p.status_code for p in pages] == [200] * AT_ONCE
    assert all(f"author{i}: your bots" in page.text for i, page in enumerate(pages))
    assert len(hashed_on) >= AT_ONCE  # each token checked by the slow hash
    assert all(name.startswith("slow-check") for name in hashed_on), set(hashed_on)
    assert len(set(hashed_on)) <= SLOW_CHECKS


def test_a_wrong_token_is_still_refused_through_the_slow_check_threads(tmp_path: Path) -> None:
    hosting = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                                     db=tmp_path / "arena.sqlite"))
    author, token, _ = hosting.store().add_author("alice")
    client = TestClient(make_app(hosting))
    assert client.get("/me", headers={"Authorization": f"Bearer {token}x"}).status_code == 401
    assert client.get("/me", headers={"Authorization": f"Bearer {author.id}.nothing"}).status_code == 401
    assert client.get("/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
