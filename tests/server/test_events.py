"""Live updates over server-sent events: what a stream sends, to whom, and its bounds (streams per client and in
all, each for a limited time). A real server on a free port, a real HTTP client."""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from arena.server.events import StreamLimits
from tests.server.conftest import Server, kit_bot, start, stop, upload, zipped

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that admits nothing and plays nothing, its streams ending after 3 seconds."""
    results = tmp_path_factory.mktemp("events") / "results"
    process, url = start(results, "--no-play", "--stream-seconds", "3")
    yield Server(url, results, process)
    assert stop(process) == 130


def _events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) of each event a stream sends, until it ends."""
    event = ""
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            yield event, line[6:]


def test_a_submission_s_status_is_streamed_to_its_author_only_and_the_stream_ends_when_decided(
        quiet: Server, tmp_path: Path) -> None:
    _, alice = quiet.author("alice")
    _, bob = quiet.author("bob")
    sid = upload(quiet, alice, zipped(kit_bot(tmp_path / "streamed"))).json()["id"]
    with quiet.client(bob) as c:
        answer = c.get(f"/events/submissions/{sid}")
        assert answer.status_code == 404 and "streamed" not in answer.text
    with quiet.client() as c:
        assert c.get(f"/events/submissions/{sid}").status_code == 404
    with quiet.client(alice) as c, c.stream("GET", f"/events/submissions/{sid}") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        seen = _events(stream.iter_lines())
        assert next(seen)[1].count('"status":"queued"') == 1
        with sqlite3.connect(quiet.results / "arena.sqlite") as db:  # as the admission would decide it
            db.execute("UPDATE submissions SET status = 'refused', reason = 'the build failed: no' WHERE id = ?",
                       (sid,))
        event, data = next(seen)
        assert event == "status" and '"status":"refused"' in data and "the build failed: no" in data
        assert list(seen) == []  # decided: the stream ends


def test_streams_are_bounded_per_client_and_each_ends_by_itself(quiet: Server) -> None:
    with quiet.client() as c, ExitStack() as held:
        streams = [held.enter_context(c.stream("GET", "/events/leaderboard")) for _ in range(4)]
        assert [s.status_code for s in streams] == [200] * 4
        answer = c.get("/events/leaderboard")
        assert answer.status_code == 429 and "most per client" in answer.json()["error"]
        first = _events(streams[0].iter_lines())
        event, data = next(first)
        assert event == "leaderboard" and data == '{"rows":[],"playing":[]}'
        assert list(first) == []  # nothing changed, and the stream ends after its seconds by itself
        for stream in streams[1:]:
            list(stream.iter_lines())
    with quiet.client() as c, c.stream("GET", "/events/leaderboard") as stream:
        assert stream.status_code == 200  # the slots were given back


def test_the_stream_limits_count_per_client_and_in_all() -> None:
    limits = StreamLimits(total=3, per_client=2)
    assert limits.take("a") is None and limits.take("a") is None
    assert "per client" in (limits.take("a") or "")
    assert limits.take("b") is None
    assert "most this server keeps" in (limits.take("c") or "")
    limits.give_back("a")
    assert limits.take("c") is None
