"""A served season as data: /api/games paged by a cursor while the ladder plays, and the season's export tables
served as files, through a real `arena serve` and its real ladder of sample bots."""

from __future__ import annotations

import io
import json
import sqlite3

import pyarrow.parquet as pq
import pytest

from arena.match.record import load_record
from tests.helpers import wait_until
from tests.server.conftest import Server

pytestmark = pytest.mark.slow  # a real server whose ladder plays real games


def _stored(server: Server) -> list[tuple[int, int]]:
    """(cursor, number) of every finished game of the served ladder, in the order they were stored."""
    with sqlite3.connect(server.results / "arena.sqlite") as con:
        return con.execute("SELECT id, seq + 1 FROM games WHERE status = 'done' ORDER BY id").fetchall()


def test_paging_by_the_cursor_lists_every_game_once_while_games_come_in(server: Server) -> None:
    assert wait_until(lambda: len(_stored(server)) >= 6, 300), "the ladder played no games"
    seen: list[tuple[int, int]] = []
    with server.client() as c:
        after: int | None = 0
        while after is not None:
            page = c.get("/api/games", params={"after": after, "limit": 2})
            assert page.status_code == 200, page.text
            body = page.json()
            assert len(body["games"]) <= 2 and set(body) == {"games", "next"}
            seen += [(g["cursor"], g["number"]) for g in body["games"]]
            for g in body["games"]:
                assert g["url"] == f"/games/{g['number']}"
                assert {"seat", "bot", "version", "rank", "score", "faults"} <= set(g["seats"][0])
            after = body["next"]
        # Later games are found from the last game's cursor.
        assert wait_until(lambda: len(_stored(server)) > len(seen), 300), "no game came in"
        later = c.get("/api/games", params={"after": seen[-1][0]}).json()["games"]
        seen += [(g["cursor"], g["number"]) for g in later]
        assert seen == [g for g in _stored(server) if g[0] <= seen[-1][0]]  # none twice, none skipped
        assert len(set(n for _, n in seen)) == len(seen)
        for bad in ({"limit": "0"}, {"limit": "100000"}, {"after": "-1"}, {"after": "x"}, {"after": "9" * 30}):
            answer = c.get("/api/games", params=bad)
            assert answer.status_code == 400 and "error" in answer.json(), bad


def test_the_seasons_export_tables_are_served_as_files_and_kept_up_to_date(server: Server) -> None:
    with server.client() as c:
        assert wait_until(lambda: c.get("/api/export/export.json").status_code == 200, 300), "no export made"
        first = c.get("/api/export/export.json").json()
        # Made again as games come in.
        assert wait_until(lambda: c.get("/api/export/export.json").json() != first, 300), "never made again"
        manifest = c.get("/api/export/export.json").json()["formats"]
        tables = {t: pq.read_table(io.BytesIO(c.get(f"/api/export/{t}.parquet").content)).to_pylist()
                  for t in ("games", "seats", "decisions")}
        lines = {t: [json.loads(x) for x in c.get(f"/api/export/{t}.jsonl").text.splitlines()]
                 for t in ("games", "seats", "decisions")}
        for name in ("arena.sqlite", "..%2Farena.sqlite", "games.csv", ".games.parquet.partial"):
            assert c.get(f"/api/export/{name}").status_code == 404
    stored = [n for cursor, n in _stored(server) if cursor <= manifest["parquet"]["cursor"]]
    assert sorted(g["game"] for g in tables["games"]) == sorted(stored)
    with sqlite3.connect(server.results / "arena.sqlite") as con:
        replays = dict(con.execute("SELECT seq + 1, replay FROM games"))
    assert len(tables["decisions"]) == sum(len(load_record(server.results / replays[n]).decisions) for n in stored)
    assert len(tables["seats"]) == sum(g["players"] for g in tables["games"])
    if manifest["jsonl"]["cursor"] == manifest["parquet"]["cursor"]:
        assert lines == tables
